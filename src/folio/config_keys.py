"""The table of every key Folio reads from `config/<name>.json` (or `.py`), and the check
that refuses the others at start-up with the file, the key and the nearest valid one.

One place to extend: a module that reads a new key adds it to `KNOWN_KEYS` below (a nested
object gets a nested table). The leaves say what Folio does with a key:

- `READ`: Folio reads the value (the reading module checks the value itself);
- `IGNORED`: a key of the reference's configuration that means nothing to Folio (its admin
  panel, its session cookies, its webhooks); accepted so that a project's configuration
  loads unchanged, and listed here so that nothing else is ignored by accident.

A nested table is checked only where the value is an object (a `false` that turns a
feature off is the reading module's business). `"*"` in a table stands for any name (each
value checked against its table); a one-item list stands for a list whose objects are
checked against the item."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from folio.startup import unknown_keys

READ = "read"
IGNORED = "ignored"

# a leaf (READ, IGNORED), a nested table, a list of objects of one table, or a function
# giving the problems of the value at a path
Table: TypeAlias = "str | dict[str, Table] | list[Table] | Callable[[Any, str], list[str]]"

# ------------------------------------------------------------------ database.json

_POOL: Table = {"min": READ, "max": READ}
# a connection's own settings: PostgreSQL's address and credentials, or SQLite's file
_CONNECTION: dict[str, Table] = {
    "host": READ,
    "port": READ,
    "database": READ,
    "user": READ,
    "password": READ,
    "ssl": READ,
    "schema": READ,
    "connectionString": READ,
    "filename": READ,
}
# the reference's knex options that have no meaning for Folio's drivers
_KNEX: dict[str, Table] = {
    "acquireConnectionTimeout": IGNORED,
    "useNullAsDefault": IGNORED,
    "debug": IGNORED,
}
# `{"client", "connection": {...}, "pool"}`: Folio's form at the top of the file, and the
# reference's inside `connection`
_CLIENT: dict[str, Table] = {
    "client": READ,
    "connection": _CONNECTION,
    "pool": _POOL,
    **_KNEX,
    **_CONNECTION,
}

# ------------------------------------------------------------------ plugins.json

_UPLOAD: dict[str, Table] = {
    "sizeLimit": READ,
    "security": {"allowedTypes": READ, "deniedTypes": READ},
    "responsiveDimensions": READ,
    "maxImagePixels": READ,
    "provider": READ,
    "providerOptions": READ,
    # the reference's per-action options of cloud providers (the local one takes none)
    "actionOptions": IGNORED,
}
_USERS_PERMISSIONS: dict[str, Table] = {
    "jwtSecret": READ,
    "jwt": {"expiresIn": READ},
    "defaultRole": READ,
    "emailConfirmation": READ,
    "emailConfirmationRedirection": READ,
    "resetPasswordUrl": READ,
    "register": {"allowedFields": READ},
    "ratelimit": {"enabled": READ, "interval": READ, "max": READ, "maxEntries": READ},
    "cacheSeconds": READ,
}
_GRAPHQL: dict[str, Table] = {
    "endpoint": READ,
    "shadowCRUD": READ,
    "depthLimit": READ,
    "amountLimit": READ,
    "defaultLimit": READ,
    "maxLimit": READ,
    # what one request may cost (http/graphql/limits.py, cost.py)
    "maxTokens": READ,
    "maxNesting": READ,
    "maxFields": READ,
    "maxAliases": READ,
    "maxFragments": READ,
    "maxDirectives": READ,
    "maxRepeats": READ,
    "maxCost": READ,
    "maxResponseBytes": READ,
    "landingPage": READ,
    "playgroundAlways": READ,
    "engineServer": {"introspection": READ, "cacheSize": READ, "tracing": READ},
}
# a plugin's entry: `enabled` (always on here), and its settings under `config`
_PLUGINS: dict[str, Table] = {
    "upload": {"enabled": IGNORED, "config": _UPLOAD, **_UPLOAD},
    "users-permissions": {"enabled": IGNORED, "config": _USERS_PERMISSIONS},
    "graphql": {"enabled": IGNORED, "config": _GRAPHQL},
    "documentation": {"enabled": READ},
    "i18n": {"enabled": IGNORED},
}

# ------------------------------------------------------------------ middlewares.json

_CORS: dict[str, Table] = {
    "origin": READ,
    "methods": READ,
    "headers": READ,
    "expose": READ,
    "credentials": READ,
    "maxAge": READ,
    "keepHeaderOnError": IGNORED,
}
_SECURITY: dict[str, Table] = {
    "contentSecurityPolicy": {"useDefaults": READ, "directives": READ},
    "referrerPolicy": {"policy": READ},
    "hsts": {"maxAge": READ, "includeSubDomains": READ, "preload": READ},
    "noSniff": READ,
    "dnsPrefetchControl": {"allow": READ},
    "ieNoOpen": READ,
    "frameguard": {"action": READ},
    "permittedCrossDomainPolicies": {"permittedPolicies": READ},
    # helmet's headers that the reference's defaults turn off and Folio never sends
    "crossOriginEmbedderPolicy": IGNORED,
    "crossOriginOpenerPolicy": IGNORED,
    "crossOriginResourcePolicy": IGNORED,
    "originAgentCluster": IGNORED,
    "xssFilter": IGNORED,
}
# the reference's default stack: what Folio does itself (errors, query and body parsing,
# public files) or has no use for (sessions, favicon, the X-Powered-By header, its logger)
_BUILT_IN_MIDDLEWARES = (
    "strapi::logger",
    "strapi::errors",
    "strapi::poweredBy",
    "strapi::query",
    "strapi::body",
    "strapi::session",
    "strapi::favicon",
    "strapi::public",
)
# a stack entry's name -> the table of its `config`
_STACK_CONFIGS: dict[str, Table] = {
    **{name: _CORS for name in ("strapi::cors", "global::cors", "cors")},
    **{name: _SECURITY for name in ("strapi::security", "global::security", "security")},
    **{name: IGNORED for name in _BUILT_IN_MIDDLEWARES},
}


def _stack(value: Any, path: str) -> list[str]:
    """The reference's list of middlewares: names or `{name, config}` entries."""
    if not isinstance(value, list):
        return []
    out: list[str] = []
    for i, entry in enumerate(value):
        name = entry.get("name") if isinstance(entry, dict) else entry
        if not isinstance(name, str):
            continue
        where = f"{path}[{i}]"
        if name not in _STACK_CONFIGS:
            found = unknown_keys({name: None}, frozenset(_STACK_CONFIGS))
            out += [f"`{where}`: {m.replace('unknown key', 'unknown middleware')}" for m in found]
            continue
        if isinstance(entry, dict):
            entry_table: Table = {"name": READ, "config": _STACK_CONFIGS[name], "resolve": IGNORED}
            out += problems(entry, entry_table, where)
    return out


