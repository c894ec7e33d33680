"""Who is calling the admin API: the administrator of the session cookie (`folio_admin`),
with the session's CSRF token in `X-Folio-CSRF` on every request that may change
something. The cookie is HttpOnly, SameSite=Strict and scoped to `/admin`, so the content
API (`/api`, `/graphql`) never sees it; the admin API reads no other credential (the
admin key of the older key-protected routes aside, see tokens.py)."""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response

from folio.auth.principal import Principal
from folio.content.accounts.admins import AdminSession, AdminUser
from folio.errors import ForbiddenError, UnauthorizedError

if TYPE_CHECKING:
    from folio.app import Folio

__all__ = ["COOKIE", "CSRF_HEADER", "AdminAuth", "AdminUser", "principal"]

COOKIE = "folio_admin"
CSRF_HEADER = "x-folio-csrf"
COOKIE_PATH = "/admin"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CSRF_MESSAGE = "Missing or invalid CSRF token"


def principal(user: AdminUser) -> Principal:
    """The administrator as the document service sees them: everything is allowed."""
    return Principal(kind="admin", name=user.email, scope="all", user_id=user.id)


class AdminAuth:
    def __init__(self, folio: Folio) -> None:
        self.folio = folio
        self.admins = folio.admins
        server = folio.settings.raw.get("server", {})
        url = server.get("url") if isinstance(server, dict) else None
        # behind a proxy that ends TLS, the configured public URL says the cookie is secure
        self.public_url = url.rstrip("/") if isinstance(url, str) else ""
        self.always_secure = self.public_url.startswith("https://")

    async def session(self, request: Request) -> AdminSession | None:
        """The request's live session (no CSRF check), read once per request."""
        state = request.state
        if hasattr(state, "admin_session"):
            found: AdminSession | None = state.admin_session
            return found
        session_id = request.cookies.get(COOKIE)
        found = await self.admins.session(session_id) if session_id else None
        state.admin_session = found
        return found

    async def require(self, request: Request) -> AdminUser:
        """The signed-in administrator: 401 without a live session, 403 when a request that
        may write lacks the session's CSRF token."""
        session = await self.session(request)
        if session is None:
            raise UnauthorizedError("You need to sign in to the admin panel")
        if request.method not in SAFE_METHODS:
            given = request.headers.get(CSRF_HEADER, "")
            if not given or not hmac.compare_digest(given.encode(), session.csrf.encode()):
                raise ForbiddenError(CSRF_MESSAGE)
        return session.user

    def secure(self, request: Request) -> bool:
        return self.always_secure or request.url.scheme == "https"

    def base_url(self, request: Request) -> str:
        """The server's public address: `server.url` (config/server.json), else the
        address the request reached (the socket's, never the Host header's: a password
        reset asked with a forged Host would mail its victim a link to the forger's site)."""
        if self.public_url:
            return self.public_url
        scheme = request.url.scheme
        server = request.scope.get("server") or (self.folio.settings.host, None)
        host, port = str(server[0]), server[1]
        if host in ("0.0.0.0", "::", ""):
            host = "localhost"
        if ":" in host:
            host = f"[{host}]"
        default = {"http": 80, "https": 443}.get(scheme)
        return f"{scheme}://{host}" + (f":{port}" if port and port != default else "")

    def set_cookie(self, response: Response, request: Request, session_id: str) -> None:
        response.set_cookie(
            COOKIE,
            session_id,
            max_age=int(self.admins.session_settings.max_seconds),
            path=COOKIE_PATH,
            httponly=True,
            samesite="strict",
            secure=self.secure(request),
        )

    def clear_cookie(self, response: Response, request: Request) -> None:
        response.delete_cookie(
            COOKIE,
            path=COOKIE_PATH,
            httponly=True,
            samesite="strict",
            secure=self.secure(request),
        )
