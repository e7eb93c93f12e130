"""Image processing and the media folder's lifetime rules, on real images and real files."""

from __future__ import annotations

import asyncio
import base64
import io
import os
import stat
import struct
import time
import zlib
from pathlib import Path

import pytest
from PIL import Image

from design_console.clients.media import (
    MEDIA_TTL_SECONDS,
    decode_base64,
    ensure_media_dir,
    process_image,
    save_media,
    sweep_media,
    sweep_periodically,
)
from design_console.errors import PREFIX, DesignError


def png(width: int, height: int, colour: tuple[int, ...] = (200, 30, 30, 255), *, stripe: bool = True) -> bytes:
    img = Image.new("RGBA", (width, height), colour)
    if stripe:
        for x in range(min(width, 10)):
            img.putpixel((x, 0), (0, 0, 255, 255))
    buffer = io.BytesIO()
    img.save(buffer, "PNG")
    return buffer.getvalue()


def decoded(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    img.load()
    return img


def test_small_png_passes_through_unchanged() -> None:
    data = png(40, 30)
    result = process_image(data)
    assert result.data == data
    assert (result.width, result.height, result.format, result.resized) == (40, 30, "png", False)
    assert result.mime_type == "image/png"


def test_long_edge_is_capped_and_aspect_kept() -> None:
    result = process_image(png(3000, 1500), max_edge=1568)
    img = decoded(result.data)
    assert img.format == "PNG"
    assert img.size == (1568, 784) == (result.width, result.height)
    assert (result.source_width, result.source_height) == (3000, 1500)
    assert result.resized


def test_tall_image_caps_height() -> None:
    result = process_image(png(100, 4000), max_edge=1000)
    assert (result.width, result.height) == (25, 1000)


def test_jpeg_output_flattens_alpha_over_white_and_honours_quality() -> None:
    transparent = png(64, 64, (0, 0, 0, 0), stripe=False)
    result = process_image(transparent, output="jpeg", quality=90)
    img = decoded(result.data)
    assert img.format == "JPEG" and img.mode == "RGB"
    assert img.getpixel((32, 32)) == pytest.approx((255, 255, 255), abs=2)
    noisy = Image.effect_noise((256, 256), 80).convert("RGB")
    buffer = io.BytesIO()
    noisy.save(buffer, "PNG")
    low = process_image(buffer.getvalue(), output="jpeg", quality=10)
    high = process_image(buffer.getvalue(), output="jpeg", quality=95)
    assert len(low.data) < len(high.data)
    assert low.mime_type == "image/jpeg" and low.suffix == ".jpg"


def test_jpeg_input_is_reencoded_only_when_needed() -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (50, 50), (10, 120, 10)).save(buffer, "JPEG", quality=80)
    data = buffer.getvalue()
    assert process_image(data, output="jpeg").data == data
    assert process_image(data, output="jpeg", quality=20).data != data
    as_png = process_image(data, output="png")
    assert decoded(as_png.data).format == "PNG"


def test_blank_images_are_flagged() -> None:
    assert process_image(png(20, 20, (0, 0, 0, 0), stripe=False)).blank
    assert process_image(png(20, 20, (9, 9, 9, 255), stripe=False)).blank
    assert not process_image(png(20, 20)).blank


@pytest.mark.parametrize("quality", [0, 101])
def test_quality_out_of_range_is_refused(quality: int) -> None:
    with pytest.raises(DesignError) as err:
        process_image(png(5, 5), output="jpeg", quality=quality)
    assert err.value.code == "bad_argument"


@pytest.mark.parametrize("data", [b"", b"not an image", png(10, 10)[:40]])
def test_garbage_is_a_clear_error(data: bytes) -> None:
    with pytest.raises(DesignError) as err:
        process_image(data)
    assert err.value.code == "bad_image"
    assert str(err.value).startswith(PREFIX)


def test_decompression_bomb_is_refused_without_decoding() -> None:
    """A tiny PNG whose header claims 20000×20000 pixels."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", 20000, 20000, 8, 2, 0, 0, 0)
    bomb = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")
    with pytest.raises(DesignError) as err:
        process_image(bomb)
    assert err.value.code == "bad_image"
    assert "too large" in err.value.message


def test_decode_base64_accepts_data_urls_and_whitespace() -> None:
    data = png(4, 4)
    text = base64.b64encode(data).decode()
    assert decode_base64(text) == data
    assert decode_base64("data:image/png;base64," + text) == data
    assert decode_base64(text[:10] + "\n" + text[10:]) == data
    with pytest.raises(DesignError) as err:
        decode_base64("***not base64***")
    assert err.value.code == "bad_image"


def test_media_dir_is_private(tmp_path: Path) -> None:
    directory = ensure_media_dir(tmp_path / "media")
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    directory.chmod(0o755)
    ensure_media_dir(directory)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_media_dir_symlink_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "media").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(DesignError) as err:
        ensure_media_dir(tmp_path / "media")
    assert err.value.code == "media_dir_unsafe"


def test_saved_files_are_private_and_named_safely(tmp_path: Path) -> None:
    path = save_media(tmp_path / "media", b"abc", name="../1:23 frame", suffix=".png")
    assert path.parent == tmp_path / "media"
    assert path.name.startswith("1-23-frame-") and path.suffix == ".png"
    assert path.read_bytes() == b"abc"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_sweep_removes_only_expired_files(tmp_path: Path) -> None:
    directory = ensure_media_dir(tmp_path / "media")
    old = save_media(directory, b"old", name="old", suffix=".png")
    fresh = save_media(directory, b"new", name="new", suffix=".png")
    keep_dir = directory / "sub"
    keep_dir.mkdir()
    past = time.time() - MEDIA_TTL_SECONDS - 5
    os.utime(old, (past, past))
    os.utime(keep_dir, (past, past))
    assert sweep_media(directory) == 1
    assert not old.exists() and fresh.exists() and keep_dir.exists()
    assert sweep_media(directory, now=time.time() + MEDIA_TTL_SECONDS + 5) == 1
    assert not fresh.exists()
    assert sweep_media(tmp_path / "missing") == 0


async def test_periodic_sweep_runs_at_start_and_stops_on_cancel(tmp_path: Path) -> None:
    directory = ensure_media_dir(tmp_path / "media")
    old = save_media(directory, b"old", name="old", suffix=".png")
    past = time.time() - MEDIA_TTL_SECONDS - 5
    os.utime(old, (past, past))
    counts: list[int] = []
    swept = asyncio.Event()

    def record(removed: int) -> None:
        counts.append(removed)
        swept.set()

    task = asyncio.create_task(sweep_periodically(directory, interval=3600, on_sweep=record))
    try:
        await asyncio.wait_for(swept.wait(), 5)
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert counts == [1]
    assert not old.exists()
