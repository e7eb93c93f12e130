"""The design API client against the fake API: auth, errors with next steps, 429 handling, timeouts, the cache."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fakes.api_server import ApiServer
from fakes.design_api import ENTERPRISE_KEY, OAUTH_TOKEN, PRO_KEY

from design_console.clients.design_api import DesignApi
from design_console.clients.file_keys import parse_file_key
from design_console.errors import PREFIX, DesignError


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("https://www.figma.com/file/AbCdEf123456/Name", "AbCdEf123456"),
        ("https://www.figma.com/design/AbCdEf123456/Name?node-id=1-2", "AbCdEf123456"),
        ("https://www.figma.com/design/AbCdEf123456/branch/BrAnCh987654/Name", "BrAnCh987654"),
        ("https://www.figma.com/board/AbCdEf123456/B", "AbCdEf123456"),
        ("https://www.figma.com/slides/AbCdEf123456/S", "AbCdEf123456"),
        ("https://www.figma.com/proto/AbCdEf123456/P", "AbCdEf123456"),
        ("  AbCdEf123456 ", "AbCdEf123456"),
    ],
)
def test_parse_file_key_accepts_urls_and_keys(text: str, key: str) -> None:
    assert parse_file_key(text) == key


@pytest.mark.parametrize("text", ["", "https://example.com/nothing", "not a key!", "https://www.figma.com/files/x"])
def test_parse_file_key_refuses_anything_else(text: str) -> None:
    with pytest.raises(DesignError) as err:
        parse_file_key(text)
    assert err.value.code == "bad_argument"
    assert str(err.value).startswith(PREFIX)


async def test_reads_a_file_with_a_personal_token(api: DesignApi) -> None:
    body = await api.request("GET", f"/v1/files/{ENTERPRISE_KEY}", params={"depth": 1})
    assert body["name"] == "Design System"
    assert [p["name"] for p in body["document"]["children"]] == ["Components", "Screens"]


async def test_oauth_token_goes_as_bearer(fake_api: ApiServer, home: Path) -> None:
    client = DesignApi(fake_api.client_config(home, token=OAUTH_TOKEN))
    try:
        body = await client.request("GET", f"/v1/files/{ENTERPRISE_KEY}/meta")
    finally:
        await client.aclose()
    assert body["file"]["name"] == "Design System"


async def test_no_token_says_how_to_get_one(fake_api: ApiServer, home: Path) -> None:
    client = DesignApi(fake_api.client_config(home, token=""))
    try:
        with pytest.raises(DesignError) as err:
            await client.request("GET", f"/v1/files/{ENTERPRISE_KEY}")
    finally:
        await client.aclose()
    assert err.value.code == "no_token"
    assert "DESIGN_ACCESS_TOKEN" in str(err.value)
    assert fake_api.requests() == []


async def test_wrong_token_is_unauthorized_and_never_echoed(fake_api: ApiServer, home: Path) -> None:
    secret = "figd_wrong-secret-value-42"
    client = DesignApi(fake_api.client_config(home, token=secret))
    try:
        with pytest.raises(DesignError) as err:
            await client.request("GET", f"/v1/files/{ENTERPRISE_KEY}")
    finally:
        await client.aclose()
    assert err.value.code == "unauthorized"
    assert secret not in str(err.value)
    assert "personal access token" in str(err.value)


async def test_unknown_file_is_not_found_with_a_next_step(api: DesignApi) -> None:
    with pytest.raises(DesignError) as err:
        await api.request("GET", "/v1/files/NoSuchFile000000000099")
    assert err.value.code == "not_found"
    assert "Share" in str(err.value)


async def test_unknown_query_parameter_is_refused_by_the_fake(api: DesignApi) -> None:
    with pytest.raises(DesignError) as err:
        await api.request("GET", f"/v1/files/{ENTERPRISE_KEY}", params={"colour": "red"})
    assert err.value.code == "bad_argument"
    assert "colour" in str(err.value)


async def test_variables_on_a_pro_plan_point_to_the_plugin(api: DesignApi) -> None:
    with pytest.raises(DesignError) as err:
        await api.request("GET", f"/v1/files/{PRO_KEY}/variables/local")
    assert err.value.code == "forbidden"
    assert "Enterprise" in str(err.value)
    assert "plugin" in str(err.value)


async def test_short_retry_after_is_waited_out(api: DesignApi, fake_api: ApiServer) -> None:
    fake_api.control("fail", {"path_prefix": f"/v1/files/{ENTERPRISE_KEY}", "status": 429, "retry_after": "1"})
    body = await api.request("GET", f"/v1/files/{ENTERPRISE_KEY}/meta")
    assert body["file"]["version"]
    assert api.stats()["rate_limited"] == 1
    assert len(fake_api.requests()) == 2


async def test_long_retry_after_says_how_long_and_why(api: DesignApi, fake_api: ApiServer) -> None:
    fake_api.control(
        "fail",
        {
            "path_prefix": f"/v1/files/{ENTERPRISE_KEY}",
            "status": 429,
            "retry_after": "600",
            "headers": {"X-Figma-Plan-Tier": "starter", "X-Figma-Rate-Limit-Type": "low"},
        },
    )
    with pytest.raises(DesignError) as err:
        await api.request("GET", f"/v1/files/{ENTERPRISE_KEY}/meta")
    assert err.value.code == "rate_limited"
    assert "10 min" in str(err.value)
    assert "starter" in str(err.value)
    assert len(fake_api.requests()) == 1


async def test_server_error_is_retried_once_then_reported(api: DesignApi, fake_api: ApiServer) -> None:
    fake_api.control("fail", {"path_prefix": f"/v1/files/{ENTERPRISE_KEY}", "status": 500, "times": 1})
    assert (await api.request("GET", f"/v1/files/{ENTERPRISE_KEY}/meta"))["file"]
    fake_api.control("fail", {"path_prefix": f"/v1/files/{ENTERPRISE_KEY}", "status": 500, "times": 2})
    with pytest.raises(DesignError) as err:
        await api.request("GET", f"/v1/files/{ENTERPRISE_KEY}/meta", cache="none")
    assert err.value.code == "upstream_error"
    assert "try again" in str(err.value)


async def test_slow_answer_times_out(fake_api: ApiServer, home: Path) -> None:
    client = DesignApi(fake_api.client_config(home), timeout=0.3)
    fake_api.control("delay", {"seconds": 2})
    try:
        with pytest.raises(DesignError) as err:
            await client.request("GET", f"/v1/files/{ENTERPRISE_KEY}/meta")
    finally:
        await client.aclose()
    assert err.value.code == "timeout"


async def test_repeated_read_is_served_from_the_cache(api: DesignApi, fake_api: ApiServer) -> None:
    path = f"/v1/files/{ENTERPRISE_KEY}"
    first = await api.request("GET", path, params={"depth": 2})
    again = await api.request("GET", path, params={"depth": 2})
    assert first == again
    assert len(fake_api.requests()) == 1
    stats = api.stats()
    assert stats["cache_hits"] == 1
    assert stats["requests_saved"] == 1


async def test_a_new_version_of_the_file_is_fetched_again(api: DesignApi, fake_api: ApiServer) -> None:
    path = f"/v1/files/{ENTERPRISE_KEY}"
    await api.request("GET", path, params={"depth": 1})
    fake_api.control(f"touch/{ENTERPRISE_KEY}")
    api._cache.note_version(ENTERPRISE_KEY, await _meta_version(api))
    body = await api.request("GET", path, params={"depth": 1})
    assert body["version"] == await _meta_version(api)
    assert sum(1 for r in fake_api.requests() if r["path"] == path) == 2


async def test_reads_in_flight_share_one_version_check(api: DesignApi, fake_api: ApiServer) -> None:
    path = f"/v1/files/{ENTERPRISE_KEY}/versions"
    first = await api.request("GET", path)  # a cached answer that carries no version of the file
    answers = await asyncio.gather(*(api.request("GET", path) for _ in range(20)))
    assert answers == [first] * 20
    assert sum(1 for r in fake_api.requests() if r["path"].endswith("/meta")) == 1
    assert sum(1 for r in fake_api.requests() if r["path"] == path) == 1


async def _meta_version(api: DesignApi) -> str:
    return (await api.request("GET", f"/v1/files/{ENTERPRISE_KEY}/meta", cache="none"))["file"]["version"]


async def test_pinned_answers_survive_a_new_client(api: DesignApi, fake_api: ApiServer, home: Path) -> None:
    params = {"ids": "1:3", "version": "1"}
    first = await api.request("GET", f"/v1/images/{ENTERPRISE_KEY}", params=params)
    other = DesignApi(fake_api.client_config(home))
    try:
        second = await other.request("GET", f"/v1/images/{ENTERPRISE_KEY}", params=params)
        assert other.stats()["cache_hits"] == 1
    finally:
        await other.aclose()
    assert first == second
    assert len(fake_api.requests()) == 1


async def test_get_bytes_downloads_a_render(api: DesignApi) -> None:
    body = await api.request("GET", f"/v1/images/{ENTERPRISE_KEY}", params={"ids": "1:3"})
    data = await api.get_bytes(body["images"]["1:3"])
    assert data.startswith(b"\x89PNG")
