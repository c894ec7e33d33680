"""What runs around a route's handler: authentication and the permission check, then the
route's policies, then its middlewares, then the handler (the reference's order).

Which policies and middlewares a route has is the app's configuration (folio.hooks, resolved
when the app loads); this runs them for each request.

A policy is `policy(ctx, config, app)` returning a bool (or an awaitable of one): False
refuses the request with 403 `PolicyError`. A middleware is `async (request, call_next)`;
a named middleware module's `middleware(config, app)` returns one."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response

from folio.auth.principal import OPEN, Principal
from folio.errors import PolicyError, UnauthorizedError

if TYPE_CHECKING:
    from folio.app import Folio

Handler = Callable[[Request, Principal], Awaitable[Response]]
CallNext = Callable[[Request], Awaitable[Response]]
Middleware = Callable[[Request, CallNext], Awaitable[Response]]


@dataclass
class PolicyContext:
    """What a policy sees: the request, who is asking, the action and the app."""

    request: Request
    principal: Principal
    action: str
    app: Folio

    @property
    def user_id(self) -> int | None:
        return self.principal.user_id


class Pipeline:
    def __init__(self, folio: Folio) -> None:
        self.folio = folio
        self.access = folio.access
        self.routes = folio.routes  # the app's route settings, names resolved

    def endpoint(self, action: str, handler: Handler) -> CallNext:
        """A route endpoint that runs `handler` for `action` through this pipeline."""

        async def endpoint(request: Request) -> Response:
            return await self.run(request, action, handler)

        return endpoint

    async def run(self, request: Request, action: str, handler: Handler) -> Response:
        route = self.routes.get(action)
        if route is None:
            principal = await self.access.authorize(request.scope, action)
            return await handler(request, principal)
        if route.auth:
            principal = await self.access.authorize(request.scope, action)
        else:
            try:
                principal = await self.access.principal(request.scope)
            except UnauthorizedError:
                principal = OPEN
            if not principal.can(action):
                principal = OPEN
        for policy, config in route.policies:
            ctx = PolicyContext(request, principal, action, self.folio)
            result = policy(ctx, config, self.folio)
            if inspect.isawaitable(result):
                result = await result
            if result is not None and not result:
                raise PolicyError()
        if not route.middlewares:
            return await handler(request, principal)

        async def innermost(req: Request) -> Response:
            return await handler(req, principal)

        call: CallNext = innermost
        for middleware in reversed(route.middlewares):
            call = _bind(middleware, call)
        return await call(request)


def _bind(middleware: Middleware, call_next: CallNext) -> CallNext:
    async def step(request: Request) -> Response:
        return await middleware(request, call_next)

    return step
