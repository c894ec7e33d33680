"""The dialects, one per database: `base.Dialect` (the interface, documented there) and one
module per database. `dialect_for(engine)` gives the dialect of an engine name as
`store.urls.engine_of` reads it from a URL; MySQL's module is imported only when asked for."""

from __future__ import annotations

import importlib
from functools import cache

from folio.errors import ConfigError
from folio.store.dialects.base import Dialect

__all__ = ["Dialect", "dialect_for"]

# engine -> (module, the dialect's class name)
_MODULES = {
    "sqlite": ("folio.store.dialects.sqlite", "SQLITE"),
    "postgres": ("folio.store.dialects.postgres", "POSTGRES"),
    "mysql": ("folio.store.dialects.mysql", "MYSQL"),
}


@cache
def dialect_for(engine: str) -> Dialect:
    """The dialect of `engine` ("sqlite", "postgres", "mysql"): one object per engine."""
    found = _MODULES.get(engine)
    if found is None:
        raise ConfigError(f"database engine {engine!r} is not supported")
    module_name, instance = found
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise ConfigError(f"the {engine} dialect ({module_name}) is not installed") from None
    dialect: Dialect = getattr(module, instance)
    return dialect
