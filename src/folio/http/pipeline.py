"""What runs around a route's handler: authentication and the permission check, then the
route's policies, then its middlewares, then the handler (the reference's order).

Apps configure routes by action name, from `src/index.py`:

    def register(app):
        app.hooks.policies["is-editor"] = lambda ctx, config, app: ctx.principal.name == "editor"
        app.hooks.route("api::article.article.create", policies=["is-editor"])

or from `src/api/<api>/routes/<type>.json` (or `.py` defining `config`):

    {"config": {"find": {"auth": false, "policies": ["global::is-weekday"],
                         "middlewares": [{"name": "api::article.timing", "config": {}}]}}}

A policy is `policy(ctx, config, app)` returning a bool (or an awaitable of one): False
refuses the request with 403 `PolicyError`. A middleware is `async (request, call_next)`;
a named middleware module's `middleware(config, app)` returns one."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from folio.auth.access import OPEN, AccessControl, Principal
from folio.errors import ConfigError, PolicyError, UnauthorizedError

if TYPE_CHECKING:
    from folio.http.app import Folio

Handler = Callable[[Request, Principal], Awaitable[Response]]
CallNext = Callable[[Request], Awaitable[Response]]
Middleware = Callable[[Request, CallNext], Awaitable[Response]]
PolicyFn = Callable[..., Any]


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


@dataclass
class RouteConfig:
    auth: bool = True
    policies: list[Any] = field(default_factory=list)
    middlewares: list[Any] = field(default_factory=list)
    api: str | None = None  # the api whose named policies bare names refer to


@dataclass
class Hooks:
    """Named policies and middlewares, and per-action route settings."""

    policies: dict[str, PolicyFn] = field(default_factory=dict)
    middlewares: dict[str, Callable[..., Middleware]] = field(default_factory=dict)
    routes: dict[str, RouteConfig] = field(default_factory=dict)

    def route(
        self,
        action: str,
        *,
        auth: bool | None = None,
        policies: list[Any] | None = None,
        middlewares: list[Any] | None = None,
    ) -> RouteConfig:
        config = self.routes.setdefault(action, RouteConfig())
        if auth is not None:
            config.auth = auth
        config.policies.extend(policies or [])
        config.middlewares.extend(middlewares or [])
        return config


@dataclass
class Compiled:
    auth: bool
    policies: list[tuple[PolicyFn, Any]]
    middlewares: list[Middleware]


class Pipeline:
    def __init__(self, folio: Folio, access: AccessControl, hooks: Hooks) -> None:
        self.folio = folio
        self.access = access
        self.hooks = hooks
        self.compiled: dict[str, Compiled] = {}

    def compile(self, known_actions: frozenset[str]) -> None:
        """Resolves every configured route once (start-up); a name that resolves to nothing
        is a ConfigError."""
        self.compiled = {}
        for action, config in self.hooks.routes.items():
            if action not in known_actions:
                raise ConfigError(f"route configuration: unknown action {action!r}")
            policies = [self._policy(item, config.api, action) for item in config.policies]
            middlewares = [
                self._middleware(item, config.api, action) for item in config.middlewares
            ]
            if config.auth and not policies and not middlewares:
                continue
            self.compiled[action] = Compiled(config.auth, policies, middlewares)

    def _named(
        self, table: dict[str, Any], name: str, api: str | None, what: str, action: str
    ) -> Any:
        candidates = [name]
        if "::" not in name:
            if api:
                candidates.append(f"api::{api}.{name}")
            candidates.append(f"global::{name}")
        for candidate in candidates:
            if candidate in table:
                return table[candidate]
        raise ConfigError(f"route {action}: unknown {what} {name!r}")

    def _item(
        self, item: Any, table: dict[str, Any], api: str | None, what: str, action: str
    ) -> tuple[Any, Any]:
        """(function, config) of a route's policy or middleware entry: a name, a
        `{name, config}` object, or the function itself."""
        if callable(item):
            return item, None
        if isinstance(item, str):
            return self._named(table, item, api, what, action), {}
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            return self._named(table, item["name"], api, what, action), item.get("config", {})
        raise ConfigError(f"route {action}: a {what} is a name, {{name, config}} or a function")

    def _policy(self, item: Any, api: str | None, action: str) -> tuple[PolicyFn, Any]:
        fn, config = self._item(item, self.hooks.policies, api, "policy", action)
        return fn, {} if config is None else config

    def _middleware(self, item: Any, api: str | None, action: str) -> Middleware:
        fn, config = self._item(item, self.hooks.middlewares, api, "middleware", action)
        if config is None:  # an inline middleware, used as it is
            return fn  # type: ignore[no-any-return]
        return fn(config, self.folio)  # type: ignore[no-any-return]

    def endpoint(self, action: str, handler: Handler) -> CallNext:
        """A route endpoint that runs `handler` for `action` through this pipeline."""

        async def endpoint(request: Request) -> Response:
            return await self.run(request, action, handler)

        return endpoint

    async def run(self, request: Request, action: str, handler: Handler) -> Response:
        route = self.compiled.get(action)
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
