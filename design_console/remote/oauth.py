"""The hosted service's OAuth: authorization server for AI clients, OAuth client of the design platform.

The flow: an AI client registers (RFC 7591), sends its user to ``/authorize`` with PKCE (S256) and ``resource`` (RFC
8707, which must be this server's ``/mcp``); the user approves that client on our consent page; we send them to the
design platform with a single-use ``state``; its callback gives us the user's platform tokens (sealed at rest, see
:mod:`crypto`) and we hand the client a short-lived single-use code, exchanged at ``/token`` for our own tokens.
Only hashes of our tokens are stored; refresh tokens rotate; platform tokens never leave this server.

The SDK's handlers check the protocol (client, redirect URI, PKCE, grant types); this module is the provider behind
them and the pages and callback they leave to the implementer.

The whole browser part of a sign-in is bound to the browser that started it at ``/authorize``: that response sets a
``__Host-`` cookie (Secure, HttpOnly, SameSite=Lax) whose hash the pending request keeps, and the consent page, its
decision (which also carries an anti-forgery token from the page) and the design platform's callback are refused in
any other browser. Otherwise an attacker could approve their own client in their own browser and send a victim only
the design platform's genuine sign-in link: the victim's platform code would end at the attacker's redirect URI.
Browsers keep ``Secure`` cookies from https and from loopback addresses only, so the service must be reached over
https (or on localhost while developing).
"""

from __future__ import annotations

import asyncio
import contextvars
import hmac
import html
import logging
import re
import time
import weakref
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx
import msgspec
from mcp.server.auth.middleware.client_auth import AuthenticationError, ClientAuthenticator
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    RegistrationError,
    TokenError,
    construct_redirect_uri,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from design_console import __version__
from design_console.config import RemoteConfig
from design_console.errors import DesignError, ErrorCode, format_error
from design_console.remote.crypto import TokenCipher, new_secret, token_hash
from design_console.remote.store import Store, store_lock

log = logging.getLogger("design_console.remote.oauth")
#: The page of a sign-in request that is no longer pending.
_GONE = "This sign-in request has expired or was already used. Start again from your AI app."

#: The client id of tokens issued through the older browser flow (``/oauth/authorize``).
LEGACY_CLIENT = "legacy-browser-sign-in"
#: The one scope of this server: use its MCP endpoints as the signed-in user.
SCOPE = "design"
CODE_TTL = 120
ACCESS_TTL = 3600
REFRESH_TTL = 30 * 24 * 3600
#: How long a user has to approve a client and sign in at the design platform.
PENDING_TTL = 600
#: Platform tokens are refreshed this long before they expire.
UPSTREAM_MARGIN = 60
UPSTREAM_TIMEOUT = httpx.Timeout(20.0, connect=10.0)
#: A registered client that no sign-in completed with is forgotten after this long.
UNUSED_CLIENT_TTL = 24 * 3600
#: The cookie that names the browser a sign-in started in (``__Host-``: only this host, path /, over a secure
#: context, so no other site or subdomain can plant one).
BROWSER_COOKIE = "__Host-design-console-browser"
# What an anonymous caller may make us store: a registration and an authorization request stay small.
MAX_CLIENT_NAME = 200
MAX_REDIRECT_URIS = 10
MAX_URI_CHARS = 2000
MAX_CLIENT_RECORD = 8192
#: Checked before the SDK's handler (``app.AuthorizeRequestLimits``), which would echo a huge state back.
MAX_STATE_CHARS = 1024
#: PKCE's S256 challenge is 43 characters; RFC 7636 allows a verifier of at most 128.
MAX_CHALLENGE_CHARS = 128
#: Loopback hosts a native app may listen on with plain http (RFC 8252 §7.3).
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
#: A private-use URI scheme is a reversed domain name the app owns, so it has a dot (RFC 8252 §7.1).
_PRIVATE_USE_SCHEME = re.compile(r"[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+")
#: The browser id of the ``/authorize`` request being handled (set by :class:`BindBrowser`).
_started_by: contextvars.ContextVar[str] = contextvars.ContextVar("started_by", default="")