# ------------------------------------------------------------------ the table

KNOWN_KEYS: dict[str, dict[str, Table]] = {
    "server": {
        "host": READ,
        "port": READ,
        "trustedProxies": READ,
        "timeouts": {"headers": READ, "body": READ, "keepAlive": READ},
        "maxConnectionsPerClient": READ,
        "maxConnections": READ,
        # headers of every webhook delivery (as the reference reads them), and how
        # deliveries are made (folio.webhooks.settings)
        "webhooks": {
            "defaultHeaders": READ,
            "timeout": READ,
            "maxAttempts": READ,
            "backoff": READ,
            "maxBackoff": READ,
            "pollInterval": READ,
            "retentionDays": READ,
            # the reference's version 4 option; entries are sent without relations
            "populateRelations": IGNORED,
        },
        # the server's public URL: the admin panel's links in mails, its Secure cookie
        "url": READ,
        # where the rate limiters count: a Redis server shared by every process and host
        # (or REDIS_URL), the keys' prefix, its timeout, what requests meet while it is
        # unreachable (folio.auth.ratelimit.settings)
        "rateLimit": {
            "redis": READ,
            "prefix": READ,
            "timeout": READ,
            "failMode": READ,
            "retryInterval": READ,
        },
        # what a stopping server does (folio.cli.server.Shutdown)
        "shutdown": {"graceSeconds": READ, "delaySeconds": READ},
        # how processes and hosts tell each other of configuration changes (folio.broadcast)
        "broadcast": {"via": READ, "pollMilliseconds": READ, "channel": READ},
        # the reference's cookie keys and update notices
        "app": IGNORED,
        "logger": IGNORED,
    },
    # `connection` holds the connection's settings, or (the reference's form) a whole
    # `{"client", "connection", "pool"}`
    "database": {"url": READ, **_CLIENT, "connection": _CLIENT},
    "api": {
        "rest": {
            "defaultLimit": READ,
            "maxLimit": READ,
            "withCount": READ,
            "maxFilterConditions": READ,
            "maxFilterValues": READ,
            "maxFilterDepth": READ,
            "maxSortFields": READ,
            "maxPopulateDepth": READ,
            "maxPopulatedEntries": READ,
        },
        "maxBodyBytes": READ,
        "maxComponents": READ,
        "maxRelationEntries": READ,
        # the realtime feed's event streams (folio.feed.settings)
        "realtime": {
            "enabled": READ,
            "heartbeatSeconds": READ,
            "retryMilliseconds": READ,
            "maxStreams": READ,
            "maxStreamSeconds": READ,
            "queueSize": READ,
            "pollMilliseconds": READ,
            "watch": READ,
        },
    },
    "i18n": {
        "defaultLocale": READ,
        "locales": [{"code": READ, "name": READ}],
    },
    "plugins": _PLUGINS,
    "middlewares": {
        # the reference's list form, kept under `stack` when read
        "stack": _stack,
        "cors": _CORS,
        "security": _SECURITY,
    },
    "admin": {
        "auth": {
            "keys": READ,
            # the admin panel's sessions (content/accounts/admins.py)
            "session": {"idleSeconds": READ, "maxSeconds": READ},
            # the reference's admin panel sign-in
            "secret": IGNORED,
            "options": IGNORED,
            "sessions": IGNORED,
            "events": IGNORED,
            "domain": IGNORED,
        },
        "apiToken": {"salt": READ},
        # the reference's admin panel, data transfer and encryption of its own secrets
        "transfer": IGNORED,
        "secrets": IGNORED,
        "flags": IGNORED,
        "url": IGNORED,
        "serveAdminPanel": IGNORED,
        "autoOpen": IGNORED,
        "watchIgnoreFiles": IGNORED,
        "forgotPassword": IGNORED,
        # the admin panel's sign-in limits (content/accounts/admins.py)
        "rateLimit": {
            "enabled": READ,
            "interval": READ,
            "max": READ,
            # the reference's limiter options that Folio's limiter has no use for
            "delayAfter": IGNORED,
            "timeWait": IGNORED,
            "prefixKey": IGNORED,
            "whitelist": IGNORED,
            "store": IGNORED,
        },
    },
    # config/webhooks.json (read by folio.webhooks.settings)
    "webhooks": {
        "webhooks": [
            {
                "name": READ,
                "url": READ,
                "headers": READ,
                "events": READ,
                "enabled": READ,
                "secret": READ,
            }
        ],
    },
    # config/permissions.json (read by folio.auth.permissions)
    "permissions": {
        "roles": {"*": {"name": READ, "description": READ, "permissions": READ}},
    },
}

