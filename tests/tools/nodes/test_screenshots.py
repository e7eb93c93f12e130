"""Screenshot tools: the plugin path, the design API fallback (against the spec-validating fake), and the files."""

from __future__ import annotations

import base64
import io
import json
import stat
from pathlib import Path
from typing import Any

import pytest
from fakes.api_server import ApiServer
from fakes.context import FakeContext
from fakes.design_api import ENTERPRISE_KEY, FakeDesignApi
from PIL import Image
from starlette.requests import Request
from starlette.responses import Response

from design_console.clients.design_api import DesignApi
from design_console.config import load_config
from design_console.errors import DesignError
from design_console.protocol import ImageBlock, TextBlock, ToolOutput

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'


def picture(width: int, height: int, fmt: str = "PNG", *, blank: bool = False) -> bytes:
    img = Image.new("RGB", (width, height), (240, 240, 240))
    if not blank:
        for x in range(0, width, 7):
            img.putpixel((x, height // 2), (20, 90, 200))
    buffer = io.BytesIO()
    img.save(buffer, fmt)
    return buffer.getvalue()


class RenderingFake(FakeDesignApi):
    """The fake design API whose PNG renders are large (2400×1200), and blank for node 1:4; SVG and PDF renders are
    the fake's own."""

    async def control(self, request: Request) -> Response:
        path = request.url.path
        if path.startswith("/_fake/render/") and path.endswith(".png"):
            name = path.rsplit("/", 1)[-1]
            return Response(picture(40, 40, blank=True) if name.startswith("1-4.") else picture(2400, 1200))
        return await super().control(request)


class PluginStandIn:
    """Answers CAPTURE_SCREENSHOT as the Desktop Bridge plugin does, or fails as the daemon's bridge does."""

    def __init__(self) -> None:
        self.failure: DesignError | None = None
        self.answer: dict[str, Any] | None = None
        self.size = (3000, 1500)

    async def __call__(
        self, method: str, params: dict[str, Any] | None = None, *, file_key: str = "", timeout: float = 0.0
    ) -> dict[str, Any]:
        if self.failure is not None:
            raise self.failure
        if self.answer is not None:
            return self.answer
        fmt = (params or {})["format"]
        data = SVG if fmt == "SVG" else picture(*self.size, "JPEG" if fmt == "JPG" else "PNG")
        image = {"base64": base64.b64encode(data).decode(), "format": fmt, "width": self.size[0]}
        return {"success": True, "image": {**image, "height": self.size[1]}}


Harness = tuple[FakeContext, RenderingFake]


@pytest.fixture
def harness(ctx: FakeContext, fake_api: ApiServer) -> Harness:
    """The media worker's context, with the plugin stand-in and the rendering fake behind the design API."""
    ctx.plugin = PluginStandIn()
    ctx.active_file_key = ENTERPRISE_KEY
    fake = RenderingFake()
    fake_api.reset(fake)
    return ctx, fake


async def call(ctx: FakeContext, name: str, arguments: dict[str, Any]) -> ToolOutput:
    return await ctx.run(name, arguments)


def split(output: ToolOutput) -> tuple[dict[str, Any], ImageBlock | None]:
    assert not output.is_error
    meta_block = output.content[0]
    assert isinstance(meta_block, TextBlock)
    images = [b for b in output.content if isinstance(b, ImageBlock)]
    return json.loads(meta_block.text), (images[0] if images else None)


def on_disk(path: str | Path) -> tuple[bytes, int]:
    """Contents and permission bits of a file."""
    target = Path(path)
    return target.read_bytes(), stat.S_IMODE(target.stat().st_mode)


def _dir_mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def opened(block: ImageBlock) -> Image.Image:
    img = Image.open(io.BytesIO(block.data))
    img.load()
    return img


async def test_plugin_capture_is_capped_saved_and_described(harness: Harness) -> None:
    ctx, fake = harness
    meta, block = split(await call(ctx, "design_take_screenshot", {"nodeId": "1:2", "scale": 0.1}))
    assert ctx.bridge_calls == [("CAPTURE_SCREENSHOT", {"format": "PNG", "scale": 0.5, "nodeId": "1:2"}, "")]
    assert block is not None and block.mime_type == "image/png"
    assert opened(block).size == (1568, 784)
    assert meta["width"] == 1568 and meta["height"] == 784 and meta["format"] == "png"
    assert meta["source"] == "bridge" and meta["nodeId"] == "1:2" and meta["scale"] == 0.5
    assert meta["resizedFrom"] == {"width": 3000, "height": 1500}
    assert Path(meta["file"]).parent == ctx.config.media_dir
    assert on_disk(meta["file"]) == (block.data, 0o600)
    assert _dir_mode(ctx.config.media_dir) == 0o700
    assert fake.seen == [], "the design API is not asked when the plugin answers"


async def test_jpeg_quality_is_applied_to_a_lossless_capture(harness: Harness) -> None:
    ctx, _ = harness
    ctx.plugin.size = (600, 400)
    low_meta, low = split(await call(ctx, "design_take_screenshot", {"nodeId": "1:2", "format": "jpg", "quality": 5}))
    _, high = split(await call(ctx, "design_take_screenshot", {"nodeId": "1:2", "format": "jpg", "quality": 100}))
    assert {c[1]["format"] for c in ctx.bridge_calls} == {"PNG"}
    assert low is not None and high is not None and low.mime_type == "image/jpeg"
    assert opened(low).format == "JPEG" and len(low.data) < len(high.data)
    assert low_meta["format"] == "jpeg" and Path(low_meta["file"]).suffix == ".jpg"


async def test_jpeg_means_jpg(harness: Harness) -> None:
    ctx, fake = harness
    ctx.plugin.size = (600, 400)
    args = {"nodeId": "1:2", "quality": 40}
    jpg_meta, jpg = split(await call(ctx, "design_take_screenshot", {**args, "format": "jpg"}))
    jpeg_meta, jpeg = split(await call(ctx, "design_take_screenshot", {**args, "format": "jpeg"}))
    assert jpg is not None and jpeg is not None and jpeg.mime_type == "image/jpeg" and jpeg.data == jpg.data
    assert jpeg_meta["format"] == jpg_meta["format"] == "jpeg" and Path(jpeg_meta["file"]).suffix == ".jpg"
    assert [c[1]["format"] for c in ctx.bridge_calls] == ["PNG", "PNG"]
    ctx.plugin.failure = DesignError("not_connected", "No Desktop Bridge plugin is connected.")
    meta, block = split(await call(ctx, "design_take_screenshot", {**args, "format": "jpeg"}))
    assert meta["source"] == "api" and block is not None and opened(block).format == "JPEG"
    [render] = [r for r in fake.seen if r["path"].startswith("/v1/images/")]
    assert render["query"]["format"] == "png", "the design API renders losslessly; the JPEG is encoded here"


async def test_falls_back_to_the_design_api_when_no_plugin(harness: Harness) -> None:
    ctx, fake = harness
    ctx.plugin.failure = DesignError("not_connected", "No Desktop Bridge plugin is connected.")
    meta, block = split(await call(ctx, "design_take_screenshot", {"nodeId": "1:2", "scale": 0.25}))
    assert meta["source"] == "api" and meta["scale"] == 0.25
    assert block is not None and opened(block).size == (1568, 784)
    [render] = [r for r in fake.seen if r["path"].startswith("/v1/images/")]
    assert render["path"] == f"/v1/images/{ENTERPRISE_KEY}"
    assert render["query"] == {"ids": "1:2", "scale": "0.25", "format": "png"}


async def test_pdf_always_renders_through_the_design_api(harness: Harness) -> None:
    ctx, fake = harness
    output = await call(ctx, "design_take_screenshot", {"nodeId": "1:2", "format": "pdf"})
    meta, block = split(output)
    assert block is None and ctx.bridge_calls == []
    assert meta["format"] == "pdf" and meta["source"] == "api"
    pdf = on_disk(meta["file"])[0]
    assert pdf == fake.render(ENTERPRISE_KEY, "1-2.pdf", 2).body and Path(meta["file"]).suffix == ".pdf"
    assert pdf.startswith(b"%PDF-") and b"/MediaBox [0 0 600 80]" in pdf and pdf.endswith(b"%%EOF\n")


async def test_svg_renders_through_the_design_api_are_the_node_at_scale(harness: Harness) -> None:
    ctx, _ = harness
    ctx.plugin.failure = DesignError("not_connected", "No Desktop Bridge plugin is connected.")
    meta, block = split(await call(ctx, "design_take_screenshot", {"nodeId": "1:3", "format": "svg", "scale": 2}))
    assert block is None and meta["source"] == "api"
    svg = on_disk(meta["file"])[0]
    assert svg.startswith(b"<svg") and b'width="48" height="48"' in svg and b"<title>Icon/Star</title>" in svg


async def test_svg_from_the_plugin_is_a_note_with_the_file(harness: Harness) -> None:
    ctx, _ = harness
    meta, block = split(await call(ctx, "design_take_screenshot", {"format": "svg"}))
    assert block is None
    assert ctx.bridge_calls[0][1] == {"format": "SVG", "scale": 2}
    assert meta["nodeId"] == "current page" and meta["svg"].startswith("<svg")
    assert on_disk(meta["file"])[0] == SVG and "saved to" in meta["note"]


async def test_blank_render_carries_a_warning(harness: Harness) -> None:
    ctx, _ = harness
    ctx.plugin.failure = DesignError("timeout", "The plugin did not answer CAPTURE_SCREENSHOT in 30 s.")
    meta, _ = split(await call(ctx, "design_take_screenshot", {"nodeId": "1:4"}))
    assert "stale" in meta["warning"] and meta["source"] == "api"


async def test_plugin_refusals_are_not_retried_elsewhere(harness: Harness) -> None:
    ctx, fake = harness
    ctx.plugin.failure = DesignError("plugin_error", "Node 1:2 (Button) is hidden.")
    with pytest.raises(DesignError) as err:
        await call(ctx, "design_take_screenshot", {"nodeId": "1:2"})
    assert err.value.code == "plugin_error" and fake.seen == []


async def test_both_routes_failing_names_both_causes(harness: Harness, tmp_path: Path) -> None:
    ctx, _ = harness
    ctx.plugin.failure = DesignError("not_connected", "No Desktop Bridge plugin is connected.", "Run the plugin.")
    with pytest.raises(DesignError) as err:
        await call(ctx, "design_take_screenshot", {"nodeId": "9:99"})
    assert err.value.code == "not_found"
    assert "No Desktop Bridge plugin is connected" in err.value.message and "rendered nothing" in err.value.message
    with pytest.raises(DesignError) as err:
        await call(ctx, "design_take_screenshot", {})
    assert err.value.code == "bad_argument" and "nodeId" in err.value.hint
    tokenless = load_config({"HOME": str(tmp_path), "TMPDIR": str(tmp_path), "DESIGN_API_URL": "http://127.0.0.1:9"})
    api = DesignApi(tokenless)
    try:
        with pytest.raises(DesignError) as err:
            tokenless_ctx = FakeContext(tokenless, api=api, plugin=ctx.plugin, active_file_key=ENTERPRISE_KEY)
            await call(tokenless_ctx, "design_take_screenshot", {"nodeId": "1:2"})
    finally:
        await api.aclose()
    assert err.value.code == "not_connected" and "DESIGN_ACCESS_TOKEN" in str(err.value)


async def test_capture_screenshot_passes_plugin_jpeg_through(harness: Harness) -> None:
    ctx, _ = harness
    ctx.plugin.size = (800, 600)
    meta, block = split(await call(ctx, "design_capture_screenshot", {"nodeId": "2:1", "format": "JPG", "scale": 1}))
    sent = picture(800, 600, "JPEG")
    assert block is not None and block.data == sent and block.mime_type == "image/jpeg"
    assert meta["width"] == 800 and "resizedFrom" not in meta
    assert ctx.bridge_calls[0][1] == {"format": "JPG", "scale": 1, "nodeId": "2:1"}
    with pytest.raises(DesignError) as err:
        await call(ctx, "design_capture_screenshot", {"scale": 0.1})
    assert err.value.code == "bad_argument" and "scale" in str(err.value)


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        ({"success": True, "image": {"base64": "%%%", "format": "PNG"}}, "bad_image"),
        ({"success": True, "image": {"base64": base64.b64encode(b"junk").decode()}}, "bad_image"),
        ({"success": True, "image": {"format": "PNG"}}, "bad_reply"),
        ({"success": True, "image": "nope"}, "bad_reply"),
        ({"success": False, "error": "Node 1:2 has zero size"}, "plugin_error"),
    ],
)
async def test_bad_plugin_answers_are_clear_errors(harness: Harness, answer: dict[str, Any], code: str) -> None:
    ctx, _ = harness
    ctx.plugin.answer = answer
    with pytest.raises(DesignError) as err:
        await call(ctx, "design_capture_screenshot", {"nodeId": "1:2"})
    assert err.value.code == code
    assert str(err.value).startswith("[design-console-mcp] ")
