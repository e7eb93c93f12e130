"""Client of the design API (the design platform's public REST API, paths under ``/v1/``).

One :class:`DesignApi` per api worker. It adds the token (never logged, never echoed), bounds every request with a
timeout, honours ``429 Retry-After``, turns HTTP failures into :class:`DesignError` with a next step, and answers
repeated reads from :class:`~design_console.clients.api_cache.ApiCache`.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import re
import time
from typing import Any, Literal, TypedDict, Unpack
from urllib.parse import urlparse

import httpx
import msgspec

from design_console import __version__
from design_console.clients.api_cache import ApiCache, cache_key
from design_console.clients.downloads import read_at_most
from design_console.config import Config
from design_console.errors import DesignError, ErrorCode

log = logging.getLogger(__name__)

CacheMode = Literal["none", "short", "pinned"]


class RequestOptions(TypedDict, total=False):
    """What :meth:`DesignApi.request` passes on to :meth:`DesignApi.request_bytes` whole."""

    params: dict[str, Any] | None
    json: Any
    cache: CacheMode


REQUEST_TIMEOUT = httpx.Timeout(60.0, connect=10.0)
#: A 429 asking to wait at most this long is waited out and retried; a longer wait becomes an error at once.
MAX_RETRY_WAIT = 5.0
MAX_ATTEMPTS = 3
SERVER_ERROR_BACKOFF = 0.5
#: Rendered image URLs live 30 days upstream; cached ones are dropped a day early.
IMAGE_URL_LIFETIME = 29 * 24 * 3600.0
MAX_IMAGE_BYTES = 64 * 1024 * 1024
OAUTH_TOKEN_PREFIX = "figu_"

_TOKEN_HINT = (
    "Create a personal access token in the design tool (Settings → Security → Personal access tokens, with "
    "file content read access), set it as DESIGN_ACCESS_TOKEN in your AI app's MCP server config, and restart that "
    "app: its chats then bring the token to designd, which need not restart."
)
_FILE_PATH = re.compile(r"^/v1/files/([^/]+)")


class _VersionOnly(msgspec.Struct):
    version: str | None = None


class _MetaFile(msgspec.Struct):
    version: str | None = None


class _Meta(msgspec.Struct):
    file: _MetaFile = msgspec.field(default_factory=_MetaFile)


class _ErrorBody(msgspec.Struct):
    err: str | None = None
    message: str | None = None


def decode_json(data: bytes) -> Any:
    """Parse a design API body; a body that is not JSON raises ``DesignError(ErrorCode.BAD_RESPONSE)``."""
    try:
        return msgspec.json.decode(data)
    except msgspec.DecodeError:
        raise DesignError(
            ErrorCode.BAD_RESPONSE,
            "The design API answered with something that is not JSON.",
            "Check DESIGN_API_URL points at the design API, then try again.",
        ) from None


def _human(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def _retry_after(response: httpx.Response) -> float | None:
    raw = response.headers.get("Retry-After", "").strip()
    if not raw:
        return None
    if raw.isdigit():
        return float(raw)
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _query(params: dict[str, Any] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in (params or {}).items():
        if value is None:
            continue
        if isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif isinstance(value, list | tuple):
            out[name] = ",".join(str(v) for v in value)
        else:
            out[name] = str(value)
    return out


class DesignApi:
    """The design API over httpx, with auth, timeouts, rate-limit handling, error mapping and caching."""

    def __init__(self, config: Config, *, timeout: float | None = None) -> None:
        self.config = config
        self._config = config
        self._token = config.access_token
        self._client = httpx.AsyncClient(
            base_url=config.api_url,
            timeout=REQUEST_TIMEOUT if timeout is None else httpx.Timeout(timeout),
            headers={"User-Agent": f"design-console-mcp/{__version__}", "Accept": "application/json"},
        )
        self._cache = ApiCache(config.cache_dir)
        self._upstream = 0
        self._rate_limited = 0
        self._version_checks = 0
        #: The version checks in flight, by file: requests that find a file's version stale at once share one.
        self._checking: dict[str, asyncio.Future[str | None]] = {}

    # Public interface ---------------------------------------------------------------------------------------------

    async def request(self, method: str, path: str, **options: Unpack[RequestOptions]) -> Any:
        """Send one request and return its parsed JSON body; failures raise DesignError with a next step."""
        return decode_json(await self.request_bytes(method, path, **options))

    async def request_bytes(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        json: Any = None,
        cache: CacheMode = "short",
    ) -> bytes:
        """Like :meth:`request` but return the raw JSON body, for callers that parse large files their own way."""
        if not path.startswith("/v1/"):
            raise DesignError(ErrorCode.BAD_ARGUMENT, f"Design API paths start with /v1/, not {path[:60]!r}.")
        method = method.upper()
        query = _query(params)
        if method != "GET" or cache == "none":
            return await self._send(method, path, query, json)
        if "version" in query:
            cache = "pinned"
        key = cache_key(method, path, query)
        if cache == "pinned":
            return await self._pinned(key, path, query)
        return await self._short(key, path, query)

    async def file_version(self, file_key: str) -> str | None:
        """The file's current version, from what the cache knows or one cheap metadata request."""
        known = self._cache.known_version(file_key)
        if known is not None:
            return known
        # Without sharing, a busy client sent one metadata request per read in flight each time the version aged
        # out, and every one of those reads waited for its own.
        checking = self._checking.get(file_key)
        if checking is None:
            checking = self._checking[file_key] = asyncio.ensure_future(self._check_version(file_key))
            checking.add_done_callback(lambda _: self._checking.pop(file_key, None))
        return await asyncio.shield(checking)

    async def _check_version(self, file_key: str) -> str | None:
        self._version_checks += 1
        body = await self._send("GET", f"/v1/files/{file_key}/meta", {}, None)
        try:
            version = msgspec.json.decode(body, type=_Meta).file.version
        except msgspec.DecodeError:
            return None
        if version:
            self._cache.note_version(file_key, version)
        return version

    async def get_bytes(self, url: str) -> bytes:
        """Download a rendered image (or any URL the design API handed out); the token goes only to the API."""
        parsed = urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise DesignError(ErrorCode.BAD_ARGUMENT, "The image URL is not an http(s) URL.")
        headers = self._auth_headers() if url.startswith(self._config.api_url + "/") else {}
        try:
            async with self._client.stream("GET", url, headers=headers) as response:
                if response.status_code >= 300:
                    raise DesignError(
                        ErrorCode.UPSTREAM_ERROR,
                        f"Downloading the rendered image failed with HTTP {response.status_code}.",
                        "Render it again; rendered image URLs expire after 30 days.",
                    )
                body = await read_at_most(response, MAX_IMAGE_BYTES)
                if body is None:
                    raise DesignError(
                        ErrorCode.BAD_RESPONSE,
                        f"The rendered image is larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MB.",
                        "Render it at a smaller scale.",
                    )
                return body
        except httpx.TimeoutException:
            raise DesignError(ErrorCode.TIMEOUT, "Downloading the rendered image timed out.", "Try again.") from None
        except httpx.HTTPError as exc:
            raise DesignError(
                ErrorCode.UPSTREAM_ERROR, f"Downloading the rendered image failed ({type(exc).__name__})."
            ) from None

    def stats(self) -> dict[str, Any]:
        """Counters of the client: upstream requests sent, cache hits and misses, requests the cache saved."""
        return {
            "upstream_requests": self._upstream,
            "cache_hits": self._cache.hits,
            "cache_misses": self._cache.misses,
            "version_checks": self._version_checks,
            "requests_saved": self._cache.hits - self._version_checks,
            "bytes_saved": self._cache.bytes_saved,
            "rate_limited": self._rate_limited,
        }

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._client.aclose()

    # Caching ------------------------------------------------------------------------------------------------------

    async def _pinned(self, key: str, path: str, query: dict[str, str]) -> bytes:
        hit = self._cache.get_pinned(key)
        if hit is not None:
            return hit
        self._cache.miss()
        data = await self._send("GET", path, query, None)
        self._cache.put_pinned(key, data, lifetime=IMAGE_URL_LIFETIME if path.startswith("/v1/images/") else None)
        return data

    async def _short(self, key: str, path: str, query: dict[str, str]) -> bytes:
        match = _FILE_PATH.match(path)
        file_key = match.group(1) if match else ""
        version: str | None = None
        if file_key and self._cache.has_short(key) and not path.endswith("/meta"):
            version = await self.file_version(file_key)
        hit = self._cache.get_short(key, version)
        if hit is not None:
            return hit
        self._cache.miss()
        data = await self._send("GET", path, query, None)
        if file_key and version is None:
            version = self._version_in(file_key, path, data)
        self._cache.put_short(key, data, file_key=file_key, version=version)
        return data

    def _version_in(self, file_key: str, path: str, data: bytes) -> str | None:
        if path not in (f"/v1/files/{file_key}", f"/v1/files/{file_key}/nodes"):
            return self._cache.known_version(file_key)
        try:
            version = msgspec.json.decode(data, type=_VersionOnly).version
        except msgspec.DecodeError:
            return None
        if version:
            self._cache.note_version(file_key, version)
        return version

    # Transport ----------------------------------------------------------------------------------------------------

    def _auth_headers(self) -> dict[str, str]:
        if not self._token:
            raise DesignError(
                ErrorCode.NO_TOKEN, "No design API token is set (DESIGN_ACCESS_TOKEN is empty).", _TOKEN_HINT
            )
        if self._token.startswith(OAUTH_TOKEN_PREFIX):
            return {"Authorization": f"Bearer {self._token}"}
        return {"X-Figma-Token": self._token}

    async def _send(self, method: str, path: str, query: dict[str, str], json: Any) -> bytes:
        headers = self._auth_headers()
        for attempt in range(1, MAX_ATTEMPTS + 1):
            self._upstream += 1
            try:
                response = await self._client.request(method, path, params=query, json=json, headers=headers)
            except httpx.TimeoutException:
                raise DesignError(
                    ErrorCode.TIMEOUT,
                    f"The design API did not answer {method} {path} in time.",
                    "Try again; for a large file ask for less (nodeIds, a smaller depth).",
                ) from None
            except httpx.HTTPError as exc:
                raise DesignError(
                    ErrorCode.UPSTREAM_ERROR,
                    f"Could not reach the design API at {self._config.api_url} ({type(exc).__name__}).",
                    "Check the network connection and DESIGN_API_URL, then try again.",
                ) from None
            log.debug("%s %s -> %d (%d bytes)", method, path, response.status_code, len(response.content))
            status = response.status_code
            if status < 300:
                return response.content
            last = attempt == MAX_ATTEMPTS
            if status == 429:
                self._rate_limited += 1
                wait = _retry_after(response)
                if wait is not None and wait <= MAX_RETRY_WAIT and not last:
                    await asyncio.sleep(wait)
                    continue
                raise self._rate_limit_error(response, wait)
            if status >= 500 and method == "GET" and attempt == 1:
                await asyncio.sleep(SERVER_ERROR_BACKOFF)
                continue
            raise self._status_error(response, method, path)
        raise AssertionError("unreachable: the last attempt always returns or raises")

    def _upstream_message(self, response: httpx.Response) -> str:
        try:
            body = msgspec.json.decode(response.content, type=_ErrorBody)
            text = body.err or body.message or ""
        except msgspec.DecodeError:
            text = ""
        if self._token:
            text = text.replace(self._token, "***")
        return text.strip()[:200]

    def _rate_limit_error(self, response: httpx.Response, wait: float | None) -> DesignError:
        tier = response.headers.get("X-Figma-Plan-Tier", "")
        kind = response.headers.get("X-Figma-Rate-Limit-Type", "")
        why = "the design API rate limit for this token was reached"
        if tier or kind:
            why += f" (plan tier {tier or 'unknown'}, {kind or 'unknown'} limit)"
        if wait is None:
            return DesignError(
                ErrorCode.RATE_LIMITED,
                f"Too many requests: {why}.",
                "Wait a minute before calling again; repeated reads of the same file are answered from the cache.",
            )
        return DesignError(
            ErrorCode.RATE_LIMITED,
            f"Too many requests: {why}; it asks to wait {_human(wait)} before the next request.",
            f"Wait {_human(wait)} and call again; repeated reads of the same file are answered from the cache.",
        )

    def _status_error(self, response: httpx.Response, method: str, path: str) -> DesignError:
        status = response.status_code
        upstream = self._upstream_message(response)
        said = f" (HTTP {status}: {upstream})" if upstream else f" (HTTP {status})"
        if status == 401 or (status == 403 and "token" in upstream.lower()):
            return DesignError(
                ErrorCode.UNAUTHORIZED, f"The design API refused DESIGN_ACCESS_TOKEN{said}.", _TOKEN_HINT
            )
        if status == 403 and "/variables/" in path:
            return DesignError(
                ErrorCode.FORBIDDEN,
                f"The design API refused to read variables{said}: variables need an Enterprise plan over the API.",
                "Open the Desktop Bridge plugin in this file instead: it reads variables on every plan.",
            )
        if status == 403:
            return DesignError(
                ErrorCode.FORBIDDEN,
                f"The design API refused access to {path}{said}.",
                "Check that the file is shared with the token's account and that the token may read file content.",
            )
        if status == 404:
            return DesignError(
                ErrorCode.NOT_FOUND,
                f"The design API found nothing at {path}{said}.",
                "Check the file URL or key (Share → Copy link) and the node ids; a branch has its own key.",
            )
        if status == 400:
            return DesignError(
                ErrorCode.BAD_ARGUMENT,
                f"The design API rejected {method} {path}{said}.",
                "Fix the arguments (node ids look like 1:2) and call again.",
            )
        return DesignError(
            ErrorCode.UPSTREAM_ERROR,
            f"The design API failed on {method} {path}{said}.",
            "This is usually temporary: try again in a minute.",
        )