# a route file (`src/api/<api>/routes/<type>.json` or `.py`), read by folio.hooks
ROUTE_FILE_KEYS: dict[str, Table] = {
    "config": {"*": {"auth": READ, "policies": READ, "middlewares": READ}},
}


def problems(value: Any, table: Table, path: str = "") -> list[str]:
    """What in `value` the table does not know, one message per key: `path`: unknown key
    `k`; did you mean `known`?"""
    if callable(table):
        return table(value, path)
    if isinstance(table, list):
        if not isinstance(value, list):
            return []
        return [m for i, item in enumerate(value) for m in problems(item, table[0], f"{path}[{i}]")]
    if not isinstance(table, dict) or not isinstance(value, dict):
        return []
    prefix = f"`{path}`: " if path else ""
    out = []
    if "*" not in table:
        out = [prefix + m for m in unknown_keys(value, frozenset(table))]
    for key, item in value.items():
        sub = table.get(str(key), table.get("*"))
        if sub is not None and sub not in (READ, IGNORED):
            out += problems(item, sub, f"{path}.{key}" if path else str(key))
    return out


def check_keys(name: str, value: Any, where: str) -> str | None:
    """The problems of config file `name` (a key of KNOWN_KEYS) in one line, naming the
    file (`where`), or None."""
    found = problems(value, KNOWN_KEYS[name])
    return f"{where}: " + "; ".join(found) if found else None
