"""The app's own Python: `src/index.py` (`register(app)` before start-up, `bootstrap(app)`
after the database is ready), policies (`src/policies/<name>.py`, `src/api/<api>/policies/
<name>.py`, each defining `policy(ctx, config, app)`), middlewares (`src/middlewares/<name>
.py`, `src/api/<api>/middlewares/<name>.py`, each defining `middleware(config, app)`) and
route settings (`src/api/<api>/routes/<type>.json` or `.py` defining `config`)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from folio.errors import ConfigError
from folio.http.pipeline import Hooks
from folio.schema.model import Registry

ROUTE_KEYS = frozenset({"auth", "policies", "middlewares"})


def _module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{path}: cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise ConfigError(f"{path}: {type(exc).__name__}: {exc}") from exc
    return module


def load_index(app_dir: Path) -> ModuleType | None:
    path = app_dir / "src" / "index.py"
    return _module(path, "folio_app_index") if path.is_file() else None


def _collect(hooks: Hooks, folder: Path, prefix: str, kind: str) -> None:
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.py")):
        name = f"{prefix}{path.stem}"
        module = _module(path, f"folio_app_{kind}_{name.replace(':', '_').replace('.', '_')}")
        fn = getattr(module, kind, None)
        if not callable(fn):
            raise ConfigError(f"{path}: must define a function `{kind}`")
        table: dict[str, Any] = hooks.policies if kind == "policy" else hooks.middlewares
        table[name] = fn


def _route_file(path: Path) -> dict[str, Any]:
    if path.suffix == ".json":
        try:
            data = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise ConfigError(f"{path}: invalid JSON ({exc})") from None
    else:
        data = getattr(
            _module(path, f"folio_app_routes_{path.parent.parent.name}_{path.stem}"), "config", None
        )
        data = {"config": data} if isinstance(data, dict) and "config" not in data else data
    if not isinstance(data, dict) or not isinstance(data.get("config", {}), dict):
        raise ConfigError(f"{path}: expected an object with `config`")
    return dict(data.get("config", {}))


def load_hooks(app_dir: Path, registry: Registry) -> Hooks:
    hooks = Hooks()
    src = app_dir / "src"
    _collect(hooks, src / "policies", "global::", "policy")
    _collect(hooks, src / "middlewares", "global::", "middleware")
    api_dir = src / "api"
    if not api_dir.is_dir():
        return hooks
    for api in sorted(p for p in api_dir.iterdir() if p.is_dir()):
        _collect(hooks, api / "policies", f"api::{api.name}.", "policy")
        _collect(hooks, api / "middlewares", f"api::{api.name}.", "middleware")
        routes = api / "routes"
        if not routes.is_dir():
            continue
        for path in sorted([*routes.glob("*.json"), *routes.glob("*.py")]):
            uid = f"api::{api.name}.{path.stem}"
            if uid not in registry.content_types:
                raise ConfigError(f"{path}: there is no content type {uid}")
            for action, settings in _route_file(path).items():
                if not isinstance(settings, dict) or set(settings) - ROUTE_KEYS:
                    raise ConfigError(
                        f"{path}: `{action}` takes only auth, policies and middlewares"
                    )
                config = hooks.route(
                    f"{uid}.{action}",
                    auth=settings["auth"] is not False if "auth" in settings else None,
                    policies=list(settings.get("policies", [])),
                    middlewares=list(settings.get("middlewares", [])),
                )
                config.api = api.name
    return hooks
