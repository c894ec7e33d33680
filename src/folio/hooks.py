"""The app's own Python, and the route settings it declares.

Loaded from the app directory: `src/index.py` (`register(app)` before start-up,
`bootstrap(app)` after the database is ready), policies (`src/policies/<name>.py`,
`src/api/<api>/policies/<name>.py`, each defining `policy(ctx, config, app)`), middlewares
(`src/middlewares/<name>.py`, `src/api/<api>/middlewares/<name>.py`, each defining
`middleware(config, app)`) and route settings (`src/api/<api>/routes/<type>.json` or `.py`
defining `config`). Apps also configure routes by action name from `register(app)`:

    def register(app):
        app.hooks.policies["is-editor"] = lambda ctx, config, app: ctx.principal.name == "editor"
        app.hooks.route("api::article.article.create", policies=["is-editor"])

A route's settings name its policies and middlewares; `resolve_routes` turns the names into
the functions (once, at load time, so a name that resolves to nothing stops the app from
loading). Running them around a request is the HTTP front-end's part (http/pipeline.py)."""

from __future__ import annotations

import importlib.util
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import orjson

from folio.config_keys import ROUTE_FILE_KEYS, problems
from folio.errors import ConfigError
from folio.schema.model import Registry
from folio.startup import nearest

if TYPE_CHECKING:
    from folio.app import Folio


# `policy(ctx, config, app)` -> bool or an awaitable of one
PolicyFn = Callable[..., Any]
# `async (request, call_next) -> response`; the HTTP front-end gives it its precise type
MiddlewareFn = Callable[..., Any]


@dataclass
class RouteConfig:
    auth: bool = True
    policies: list[Any] = field(default_factory=list)
    middlewares: list[Any] = field(default_factory=list)
    api: str | None = None  # the api whose named policies bare names refer to
    source: str | None = None  # the route file that configures it, for messages


@dataclass
class Hooks:
    """Named policies and middlewares, and per-action route settings."""

    policies: dict[str, PolicyFn] = field(default_factory=dict)
    middlewares: dict[str, Callable[..., MiddlewareFn]] = field(default_factory=dict)
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
class RouteHooks:
    """One action's settings with every name resolved: whether it is authenticated, its
    policies with their configs, and its middlewares ready to call."""

    auth: bool
    policies: list[tuple[PolicyFn, Any]]
    middlewares: list[MiddlewareFn]


# ---------------------------------------------------------------------- loading


def _shown(path: Path, root: Path) -> str:
    """A file of the app as messages name it: from the app directory."""
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def _module(path: Path, name: str, root: Path) -> ModuleType:
    """Runs one of the app's Python files; ConfigError naming the file and the line of a
    mistake (a syntax error, or an exception raised while it runs)."""
    shown = _shown(path, root)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{shown}: cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise ConfigError(f"{shown}: line {exc.lineno}: {type(exc).__name__}: {exc.msg}") from None
    except OSError as exc:
        if exc.filename == str(path):  # the file itself cannot be read: not its mistake
            raise
        raise ConfigError(f"{shown}: {type(exc).__name__}: {exc}") from None
    except Exception as exc:
        raise code_error(exc, path, shown) from None
    return module


def code_error(exc: Exception, path: Path, shown: str) -> ConfigError:
    """An exception raised by the app's own code, as one line: the file, the line of it
    where the exception passed last, its type and message."""
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    at = f"line {lines[-1]}: " if lines else ""
    return ConfigError(f"{shown}: {at}{type(exc).__name__}: {exc}")


def load_index(app_dir: Path) -> ModuleType | None:
    path = app_dir / "src" / "index.py"
    return _module(path, "folio_app_index", app_dir) if path.is_file() else None


def _collect(hooks: Hooks, folder: Path, prefix: str, kind: str, root: Path) -> None:
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.py")):
        name = f"{prefix}{path.stem}"
        module = _module(path, f"folio_app_{kind}_{name.replace(':', '_').replace('.', '_')}", root)
        fn = getattr(module, kind, None)
        if not callable(fn):
            raise ConfigError(f"{_shown(path, root)}: must define a function `{kind}`")
        table: dict[str, Any] = hooks.policies if kind == "policy" else hooks.middlewares
        table[name] = fn


def _route_file(path: Path, root: Path) -> dict[str, Any]:
    shown = _shown(path, root)
    if path.suffix == ".json":
        try:
            data = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise ConfigError(f"{shown}: invalid JSON ({exc})") from None
    else:
        name = f"folio_app_routes_{path.parent.parent.name}_{path.stem}"
        data = getattr(_module(path, name, root), "config", None)
        data = {"config": data} if isinstance(data, dict) and "config" not in data else data
    if not isinstance(data, dict) or not isinstance(data.get("config", {}), dict):
        raise ConfigError(f"{shown}: expected an object with `config`")
    found = problems(data, ROUTE_FILE_KEYS)
    if found:
        raise ConfigError(f"{shown}: " + "; ".join(found))
    return dict(data.get("config", {}))


