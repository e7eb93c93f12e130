"""Screenshot tools: export a node through the plugin, or render it through the design API when the plugin cannot.

Both run in the media worker. Raster images are checked, capped and re-encoded by
:mod:`design_console.clients.media` and returned as image blocks; SVG and PDF are returned as a note with the file
they were saved to. Every image is also kept in the per-user media folder for an hour.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from design_console.clients.media import (
    DEFAULT_JPEG_QUALITY,
    ImageFormat,
    decode_base64,
    process_image,
    save_media,
)
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools.args import FileArgs, NodeId
from design_console.tools.base import CHARS_PER_TOKEN, DEFAULT_RESULT_TOKENS, Args, image, media_read, ok
from design_console.tools.context import MediaContext
from design_console.tools.files import file_key_for

#: The plugin's export scale range; the design API's render range is wider (0.01..4).
BRIDGE_SCALE = (0.5, 4.0)
#: Bridge failures that mean "the plugin cannot do it now", after which the design API is tried.
BRIDGE_UNAVAILABLE = frozenset(
    {ErrorCode.NOT_CONNECTED, ErrorCode.UNKNOWN_FILE, ErrorCode.TIMEOUT, ErrorCode.DISCONNECTED, ErrorCode.BAD_REPLY}
)
#: SVG markup up to this size is returned inline as well as saved.
MAX_INLINE_SVG = DEFAULT_RESULT_TOKENS * CHARS_PER_TOKEN - 2000
BLANK_WARNING = (
    "The image is a single colour: the node may be hidden, empty or its id stale. "
    "Look the node id up again (design_get_selection or design_search_components) and retry."
)


class _BridgeImage(msgspec.Struct):
    base64: str
    format: str = "PNG"


class _BridgeCapture(msgspec.Struct):
    success: bool = True
    image: _BridgeImage | None = None
    error: str = ""


class _Capture(msgspec.Struct, kw_only=True):
    data: bytes
    format: Literal["png", "jpeg", "svg", "pdf"]
    source: Literal["bridge", "api"]
    node_id: str


async def _from_bridge(
    ctx: MediaContext, node_id: str | None, plugin_format: str, scale: float, file_key: str
) -> _Capture:
    params: dict[str, Any] = {"format": plugin_format, "scale": scale}
    if node_id:
        params["nodeId"] = node_id
    result = await ctx.bridge("CAPTURE_SCREENSHOT", params, file_key=file_key)
    try:
        capture = msgspec.convert(result, _BridgeCapture)
    except msgspec.ValidationError as exc:
        raise DesignError(
            ErrorCode.BAD_REPLY, f"The plugin's screenshot answer is malformed ({exc}).", "Reload the plugin and retry."
        ) from None
    if not capture.success or capture.image is None:
        raise DesignError(
            ErrorCode.PLUGIN_ERROR,
            f"The plugin could not capture the screenshot: {capture.error or 'it returned no image'}.",
            "Check the node id (it may be stale) and retry.",
        )
    data = decode_base64(capture.image.base64)
    kind = capture.image.format.upper()
    fmt: Literal["png", "jpeg", "svg"] = "svg" if kind == "SVG" else "jpeg" if kind in ("JPG", "JPEG") else "png"
    return _Capture(data=data, format=fmt, source="bridge", node_id=node_id or "current page")


async def _from_api(ctx: MediaContext, file_key: str, node_id: str, api_format: str, scale: float) -> _Capture:
    body = await ctx.api.request(
        "GET",
        f"/v1/images/{file_key}",
        params={"ids": node_id, "scale": scale, "format": api_format},
        cache="short",
    )
    images = body.get("images") if isinstance(body, dict) else None
    if not isinstance(images, dict):
        raise DesignError(ErrorCode.BAD_RESPONSE, "The design API's render answer has no images map.", "Try again.")
    url = images.get(node_id)
    if not isinstance(url, str) or not url:
        raise DesignError(
            ErrorCode.NOT_FOUND,
            f"The design API rendered nothing for node {node_id} (it may not exist, be hidden or be empty).",
            "Check the node id with design_get_file_data and retry.",
        )
    data = await ctx.api.get_bytes(url)
    fmt: Literal["png", "svg", "pdf"] = "svg" if api_format == "svg" else "pdf" if api_format == "pdf" else "png"
    return _Capture(data=data, format=fmt, source="api", node_id=node_id)


def _check_vector(capture: _Capture) -> None:
    head = capture.data[:2048].lstrip()
    ok_ = head.startswith(b"%PDF") if capture.format == "pdf" else b"<svg" in head or head.startswith(b"<?xml")
    if not ok_:
        raise DesignError(
            ErrorCode.BAD_IMAGE,
            f"The {capture.format.upper()} export of {capture.node_id} is not a valid {capture.format.upper()} file.",
            "Capture it again.",
        )


async def _deliver(
    ctx: MediaContext, capture: _Capture, *, output: ImageFormat | None, quality: int | None, scale: float
) -> ToolOutput:
    """Process a capture (raster: cap and re-encode; vector: check), save it, and build the tool result."""
    directory = ctx.config.media_dir
    meta: dict[str, Any] = {"nodeId": capture.node_id, "source": capture.source, "scale": scale}
    if capture.format in ("svg", "pdf"):
        _check_vector(capture)
        path = await asyncio.to_thread(
            save_media, directory, capture.data, name=capture.node_id, suffix=f".{capture.format}"
        )
        meta.update(format=capture.format, bytes=len(capture.data), file=str(path))
        meta["note"] = f"{capture.format.upper()} saved to {path} (kept for an hour); open or read that file."
        if capture.format == "svg" and len(capture.data) <= MAX_INLINE_SVG:
            meta["svg"] = capture.data.decode("utf-8", errors="replace")
        return ok(meta)
    processed = await asyncio.to_thread(process_image, capture.data, output=output or "png", quality=quality)
    path = await asyncio.to_thread(save_media, directory, processed.data, name=capture.node_id, suffix=processed.suffix)
    meta.update(
        format=processed.format,
        width=processed.width,
        height=processed.height,
        bytes=len(processed.data),
        file=str(path),
    )
    if processed.resized:
        meta["resizedFrom"] = {"width": processed.source_width, "height": processed.source_height}
    if processed.blank:
        meta["warning"] = BLANK_WARNING
    return image(processed.data, processed.mime_type, meta)


class TakeScreenshotArgs(FileArgs, kw_only=True):
    nodeId: NodeId | None = None
    scale: Annotated[float, Meta(ge=0.01, le=4)] = 2
    format: Literal["png", "jpg", "jpeg", "svg", "pdf"] = "png"
    quality: Annotated[int, Meta(ge=1, le=100, description="JPEG quality")] = DEFAULT_JPEG_QUALITY


@media_read(
    "design_take_screenshot",
    "Image of a node (default: current page) via the plugin, else the design API.",
    open_world=True,
)
async def take_screenshot(ctx: MediaContext, args: TakeScreenshotArgs) -> ToolOutput:
    explicit_key = file_key_for(ctx, args.fileUrl) if args.fileUrl else ""
    # The catalog names it jpg, the service spec jpeg: both mean the same.
    fmt = "jpg" if args.format == "jpeg" else args.format
    # A JPEG is encoded here from a lossless capture, so quality applies once and exactly.
    wire = {"png": "png", "jpg": "png", "svg": "svg", "pdf": "pdf"}[fmt]
    output: ImageFormat | None = "jpeg" if fmt == "jpg" else "png" if fmt == "png" else None
    quality = args.quality if fmt == "jpg" else None
    bridge_error: DesignError | None = None
    if fmt != "pdf":
        scale = min(max(args.scale, BRIDGE_SCALE[0]), BRIDGE_SCALE[1])
        try:
            capture = await _from_bridge(ctx, args.nodeId, wire.upper(), scale, explicit_key)
            return await _deliver(ctx, capture, output=output, quality=quality, scale=scale)
        except DesignError as err:
            if err.code not in BRIDGE_UNAVAILABLE:
                raise
            bridge_error = err
    if not args.nodeId:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            "The design API renders a node by id, and no nodeId was given"
            + (f" (the plugin could not capture the page: {bridge_error.message})." if bridge_error else "."),
            "Pass nodeId, or connect the Desktop Bridge plugin to capture the current page.",
        )
    try:
        capture = await _from_api(ctx, explicit_key or file_key_for(ctx, None), args.nodeId, wire, args.scale)
    except DesignError as api_error:
        if bridge_error is None:
            raise
        raise DesignError(
            bridge_error.code if api_error.code in (ErrorCode.NO_TOKEN, ErrorCode.NO_FILE) else api_error.code,
            f"The plugin could not capture the screenshot ({bridge_error.message.rstrip('.')}) and the design API "
            f"fallback failed too ({api_error.message.rstrip('.')}).",
            api_error.hint or bridge_error.hint,
        ) from None
    return await _deliver(ctx, capture, output=output, quality=quality, scale=args.scale)


class CaptureScreenshotArgs(Args, kw_only=True):
    nodeId: NodeId | None = None
    format: Literal["PNG", "JPG", "SVG"] = "PNG"
    scale: Annotated[float, Meta(ge=0.5, le=4)] = 1


@media_read(
    "design_capture_screenshot",
    "Plugin export of a node or the page as drawn now (long edge max 1568 px).",
    needs_bridge=True,
)
async def capture_screenshot(ctx: MediaContext, args: CaptureScreenshotArgs) -> ToolOutput:
    capture = await _from_bridge(ctx, args.nodeId, args.format, args.scale, "")
    output: ImageFormat | None = {"PNG": "png", "JPG": "jpeg", "SVG": None}[args.format]
    return await _deliver(ctx, capture, output=output, quality=None, scale=args.scale)
