"""The hosted service's OAuth: authorization server for AI clients, OAuth client of the design platform.

The flow: an AI client registers (RFC 7591), sends its user to ``/authorize`` with PKCE (S256) and ``resource`` (RFC
8707, which must be this server's ``/mcp``); the user approves that client on our consent page; we send them to the
design platform with a single-use ``state``; its callback gives us the user's platform tokens (sealed at rest, see
:mod:`crypto`) and we hand the client a short-lived single-use code, exchanged at ``/token`` for our own tokens.
Only hashes of our tokens are stored; refresh tokens rotate; platform tokens never leave this server.

The SDK's handlers check the protocol (client, redirect URI, PKCE, grant types); this module is the provider behind
them and the pages and callback they leave to the implementer.
"""

from __future__ import annotations

import asyncio
import html
import logging
import time
import weakref
from urllib.parse import urlencode, urlsplit

import httpx
import msgspec
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from design_console import __version__
from design_console.config import RemoteConfig
from design_console.errors import DesignError, ErrorCode, format_error
from design_console.remote.crypto import TokenCipher, new_secret, token_hash
from design_console.remote.store import Store, store_lock

log = logging.getLogger("design_console.remote.oauth")

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

    async def aclose(self) -> None:
        await self._http.aclose()

    # Clients ------------------------------------------------------------------------------------------------------

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        raw = await self.store.get("client", client_id)
        return None if raw is None else OAuthClientInformationFull.model_validate_json(raw)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        await self.store.put("client", client_info.client_id or "", client_info.model_dump_json().encode())

    # Authorization --------------------------------------------------------------------------------------------------

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if not params.resource:
            raise AuthorizeError("invalid_target", f"resource is required; this server's resource is {self.resource}")
        if params.resource.rstrip("/") != self.resource:
            raise AuthorizeError("invalid_target", f"this server issues tokens only for {self.resource}")
        pending = Pending(
            client_id=client.client_id or "",
            client_name=client.client_name or client.client_id or "",
            redirect_uri=str(params.redirect_uri),
            explicit=params.redirect_uri_provided_explicitly,
            state=params.state,
            scopes=params.scopes or [SCOPE],
            code_challenge=params.code_challenge,
            resource=self.resource,
        )
        request_id = new_secret()
        await self.store.put("pending", request_id, msgspec.json.encode(pending), PENDING_TTL)
        return f"{self.config.base_url}/consent?{urlencode({'request': request_id})}"

    async def consent_page(self, request: Request) -> Response:
        """GET shows which client asks for access; POST approves (on to the design platform) or denies it."""
        if request.method == "GET":
            request_id = request.query_params.get("request", "")
            raw = await self.store.get("pending", request_id)
            if raw is None:
                return _page("This sign-in request has expired or was already used. Start again from your AI app.", 400)
            pending = msgspec.json.decode(raw, type=Pending)
            return _consent_form(request_id, pending)
        form = await request.form()
        request_id = str(form.get("request", ""))
        raw = await self.store.take("pending", request_id)
        if raw is None:
            return _page("This sign-in request has expired or was already used. Start again from your AI app.", 400)
        pending = msgspec.json.decode(raw, type=Pending)
        if form.get("decision") != "allow":
            return RedirectResponse(
                construct_redirect_uri(
                    pending.redirect_uri, error="access_denied", error_description="denied", state=pending.state
                ),
                status_code=302,
            )
        return await self._to_platform(pending)

    async def legacy_authorize(self, request: Request) -> Response:
        """The older flow, for clients that only take a fixed header: the user signs in here in a browser and is
        shown a bearer token of ours to put in the client's ``Authorization`` header."""
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
        )
        return await self._to_platform(pending)

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
        code = request.query_params.get("code", "")
        if pending.legacy:
            return await self._legacy_callback(code)
        if not code:
            error = request.query_params.get("error", "access_denied")
            return RedirectResponse(
                construct_redirect_uri(pending.redirect_uri, error=error, state=pending.state), status_code=302
            )
        try:
            tokens = await self._platform_token(
                {"grant_type": "authorization_code", "code": code, "redirect_uri": self.callback_url}
            )
            subject = await self._subject(tokens)
        except DesignError as err:
            log.warning("design platform sign-in failed: %s", err.message)
            return RedirectResponse(
                construct_redirect_uri(
                    pending.redirect_uri, error="server_error", error_description=err.message, state=pending.state
                ),
                status_code=302,
            )
        await self._save_upstream(
            subject,
            Upstream(
                access_token=tokens.access_token,
                refresh_token=tokens.refresh_token,
                expires_at=time.time() + tokens.expires_in,
            ),
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
        return RedirectResponse(
            construct_redirect_uri(pending.redirect_uri, code=our_code, state=pending.state), status_code=302
        )

    async def _legacy_callback(self, code: str) -> Response:
        if not code:
            return _page("Sign-in was cancelled at the design platform.", 400)
        try:
            tokens = await self._platform_token(
                {"grant_type": "authorization_code", "code": code, "redirect_uri": self.callback_url}
            )
            subject = await self._subject(tokens)
        except DesignError as err:
            return _page(str(err), 502)
        await self._save_upstream(
            subject,
            Upstream(
                access_token=tokens.access_token,
                refresh_token=tokens.refresh_token,
                expires_at=time.time() + tokens.expires_in,
            ),
        )
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
        # Taken, not read: of two requests racing with one code, exactly one gets tokens.
        raw = await self.store.take("code", token_hash(authorization_code.code))
        if raw is None:
            await self._replayed(authorization_code.code)
            raise TokenError("invalid_grant", "authorization code was already used or has expired")
        grant = msgspec.json.decode(raw, type=Grant)
        family = new_secret()
        await self._spend(authorization_code.code, family)
        return await self._issue(grant.client_id, grant.scopes, grant.resource, grant.subject, family)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        grant = await self._grant("refresh", refresh_token)
        if grant is None:
            await self._replayed(refresh_token)
            return None
        return RefreshToken(
            token=refresh_token,
            client_id=grant.client_id,
            scopes=grant.scopes,
            expires_at=int(grant.expires_at),
            resource=grant.resource,
            subject=grant.subject,
        )

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        raw = await self.store.take("refresh", token_hash(refresh_token.token))
        if raw is None:
            await self._replayed(refresh_token.token)
            raise TokenError("invalid_grant", "refresh token was already used or has expired")
        grant = msgspec.json.decode(raw, type=Grant)
        await self._spend(refresh_token.token, grant.family)
        await self.store.delete("access", grant.pair)
        return await self._issue(grant.client_id, scopes, grant.resource, grant.subject, grant.family)

    async def load_access_token(self, token: str) -> AccessToken | None:
        grant = await self._grant("access", token)
        if grant is None:
            return None
        return AccessToken(
            token=token,
            client_id=grant.client_id,
            scopes=grant.scopes,
            expires_at=int(grant.expires_at),
            resource=grant.resource,
            subject=grant.subject,
            claims={"iss": self.issuer},
        )

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


def _consent_form(request_id: str, pending: Pending) -> HTMLResponse:
    target = urlsplit(pending.redirect_uri)
    form = (
        '<form method="post" action="/consent">'
        f'<input type="hidden" name="request" value="{html.escape(request_id)}">'
        '<button name="decision" value="allow">Allow</button>'
        '<button name="decision" value="deny">Deny</button></form>'
    )
    message = (
        f"{pending.client_name!r} asks to use the design platform as you through Design Console MCP. "
        f"After you allow it and sign in, you return to {target.scheme}://{target.netloc}."
    )
    return _page(message, 200, form)
