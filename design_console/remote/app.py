"""The hosted service as one ASGI app: MCP over ``/mcp`` and ``/sse``, OAuth, ``/health``.

With OAuth configured (DESIGN_OAUTH_CLIENT_ID, DESIGN_OAUTH_CLIENT_SECRET, DESIGN_TOKEN_KEYS) every MCP request needs
one of our bearer tokens, issued for this server's ``/mcp``, and tools call the design API as the signed-in user.
Without it the server still starts: the OAuth endpoints say which variable is missing, and MCP requests are served
with the deployer's DESIGN_ACCESS_TOKEN. DESIGN_REMOTE_API_KEY, when set, gates the MCP endpoints either way.
The hot messages of ``/mcp`` are answered by ``remote/lean.py``, those of ``/sse`` by ``remote/lean_sse.py``; the SDK
serves the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import hmac
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, cast
from urllib.parse import urlsplit

import msgspec
from mcp.server.auth.handlers.authorize import AuthorizationHandler
from mcp.server.auth.handlers.metadata import MetadataHandler, ProtectedResourceMetadataHandler
from mcp.server.auth.handlers.register import RegistrationHandler
from mcp.server.auth.handlers.token import TokenHandler
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, BearerAuthBackend
from mcp.server.auth.middleware.client_auth import ClientAuthenticator
from mcp.server.auth.settings import ClientRegistrationOptions
from mcp.server.lowlevel import Server
from mcp.server.sse import SseServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import RequestBodyLimitMiddleware, TransportSecuritySettings
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from design_console import __version__
from design_console.clients.design_api import DesignApi
from design_console.config import RemoteConfig
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.remote.browser import BrowserPool
from design_console.remote.flights import Flights
from design_console.remote.lean import LeanMcp, Listings, TokenCache
from design_console.remote.lean_io import read_body, replay_body
from design_console.remote.lean_sse import LeanSse
from design_console.remote.limits import PerAddressLimit
from design_console.remote.listing import ListChanges, UserListings
from design_console.remote.metrics import CountingStore, Metrics, MetricsEndpoint, RequestLog, metrics_only
from design_console.remote.oauth import (
    MAX_CHALLENGE_CHARS,
    MAX_STATE_CHARS,
    SCOPE,
    UPSTREAM_MARGIN,
    BindBrowser,
    OAuthServer,
    not_configured_error,
)
from design_console.remote.relay import Relays
from design_console.remote.serving import side_listener
from design_console.remote.store import Store, open_store
from design_console.remote.tools import (
    RemoteCallContext,
    build_server,
    remote_catalog,
    run_tool,
    scan_admission,
    user_states,
)

log = logging.getLogger("design_console.remote")

SERVICE_NAME = "Design Console MCP"
SSE_MESSAGES = "/messages/"
#: Paths of the health response, by group (spec 2.3).
ENDPOINTS = {
    "mcp": ["/mcp", "/sse", SSE_MESSAGES],
    "oauth_mcp_spec": [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/authorize",
        "/consent",
        "/token",
        "/oauth/register",
        "/revoke",
    ],
    "oauth_legacy": ["/oauth/authorize", "/oauth/callback"],
    "utility": ["/health"],
}
PURGE_INTERVAL = 60.0
#: Design API clients kept open (one per recently active user); the least recently used is closed beyond this.
MAX_API_CLIENTS = 256
#: The longest a user's platform token read from the store is used again without reading it anew (within
#: DESIGN_REMOTE_CACHE_SECONDS): half the refresh margin, so a token used from memory always has 30 s left.
UPSTREAM_TRUST_SECONDS = UPSTREAM_MARGIN / 2


class ApiKeyGate:
    """Refuses a request whose ``X-API-Key`` is not the deployer's key: 401 with body ``Unauthorized``."""

    def __init__(self, app: ASGIApp, key: str) -> None:
        self.app = app
        # Compared as digests so the comparison takes the same time whatever the lengths.
        self._digest = hashlib.sha256(key.encode()).digest()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        given = dict(scope.get("headers", [])).get(b"x-api-key", b"")
        if not hmac.compare_digest(hashlib.sha256(given).digest(), self._digest):
            await PlainTextResponse("Unauthorized", status_code=401)(scope, receive, send)
            return
        await self.app(scope, receive, send)


