"""Image fills from every source, each checked by content: base64, data URLs, files within the scope, https URLs."""

from __future__ import annotations

import base64
import io
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.https_server import HttpsServer, https_server
from PIL import Image

from design_console.clients import addresses, image_source
from design_console.clients.image_source import MAX_REDIRECTS, load_image
from design_console.errors import DesignError
from design_console.runtime.user_files import FileScope


def _png(width: int = 3, height: int = 2) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 10, 10)).save(out, "PNG")
    return out.getvalue()


def _jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 4), (0, 0, 200)).save(out, "JPEG")
    return out.getvalue()


PNG = _png()


def _trickle() -> Iterator[bytes]:
    """A PNG header, then one byte every 0.2 s: each read is quick, the whole body is not."""
    yield PNG[:16]
    for _ in range(600):
        time.sleep(0.2)
        yield b"\0"


def _route(path: str) -> tuple[int, dict[str, str], bytes | Iterator[bytes]] | None:
    if path == "/trickle.png":
        return 200, {"Content-Type": "image/png"}, _trickle()
    if path.startswith("/to-host/"):
        return 302, {"Location": "https://" + path.removeprefix("/to-host/") + "/logo.png"}, b""
    if path == "/logo.png":
        return 200, {"Content-Type": "image/png"}, PNG
    if path == "/photo":
        # No extension and a wrong content type: the content decides.
        return 200, {"Content-Type": "text/plain"}, _jpeg()
    if path == "/fake.png":
        return 200, {"Content-Type": "image/png"}, b"<html>not an image</html>"
    if path.startswith("/hop/"):
        left = int(path.rsplit("/", 1)[1])
        return 302, {"Location": "/logo.png" if left == 0 else f"/hop/{left - 1}"}, b""
    if path == "/to-http":
        return 302, {"Location": "http://127.0.0.1:9/logo.png"}, b""
    if path == "/missing":
        return 404, {}, b""
    return None


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HttpsServer]:
    with https_server(tmp_path, _route) as srv:
        monkeypatch.setenv("SSL_CERT_FILE", str(srv.ca_file))
        yield srv


async def test_base64_and_data_urls() -> None:
    encoded = base64.b64encode(PNG).decode()
    for source in (encoded, f"data:image/png;base64,{encoded}"):
        image = await load_image(source, FileScope())
        assert (image.format, image.width, image.height, image.data) == ("png", 3, 2, PNG)


async def test_files_relative_to_the_apps_directory_and_within_its_roots(tmp_path: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    (project / "hero.jpg").write_bytes(_jpeg())
    image = await load_image("hero.jpg", FileScope(cwd=project, roots=(project,)))
    assert image.format == "jpeg"
    (tmp_path / "private.png").write_bytes(PNG)
    with pytest.raises(DesignError) as err:
        await load_image("../private.png", FileScope(cwd=project, roots=(project,)))
    assert err.value.code == "path_not_allowed"


async def test_a_long_dotless_path_is_read_as_a_file_not_base64(tmp_path: Path) -> None:
    name = "a" * 70
    (tmp_path / name).write_bytes(PNG)
    assert (await load_image(name, FileScope(cwd=tmp_path))).data == PNG


async def test_content_decides_not_the_name(tmp_path: Path) -> None:
    (tmp_path / "notes.png").write_text("hello, not a picture")
    with pytest.raises(DesignError, match="not a PNG, JPEG or GIF"):
        await load_image("notes.png", FileScope(cwd=tmp_path))


async def test_size_and_pixel_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "big.png").write_bytes(PNG)
    monkeypatch.setattr(image_source, "MAX_IMAGE_BYTES", len(PNG) - 1)
    with pytest.raises(DesignError) as err:
        await load_image("big.png", FileScope(cwd=tmp_path))
    assert err.value.code == "too_large"
    monkeypatch.setattr(image_source, "MAX_IMAGE_BYTES", 10_000_000)
    monkeypatch.setattr(image_source, "MAX_PIXELS", 5)
    with pytest.raises(DesignError, match="3×2 px"):
        await load_image(base64.b64encode(PNG).decode(), FileScope())


