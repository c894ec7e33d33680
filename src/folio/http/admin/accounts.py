"""The admin API's accounts and sessions (`/admin/api/...`):

    GET  /init              {hasAdmin, defaultLocale, appName} (public)
    POST /register-admin    the first administrator, only while there is none -> 201
                            {user, csrfToken} and the session cookie
    POST /login             {email, password} -> {user, csrfToken} and the cookie; rate
                            limited per client address and per account
    POST /logout            ends the session -> 204, the cookie cleared
    GET  /session           {user, csrfToken, expiresAt} or 401
    GET  /users/me          {user}
    PUT  /users/me          {firstname?, lastname?, email?, currentPassword?, password?}
    POST /forgot-password   {email} -> 204 whatever the address; mails a reset link
    POST /reset-password    {code, password} -> {user, csrfToken} and the cookie

Every answer carries `Cache-Control: no-store`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from folio.content.accounts.admins import AdminSession, AdminUser, admin_rate_limit
from folio.errors import FolioError, UnauthorizedError
from folio.http.admin.openapi import CSRF, ERROR_REF, JSON, SESSION, data_schema
from folio.http.admin.session import AdminAuth
from folio.http.responses import error_response, json_response, limited_answer
from folio.http.rest.content import read_json_object

if TYPE_CHECKING:
    from folio.app import Folio

BASE = "/admin/api"
Handler = Callable[[Request], Awaitable[Response]]


def _session_body(session: AdminSession) -> dict[str, Any]:
    return {
        "user": session.user.public(),
        "csrfToken": session.csrf,
        "expiresAt": session.expires_iso,
    }


class AccountEndpoints:
    def __init__(self, folio: Folio, auth: AdminAuth) -> None:
        self.folio = folio
        self.auth = auth
        self.admins = folio.admins
        # config/admin.json rateLimit, else the content API's sign-in limits; counted in
        # the app's store (shared by every process and host when it is Redis)
        limits = admin_rate_limit(folio.settings, folio.auth_settings.ratelimit)
        self.limiter = folio.limiters.limiter("admin", limits)

    def routes(self) -> list[Route]:
        get, post = ["GET", "HEAD"], ["POST"]
        table: list[tuple[str, list[str], Handler]] = [
            ("/init", get, self.init),
            ("/register-admin", post, self._limited(self.register, "register")),
            ("/login", post, self._limited(self.login, "login", per_account=True)),
            ("/logout", post, self.logout),
            ("/session", get, self.session),
            ("/users/me", get, self.me),
            ("/users/me", ["PUT"], self.update_me),
            ("/forgot-password", post, self._limited(self.forgot_password, "forgot")),
            ("/reset-password", post, self._limited(self.reset_password, "reset")),
        ]
        return [
            Route(BASE + path, self._no_store(handler), methods=methods)
            for path, methods, handler in table
        ]

    @staticmethod
    def _no_store(handler: Handler) -> Handler:
        async def answer(request: Request) -> Response:
            try:
                response = await handler(request)
            except FolioError as exc:
                response = error_response(exc)
            response.headers["Cache-Control"] = "no-store"
            return response

        return answer

    def _limited(self, handler: Handler, name: str, per_account: bool = False) -> Handler:
        """Counts the request per client address (and, for sign-in, per account address,
        whatever the client's); past the limit, 429 until the window ends. Every answer
        carries the X-RateLimit headers of the address's window."""

        async def limited(request: Request) -> Response:
            client = request.client.host if request.client else "-"
            verdict = await self.limiter.hit(f"admin:{name}:{client}")
            if verdict is None:
                return await handler(request)
            if per_account:
                email = (await self._body(request)).get("email")
                if isinstance(email, str) and email.strip():
                    account = await self.limiter.hit(
                        f"admin:{name}:account:{email.strip().lower()}"
                    )
                    if account is not None and not account.allowed:
                        verdict = account
            return await limited_answer(verdict, lambda: handler(request))

        return limited

    async def _body(self, request: Request) -> dict[str, Any]:
        return await read_json_object(request, self.folio.settings.max_body_bytes)

    async def _signed_in(self, request: Request, user: AdminUser, status: int = 200) -> Response:
        session_id, session = await self.admins.open_session(user)
        body = _session_body(session)
        del body["expiresAt"]
        response = json_response({"data": body}, status)
        self.auth.set_cookie(response, request, session_id)
        return response

    # ------------------------------------------------------------------ routes
    async def init(self, request: Request) -> Response:
        settings = self.folio.settings
        return json_response(
            {
                "data": {
                    "hasAdmin": await self.admins.has_admin(),
                    "defaultLocale": settings.default_locale,
                    "appName": settings.app_dir.resolve().name,
                }
            }
        )

    async def register(self, request: Request) -> Response:
        body = await self._body(request)
        data = {k: body.get(k) for k in ("email", "password", "firstname", "lastname")}
        user = await self.admins.create(data, first=True)
        return await self._signed_in(request, user, 201)

    async def login(self, request: Request) -> Response:
        body = await self._body(request)
        user = await self.admins.authenticate(body.get("email"), body.get("password"))
        return await self._signed_in(request, user)

    async def logout(self, request: Request) -> Response:
        session = await self.auth.session(request)
        if session is not None:
            await self.auth.require(request)  # the CSRF token
            await self.admins.close_session(session.key)
        response = Response(status_code=204)
        self.auth.clear_cookie(response, request)
        return response

    async def session(self, request: Request) -> Response:
        session = await self.auth.session(request)
        if session is None:
            raise UnauthorizedError("You need to sign in to the admin panel")
        return json_response({"data": _session_body(session)})

    async def me(self, request: Request) -> Response:
        user = await self.auth.require(request)
        return json_response({"data": user.public()})

    async def update_me(self, request: Request) -> Response:
        user = await self.auth.require(request)
        session = await self.auth.session(request)
        body = await self._body(request)
        keep = session.key if session is not None else None
        updated = await self.admins.update(user, body, keep)
        return json_response({"data": updated.public()})

    async def forgot_password(self, request: Request) -> Response:
        body = await self._body(request)
        link = f"{self.auth.base_url(request)}/admin/auth/reset-password"
        await self.admins.forgot_password(body.get("email"), link)
        return Response(status_code=204)

    async def reset_password(self, request: Request) -> Response:
        body = await self._body(request)
        user = await self.admins.reset_password(body.get("code"), body.get("password"))
        return await self._signed_in(request, user)


# ---------------------------------------------------------------------- OpenAPI

_TAG = "Admin: accounts"
_TEXT = {"type": "string"}
_USER = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "email": {"type": "string", "format": "email"},
        "firstname": _TEXT,
        "lastname": {"type": ["string", "null"]},
        "isActive": {"type": "boolean"},
        "createdAt": {"type": ["string", "null"], "format": "date-time"},
    },
    "required": ["id", "email", "firstname", "lastname", "isActive", "createdAt"],
}
_SIGNED_IN = {
    "type": "object",
    "properties": {"user": _USER, "csrfToken": _TEXT},
    "required": ["user", "csrfToken"],
}
_COOKIE_HEADER = {
    "Set-Cookie": {
        "description": "folio_admin=<session id>; HttpOnly; SameSite=Strict; Path=/admin",
        "schema": _TEXT,
    }
}


