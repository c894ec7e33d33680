"""The users-and-permissions routes: sign-up and sign-in (`/api/auth/...`), the users API
(`/api/users...`) and the roles list (`/api/users-permissions/roles`). As in the reference,
these answer plain objects and arrays, not the `{data, meta}` envelope.

The account actions (sign-in, sign-up, passwords, email confirmation) hand the user service
the request's `Attempt`; the service counts it with the app's rate limiter (the same count
as GraphQL's mutations), and the answer carries the X-RateLimit headers of its window."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from folio.auth.principal import Principal
from folio.content.accounts.attempts import Attempt
from folio.content.ids import decimal_id
from folio.content.query import Query
from folio.errors import (
    ApplicationError,
    FolioError,
    NotFoundError,
    UnauthorizedError,
    ValidationError,
)
from folio.http.responses import error_response, json_response
from folio.http.rest.content import query_params, read_json_object

if TYPE_CHECKING:
    from folio.app import Folio
    from folio.http.pipeline import Pipeline

Handler = Callable[[Request, Principal], Awaitable[Response]]
# an account action's handler: given the request's attempt, for the user service to count
AccountHandler = Callable[[Request, Principal, Attempt], Awaitable[Response]]
UP = "plugin::users-permissions"


def attempt_of(request: Request) -> Attempt:
    """The attempt of a request to an account action, by client address (the connection's,
    or the one a trusted proxy forwarded)."""
    return Attempt(request.client.host if request.client else "-")


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

    def routes(self) -> list[Route]:
        get, post = ["GET", "HEAD"], ["POST"]
        counted = self._counted
        # path, methods, action, handler
        table: list[tuple[str, list[str], str, Handler]] = [
            ("/api/auth/local", post, "auth.callback", counted(self.login)),
            ("/api/auth/local/register", post, "auth.register", counted(self.register)),
            (
                "/api/auth/forgot-password",
                post,
                "auth.forgotPassword",
                counted(self.forgot_password),
            ),
            ("/api/auth/reset-password", post, "auth.resetPassword", counted(self.reset_password)),
            (
                "/api/auth/change-password",
                post,
                "auth.changePassword",
                counted(self.change_password),
            ),
            (
                "/api/auth/email-confirmation",
                ["GET"],
                "auth.emailConfirmation",
                counted(self.email_confirmation),
            ),
            (
                "/api/auth/send-email-confirmation",
                post,
                "auth.sendEmailConfirmation",
                counted(self.send_email_confirmation),
            ),
            ("/api/users/me", get, "user.me", self.me),
            ("/api/users/count", get, "user.count", self.count),
            ("/api/users", get, "user.find", self.find),
            ("/api/users", post, "user.create", self.create),
            ("/api/users/{id}", get, "user.findOne", self.find_one),
            ("/api/users/{id}", ["PUT"], "user.update", self.update),
            ("/api/users/{id}", ["DELETE"], "user.destroy", self.destroy),
            ("/api/users-permissions/roles", get, "role.find", self.roles),
            ("/api/users-permissions/roles/{id}", get, "role.findOne", self.role),
        ]
        return [
            Route(path, self.pipeline.endpoint(f"{UP}.{action}", handler), methods=methods)
            for path, methods, action, handler in table
        ]

    @staticmethod
    def _counted(handler: AccountHandler) -> Handler:
        """An account action's handler (run after authorization, as the reference counts),
        given the request's attempt; its answer, an error's included, carries the
        X-RateLimit headers of the window the attempt was counted in."""

        async def counted(request: Request, principal: Principal) -> Response:
            attempt = attempt_of(request)
            try:
                response = await handler(request, principal, attempt)
            except FolioError as exc:
                response = error_response(exc)
            if attempt.verdict is not None:
                response.headers.update(attempt.verdict.headers())
            return response

        return counted

    async def _body(self, request: Request) -> dict[str, Any]:
        """The JSON object of the body (read once, whoever asks)."""
        return await read_json_object(request, self.folio.settings.max_body_bytes)

    def _read(self, request: Request, principal: Principal) -> Query:
        return self.folio.documents.query(
            self.users.ct, query_params(request), principal, find=False
        )

    # ------------------------------------------------------------------ auth
    async def login(self, request: Request, principal: Principal, attempt: Attempt) -> Response:
        body = await self._body(request)
        identifier, password = body.get("identifier"), body.get("password")
        return json_response(await self.users.login(identifier, password, attempt=attempt))

    async def register(self, request: Request, principal: Principal, attempt: Attempt) -> Response:
        body = await self._body(request)
        return json_response(await self.users.register(body, attempt=attempt))

    async def forgot_password(
        self, request: Request, principal: Principal, attempt: Attempt
    ) -> Response:
        body = await self._body(request)
        return json_response(await self.users.forgot_password(body, attempt=attempt))

    async def reset_password(
        self, request: Request, principal: Principal, attempt: Attempt
    ) -> Response:
        body = await self._body(request)
        return json_response(await self.users.reset_password(body, attempt=attempt))

    async def change_password(
        self, request: Request, principal: Principal, attempt: Attempt
    ) -> Response:
        if principal.user_id is None:
            raise ApplicationError("You must be authenticated to reset your password")
        body = await self._body(request)
        result = await self.users.change_password(principal.user_id, body, attempt=attempt)
        return json_response(result)

    async def email_confirmation(
        self, request: Request, principal: Principal, attempt: Attempt
    ) -> Response:
        token = request.query_params.get("confirmation")
        await self.users.confirm_email(token, attempt=attempt)
        target = self.folio.auth_settings.email_confirmation_redirect or "/"
        return RedirectResponse(target, status_code=302)

    async def send_email_confirmation(
        self, request: Request, principal: Principal, attempt: Attempt
    ) -> Response:
        body = await self._body(request)
        return json_response(await self.users.send_email_confirmation(body, attempt=attempt))

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
