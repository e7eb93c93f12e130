"""Where an image fill comes from: base64 or a data URL, a file on the user's machine, or an https URL.

Whatever the source, the bytes are checked by their content (Pillow must recognise a PNG, JPEG or GIF; the name or
the server's content type do not count), capped in size, and refused as a decompression bomb when they claim more
pixels than the design tool takes.

A URL is fetched only from the public internet, under the policy of :mod:`design_console.clients.public_net`
(each hop's host checked and pinned; DESIGN_IMAGE_PRIVATE_HOSTS allows local servers). One deadline covers the whole
download, however slowly the server trickles its body.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import io
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx
from PIL import Image, UnidentifiedImageError

from design_console import __version__
from design_console.clients.downloads import read_at_most
from design_console.clients.public_net import Pins, checked_transport
from design_console.errors import DesignError, ErrorCode
from design_console.plugin_contract import FILL_FORMATS
from design_console.runtime.user_files import FileScope, read_bytes, resolve

#: The design tool's own limit for an image fill is 20 MB; larger ones are refused before they travel.
MAX_IMAGE_BYTES = 20 * 1024 * 1024
#: The design tool refuses images above 4096 px a side only at render time; this guards memory while decoding.
MAX_PIXELS = 50_000_000
MAX_REDIRECTS = 3
#: The longest wait for one connect or read.
FETCH_TIMEOUT = 20.0
#: The whole download, redirects included, must end within this many seconds.
FETCH_DEADLINE = 60.0
_BASE64 = re.compile(r"^[A-Za-z0-9+/\s]+={0,2}\s*$")


@dataclass(frozen=True, slots=True)
class LoadedImage:
    """Checked image bytes and what they are."""

    data: bytes
    format: str
    width: int
    height: int
    source: str


def check_image(data: bytes, source: str) -> LoadedImage:
    """Prove ``data`` is a PNG, JPEG or GIF within the limits, by decoding its header, whatever it was called."""
    if len(data) > MAX_IMAGE_BYTES:
        raise DesignError(
            ErrorCode.TOO_LARGE,
            f"The image from {source} is {len(data):,} bytes; the limit is {MAX_IMAGE_BYTES:,}.",
            "Use a smaller or more compressed image.",
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as img:
                kind = FILL_FORMATS.get(img.format or "")
                width, height = img.size
                img.verify()
    except (UnidentifiedImageError, Image.DecompressionBombWarning, Image.DecompressionBombError, OSError, SyntaxError):
        kind = None
        width = height = 0
    if kind is None:
        raise DesignError(
            ErrorCode.BAD_IMAGE, f"The data from {source} is not a PNG, JPEG or GIF image.", "Give a PNG, JPEG or GIF."
        )
    if width * height > MAX_PIXELS:
        raise DesignError(
            ErrorCode.BAD_IMAGE,
            f"The image from {source} is {width}×{height} px, too large to place.",
            "Scale it down first.",
        )
    return LoadedImage(data=data, format=kind, width=width, height=height, source=source)


def _base64_payload(text: str) -> bytes | None:
    """The bytes of base64 text (or a data URL), or None when the text is not base64 at all."""
    if text.startswith("data:"):
        header, _, body = text.partition(",")
        if ";base64" not in header:
            raise DesignError(
                ErrorCode.BAD_IMAGE, "Only base64 data URLs are supported.", "Encode the image as base64."
            )
        text = body
    elif len(text) < 64 or not _BASE64.match(text):
        return None
    try:
        return base64.b64decode(text, validate=False)
    except (binascii.Error, ValueError):
        return None


async def fetch_image(url: str, *, allow_private: bool = False) -> bytes:
    """GET an https image from a public address, following at most :data:`MAX_REDIRECTS` redirects, reading at
    most the size cap, all within :data:`FETCH_DEADLINE` seconds."""
    if urlsplit(url).scheme != "https":
        raise DesignError(
            ErrorCode.BAD_ARGUMENT, f"{url} is not an https URL.", "Give an https URL, a file path or base64."
        )

    async def https_only(request: httpx.Request) -> None:
        # Runs before every hop, so a redirect to plain http is refused before it is requested.
        if request.url.scheme != "https":
            raise DesignError(ErrorCode.BAD_ARGUMENT, f"{url} redirected to a non-https address.", "Use an https URL.")

    deadline = FETCH_DEADLINE
    pins = Pins(
        allow_private=allow_private, what="image URLs", instead="Pass the image as a file path or base64 instead"
    )
    try:
        async with (
            asyncio.timeout(deadline),
            httpx.AsyncClient(
                transport=checked_transport(pins, url),
                follow_redirects=True,
                max_redirects=MAX_REDIRECTS,
                timeout=FETCH_TIMEOUT,
                headers={"User-Agent": f"design-console-mcp/{__version__}"},
                event_hooks={"request": [https_only]},
            ) as client,
            client.stream("GET", url) as response,
        ):
            if response.status_code != 200:
                raise DesignError(
                    ErrorCode.FETCH_FAILED,
                    f"{url} answered HTTP {response.status_code}.",
                    "Check the URL in a browser.",
                )
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > MAX_IMAGE_BYTES:
                raise DesignError(
                    ErrorCode.TOO_LARGE,
                    f"{url} is {int(declared):,} bytes; the limit is {MAX_IMAGE_BYTES:,}.",
                    "Use a smaller image.",
                )
            body = await read_at_most(response, MAX_IMAGE_BYTES)
            if body is None:
                raise DesignError(
                    ErrorCode.TOO_LARGE, f"{url} sent more than {MAX_IMAGE_BYTES:,} bytes.", "Use a smaller image."
                )
            return body
    except TimeoutError:
        raise DesignError(
            ErrorCode.FETCH_FAILED,
            f"{url} did not finish sending the image within {deadline:g} s.",
            "Use a faster server, or pass the image as a file path or base64.",
        ) from None
    except httpx.TooManyRedirects:
        raise DesignError(
            ErrorCode.FETCH_FAILED, f"{url} redirected more than {MAX_REDIRECTS} times.", "Give the image's final URL."
        ) from None
    except httpx.HTTPError as exc:
        raise DesignError(
            ErrorCode.FETCH_FAILED, f"{url} could not be fetched: {exc}.", "Check the URL and network."
        ) from None


async def load_image(
    source: str, scope: FileScope | Callable[[], FileScope], *, allow_private: bool = False
) -> LoadedImage:
    """The image ``source`` names: a data URL or base64, an https URL (public addresses only, unless
    ``allow_private``), or a path within the session's scope (``scope`` may be a function giving it, called only for
    a path)."""
    text = source.strip()
    if text.startswith(("https://", "http://")):
        return check_image(await fetch_image(text, allow_private=allow_private), text)
    payload = _base64_payload(text)
    if payload is not None:
        try:
            return check_image(payload, "the base64 data")
        except DesignError:
            # A long relative path without dots can pass for base64: a file of that name wins.
            if text.startswith("data:") or not _is_file(text, scope):
                raise
    return check_image(read_bytes(text, _scope(scope), max_bytes=MAX_IMAGE_BYTES, argument="imageData"), text)


def _scope(scope: FileScope | Callable[[], FileScope]) -> FileScope:
    return scope if isinstance(scope, FileScope) else scope()


def _is_file(text: str, scope: FileScope | Callable[[], FileScope]) -> bool:
    try:
        return resolve(text, _scope(scope), argument="imageData").is_file()
    except DesignError:
        return False
