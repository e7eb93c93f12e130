"""What an operator watches of the hosted service: ``/metrics`` in the Prometheus text format, and one JSON line per
request with its id (also sent back as ``X-Request-Id``).

The figures are few and cheap to keep (a dict increment per request, a histogram bucket per tool call), so they are
kept here rather than through a client library; the format is Prometheus text exposition 0.0.4. ``/metrics`` is
served only with DESIGN_REMOTE_METRICS_TOKEN set, to a request bearing that token, or with DESIGN_REMOTE_METRICS_BIND
set, on that listener alone (and to a request bearing the token when both are set).
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
import json
import logging
import secrets
import sys
import time
from collections.abc import Callable
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: Seconds: the upper bounds of the tool call latency histogram.
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
#: The logger of the request lines: one JSON object a line on stderr.
REQUEST_LOG = "design_console.remote.requests"

log = logging.getLogger(REQUEST_LOG)


class _Histogram:
    __slots__ = ("count", "counts", "total")

    def __init__(self) -> None:
        self.counts = [0] * len(BUCKETS)
        self.total = 0.0
        self.count = 0

    def observe(self, seconds: float) -> None:
        index = bisect.bisect_left(BUCKETS, seconds)
        if index < len(BUCKETS):
            self.counts[index] += 1
        self.total += seconds
        self.count += 1


def _labels(**values: str) -> str:
    inner = ",".join(f'{name}="{_escape(value)}"' for name, value in values.items())
    return "{" + inner + "}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Metrics:
    """The service's counters and gauges. ``gauges`` are read when scraped: name -> (help, how to read it)."""

    def __init__(self, endpoints: set[str]) -> None:
        self._endpoints = endpoints
        self.requests: dict[tuple[str, int], int] = {}
        self.tool_calls: dict[tuple[str, str], int] = {}
        self.tool_seconds: dict[str, _Histogram] = {}
        self.store_errors: dict[str, int] = {}
        self.store_operations: dict[str, int] = {}
        self.gauges: dict[str, tuple[str, str, Callable[[], float]]] = {}

    def endpoint(self, path: str) -> str:
        """The endpoint label of a path: one of the service's own, else ``other`` (labels stay few)."""
        return path if path in self._endpoints else "other"

    def request(self, path: str, status: int) -> None:
        key = (self.endpoint(path), status)
        self.requests[key] = self.requests.get(key, 0) + 1

    def tool_call(self, tool: str, outcome: str, seconds: float) -> None:
        """One tool call's outcome (``ok``, ``error`` or ``cancelled``) and how long it took."""
        self.tool_calls[(tool, outcome)] = self.tool_calls.get((tool, outcome), 0) + 1
        histogram = self.tool_seconds.get(tool)
        if histogram is None:
            histogram = self.tool_seconds[tool] = _Histogram()
        histogram.observe(seconds)

    def store_operation(self, operation: str) -> None:
        self.store_operations[operation] = self.store_operations.get(operation, 0) + 1

    def store_error(self, operation: str) -> None:
        self.store_errors[operation] = self.store_errors.get(operation, 0) + 1

    def gauge(self, name: str, kind: str, about: str, read: Callable[[], float]) -> None:
        """Report ``read()`` as ``name`` (``kind`` ``gauge`` or ``counter``) on each scrape."""
        self.gauges[name] = (kind, about, read)

    def render(self) -> bytes:
        """Every figure in the Prometheus text format."""
        lines: list[str] = []

        def family(name: str, kind: str, about: str) -> None:
            lines.append(f"# HELP {name} {about}")
            lines.append(f"# TYPE {name} {kind}")

        family("design_remote_requests_total", "counter", "HTTP requests answered, by endpoint and status.")
        for (endpoint, status), count in sorted(self.requests.items()):
            lines.append(f"design_remote_requests_total{_labels(endpoint=endpoint, status=str(status))} {count}")
        family("design_remote_tool_calls_total", "counter", "Tool calls, by tool and outcome.")
        for (tool, outcome), count in sorted(self.tool_calls.items()):
            lines.append(f"design_remote_tool_calls_total{_labels(tool=tool, outcome=outcome)} {count}")
        family("design_remote_tool_call_seconds", "histogram", "How long tool calls took, by tool.")
        for tool, histogram in sorted(self.tool_seconds.items()):
            running = 0
            for bound, count in zip(BUCKETS, histogram.counts, strict=True):
                running += count
                lines.append(f"design_remote_tool_call_seconds_bucket{_labels(tool=tool, le=repr(bound))} {running}")
            lines.append(f"design_remote_tool_call_seconds_bucket{_labels(tool=tool, le='+Inf')} {histogram.count}")
            lines.append(f"design_remote_tool_call_seconds_sum{_labels(tool=tool)} {histogram.total}")
            lines.append(f"design_remote_tool_call_seconds_count{_labels(tool=tool)} {histogram.count}")
        family("design_remote_store_operations_total", "counter", "Store operations asked, by operation.")
        for operation, count in sorted(self.store_operations.items()):
            lines.append(f"design_remote_store_operations_total{_labels(operation=operation)} {count}")
        family("design_remote_store_errors_total", "counter", "Store operations that failed, by operation.")
        for operation, count in sorted(self.store_errors.items()):
            lines.append(f"design_remote_store_errors_total{_labels(operation=operation)} {count}")
        for name, (kind, about, read) in sorted(self.gauges.items()):
            family(name, kind, about)
            lines.append(f"{name} {read()}")
        return ("\n".join(lines) + "\n").encode()