class RequireBearer:
    """Refuses a request without a valid token of ours: 401 whose ``WWW-Authenticate`` names the protected resource
    metadata and the scope to ask for (MCP authorization spec)."""

    def __init__(self, app: ASGIApp, metadata_url: str) -> None:
        self.app = app
        self._challenge = f'Bearer resource_metadata="{metadata_url}", scope="{SCOPE}"'

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user")
        if isinstance(user, AuthenticatedUser) and SCOPE in user.scopes:
            await self.app(scope, receive, send)
            return
        has_token = b"authorization" in dict(scope.get("headers", []))
        error = ', error="invalid_token"' if has_token else ""
        body = {"error": "invalid_token", "error_description": "A valid bearer token for this server is required."}
        await JSONResponse(body, status_code=401, headers={"WWW-Authenticate": self._challenge + error})(
            scope, receive, send
        )


class TokenResourceCheck:
    """Refuses a token request whose ``resource`` (RFC 8707) is not this server's, before the SDK's handler."""

    def __init__(self, app: ASGIApp, resource: str) -> None:
        self.app = app
        self.resource = resource

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await read_body(receive)
        request = Request(scope, replay_body(body))
        form = await request.form()
        resource = str(form.get("resource") or "")
        if resource and resource.rstrip("/") != self.resource:
            error = {"error": "invalid_target", "error_description": f"tokens are issued only for {self.resource}"}
            await JSONResponse(error, status_code=400, headers={"Cache-Control": "no-store"})(scope, receive, send)
            return
        await self.app(scope, replay_body(body, receive), send)


class ForgetsTokens:
    """A token exchange or revocation (either can end access tokens), after which the bearer checks held in memory
    are forgotten: a token ended here is refused here at once."""

    def __init__(self, app: ASGIApp, tokens: TokenCache) -> None:
        self.app = app
        self.tokens = tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        finally:
            self.tokens.clear()


