"""The users-and-permissions routes: sign-up and sign-in (`/api/auth/...`), the users API
(`/api/users...`) and the roles list (`/api/users-permissions/roles`). As in the reference,
these answer plain objects and arrays, not the `{data, meta}` envelope."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from folio.auth.principal import Principal
from folio.auth.ratelimit import RateLimiter
from folio.content.accounts.users import credentials_too_long
from folio.content.ids import decimal_id
from folio.content.query import Query
from folio.errors import (
    ApplicationError,
    NotFoundError,
    RateLimitError,
    UnauthorizedError,
    ValidationError,
)
from folio.http.responses import error_response, json_response, limited_answer
from folio.http.rest.content import query_params, read_json_object

if TYPE_CHECKING:
    from folio.app import Folio
    from folio.http.pipeline import Pipeline

Handler = Callable[[Request, Principal], Awaitable[Response]]
UP = "plugin::users-permissions"
EMAIL_KEYED = frozenset({"auth.register", "auth.forgotPassword", "auth.sendEmailConfirmation"})


def _natural(raw: Any, name: str) -> int | None:
    if raw is None:
        return None
    text = str(raw).strip()
    if text == "-1" and name == "limit":
        return -1
    value = decimal_id(text)
    if value is None:
        raise ValidationError(f"{name} must be a non-negative integer, not {raw!r}")
    return value


def _user_id(request: Request) -> int:
    user_id = decimal_id(request.path_params["id"])
    if user_id is None:
        raise NotFoundError()
    return user_id


class UserEndpoints:
    def __init__(self, folio: Folio, pipeline: Pipeline) -> None:
        self.folio = folio
        self.pipeline = pipeline
        self.users = folio.users
        self.limiter: RateLimiter = folio.rate_limiter

    def routes(self) -> list[Route]:
        get, post = ["GET", "HEAD"], ["POST"]
        # path, methods, action, handler, rate limited
        table: list[tuple[str, list[str], str, Handler, bool]] = [
            ("/api/auth/local", post, "auth.callback", self.login, True),
            ("/api/auth/local/register", post, "auth.register", self.register, True),
            ("/api/auth/forgot-password", post, "auth.forgotPassword", self.forgot_password, True),
            ("/api/auth/reset-password", post, "auth.resetPassword", self.reset_password, True),
            ("/api/auth/change-password", post, "auth.changePassword", self.change_password, True),
            (
                "/api/auth/email-confirmation",
                ["GET"],
                "auth.emailConfirmation",
                self.email_confirmation,
                False,
            ),
            (
                "/api/auth/send-email-confirmation",
                post,
                "auth.sendEmailConfirmation",
                self.send_email_confirmation,
                True,
            ),
            ("/api/users/me", get, "user.me", self.me, False),
            ("/api/users/count", get, "user.count", self.count, False),
            ("/api/users", get, "user.find", self.find, False),
            ("/api/users", post, "user.create", self.create, False),
            ("/api/users/{id}", get, "user.findOne", self.find_one, False),
            ("/api/users/{id}", ["PUT"], "user.update", self.update, False),
            ("/api/users/{id}", ["DELETE"], "user.destroy", self.destroy, False),
            ("/api/users-permissions/roles", get, "role.find", self.roles, False),
            ("/api/users-permissions/roles/{id}", get, "role.findOne", self.role, False),
        ]
        return [
            Route(path, self._guarded(action, handler, limited), methods=methods)
            for path, methods, action, handler, limited in table
        ]

    def _guarded(
        self, action: str, handler: Handler, limited: bool = False
    ) -> Callable[[Request], Awaitable[Response]]:
        inner = self._limited(handler, action in EMAIL_KEYED) if limited else handler
        return self.pipeline.endpoint(f"{UP}.{action}", inner)

    def _limited(self, handler: Handler, by_email: bool) -> Handler:
        """Counts the request (after authorization, as the reference) per path and client
        address, and per email for the routes that take one; every answer carries the
        X-RateLimit headers. Credentials longer than their maximum are refused (400, or
        429 when the address is already limited) without entering a key."""

        async def limited(request: Request, principal: Principal) -> Response:
            path = "/" + "/".join(p for p in request.url.path.lower().split("/") if p)
            client = request.client.host if request.client else "-"
            sign_in = path.endswith("/auth/local")
            body = await self._body(request) if by_email or sign_in else {}
            too_long = credentials_too_long(body)
            key = f"{path}:{client}"
            if by_email:
                email = body.get("email")
                if not isinstance(email, str) or too_long is not None:
                    email = "unknownIdentifier"
                key = f"{email.lower()}:{key}"
            verdict = await self.limiter.hit(key)
            if too_long is not None:
                # answered, not raised: a raised error held by this frame would keep the
                # frame (and the body) alive in a cycle until the collector runs
                response = error_response(
                    RateLimitError() if verdict and not verdict.allowed else too_long
                )
                if verdict is not None:
                    response.headers.update(verdict.headers())
                return response
            if verdict is None:
                return await handler(request, principal)
            ident = body.get("identifier")
            if sign_in and isinstance(ident, str) and ident:
                # sign-in is also limited per identifier, whatever the address: a client
                # that changes addresses still gets `max` guesses per account and window
                per_account = await self.limiter.hit(f"{path}:identifier:{ident.lower()}")
                if per_account is not None and not per_account.allowed:
                    verdict = per_account
            return await limited_answer(verdict, lambda: handler(request, principal))

        return limited

    async def _body(self, request: Request) -> dict[str, Any]:
        """The JSON object of the body (read once; the rate limiter may have read it)."""
        return await read_json_object(request, self.folio.settings.max_body_bytes)

    def _read(self, request: Request, principal: Principal) -> Query:
        return self.folio.documents.query(
            self.users.ct, query_params(request), principal, find=False
        )

    # ------------------------------------------------------------------ auth
    async def login(self, request: Request, principal: Principal) -> Response:
        body = await self._body(request)
        return json_response(await self.users.login(body.get("identifier"), body.get("password")))

    async def register(self, request: Request, principal: Principal) -> Response:
        return json_response(await self.users.register(await self._body(request)))

    async def forgot_password(self, request: Request, principal: Principal) -> Response:
        return json_response(await self.users.forgot_password(await self._body(request)))

    async def reset_password(self, request: Request, principal: Principal) -> Response:
        return json_response(await self.users.reset_password(await self._body(request)))

    async def change_password(self, request: Request, principal: Principal) -> Response:
        if principal.user_id is None:
            raise ApplicationError("You must be authenticated to reset your password")
        body = await self._body(request)
        result = await self.users.change_password(principal.user_id, body)
        return json_response(result)

    async def email_confirmation(self, request: Request, principal: Principal) -> Response:
        await self.users.confirm_email(request.query_params.get("confirmation"))
        target = self.folio.auth_settings.email_confirmation_redirect or "/"
        return RedirectResponse(target, status_code=302)

    async def send_email_confirmation(self, request: Request, principal: Principal) -> Response:
        return json_response(await self.users.send_email_confirmation(await self._body(request)))

    # ------------------------------------------------------------------ users
    async def me(self, request: Request, principal: Principal) -> Response:
        if principal.user_id is None:
            raise UnauthorizedError("Unauthorized")
        user = await self.users.get(principal.user_id, self._read(request, principal))
        if user is None:
            raise UnauthorizedError()
        return json_response(user)

    async def find(self, request: Request, principal: Principal) -> Response:
        f = self.folio
        params = dict(query_params(request))
        start, limit = params.pop("start", None), params.pop("limit", None)
        params.pop("pagination", None)  # ignored here, as in the reference
        spec = f.documents.query(self.users.ct, params, principal)
        # every user unless `start` / `limit` say otherwise (the reference's users list)
        spec.pagination.mode = "offset"
        spec.pagination.start = _natural(start, "start") or 0
        size = _natural(limit, "limit")
        spec.pagination.limit = 1_000_000 if size is None or size < 0 else size
        spec.pagination.with_count = False
        return json_response(await self.users.find(spec))

    async def count(self, request: Request, principal: Principal) -> Response:
        f = self.folio
        params = dict(query_params(request))
        for ignored in ("start", "limit", "pagination"):
            params.pop(ignored, None)
        return json_response(await f.documents.count(self.users.ct, params, principal))

    async def find_one(self, request: Request, principal: Principal) -> Response:
        user = await self.users.get(_user_id(request), self._read(request, principal))
        if user is None:
            raise NotFoundError()
        return json_response(user)

    async def create(self, request: Request, principal: Principal) -> Response:
        spec = self._read(request, principal)
        body = await self._body(request)
        user = await self.users.create(body, read=spec)
        return json_response(user, 201)

    async def update(self, request: Request, principal: Principal) -> Response:
        spec = self._read(request, principal)
        body = await self._body(request)
        user = await self.users.update(_user_id(request), body, read=spec)
        return json_response(user)

    async def destroy(self, request: Request, principal: Principal) -> Response:
        user = await self.users.delete(_user_id(request))
        return json_response(user)

    # ------------------------------------------------------------------ roles
    async def roles(self, request: Request, principal: Principal) -> Response:
        docs = await self.users.list_roles()
        counts = await self.users.role_counts()
        for doc in docs:
            doc.pop("publishedAt", None)
            doc["nb_users"] = counts.get(str(doc["documentId"]), 0)
        return json_response({"roles": docs})

    async def role(self, request: Request, principal: Principal) -> Response:
        role_id = decimal_id(request.path_params["id"])
        doc = await self.users.get_role(role_id) if role_id is not None else None
        if doc is None:
            raise NotFoundError()
        doc.pop("publishedAt", None)
        declared = self.folio.roles.get(str(doc.get("type")))
        doc["permissions"] = sorted(declared.permissions) if declared else []
        return json_response({"role": doc})