def load_hooks(app_dir: Path, registry: Registry) -> Hooks:
    hooks = Hooks()
    src = app_dir / "src"
    _collect(hooks, src / "policies", "global::", "policy", app_dir)
    _collect(hooks, src / "middlewares", "global::", "middleware", app_dir)
    api_dir = src / "api"
    if not api_dir.is_dir():
        return hooks
    for api in sorted(p for p in api_dir.iterdir() if p.is_dir()):
        _collect(hooks, api / "policies", f"api::{api.name}.", "policy", app_dir)
        _collect(hooks, api / "middlewares", f"api::{api.name}.", "middleware", app_dir)
        routes = api / "routes"
        if not routes.is_dir():
            continue
        for path in sorted([*routes.glob("*.json"), *routes.glob("*.py")]):
            uid = f"api::{api.name}.{path.stem}"
            shown = _shown(path, app_dir)
            if uid not in registry.content_types:
                raise ConfigError(f"{shown}: there is no content type {uid}")
            for action, settings in _route_file(path, app_dir).items():
                if not isinstance(settings, dict):
                    raise ConfigError(
                        f"{shown}: `{action}` takes only auth, policies and middlewares"
                    )
                config = hooks.route(
                    f"{uid}.{action}",
                    auth=settings["auth"] is not False if "auth" in settings else None,
                    policies=list(settings.get("policies", [])),
                    middlewares=list(settings.get("middlewares", [])),
                )
                config.api = api.name
                config.source = shown
    return hooks


# ---------------------------------------------------------------------- resolving


def named_entry(
    item: Any,
    table: dict[str, Any],
    *,
    api: str | None,
    what: str,
    where: str,
    config_key: str = "config",
) -> tuple[Any, Any]:
    """(function, config) of a named policy or middleware entry: a name, or an object
    `{name, <config_key>}`. A bare name is looked up as given, then in `api`, then as a
    global one; `where` begins the messages of a ConfigError."""
    if isinstance(item, str):
        name, config = item, {}
    elif isinstance(item, dict) and isinstance(item.get("name"), str):
        name, config = item["name"], item.get(config_key, {})
    else:
        raise ConfigError(f"{where}: a {what} is a name, {{name, {config_key}}} or a function")
    candidates = [name]
    if "::" not in name:
        if api:
            candidates.append(f"api::{api}.{name}")
        candidates.append(f"global::{name}")
    for candidate in candidates:
        if candidate in table:
            return table[candidate], config
    # the names this one could have meant, as it would be written here
    reachable = {}
    for known in table:
        reachable[known] = known
        for prefix in ("global::", f"api::{api}." if api else None):
            if prefix and known.startswith(prefix):
                reachable[known.removeprefix(prefix)] = known
    near = nearest(name, reachable)
    hint = f"; did you mean {near!r}?" if near else ""
    raise ConfigError(f"{where}: unknown {what} {name!r}{hint}")


def _item(
    item: Any, table: dict[str, Any], api: str | None, what: str, where: str
) -> tuple[Any, Any]:
    """(function, config) of a route's policy or middleware entry: a name, a
    `{name, config}` object, or the function itself (config None)."""
    if callable(item):
        return item, None
    return named_entry(item, table, api=api, what=what, where=where)


def resolve_routes(
    hooks: Hooks, known_actions: frozenset[str], app: Folio
) -> dict[str, RouteHooks]:
    """Every configured route with its names resolved and its named middlewares made (each
    `middleware(config, app)`); a route left at the defaults (authenticated, nothing to run)
    is left out. ConfigError for an unknown action or name."""
    resolved: dict[str, RouteHooks] = {}
    for action, config in hooks.routes.items():
        if action not in known_actions:
            raise ConfigError(f"route configuration: unknown action {action!r}")
        where = f"{config.source}: route {action}" if config.source else f"route {action}"
        policies: list[tuple[PolicyFn, Any]] = []
        for entry in config.policies:
            fn, options = _item(entry, hooks.policies, config.api, "policy", where)
            policies.append((fn, {} if options is None else options))
        middlewares: list[MiddlewareFn] = []
        for entry in config.middlewares:
            fn, options = _item(entry, hooks.middlewares, config.api, "middleware", where)
            # an inline middleware is used as it is; a named one is made with its config
            middlewares.append(fn if options is None else fn(options, app))
        if config.auth and not policies and not middlewares:
            continue
        resolved[action] = RouteHooks(config.auth, policies, middlewares)
    return resolved