class Pending(msgspec.Struct, kw_only=True):
    """An authorization request between ``/authorize`` and the design platform's callback."""

    client_id: str
    client_name: str
    redirect_uri: str
    explicit: bool
    state: str | None
    scopes: list[str]
    code_challenge: str
    resource: str
    #: Started at ``/oauth/authorize`` (the older flow): the callback shows the user a token to paste.
    legacy: bool = False
    #: The hash of the browser cookie of the browser that started the request.
    browser: str = ""
    #: The anti-forgery token of the consent form.
    csrf: str = ""


class Grant(msgspec.Struct, kw_only=True):
    """What one of our codes or tokens stands for (stored under the hash of the code or token)."""

    client_id: str
    scopes: list[str]
    resource: str
    subject: str
    expires_at: float
    #: Code: the PKCE challenge and redirect URI; token: the hash of the other token of its pair.
    code_challenge: str = ""
    redirect_uri: str = ""
    explicit: bool = True
    pair: str = ""
    #: Every token descended from one code shares it: a replayed code or refresh token ends them all.
    family: str = ""


class Upstream(msgspec.Struct, kw_only=True):
    """A user's design platform tokens (only ever stored sealed)."""

    access_token: str
    refresh_token: str
    expires_at: float


class _PlatformTokens(msgspec.Struct):
    access_token: str
    refresh_token: str = ""
    expires_in: float = 3600.0
    user_id: int | str | None = None
    user_id_string: str | None = None


class _Me(msgspec.Struct):
    id: str


def not_configured_error(missing: list[str]) -> str:
    """The error of an OAuth endpoint when the deployer did not set every OAuth secret."""
    return format_error(
        f"OAuth is not configured on this server: {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set.",
        "The deployer sets DESIGN_OAUTH_CLIENT_ID and DESIGN_OAUTH_CLIENT_SECRET (the design platform's OAuth app) "
        "and DESIGN_TOKEN_KEYS, then restarts the server.",
    )


def redirect_uri_allowed(uri: str) -> bool:
    """Whether a client may register ``uri``: https, plain http to a loopback address, or a private-use scheme
    (RFC 8252 §7); never ``javascript:``, ``data:``, ``file:``, plain http to another host, or a fragment."""
    try:
        parts = urlsplit(uri)
        host = parts.hostname or ""
    except ValueError:
        return False
    if parts.fragment:
        return False
    scheme = parts.scheme.lower()
    if scheme == "https":
        return bool(host)
    if scheme == "http":
        return host in LOOPBACK_HOSTS
    return bool(_PRIVATE_USE_SCHEME.fullmatch(scheme))


def _registration_problem(client: OAuthClientInformationFull, record: bytes) -> RegistrationError | None:
    uris = [str(uri) for uri in client.redirect_uris or []]
    if len(uris) > MAX_REDIRECT_URIS:
        return RegistrationError("invalid_redirect_uri", f"at most {MAX_REDIRECT_URIS} redirect_uris are accepted")
    for uri in uris:
        if len(uri) > MAX_URI_CHARS:
            return RegistrationError("invalid_redirect_uri", f"a redirect URI has more than {MAX_URI_CHARS} characters")
        if not redirect_uri_allowed(uri):
            return RegistrationError(
                "invalid_redirect_uri",
                f"{uri[:100]!r} is not accepted: use https, http to 127.0.0.1, [::1] or localhost, or a private-use "
                "scheme named after a domain you own (com.example.app:/callback)",
            )
    if len(client.client_name or "") > MAX_CLIENT_NAME:
        return RegistrationError("invalid_client_metadata", f"client_name is longer than {MAX_CLIENT_NAME} characters")
    if len(record) > MAX_CLIENT_RECORD:
        return RegistrationError(
            "invalid_client_metadata", f"the registration is {len(record)} bytes; at most {MAX_CLIENT_RECORD} are kept"
        )
    return None


def _browser_hash(request: Request) -> str:
    """The hash of the browser cookie ``request`` carries ("" without one)."""
    cookie = request.cookies.get(BROWSER_COOKIE, "")
    return token_hash(cookie) if cookie else ""


def _same_browser(pending: Pending, request: Request) -> bool:
    return bool(pending.browser) and hmac.compare_digest(pending.browser, _browser_hash(request))


