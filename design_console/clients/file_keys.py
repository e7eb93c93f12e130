"""Design file keys from what users paste: a file's URL or its bare key.

Apart from the design API client so that argument parsing (``tools/args.py``, loaded by designd at start) does not
import the HTTP stack.
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

from design_console.errors import DesignError, ErrorCode

_URL_KEY = re.compile(r"^/(?:file|design|board|slides|proto|deck|make|site)/([A-Za-z0-9]+)(?:/branch/([A-Za-z0-9]+))?")
_BARE_KEY = re.compile(r"^[A-Za-z0-9]{6,128}$")


def parse_file_key(url_or_key: str) -> str:
    """The file key of a design file URL (``/file/``, ``/design/``, ``/board/``, ``/slides/``, ``/proto/``…; a
    branch URL gives the branch key) or of a bare key; anything else raises ``DesignError(ErrorCode.BAD_ARGUMENT)``."""
    text = (url_or_key or "").strip()
    if _BARE_KEY.match(text):
        return text
    parsed = urlparse(text)
    if parsed.scheme in ("http", "https") and parsed.netloc:
        match = _URL_KEY.match(parsed.path)
        if match:
            return match.group(2) or match.group(1)
    raise DesignError(
        ErrorCode.BAD_ARGUMENT,
        f"{text[:120]!r} is not a design file URL or file key.",
        "Pass the file's URL (https://www.figma.com/design/<key>/<name>, from Share → Copy link) or its bare key.",
    )