class CountingStore:
    """A store that counts its operations, and those that failed, in ``metrics`` (and otherwise is the store it
    wraps)."""

    def __init__(self, store: Any, metrics: Metrics) -> None:
        self._store = store
        self._metrics = metrics

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._store, name)
        if not callable(value) or name.startswith("_") or name == "redis":
            return value
        metrics = self._metrics

        async def counted(*args: Any, **kwargs: Any) -> Any:
            metrics.store_operation(name)
            try:
                return await value(*args, **kwargs)
            except Exception:
                metrics.store_error(name)
                raise

        return counted


class MetricsEndpoint:
    """``/metrics``: the figures for a request bearing the metrics token (any request when ``token`` is empty: the
    listener's address is then what keeps it private), 404 for any other."""

    def __init__(self, metrics: Metrics, token: str) -> None:
        self.metrics = metrics
        self._digest = hashlib.sha256(f"Bearer {token}".encode()).digest() if token else b""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        given = dict(scope.get("headers", [])).get(b"authorization", b"")
        if self._digest and not hmac.compare_digest(hashlib.sha256(given).digest(), self._digest):
            # The same answer as an unknown path: a scanner learns nothing of the endpoint.
            await _answer(send, 404, b"text/plain; charset=utf-8", b"Not Found")
            return
        await _answer(send, 200, b"text/plain; version=0.0.4; charset=utf-8", self.metrics.render())


async def _answer(send: Send, status: int, kind: bytes, body: bytes) -> None:
    headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def user_hash(scope: Scope) -> str:
    """A short, stable stand-in for the signed-in user of a request ("" without one): logs never carry the id."""
    user = scope.get("user")
    subject = user.access_token.subject if isinstance(user, AuthenticatedUser) else None
    return hashlib.sha256(subject.encode()).hexdigest()[:12] if subject else ""


class RequestLog:
    """Gives each HTTP request an id (sent back as ``X-Request-Id``), counts it in ``metrics`` and logs one JSON line:
    the id, method, path (no query), status, duration, user hash and tool (when the request called one)."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = secrets.token_hex(8)
        scope.setdefault("state", {})["request_id"] = request_id
        started = time.perf_counter()
        status = 0

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": [*message.get("headers", []), (b"x-request-id", request_id.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            self.metrics.request(scope["path"], status)
            if log.isEnabledFor(logging.INFO):
                state = scope.get("state", {})
                line = {
                    "ts": round(time.time(), 3),
                    "request_id": request_id,
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status,
                    "duration_ms": round(seconds * 1000, 2),
                    "user": user_hash(scope),
                    "tool": state.get("tool", ""),
                }
                log.info(json.dumps(line, separators=(",", ":")))


def install_request_log(level: int) -> None:
    """Write the request lines as bare JSON, one a line, on stderr (apart from the other log lines' format)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    log.handlers[:] = [handler]
    log.propagate = False
    log.setLevel(level)


def metrics_only(endpoint: MetricsEndpoint) -> ASGIApp:
    """The app of the metrics listener (DESIGN_REMOTE_METRICS_BIND): ``GET /metrics``, and 404 for anything else."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] == "/metrics" and scope["method"] in ("GET", "HEAD"):
            await endpoint(scope, receive, send)
            return
        await _answer(send, 404, b"text/plain; charset=utf-8", b"Not Found")

    return app