def _browser_cookie(value: str) -> str:
    # A session cookie: it names the browser for the length of a sign-in, nothing longer.
    return f"{BROWSER_COOKIE}={value}; Path=/; Secure; HttpOnly; SameSite=Lax"


class BindBrowser:
    """Wraps ``/authorize``: gives the browser its cookie (a new one when it has none) and lets the authorization
    request that is being created record which browser started it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        cookie = Request(scope).cookies.get(BROWSER_COOKIE, "")
        fresh = not cookie
        cookie = cookie or new_secret()

        async def send_with_cookie(message: Message) -> None:
            if fresh and message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"set-cookie", _browser_cookie(cookie).encode())]
            await send(message)

        reset = _started_by.set(cookie)
        try:
            await self.app(scope, receive, send_with_cookie)
        finally:
            _started_by.reset(reset)


def _other_browser() -> HTMLResponse:
    return _page(
        "This sign-in was started in another browser. If you did not start it, close this page: someone may be "
        "trying to get access to your design account. Otherwise start again from your AI app, in this browser.",
        403,
    )


class OAuthServer:
    """The provider the SDK's OAuth handlers call, plus the consent page, the platform callback and the user's
    platform tokens for tool calls."""

    def __init__(self, config: RemoteConfig, store: Store) -> None:
        self.config = config
        self.store = store
        self.issuer = config.base_url
        self.resource = f"{config.base_url}/mcp"
        self.callback_url = f"{config.base_url}/oauth/callback"
        self._cipher = TokenCipher(config.token_keys)
        self._http = httpx.AsyncClient(
            timeout=UPSTREAM_TIMEOUT, headers={"User-Agent": f"design-console-mcp/{__version__}"}
        )
        # A user's lock lives while someone holds or waits for it.
        self._user_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        #: How many times a platform token was refreshed (benchmarks and tests read it).
        self.upstream_refreshes = 0
        self._authenticator = ClientAuthenticator(self)  # type: ignore[arg-type]

    async def aclose(self) -> None:
        await self._http.aclose()

    # Clients ------------------------------------------------------------------------------------------------------

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        raw = await self.store.get("client", client_id)
        return None if raw is None else OAuthClientInformationFull.model_validate_json(raw)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        record = client_info.model_dump_json().encode()
        problem = _registration_problem(client_info, record)
        if problem is not None:
            raise problem
        # Kept for good once a sign-in completes with it (see :meth:`_keep_client`).
        await self.store.put("client", client_info.client_id or "", record, UNUSED_CLIENT_TTL)

    async def _keep_client(self, client_id: str) -> None:
        raw = await self.store.get("client", client_id)
        if raw is not None:
            await self.store.put("client", client_id, raw)

    # Authorization --------------------------------------------------------------------------------------------------

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if not params.resource:
            raise AuthorizeError("invalid_target", f"resource is required; this server's resource is {self.resource}")
        if params.resource.rstrip("/") != self.resource:
            raise AuthorizeError("invalid_target", f"this server issues tokens only for {self.resource}")
        started_by = _started_by.get()
        pending = Pending(
            client_id=client.client_id or "",
            client_name=client.client_name or client.client_id or "",
            redirect_uri=str(params.redirect_uri),
            explicit=params.redirect_uri_provided_explicitly,
            state=params.state,
            scopes=params.scopes or [SCOPE],
            code_challenge=params.code_challenge,
            resource=self.resource,
            browser=token_hash(started_by) if started_by else "",
            csrf=new_secret(),
        )
        request_id = new_secret()
        await self.store.put("pending", request_id, msgspec.json.encode(pending), PENDING_TTL)
        return f"{self.config.base_url}/consent?{urlencode({'request': request_id})}"

    async def _pending(self, request: Request, request_id: str) -> Pending | Response:
        """The sign-in request ``request_id``, or the page that answers when it is gone or another browser's."""
        raw = await self.store.get("pending", request_id)
        if raw is None:
            return _page(_GONE, 400)
        pending = msgspec.json.decode(raw, type=Pending)
        return pending if _same_browser(pending, request) else _other_browser()

    async def consent_page(self, request: Request) -> Response:
        """GET shows which client asks for access; POST approves (on to the design platform) or denies it. Both only
        in the browser that started the request, and the POST only with the page's anti-forgery token."""
        if request.method == "GET":
            request_id = request.query_params.get("request", "")
            pending = await self._pending(request, request_id)
            if isinstance(pending, Response):
                return pending
            return _consent_form(request_id, pending, await self._allowed_before(pending))
        form = await request.form()
        request_id = str(form.get("request", ""))
        pending = await self._pending(request, request_id)
        if isinstance(pending, Response):
            return pending
        if not hmac.compare_digest(pending.csrf, str(form.get("csrf", ""))):
            return _page("This form was not sent from our consent page. Start again from your AI app.", 403)
        # Taken only now: a refused attempt from elsewhere does not spend the user's own request.
        if await self.store.take("pending", request_id) is None:
            return _page(_GONE, 400)
        if form.get("decision") != "allow":
            return RedirectResponse(
                construct_redirect_uri(
                    pending.redirect_uri, error="access_denied", error_description="denied", state=pending.state
                ),
                status_code=302,
            )
        return await self._to_platform(pending)

    async def _allowed_before(self, pending: Pending) -> bool:
        """Whether the user last signed in from this browser allowed this client before."""
        subject = await self.store.get("browser-user", pending.browser)
        if subject is None:
            return False
        return await self.store.get("approved", _approval(subject.decode(), pending)) is not None

    async def legacy_authorize(self, request: Request) -> Response:
        """The older flow, for clients that only take a fixed header: the user signs in here in a browser and is
        shown a bearer token of ours to put in the client's ``Authorization`` header."""
        cookie = request.cookies.get(BROWSER_COOKIE, "") or new_secret()
        pending = Pending(
            client_id=LEGACY_CLIENT,
            client_name=LEGACY_CLIENT,
            redirect_uri="",
            explicit=False,
            state=None,
            scopes=[SCOPE],
            code_challenge="",
            resource=self.resource,
            legacy=True,
            browser=token_hash(cookie),
        )
        response = await self._to_platform(pending)
        response.headers.append("set-cookie", _browser_cookie(cookie))
        return response

    async def _to_platform(self, pending: Pending) -> Response:
        state = new_secret()
        await self.store.put("state", state, msgspec.json.encode(pending), PENDING_TTL)
        query = {
            "client_id": self.config.base.oauth_client_id,
            "redirect_uri": self.callback_url,
            "scope": self.config.oauth_scopes,
            "state": state,
            "response_type": "code",
        }
        return RedirectResponse(f"{self.config.oauth_authorize_url}?{urlencode(query)}", status_code=302)

    async def callback(self, request: Request) -> Response:
        """The design platform sends the user back here; the client gets our code at its redirect URI."""
        raw = await self.store.take("state", request.query_params.get("state", ""))
        if raw is None:
            return _page("This sign-in link has expired or was already used. Start again from your AI app.", 400)
        pending = msgspec.json.decode(raw, type=Pending)
        if not _same_browser(pending, request):
            log.warning("a sign-in callback came from a browser that did not start the sign-in; refused")
            return _other_browser()
        code = request.query_params.get("code", "")
        if pending.legacy:
            return await self._legacy_callback(code)
        if not code:
            error = request.query_params.get("error", "access_denied")
            return RedirectResponse(
                construct_redirect_uri(pending.redirect_uri, error=error, state=pending.state), status_code=302
            )
        try:
            subject = await self._signed_in(code)
        except DesignError as err:
            log.warning("design platform sign-in failed: %s", err.message)
            return RedirectResponse(
                construct_redirect_uri(
                    pending.redirect_uri, error="server_error", error_description=err.message, state=pending.state
                ),
                status_code=302,
            )
        our_code = new_secret()
        grant = Grant(
            client_id=pending.client_id,
            scopes=pending.scopes,
            resource=pending.resource,
            subject=subject,
            expires_at=time.time() + CODE_TTL,
            code_challenge=pending.code_challenge,
            redirect_uri=pending.redirect_uri,
            explicit=pending.explicit,
        )
        await self.store.put("code", token_hash(our_code), msgspec.json.encode(grant), CODE_TTL)
        await self._keep_client(pending.client_id)
        await self.store.put("approved", _approval(subject, pending), b"1", REFRESH_TTL)
        await self.store.put("browser-user", pending.browser, subject.encode(), REFRESH_TTL)
        return RedirectResponse(
            construct_redirect_uri(pending.redirect_uri, code=our_code, state=pending.state), status_code=302
        )

    async def _signed_in(self, code: str) -> str:
        """Trade the design platform's ``code`` for its tokens and keep them for the user they name, whom it returns;
        DesignError when the platform refuses."""
        tokens = await self._platform_token(
            {"grant_type": "authorization_code", "code": code, "redirect_uri": self.callback_url}
        )
        subject = await self._subject(tokens)
        await self._save_upstream(
            subject,
            Upstream(
                access_token=tokens.access_token,
                refresh_token=tokens.refresh_token,
                expires_at=time.time() + tokens.expires_in,
            ),
        )
        return subject

    async def _legacy_callback(self, code: str) -> Response:
        if not code:
            return _page("Sign-in was cancelled at the design platform.", 400)
        try:
            subject = await self._signed_in(code)
        except DesignError as err:
            return _page(str(err), 502)
        ours = await self._issue(LEGACY_CLIENT, [SCOPE], self.resource, subject, new_secret())
        hours = ACCESS_TTL // 3600
        return _page(
            f"Signed in. Give your AI app this header for {self.resource} (valid {hours} h; sign in here again after):",
            200,
            f"<pre>Authorization: Bearer {html.escape(ours.access_token)}</pre>",
        )

    # Codes and tokens -----------------------------------------------------------------------------------------------

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        raw = await self.store.get("code", token_hash(authorization_code))
        if raw is None:
            await self._replayed(authorization_code)
            return None
        grant = msgspec.json.decode(raw, type=Grant)
        return AuthorizationCode(
            code=authorization_code,
            scopes=grant.scopes,
            expires_at=grant.expires_at,
            client_id=grant.client_id,
            code_challenge=grant.code_challenge,
            redirect_uri=AnyUrl(grant.redirect_uri),
            redirect_uri_provided_explicitly=grant.explicit,
            resource=grant.resource,
            subject=grant.subject,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        grant = await self._take("code", authorization_code.code, "authorization code")
        family = new_secret()
        await self._spend(authorization_code.code, family)
        return await self._issue(grant.client_id, grant.scopes, grant.resource, grant.subject, family)

    async def _take(self, kind: str, secret: str, what: str) -> Grant:
        """The grant of a one-use ``secret`` (a code, a refresh token), taken from the store; one already taken or
        expired is a replay."""
        # Taken, not read: of two requests racing with one secret, exactly one gets tokens.
        raw = await self.store.take(kind, token_hash(secret))
        if raw is None:
            await self._replayed(secret)
            raise TokenError("invalid_grant", f"{what} was already used or has expired")
        return msgspec.json.decode(raw, type=Grant)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        grant = await self._grant("refresh", refresh_token)
        if grant is None:
            await self._replayed(refresh_token)
            return None
        return RefreshToken(token=refresh_token, **_token_fields(grant))

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        grant = await self._take("refresh", refresh_token.token, "refresh token")
        await self._spend(refresh_token.token, grant.family)
        await self.store.delete("access", grant.pair)
        return await self._issue(grant.client_id, scopes, grant.resource, grant.subject, grant.family)

    async def load_access_token(self, token: str) -> AccessToken | None:
        grant = await self._grant("access", token)
        if grant is None:
            return None
        return AccessToken(token=token, claims={"iss": self.issuer}, **_token_fields(grant))

    async def verify_token(self, token: str) -> AccessToken | None:
        """The SDK's ``TokenVerifier``: our access token, or None."""
        return await self.load_access_token(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        kind, other = ("access", "refresh") if isinstance(token, AccessToken) else ("refresh", "access")
        raw = await self.store.take(kind, token_hash(token.token))
        if raw is not None:
            grant = msgspec.json.decode(raw, type=Grant)
            await self.store.delete(other, grant.pair)
            await self._end_family(grant.family)

    async def revoke(self, request: Request) -> Response:
        """``/revoke`` (RFC 7009): a public client names itself with ``client_id`` alone, a confidential one also
        proves its secret; an unknown token, or one of another client, is answered 200 like a revoked one."""
        try:
            client = await self._authenticator.authenticate_request(request)
        except AuthenticationError as err:
            return JSONResponse({"error": "invalid_client", "error_description": err.message}, status_code=401)
        token = (await request.form()).get("token")
        if not isinstance(token, str) or not token:
            return JSONResponse({"error": "invalid_request", "error_description": "token is required"}, 400)
        found: AccessToken | RefreshToken | None = await self.load_access_token(token)
        if found is None:
            found = await self.load_refresh_token(client, token)
        if found is not None and found.client_id == client.client_id:
            await self.revoke_token(found)
        return Response(status_code=200, headers={"Cache-Control": "no-store", "Pragma": "no-cache"})

    async def _grant(self, kind: str, token: str) -> Grant | None:
        raw = await self.store.get(kind, token_hash(token))
        if raw is None:
            return None
        grant = msgspec.json.decode(raw, type=Grant)
        if grant.expires_at <= time.time():
            return None
        if grant.family and await self.store.get("ended", grant.family) is not None:
            return None
        return grant

    async def _spend(self, used: str, family: str) -> None:
        """Remember that a code or refresh token was used, and by which family, to spot it coming back."""
        await self.store.put("spent", token_hash(used), family.encode(), REFRESH_TTL)

    async def _replayed(self, presented: str) -> None:
        """A code or refresh token that was already used came back: someone else holds a copy, so every token
        issued from it is ended (RFC 6749 §4.1.2, OAuth 2.1 refresh token rotation)."""
        family = await self.store.get("spent", token_hash(presented))
        if family:
            log.warning("a used code or refresh token was presented again; its tokens are revoked")
            await self._end_family(family.decode())

    async def _end_family(self, family: str) -> None:
        if family:
            await self.store.put("ended", family, b"1", REFRESH_TTL)

    async def _issue(self, client_id: str, scopes: list[str], resource: str, subject: str, family: str) -> OAuthToken:
        access, refresh = new_secret(), new_secret()
        now = time.time()
        base = Grant(
            client_id=client_id, scopes=scopes, resource=resource, subject=subject, expires_at=0.0, family=family
        )
        access_grant = msgspec.structs.replace(base, expires_at=now + ACCESS_TTL, pair=token_hash(refresh))
        refresh_grant = msgspec.structs.replace(base, expires_at=now + REFRESH_TTL, pair=token_hash(access))
        await self.store.put("access", token_hash(access), msgspec.json.encode(access_grant), ACCESS_TTL)
        await self.store.put("refresh", token_hash(refresh), msgspec.json.encode(refresh_grant), REFRESH_TTL)
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=ACCESS_TTL,
            scope=" ".join(scopes),
            refresh_token=refresh,
        )

    # The design platform --------------------------------------------------------------------------------------------

    async def upstream_token(self, subject: str) -> str:
        """The user's platform access token, refreshed first when it is about to expire (one refresh per user at a
        time, across instances: the others wait and use its result)."""
        upstream = await self._load_upstream(subject)
        if upstream.expires_at - UPSTREAM_MARGIN > time.time():
            return upstream.access_token
        lock = self._user_locks.get(subject)
        if lock is None:
            lock = self._user_locks[subject] = asyncio.Lock()
        async with lock, store_lock(self.store, f"refresh:{subject}"):
            upstream = await self._load_upstream(subject)
            if upstream.expires_at - UPSTREAM_MARGIN > time.time():
                return upstream.access_token
            tokens = await self._platform_token(
                {"grant_type": "refresh_token", "refresh_token": upstream.refresh_token}
            )
            self.upstream_refreshes += 1
            upstream = Upstream(
                access_token=tokens.access_token,
                refresh_token=tokens.refresh_token or upstream.refresh_token,
                expires_at=time.time() + tokens.expires_in,
            )
            await self._save_upstream(subject, upstream)
            return upstream.access_token

    async def _load_upstream(self, subject: str) -> Upstream:
        sealed = await self.store.get("upstream", subject)
        if sealed is None:
            raise DesignError(
                ErrorCode.UNAUTHORIZED,
                "This server holds no design platform login for you.",
                "Sign in again from your AI app.",
            )
        upstream = msgspec.json.decode(self._cipher.open(sealed, subject), type=Upstream)
        if self._cipher.needs_rotation(sealed):
            await self._save_upstream(subject, upstream)
        return upstream

    async def _save_upstream(self, subject: str, upstream: Upstream) -> None:
        await self.store.put("upstream", subject, self._cipher.seal(msgspec.json.encode(upstream), subject))

    async def _platform_token(self, form: dict[str, str]) -> _PlatformTokens:
        base = self.config.base
        try:
            response = await self._http.post(
                self.config.oauth_token_url, data=form, auth=(base.oauth_client_id, base.oauth_client_secret)
            )
        except httpx.HTTPError as exc:
            raise DesignError(
                ErrorCode.UPSTREAM_ERROR, f"The design platform's token endpoint is unreachable ({type(exc).__name__})."
            ) from None
        if response.status_code != 200:
            # The body may echo what we sent; only the status is logged and reported.
            raise DesignError(
                ErrorCode.UNAUTHORIZED,
                f"The design platform refused the sign-in (HTTP {response.status_code}).",
                "Sign in again from your AI app.",
            )
        try:
            return msgspec.json.decode(response.content, type=_PlatformTokens)
        except msgspec.DecodeError:
            raise DesignError(ErrorCode.BAD_RESPONSE, "The design platform's token answer is not understood.") from None

    async def _subject(self, tokens: _PlatformTokens) -> str:
        user = tokens.user_id_string or (str(tokens.user_id) if tokens.user_id is not None else "")
        if not user:
            try:
                response = await self._http.get(
                    f"{self.config.base.api_url}/v1/me", headers={"Authorization": f"Bearer {tokens.access_token}"}
                )
                user = msgspec.json.decode(response.content, type=_Me).id if response.status_code == 200 else ""
            except (httpx.HTTPError, msgspec.DecodeError):
                user = ""
        if not user:
            raise DesignError(ErrorCode.BAD_RESPONSE, "The design platform did not say who signed in.")
        return f"design:{user}"


_SECURE_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",
}


