"""Image work of the media worker: decode, cap the size, re-encode, and keep short-lived copies on disk.

Screenshots reach us as base64 from the plugin or as bytes from the design API's render URLs. Each is decoded with
Pillow (which also proves it is an image), its long edge capped so it fits what vision models take in, and
re-encoded as PNG (lossless) or JPEG (with a quality). A copy goes to the per-user media folder, where files live
for an hour; :func:`sweep_media` removes older ones and :func:`sweep_periodically` runs it for the worker's life.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import io
import logging
import os
import re
import secrets
import stat
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import msgspec

from design_console.errors import DesignError, ErrorCode
from design_console.runtime.platform.private import make_private_dir, open_to_others, owned_by_me, replace

# Pillow is imported by the functions that decode and encode, which run in the media worker: the screenshot tools
# that name this module are loaded by designd too, and Pillow would slow its start.
if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

ImageFormat = Literal["png", "jpeg"]

#: Longest side sent to a model: larger images are scaled down on the model side anyway, at our token cost.
DEFAULT_MAX_EDGE = 1568
DEFAULT_JPEG_QUALITY = 85
#: A screenshot file is deleted this long after it was written.
MEDIA_TTL_SECONDS = 3600
SWEEP_INTERVAL_SECONDS = 300
#: Encoded input larger than this is refused before decoding (bridge frames are capped at 64 MiB too).
MAX_INPUT_BYTES = 64 * 1024 * 1024
#: Decoded pixels above this are refused: a small file can claim a huge canvas (a decompression bomb).
MAX_PIXELS = 50_000_000

_MIME = {"png": "image/png", "jpeg": "image/jpeg"}
_SUFFIX = {"png": ".png", "jpeg": ".jpg"}
_PIL_FORMAT = {"PNG": "png", "JPEG": "jpeg", "MPO": "jpeg"}
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_-]+")


class ProcessedImage(msgspec.Struct, frozen=True, kw_only=True):
    """An image ready to return: encoded bytes, their format and size, and the size it arrived with."""

    data: bytes
    format: ImageFormat
    width: int
    height: int
    source_width: int
    source_height: int
    blank: bool = False

    @property
    def mime_type(self) -> str:
        return _MIME[self.format]

    @property
    def suffix(self) -> str:
        return _SUFFIX[self.format]

    @property
    def resized(self) -> bool:
        return (self.width, self.height) != (self.source_width, self.source_height)


def decode_base64(text: str) -> bytes:
    """Bytes of a base64 string, with or without a ``data:…;base64,`` prefix; raises DesignError ``bad_image``."""
    if text.startswith("data:"):
        _, _, text = text.partition(",")
    compact = "".join(text.split())
    if len(compact) > MAX_INPUT_BYTES * 4 // 3 + 4:
        raise DesignError(
            ErrorCode.BAD_IMAGE, "The image data is larger than 64 MiB.", "Capture a smaller node or scale."
        )
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        raise DesignError(
            ErrorCode.BAD_IMAGE,
            "The image data is not valid base64.",
            "Capture the screenshot again; if it repeats, reload the plugin with design_reload_plugin.",
        ) from None


def _too_large(detail: str) -> DesignError:
    return DesignError(
        ErrorCode.BAD_IMAGE, f"The image is too large ({detail}).", "Capture a smaller node or a lower scale."
    )


def _open(data: bytes) -> Image.Image:
    from PIL import Image, UnidentifiedImageError

    if len(data) > MAX_INPUT_BYTES:
        raise _too_large("more than 64 MiB")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
            if img.width * img.height > MAX_PIXELS:
                raise _too_large(f"{img.width}×{img.height} pixels")
            img.load()
    except (Image.DecompressionBombWarning, Image.DecompressionBombError):
        raise _too_large(f"more than {MAX_PIXELS:,} pixels") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise DesignError(
            ErrorCode.BAD_IMAGE, f"The image data could not be decoded ({exc}).", "Capture the screenshot again."
        ) from None
    return img


def _is_blank(img: Image.Image) -> bool:
    """True when every pixel is the same colour (spec: stale or hidden nodes export as blank images)."""
    extrema = img.getextrema()
    bands = extrema if isinstance(extrema[0], tuple) else (extrema,)
    if "A" in img.getbands() and bands[img.getbands().index("A")][1] == 0:
        return True
    return all(low == high for low, high in bands)


def _flatten(img: Image.Image) -> Image.Image:
    """An RGB copy for JPEG, transparent areas over white (JPEG has no alpha)."""
    from PIL import Image

    if img.mode in ("RGBA", "LA") or (img.mode == "P" and "transparency" in img.info):
        rgba = img.convert("RGBA")
        background = Image.new("RGB", rgba.size, (255, 255, 255))
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return img.convert("RGB")


def process_image(
    data: bytes,
    *,
    output: ImageFormat = "png",
    quality: int | None = None,
    max_edge: int = DEFAULT_MAX_EDGE,
) -> ProcessedImage:
    """Decode ``data``, cap its long edge at ``max_edge`` and encode it as ``output``.

    ``quality`` (1..100) sets JPEG quality; without it JPEG output uses 85, and an input already in the requested
    format and size is returned byte for byte. Raises DesignError ``bad_image`` for data Pillow cannot read.
    """
    if quality is not None and not 1 <= quality <= 100:
        raise DesignError(ErrorCode.BAD_ARGUMENT, f"quality={quality} is out of range.", "Use 1..100.")
    if max_edge < 1:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT, f"max_edge={max_edge} is out of range.", "Use a positive number of pixels."
        )
    from PIL import Image

    img = _open(data)
    source_format = _PIL_FORMAT.get(img.format or "")
    source_size = img.size
    blank = _is_blank(img)
    if max(source_size) > max_edge:
        img = img.copy()
        img.thumbnail((max_edge, max_edge), Image.Resampling.LANCZOS)
    elif source_format == output and (output == "png" or quality is None):
        return ProcessedImage(
            data=data, format=output, width=img.width, height=img.height,
            source_width=source_size[0], source_height=source_size[1], blank=blank,
        )  # fmt: skip
    buffer = io.BytesIO()
    if output == "jpeg":
        _flatten(img).save(buffer, "JPEG", quality=quality or DEFAULT_JPEG_QUALITY, optimize=True)
    else:
        if img.mode not in ("1", "L", "LA", "P", "RGB", "RGBA", "I", "I;16"):
            img = img.convert("RGBA")
        img.save(buffer, "PNG")
    return ProcessedImage(
        data=buffer.getvalue(), format=output, width=img.width, height=img.height,
        source_width=source_size[0], source_height=source_size[1], blank=blank,
    )  # fmt: skip


def ensure_media_dir(directory: Path) -> Path:
    """Create the media folder (0700) if needed and check that it is ours and private; returns it.

    Raises DesignError ``media_dir_unsafe`` when the path is a symlink or belongs to another user, since the files
    in it are screenshots of the user's designs.
    """
    make_private_dir(directory)
    info = directory.lstat()
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode) or not owned_by_me(info):
        raise DesignError(
            ErrorCode.MEDIA_DIR_UNSAFE,
            f"The media folder {directory} is not a folder owned by this user.",
            "Remove it, or set DESIGN_CONSOLE_HOME to a private folder, then try again.",
        )
    if open_to_others(info):
        directory.chmod(0o700)
    return directory


def save_media(directory: Path, data: bytes, *, name: str, suffix: str) -> Path:
    """Write ``data`` to a new 0600 file in the media folder and return its path.

    The file name starts with ``name`` (made safe for a file system) and ends with ``suffix``; the write is atomic,
    so a sweep or a reader never sees half a file.
    """
    ensure_media_dir(directory)
    safe = _UNSAFE_NAME.sub("-", name).strip("-")[:60] or "image"
    final = directory / f"{safe}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}{suffix}"
    fd, temp = tempfile.mkstemp(dir=directory, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temp, 0o600)
        replace(temp, final)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return final


def sweep_media(directory: Path, *, max_age: float = MEDIA_TTL_SECONDS, now: float | None = None) -> int:
    """Delete files in the media folder last written more than ``max_age`` seconds ago; returns how many.

    A missing folder is not an error. Sub-folders are left alone; entries that vanish meanwhile are skipped.
    """
    cutoff = (time.time() if now is None else now) - max_age
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except FileNotFoundError:
        return 0
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode) or info.st_mtime >= cutoff:
                continue
            os.unlink(entry.path)
            removed += 1
        except FileNotFoundError:
            continue
        except OSError as exc:
            log.warning("could not remove old media file %s: %s", entry.path, exc)
    return removed


async def sweep_periodically(
    directory: Path,
    *,
    interval: float = SWEEP_INTERVAL_SECONDS,
    max_age: float = MEDIA_TTL_SECONDS,
    on_sweep: Callable[[int], None] | None = None,
) -> None:
    """Sweep the media folder now and then every ``interval`` seconds until cancelled (run it as a task).

    ``on_sweep`` is called with the number of files removed after each sweep, for status reporting.
    """
    while True:
        try:
            removed = await asyncio.to_thread(sweep_media, directory, max_age=max_age)
        except OSError as exc:
            log.warning("media sweep of %s failed: %s", directory, exc)
        else:
            if removed:
                log.debug("removed %d expired media files from %s", removed, directory)
            if on_sweep is not None:
                on_sweep(removed)
        await asyncio.sleep(interval)