async def test_https_images_are_fetched_and_checked(server: HttpsServer) -> None:
    assert (await load_image(f"{server.base}/logo.png", FileScope(), allow_private=True)).data == PNG
    assert (await load_image(f"{server.base}/photo", FileScope(), allow_private=True)).format == "jpeg"
    with pytest.raises(DesignError, match="not a PNG, JPEG or GIF"):
        await load_image(f"{server.base}/fake.png", FileScope(), allow_private=True)
    with pytest.raises(DesignError, match="HTTP 404"):
        await load_image(f"{server.base}/missing", FileScope(), allow_private=True)


async def test_redirects_are_limited_and_must_stay_https(server: HttpsServer) -> None:
    assert (await load_image(f"{server.base}/hop/{MAX_REDIRECTS - 1}", FileScope(), allow_private=True)).data == PNG
    with pytest.raises(DesignError, match=f"more than {MAX_REDIRECTS} times"):
        await load_image(f"{server.base}/hop/{MAX_REDIRECTS}", FileScope(), allow_private=True)
    with pytest.raises(DesignError, match="non-https"):
        await load_image(f"{server.base}/to-http", FileScope(), allow_private=True)


async def test_plain_http_is_refused_before_any_request() -> None:
    with pytest.raises(DesignError, match="not an https URL"):
        await load_image("http://127.0.0.1:9/logo.png", FileScope())


async def test_oversized_downloads_stop_at_the_cap(server: HttpsServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(image_source, "MAX_IMAGE_BYTES", len(PNG) - 1)
    with pytest.raises(DesignError) as err:
        await load_image(f"{server.base}/logo.png", FileScope(), allow_private=True)
    assert err.value.code == "too_large"


async def test_loopback_and_private_addresses_are_refused_unless_allowed(server: HttpsServer) -> None:
    for url in (f"{server.base}/logo.png", server.base.replace("127.0.0.1", "localhost") + "/logo.png"):
        with pytest.raises(DesignError, match="DESIGN_IMAGE_PRIVATE_HOSTS") as err:
            await load_image(url, FileScope())
        assert "127.0.0.1" in err.value.message and err.value.code == "url_not_allowed"
    assert (await load_image(f"{server.base}/logo.png", FileScope(), allow_private=True)).data == PNG
    for address in ("10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "::1", "fe80::1", "100.64.0.1"):
        assert not addresses.is_public_address(address), address
    assert not addresses.is_public_address("::ffff:127.0.0.1") and not addresses.is_public_address("0.0.0.0")
    assert addresses.is_public_address("93.184.216.34") and addresses.is_public_address("2606:4700::1111")


async def test_each_redirect_hop_is_checked_after_name_resolution(
    server: HttpsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first hop's address counts as public here; the redirect leads to another loopback address, which is
    refused before any connection to it (nothing listens there: a connection would fail differently)."""
    monkeypatch.setattr(addresses, "is_public_address", lambda address: address == "127.0.0.1")
    port = server.base.rsplit(":", 1)[1]
    assert (await load_image(f"{server.base}/logo.png", FileScope())).data == PNG
    with pytest.raises(DesignError, match=r"127\.0\.0\.2.*private network"):
        await load_image(f"{server.base}/to-host/127.0.0.2:{port}", FileScope())


async def test_one_deadline_covers_the_whole_download(server: HttpsServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(image_source, "FETCH_DEADLINE", 1.0)
    started = time.monotonic()
    with pytest.raises(DesignError, match="within 1 s") as err:
        await load_image(f"{server.base}/trickle.png", FileScope(), allow_private=True)
    assert err.value.code == "fetch_failed"
    assert time.monotonic() - started < 10, "each byte came within the read timeout, the whole body did not"