def _page(message: str, status: int = 200, body: str = "") -> HTMLResponse:
    text = (
        "<!doctype html><html><head><meta charset=utf-8><title>Design Console MCP</title>"
        "<style>body{font:16px system-ui;max-width:34em;margin:4em auto}button{font-size:16px;margin-right:1em}</style>"
        f"</head><body><p>{html.escape(message)}</p>{body}</body></html>"
    )
    return HTMLResponse(text, status_code=status, headers=_SECURE_HEADERS)


def _approval(subject: str, pending: Pending) -> str:
    return f"{subject}\n{pending.client_id}"


def _consent_form(request_id: str, pending: Pending, allowed_before: bool) -> HTMLResponse:
    target = urlsplit(pending.redirect_uri)
    form = (
        '<form method="post" action="/consent">'
        f'<input type="hidden" name="request" value="{html.escape(request_id)}">'
        f'<input type="hidden" name="csrf" value="{html.escape(pending.csrf)}">'
        '<button name="decision" value="allow">Allow</button>'
        '<button name="decision" value="deny">Deny</button></form>'
    )
    history = (
        f"You allowed {pending.client_name} before."
        if allowed_before
        else "You have not allowed this app from this browser yet: allow it only if you just started signing in to it."
    )
    message = (
        f"{pending.client_name!r} asks to use the design platform as you through Design Console MCP. "
        f"After you allow it and sign in, you return to {target.scheme}://{target.netloc}. {history}"
    )
    return _page(message, 200, form)


def _token_fields(grant: Grant) -> dict[str, Any]:
    """What a refresh token and an access token say of the grant they carry."""
    return {
        "client_id": grant.client_id,
        "scopes": grant.scopes,
        "expires_at": int(grant.expires_at),
        "resource": grant.resource,
        "subject": grant.subject,
    }