def _answer(schema: dict[str, Any], description: str, cookie: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "description": description,
        "content": {JSON: {"schema": data_schema(schema)}},
    }
    if cookie:
        out["headers"] = _COOKIE_HEADER
    return out


def _body(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": required}
    return {"required": True, "content": {JSON: {"schema": schema}}}


def _op(
    op_id: str,
    summary: str,
    responses: dict[str, Any],
    *,
    session: bool = False,
    write: bool = False,
    body: dict[str, Any] | None = None,
) -> dict[str, Any]:
    op: dict[str, Any] = {
        "summary": summary,
        "operationId": op_id,
        "tags": [_TAG],
        "security": SESSION if session else [],
        "responses": responses,
    }
    if session and write:
        op["parameters"] = [CSRF]
    if body is not None:
        op["requestBody"] = body
    return op


_NO_CONTENT = {"description": "Done"}
_CREDENTIALS = {"email": {"type": "string", "format": "email"}, "password": _TEXT}
_PASSWORD_RULES = "8 characters or more, a lower-case and an upper-case letter and a digit"

PATHS: dict[str, dict[str, Any]] = {
    f"{BASE}/init": {
        "get": _op(
            "adminInit",
            "Whether the first administrator exists, the default locale, the app's name",
            {
                "200": _answer(
                    {
                        "type": "object",
                        "properties": {
                            "hasAdmin": {"type": "boolean"},
                            "defaultLocale": _TEXT,
                            "appName": _TEXT,
                        },
                        "required": ["hasAdmin", "defaultLocale", "appName"],
                    },
                    "The panel's start",
                )
            },
        )
    },
    f"{BASE}/register-admin": {
        "post": _op(
            "adminRegisterFirst",
            "Create the first administrator (only while there is none) and sign in",
            {
                "201": _answer(_SIGNED_IN, "Created and signed in", cookie=True),
                "400": ERROR_REF,
                "403": ERROR_REF,
                "429": ERROR_REF,
            },
            body=_body(
                {
                    **_CREDENTIALS,
                    "firstname": _TEXT,
                    "lastname": {"type": ["string", "null"]},
                },
                ["email", "password", "firstname"],
            ),
        )
    },
    f"{BASE}/login": {
        "post": _op(
            "adminLogin",
            "Sign in (rate limited per client address and per account)",
            {
                "200": _answer(_SIGNED_IN, "Signed in", cookie=True),
                "400": ERROR_REF,
                "429": ERROR_REF,
            },
            body=_body(_CREDENTIALS, ["email", "password"]),
        )
    },
    f"{BASE}/logout": {
        "post": _op(
            "adminLogout",
            "Sign out: the session ends, its cookie is cleared",
            {"204": _NO_CONTENT, "403": ERROR_REF},
            session=True,
            write=True,
        )
    },
    f"{BASE}/session": {
        "get": _op(
            "adminSession",
            "The signed-in administrator, the session's CSRF token and when it ends",
            {
                "200": _answer(
                    {
                        "type": "object",
                        "properties": {
                            "user": _USER,
                            "csrfToken": _TEXT,
                            "expiresAt": {"type": "string", "format": "date-time"},
                        },
                        "required": ["user", "csrfToken", "expiresAt"],
                    },
                    "The session",
                ),
                "401": ERROR_REF,
            },
            session=True,
        )
    },
    f"{BASE}/users/me": {
        "get": _op(
            "adminMe",
            "The signed-in administrator",
            {"200": _answer(_USER, "The administrator"), "401": ERROR_REF},
            session=True,
        ),
        "put": _op(
            "adminUpdateMe",
            "Change one's name, address or password (a new password, with the current one, "
            "ends one's other sessions)",
            {
                "200": _answer(_USER, "Changed"),
                "400": ERROR_REF,
                "401": ERROR_REF,
                "403": ERROR_REF,
            },
            session=True,
            write=True,
            body=_body(
                {
                    "firstname": _TEXT,
                    "lastname": {"type": ["string", "null"]},
                    "email": {"type": "string", "format": "email"},
                    "currentPassword": _TEXT,
                    "password": {"type": "string", "description": _PASSWORD_RULES},
                },
                [],
            ),
        ),
    },
    f"{BASE}/forgot-password": {
        "post": _op(
            "adminForgotPassword",
            "Mail a password-reset link (valid one hour) to an administrator's address",
            {"204": _NO_CONTENT, "429": ERROR_REF},
            body=_body({"email": _TEXT}, ["email"]),
        )
    },
    f"{BASE}/reset-password": {
        "post": _op(
            "adminResetPassword",
            "Choose a new password with the mailed code, and sign in",
            {
                "200": _answer(_SIGNED_IN, "Signed in", cookie=True),
                "400": ERROR_REF,
                "429": ERROR_REF,
            },
            body=_body(
                {"code": _TEXT, "password": {"type": "string", "description": _PASSWORD_RULES}},
                ["code", "password"],
            ),
        )
    },
}
