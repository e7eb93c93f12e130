"""The fake design API itself: the behaviour the tool tests rely on, and the two ways of running it."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

from fakes.api_server import ApiServer
from fakes.design_api import ENTERPRISE_KEY, HISTORY_KEY, PERSONAL_TOKEN, STYLES_KEY, check_response

ROOT = Path(__file__).resolve().parents[2]
HEADERS = {"X-Figma-Token": PERSONAL_TOKEN}


@pytest.fixture
def fake(fake_api: ApiServer) -> tuple[str, Any]:
    return fake_api.url, fake_api.fake


def get(url: str, path: str, **params: Any) -> httpx.Response:
    return httpx.get(f"{url}{path}", params=params, headers=HEADERS, timeout=10)


def test_unknown_node_ids_map_to_null_and_known_ones_are_valid(fake: tuple[str, Any]) -> None:
    url, _ = fake
    answer = get(url, f"/v1/files/{ENTERPRISE_KEY}/nodes", ids="1:2,9:9,S:surface")
    assert answer.status_code == 200
    nodes = answer.json()["nodes"]
    assert nodes["9:9"] is None and nodes["1:2"]["document"]["name"] == "Button"
    assert nodes["S:surface"]["document"]["fills"][0]["color"]["r"] == 1
    body = answer.json()
    body["nodes"] = {k: v for k, v in nodes.items() if v is not None}
    check_response("GetFileNodesResponse", body)


def test_a_node_that_breaks_the_spec_fails_the_read_loudly(fake: tuple[str, Any]) -> None:
    url, api = fake
    content = api.files[ENTERPRISE_KEY].content()
    component = next(iter(content["components"].values()))
    component["key"], key = 7, component["key"]
    answer = get(url, f"/v1/files/{ENTERPRISE_KEY}/nodes", ids="1:2")
    assert answer.status_code == 599 and "GetFileNodesResponse/properties/nodes" in answer.text
    component["key"] = key
    content["lastModified"] = 7
    answer = get(url, f"/v1/files/{ENTERPRISE_KEY}/nodes", ids="9:9")
    assert answer.status_code == 599 and "GetFileNodesResponse invalid at ['lastModified']" in answer.text


def test_renders_are_real_files_of_the_format_asked(fake: tuple[str, Any]) -> None:
    url, _ = fake
    expected = {"png": b"\x89PNG", "jpg": b"\xff\xd8\xff", "svg": b"<svg", "pdf": b"%PDF-"}
    for fmt, magic in expected.items():
        images = get(url, f"/v1/images/{ENTERPRISE_KEY}", ids="1:3", format=fmt, scale=2).json()["images"]
        served = httpx.get(images["1:3"], timeout=10)
        assert served.status_code == 200 and served.content.startswith(magic), fmt
    png = get(url, f"/v1/images/{ENTERPRISE_KEY}", ids="2:1", format="png", scale=0.5).json()["images"]["2:1"]
    with Image.open(io.BytesIO(httpx.get(png, timeout=10).content)) as img:
        assert img.size == (188, 406) and img.getextrema() != ((255, 255), (255, 255), (255, 255))


def test_every_file_has_versions_and_touch_saves_one(fake: tuple[str, Any]) -> None:
    url, _ = fake
    first = get(url, f"/v1/files/{ENTERPRISE_KEY}/versions").json()["versions"]
    assert [v["id"] for v in first] == ["1"]
    httpx.post(f"{url}/_fake/touch/{ENTERPRISE_KEY}", timeout=10)
    after = get(url, f"/v1/files/{ENTERPRISE_KEY}/versions").json()["versions"]
    assert [v["id"] for v in after] == ["2", "1"]
    assert get(url, f"/v1/files/{ENTERPRISE_KEY}", version="1", depth=1).json()["version"] == "1"
    assert get(url, f"/v1/files/{ENTERPRISE_KEY}", version="7").status_code == 404
    paged = get(url, f"/v1/files/{HISTORY_KEY}/versions", page_size=10, before="1000030").json()
    assert [v["id"] for v in paged["versions"]][:2] == ["1000029", "1000028"]
    assert paged["pagination"]["next_page"].endswith("before=1000020")


def test_comments_on_any_file(fake: tuple[str, Any]) -> None:
    url, state = fake
    assert get(url, f"/v1/files/{STYLES_KEY}/comments").json() == {"comments": []}
    posted = httpx.post(
        f"{url}/v1/files/{STYLES_KEY}/comments", json={"message": "Hi"}, headers=HEADERS, timeout=10
    ).json()
    assert posted["message"] == "Hi" and state.last_body == {"message": "Hi"}
    gone = httpx.delete(f"{url}/v1/files/{STYLES_KEY}/comments/{posted['id']}", headers=HEADERS, timeout=10)
    assert gone.status_code == 200 and get(url, f"/v1/files/{STYLES_KEY}/comments").json() == {"comments": []}


def test_runs_as_a_module_from_the_repository_root() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.api_server", "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("LISTENING "), line
        port = int(line.split()[1])
        answer = get(f"http://127.0.0.1:{port}", f"/v1/files/{ENTERPRISE_KEY}/meta")
        assert answer.status_code == 200 and answer.json()["file"]["name"] == "Design System"
    finally:
        process.terminate()
        process.wait(10)
        if process.stdout:
            process.stdout.close()


def test_only_requests_to_the_api_are_logged(fake_api: ApiServer) -> None:
    """A local program probing loopback ports (DevTools discovery) is answered but never counted as a request."""
    httpx.get(f"{fake_api.url}/json/version", timeout=10)
    httpx.get(f"{fake_api.url}/v1/me", headers={"X-Figma-Token": "x"}, timeout=10)
    assert [r["path"] for r in fake_api.requests()] == ["/v1/me"]
