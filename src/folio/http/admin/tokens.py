"""The admin HTTP API for API tokens (`/admin/api-tokens`), protected by an admin key:
`Authorization: Bearer <key>` where the key is one of `config/admin` `auth.keys` or the
`ADMIN_API_KEY` environment variable; or, without an `Authorization` header, by the admin
panel's session (its cookie, and its CSRF token on writes: http/admin/session.py). A
bearer credential that is not an admin key (a content-API JWT or API token) is refused.

    GET    /admin/api-tokens                 list (access keys are never shown again)
    POST   /admin/api-tokens                 create {name, description?, type, lifespan?,
                                             permissions?} -> the token with `accessKey`
    GET    /admin/api-tokens/:id             one token
    PUT    /admin/api-tokens/:id             rename, retype, change permissions
    DELETE /admin/api-tokens/:id             revoke -> the revoked token
    POST   /admin/api-tokens/:id/regenerate  a new access key for the same token"""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from folio.content.ids import decimal_id
from folio.errors import ForbiddenError, NotFoundError, UnauthorizedError
from folio.http.admin.session import AdminAuth
from folio.http.responses import json_response
from folio.http.rest.content import read_json_data

if TYPE_CHECKING:
    from folio.app import Folio


class AdminEndpoints:
    def __init__(self, folio: Folio, auth: AdminAuth) -> None:
        self.folio = folio
        self.keys = [k.encode() for k in folio.auth_settings.admin_keys]
        self.auth = auth

    def routes(self) -> list[Route]:
        return [
            Route("/admin/api-tokens", self.list, methods=["GET", "HEAD"]),
            Route("/admin/api-tokens", self.create, methods=["POST"]),
            Route("/admin/api-tokens/{id}", self.get, methods=["GET", "HEAD"]),
            Route("/admin/api-tokens/{id}", self.update, methods=["PUT"]),
            Route("/admin/api-tokens/{id}", self.revoke, methods=["DELETE"]),
            Route("/admin/api-tokens/{id}/regenerate", self.regenerate, methods=["POST"]),
        ]

    async def _check(self, request: Request) -> None:
        if "authorization" not in request.headers:
            # the admin panel: its session, with the CSRF token on writes
            await self.auth.require(request)
            return
        if not self.keys:
            raise ForbiddenError("The admin API is disabled: set ADMIN_API_KEY to enable it")
        header = request.headers.get("authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            raise UnauthorizedError()
        candidate = given.strip().encode()
        # compare with every key, whatever matches, so the time tells nothing
        matched = False
        for key in self.keys:
            matched |= hmac.compare_digest(candidate, key)
        if not matched:
            raise UnauthorizedError()

    def _id(self, request: Request) -> int:
        token_id = decimal_id(request.path_params["id"])
        if token_id is None:
            raise NotFoundError()
        return token_id

    async def _body(self, request: Request) -> dict[str, Any]:
        return await read_json_data(request, self.folio.settings.max_body_bytes)

    async def list(self, request: Request) -> Response:
        await self._check(request)
        return json_response({"data": await self.folio.tokens.list()})

    async def create(self, request: Request) -> Response:
        await self._check(request)
        token = await self.folio.tokens.create(await self._body(request))
        return json_response({"data": token}, 201)

    async def get(self, request: Request) -> Response:
        await self._check(request)
        return json_response({"data": await self.folio.tokens.get(self._id(request))})

    async def update(self, request: Request) -> Response:
        await self._check(request)
        token = await self.folio.tokens.update(self._id(request), await self._body(request))
        return json_response({"data": token})

    async def revoke(self, request: Request) -> Response:
        await self._check(request)
        token_id = decimal_id(request.path_params["id"])
        token = await self.folio.tokens.revoke(token_id) if token_id is not None else None
        return json_response({"data": token})

    async def regenerate(self, request: Request) -> Response:
        await self._check(request)
        token = await self.folio.tokens.regenerate(self._id(request))
        return json_response({"data": token}, 201)