class AuthorizeRequestLimits:
    """Refuses an authorization request with an oversized ``state`` or ``code_challenge`` with a plain 400, before
    the SDK's handler, which would echo the state back in a redirect."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await read_body(receive)
        request = Request(scope, replay_body(body))
        params = await request.form() if request.method == "POST" else request.query_params
        for name, limit in (("state", MAX_STATE_CHARS), ("code_challenge", MAX_CHALLENGE_CHARS)):
            value = params.get(name)
            if isinstance(value, str) and len(value) > limit:
                error = {"error": "invalid_request", "error_description": f"{name} is longer than {limit} characters"}
                await JSONResponse(error, status_code=400)(scope, receive, send)
                return
        await self.app(scope, replay_body(body, receive), send)


class _Endpoint:
    """A request handler as a plain ASGI app, so gates can wrap it (Starlette would treat a function as a handler)."""

    def __init__(self, handler: Any) -> None:
        self.handler = handler

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = await self.handler(Request(scope, receive, send))
        await response(scope, receive, send)


def freeze_startup_heap() -> None:
    """Put every object alive once the service has started (modules, the catalog, the SDK's models) out of the
    collector's reach: they live as long as the process, and a full collection walking them stalled every request
    for 150-350 ms every few seconds under load (the p99 of a cached read, the pairing race's wall time)."""
    gc.collect()
    gc.freeze()


def transport_security(config: RemoteConfig) -> TransportSecuritySettings:
    """DNS-rebinding protection: MCP requests must name this server (its public address, or the address it binds, for
    a load balancer's health checks and direct access) in ``Host``, and come from no browser page but its own."""
    public = urlsplit(config.base_url)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[public.netloc, f"{config.host}:{config.port}"],
        allowed_origins=[f"{public.scheme}://{public.netloc}"],
    )


def advertised(server: Server[Any]) -> dict[str, Any]:
    """The capabilities the SDK advertises for ``server``, in the form it sends them (no empty extensions)."""
    capabilities = server.create_initialization_options().capabilities
    wire = capabilities.model_dump(by_alias=True, mode="json", exclude_none=True)
    if not wire.get("extensions"):
        wire.pop("extensions", None)
    return wire


class RemoteService:
    """The hosted service's state: the store, OAuth (when configured), design API clients per user, MCP transports."""

    def __init__(self, config: RemoteConfig, store: Store | None = None) -> None:
        self.config = config
        paths = {path for group in ENDPOINTS.values() for path in group} | {"/ws/pair", "/metrics"}
        self.metrics = Metrics(paths)
        self.store: Store = cast(Store, CountingStore(store or open_store(config.store_url), self.metrics))
        self.oauth = OAuthServer(config, self.store) if not config.missing_oauth else None
        #: Bearer checks, trusted in memory for DESIGN_REMOTE_CACHE_SECONDS.
        self.tokens = TokenCache(self.oauth, config.cache_seconds) if self.oauth is not None else None
        #: Per user: the platform token, its client, and until when (monotonic) the token is used without reading the
        #: store; a plugin command needs no design API, but its context is built with the client.
        self._apis: OrderedDict[str, tuple[str, DesignApi, float]] = OrderedDict()
        self._trust = min(float(config.cache_seconds), UPSTREAM_TRUST_SECONDS)
        self._token_reads: Flights[str] = Flights()
        #: Upstream requests of the design API clients already closed (the counter never goes back).
        self._retired_upstream = 0
        self._closing: set[asyncio.Task[None]] = set()
        self.relays = Relays(config, self.store)
        self.browser = BrowserPool(config.base)
        #: Each user's pairing state, from memory while no instance says it changed (at most cache_seconds old).
        self.states = user_states(self.relays, self.browser, config.cache_seconds)
        self.changes = ListChanges(self.store, self.states.forget)
        self.relays.on_change = self.changes.changed
        self.tools = remote_catalog(config.base)
        self.scans = scan_admission(config.base)
        self.server = build_server(
            config.base,
            self.api_for,
            self.relays,
            self.subject_of,
            self.browser,
            tools=self.tools,
            scans=self.scans,
            changes=self.changes,
            states=self.states,
        )
        security = transport_security(config)
        self.sessions = StreamableHTTPSessionManager(
            app=self.server, max_request_body_size=config.max_body, security_settings=security
        )
        #: Who sees which tools: the one place the listing's dependencies are named (the lean path's cache key).
        self.listings = Listings(UserListings(self.tools, self.states))
        self.lean = LeanMcp(
            StreamableHTTPASGIApp(self.sessions),
            self.store,
            self.listings,
            self.run_tool,
            security,
            cache_seconds=config.cache_seconds,
            json_response=self.sessions.json_response,
            capabilities=advertised(self.server),
        )
        self.sse = SseServerTransport(SSE_MESSAGES, security_settings=security, max_request_body_size=config.max_body)
        self.lean_sse = LeanSse(
            SSE_MESSAGES,
            _Endpoint(self.handle_sse),
            self.sse.handle_post_message,
            self.listings,
            self.run_tool,
            security,
            self.changes,
            self.store,
            max_body=config.max_body,
            capabilities=advertised(self.server),
        )
        self._gauges()

    def _gauges(self) -> None:
        gauge = self.metrics.gauge
        gauge(
            "design_remote_active_sessions",
            "gauge",
            "MCP sessions this instance holds.",
            lambda: self.lean.active_sessions + self.lean_sse.active_sessions,
        )
        gauge(
            "design_remote_relays",
            "gauge",
            "Plugins connected to this instance's relay.",
            lambda: self.relays.connected,
        )
        gauge("design_remote_browser_busy", "gauge", "Browser calls running.", lambda: self.browser.status()["busy"])
        gauge(
            "design_remote_browser_sessions",
            "gauge",
            "Users with a browser context.",
            lambda: self.browser.status()["sessions"],
        )
        gauge(
            "design_remote_upstream_requests_total",
            "counter",
            "Requests sent to the design API.",
            lambda: (
                self._retired_upstream
                + sum(int(client.stats()["upstream_requests"]) for _, client, _ in self._apis.values())
            ),
        )
        gauge(
            "design_remote_upstream_refreshes_total",
            "counter",
            "Design platform tokens refreshed.",
            lambda: self.oauth.upstream_refreshes if self.oauth is not None else 0,
        )

    def subject_of(self, request: Request | None) -> str:
        """The signed-in user a request comes from ("" for the deployer when OAuth is off)."""
        if self.oauth is None:
            return ""
        user = request.scope.get("user") if request is not None else None
        if not isinstance(user, AuthenticatedUser) or not user.access_token.subject:
            raise DesignError(ErrorCode.UNAUTHORIZED, "This request carries no signed-in user.", "Sign in again.")
        return user.access_token.subject

    async def api_for(self, request: Request | None) -> DesignApi:
        """The design API client of the user a request comes from (the deployer's token when OAuth is off)."""
        subject = self.subject_of(request)
        if self.oauth is None:
            return self._client("", self.config.base.access_token)
        known = self._apis.get(subject)
        if known is not None and known[2] > time.monotonic():
            self._apis.move_to_end(subject)
            return known[1]
        oauth = self.oauth
        return self._client(subject, await self._token_reads.run(subject, lambda: oauth.upstream_token(subject)))

    async def run_tool(
        self,
        request: Request,
        name: str,
        arguments: dict[str, Any] | None,
        progress: Callable[[float, float | None, str], Awaitable[None]],
    ) -> ToolOutput:
        """Run one tool for the lean path's request, with the caller's context."""

        async def context() -> RemoteCallContext:
            api = await self.api_for(request)
            return RemoteCallContext(
                self.config.base,
                api,
                progress,
                self.relays,
                self.subject_of(request),
                self.browser,
                self.scans,
                self.states,
            )

        request.scope.setdefault("state", {})["tool"] = name
        label = name if name in self.tools else "unknown"
        started = time.perf_counter()
        outcome = "cancelled"
        try:
            output = await run_tool(self.tools, name, arguments, context)
            outcome = "error" if output.is_error else "ok"
            return output
        finally:
            self.metrics.tool_call(label, outcome, time.perf_counter() - started)

    def _client(self, subject: str, token: str) -> DesignApi:
        known = self._apis.get(subject)
        trusted = time.monotonic() + self._trust
        if known is not None and known[0] == token:
            self._apis[subject] = (token, known[1], trusted)
            self._apis.move_to_end(subject)
            return known[1]
        # Each user's client has a cache folder of its own: no user is ever answered from another's responses.
        folder = hashlib.sha256(subject.encode()).hexdigest()[:32] if subject else "deployer"
        config = msgspec.structs.replace(
            self.config.base, access_token=token, home=self.config.base.home / "remote-users" / folder
        )
        client = DesignApi(config)
        retired = [known[1]] if known is not None else []
        self._apis[subject] = (token, client, trusted)
        self._apis.move_to_end(subject)
        while len(self._apis) > MAX_API_CLIENTS:
            retired.append(self._apis.popitem(last=False)[1][1])
        for old in retired:
            self._retired_upstream += int(old.stats()["upstream_requests"])
            task = asyncio.get_running_loop().create_task(old.aclose())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
        return client

    def health(self, request: Request) -> Response:
        return JSONResponse(
            {
                "status": "healthy",
                "service": SERVICE_NAME,
                "version": __version__,
                "endpoints": ENDPOINTS,
                "oauth_configured": self.oauth is not None,
            }
        )

    async def handle_sse(self, request: Request) -> Response:
        async with self.sse.connect_sse(request.scope, request.receive, request._send) as (read, write):
            await self.server.run(read, write, self.server.create_initialization_options())
        return Response()

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        purger = asyncio.create_task(self._purge_periodically())
        await self.relays.start()
        await self.lean_sse.start()
        await self.changes.start()
        await self.browser.start()
        try:
            async with self.sessions.run(), self._metrics_listener():
                freeze_startup_heap()
                yield
        finally:
            await self.browser.stop()
            await self.relays.close()
            await self.lean_sse.close()
            await self.changes.close()
            purger.cancel()
            await asyncio.gather(purger, return_exceptions=True)
            for _, client, _ in self._apis.values():
                await client.aclose()
            if self.oauth is not None:
                await self.oauth.aclose()
            await self.store.close()

    def _metrics_listener(self) -> contextlib.AbstractAsyncContextManager[None]:
        """``/metrics`` on its own address when DESIGN_REMOTE_METRICS_BIND is set (nothing otherwise)."""
        if self.config.metrics_bind is None:
            return contextlib.nullcontext()
        host, port = self.config.metrics_bind
        endpoint = MetricsEndpoint(self.metrics, self.config.metrics_token)
        return side_listener(metrics_only(endpoint), host, port)

    async def _purge_periodically(self) -> None:
        while True:
            try:
                dropped = await self.store.purge()
                if dropped:
                    log.debug("purged %d expired entries", dropped)
            except Exception:
                log.exception("purging the store failed")
            await asyncio.sleep(PURGE_INTERVAL)

    # Routes ---------------------------------------------------------------------------------------------------------

    def _mcp_gate(self, app: ASGIApp) -> ASGIApp:
        if self.oauth is not None:
            app = RequireBearer(app, f"{self.config.base_url}/.well-known/oauth-protected-resource/mcp")
        if self.config.api_key:
            app = ApiKeyGate(app, self.config.api_key)
        return app

    def _forgets_tokens(self, app: ASGIApp) -> ASGIApp:
        return ForgetsTokens(app, self.tokens) if self.tokens is not None else app

    def routes(self) -> list[Route | Mount | WebSocketRoute]:
        lean = self.config.lean
        mcp_app = self.lean if lean else StreamableHTTPASGIApp(self.sessions)
        sse_app: ASGIApp = self.lean_sse.stream if lean else _Endpoint(self.handle_sse)
        messages_app = self.lean_sse.messages if lean else self.sse.handle_post_message
        routes: list[Route | Mount | WebSocketRoute] = [
            Route("/health", self.health, methods=["GET"]),
            Route("/mcp", self._mcp_gate(mcp_app)),
            Route("/sse", self._mcp_gate(sse_app), methods=["GET"]),
            Mount(SSE_MESSAGES, app=self._mcp_gate(messages_app)),
            # The plugin has no bearer token: a pairing code or its relay's credential is what it proves.
            WebSocketRoute("/ws/pair", self.relays.endpoint),
        ]
        if self.config.metrics_token and self.config.metrics_bind is None:
            routes.append(Route("/metrics", MetricsEndpoint(self.metrics, self.config.metrics_token), methods=["GET"]))
        return routes + (self._oauth_routes() if self.oauth is not None else self._oauth_unavailable())

    def _oauth_unavailable(self) -> list[Route | Mount]:
        message = not_configured_error(self.config.missing_oauth)

        async def unavailable(request: Request) -> Response:
            body = {"error": "temporarily_unavailable", "error_description": message}
            return JSONResponse(body, status_code=503)

        return [
            Route(path, unavailable, methods=["GET", "POST"])
            for path in ENDPOINTS["oauth_mcp_spec"] + ENDPOINTS["oauth_legacy"]
        ]

    def _oauth_routes(self) -> list[Route | Mount]:
        oauth = self.oauth
        assert oauth is not None
        base = self.config.base_url
        registration = ClientRegistrationOptions(enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE])
        # Plain strings: a URL object would add a trailing slash to the issuer and break exact issuer matching.
        metadata = OAuthMetadata.model_validate(
            {
                "issuer": base,
                "authorization_endpoint": f"{base}/authorize",
                "token_endpoint": f"{base}/token",
                "registration_endpoint": f"{base}/oauth/register",
                "revocation_endpoint": f"{base}/revoke",
                "scopes_supported": [SCOPE],
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic", "none"],
                "revocation_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic", "none"],
                "code_challenge_methods_supported": ["S256"],
            }
        )
        resource = ProtectedResourceMetadata.model_validate(
            {
                "resource": oauth.resource,
                "authorization_servers": [base],
                "scopes_supported": [SCOPE],
                "resource_name": SERVICE_NAME,
            }
        )
        authenticator = ClientAuthenticator(oauth)  # type: ignore[arg-type]
        resource_handler = ProtectedResourceMetadataHandler(resource).handle
        return [
            Route("/.well-known/oauth-authorization-server", MetadataHandler(metadata).handle, methods=["GET"]),
            Route("/.well-known/oauth-protected-resource", resource_handler, methods=["GET"]),
            Route("/.well-known/oauth-protected-resource/mcp", resource_handler, methods=["GET"]),
            Route(
                "/authorize",
                PerAddressLimit(
                    AuthorizeRequestLimits(BindBrowser(_Endpoint(AuthorizationHandler(oauth).handle))),  # type: ignore[arg-type]
                    self.store,
                    "authorize-rate",
                    self.config.authorize_rate,
                ),
                methods=["GET", "POST"],
            ),
            Route("/consent", oauth.consent_page, methods=["GET", "POST"]),
            Route(
                "/token",
                self._forgets_tokens(
                    TokenResourceCheck(_Endpoint(TokenHandler(oauth, authenticator).handle), oauth.resource)  # type: ignore[arg-type]
                ),
                methods=["POST"],
            ),
            Route(
                "/oauth/register",
                PerAddressLimit(
                    _Endpoint(RegistrationHandler(oauth, options=registration).handle),  # type: ignore[arg-type]
                    self.store,
                    "register-rate",
                    self.config.register_rate,
                ),
                methods=["POST"],
            ),
            Route("/revoke", self._forgets_tokens(_Endpoint(oauth.revoke)), methods=["POST"]),
            Route(
                "/oauth/authorize",
                PerAddressLimit(
                    _Endpoint(oauth.legacy_authorize), self.store, "authorize-rate", self.config.authorize_rate
                ),
                methods=["GET"],
            ),
            Route("/oauth/callback", oauth.callback, methods=["GET"]),
        ]


def build_app(config: RemoteConfig, store: Store | None = None) -> Starlette:
    """The hosted service's ASGI app."""
    service = RemoteService(config, store)
    middleware: list[Middleware] = []
    if service.oauth is not None and service.tokens is not None:
        backend = BearerAuthBackend(service.tokens, resource_server_url=AnyHttpUrl(service.oauth.resource))
        middleware = [Middleware(AuthenticationMiddleware, backend=backend), Middleware(AuthContextMiddleware)]
    app = Starlette(routes=service.routes(), middleware=middleware, lifespan=service.lifespan)
    app.state.service = service
    return app


def asgi_app(config: RemoteConfig) -> tuple[ASGIApp, RemoteService]:
    """:func:`build_app` behind the body-size limit (the app uvicorn serves): a larger body gets 413 before any
    handler reads it; every request gets an id, a count and a log line (``remote/metrics.py``). Also returns the
    service, whose relays the server drains on shutdown."""
    app = build_app(config)
    service: RemoteService = app.state.service
    return RequestLog(RequestBodyLimitMiddleware(app, config.max_body), service.metrics), service
