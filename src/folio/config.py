"""App settings: `config/<name>.json` or `config/<name>.py` files, `.env`, and environment
variables (which win).

A Python config file defines `config` as a dict or as a function `config(env)` returning one;
`env(name, default)` reads the environment, with `env.int`, `env.bool` and `env.json`."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from folio.config_keys import check_keys
from folio.errors import ConfigError
from folio.startup import nearest

# the scaffold's client and example URL
from folio.store.urls import DEFAULT_CLIENT as DEFAULT_CLIENT
from folio.store.urls import DEFAULT_URL, check_url, client_url, described
from folio.store.urls import EXAMPLE_URL as EXAMPLE_URL

CONFIG_NAMES = ("server", "database", "api", "plugins", "i18n", "middlewares", "admin", "webhooks")
# every key read from these files is listed in folio.config_keys.KNOWN_KEYS (the others are
# refused at start-up): a new key goes there too


class Env:
    def __call__(self, name: str, default: Any = None) -> Any:
        return os.environ.get(name, default)

    def int(self, name: str, default: int | None = None) -> int | None:
        value = os.environ.get(name)
        return int(value) if value not in (None, "") else default

    def bool(self, name: str, default: bool | None = None) -> bool | None:
        value = os.environ.get(name)
        if value in (None, ""):
            return default
        return value.lower() in ("1", "true", "yes", "on")

    def json(self, name: str, default: Any = None) -> Any:
        value = os.environ.get(name)
        return orjson.loads(value) if value not in (None, "") else default


def load_dotenv(path: Path) -> None:
    """`KEY=VALUE` lines; existing environment variables are kept."""
    if not path.is_file():
        return
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        key = key.strip().removeprefix("export ").strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        os.environ.setdefault(key, value)


def _load_file(config_dir: Path, name: str) -> dict[str, Any]:
    json_path = config_dir / f"{name}.json"
    py_path = config_dir / f"{name}.py"
    if json_path.is_file():
        try:
            data = orjson.loads(json_path.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise ConfigError(f"config/{json_path.name}: invalid JSON ({exc})") from None
    elif py_path.is_file():
        spec = importlib.util.spec_from_file_location(f"folio_app_config_{name}", py_path)
        if spec is None or spec.loader is None:
            raise ConfigError(f"{py_path}: cannot be loaded")
        module = importlib.util.module_from_spec(spec)
        where = f"config/{py_path.name}"
        try:
            spec.loader.exec_module(module)
            value = getattr(module, "config", None)
            data = value(Env()) if callable(value) else value
        except SyntaxError as exc:
            raise ConfigError(f"{where}: line {exc.lineno}: SyntaxError: {exc.msg}") from None
        except Exception as exc:  # the app's own code: its mistake, said on one line
            raise ConfigError(f"{where}: {type(exc).__name__}: {exc}") from None
    else:
        return {}
    if name == "middlewares" and isinstance(data, list):
        data = {"stack": data}  # the reference's list of middlewares
    if not isinstance(data, dict):
        raise ConfigError(f"config/{name}: must define an object")
    where = f"config/{json_path.name if json_path.is_file() else py_path.name}"
    problem = check_keys(name, data, where)
    if problem:
        raise ConfigError(problem)
    return data


# config/ files read elsewhere than here
OTHER_FILES = ("permissions.json",)


def _check_files(config_dir: Path) -> None:
    """No JSON or Python file in config/ goes unread: a misspelt name, or both forms of one
    file (the JSON one would win), is refused."""
    if not config_dir.is_dir():
        return
    known = [f"{n}.{ext}" for n in CONFIG_NAMES for ext in ("json", "py")] + list(OTHER_FILES)
    for path in sorted([*config_dir.glob("*.json"), *config_dir.glob("*.py")]):
        if path.name not in known:
            near = nearest(path.name, known)
            hint = f"; did you mean `{near}`?" if near else ""
            raise ConfigError(f"config/{path.name}: not a configuration file Folio reads{hint}")
        if path.suffix == ".py" and path.with_suffix(".json").is_file():
            raise ConfigError(
                f"config/{path.name}: config/{path.stem}.json is read instead: keep one of them"
            )
    # the reference's JavaScript or TypeScript form of a file Folio reads, alone
    for name in CONFIG_NAMES:
        if any((config_dir / f"{name}.{ext}").is_file() for ext in ("json", "py")):
            continue
        for ext in ("js", "ts"):
            if (config_dir / f"{name}.{ext}").is_file():
                raise ConfigError(
                    f"config/{name}.{ext}: Folio reads config/{name}.json or config/{name}.py "
                    "(a `config` object or a function `config(env)`), not JavaScript"
                )


def environment() -> str:
    """The app's environment: `FOLIO_ENV` (or the reference's `NODE_ENV`), by default
    development; `production` turns off what is only for development."""
    return os.environ.get("FOLIO_ENV") or os.environ.get("NODE_ENV") or "development"


@dataclass
class Locale:
    code: str
    name: str


@dataclass
class Settings:
    app_dir: Path
    host: str = "127.0.0.1"
    port: int = 1337
    database_url: str = DEFAULT_URL
    # PostgreSQL connections a process keeps: (at least, at most); None: the driver's default
    database_pool: tuple[int, int | None] | None = None
    rest_default_limit: int = 25
    rest_max_limit: int = 100
    rest_with_count: bool = True
    # api.json `rest` bounds of one read, by key (maxFilterConditions, maxFilterValues,
    # maxFilterDepth, maxSortFields, maxPopulateDepth, maxPopulatedEntries; the defaults:
    # folio.content.query.ReadLimits)
    rest_read_limits: dict[str, int] = field(default_factory=dict)
    locales: list[Locale] = field(default_factory=lambda: [Locale("en", "English (en)")])
    default_locale: str = "en"
    max_body_bytes: int = 1024 * 1024
    # what one write may hold (api.json `maxComponents`, `maxRelationEntries`)
    max_components: int = 1000
    max_relation_entries: int = 1000
    # addresses of the proxies whose X-Forwarded-For / X-Forwarded-Proto are believed (none
    # by default: a client could otherwise claim any address and dodge per-address limits)
    trusted_proxies: list[str] = field(default_factory=list)
    # where the database URL comes from, for messages: the default, config/database or
    # DATABASE_URL
    database_from: str = "the default"
    # server.json `timeouts` (seconds: a request's headers, a pause in its body, an idle
    # keep-alive connection) and connection limits (per client address; in all, 0: from the
    # open-files limit), enforced by the server's protocol (folio.transport)
    headers_timeout: float = 10.0
    body_timeout: float = 30.0
    keep_alive_timeout: float = 5.0
    max_connections_per_client: int = 256
    max_connections: int = 0
    raw: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def locale_codes(self) -> frozenset[str]:
        return frozenset(loc.code for loc in self.locales)

    def locale_records(self) -> list[dict[str, Any]]:
        """The configured locales as records, as the reference lists them (REST's
        `/api/i18n/locales`, GraphQL's `i18NLocales`); they live in configuration, so they
        have no timestamps and their code is their documentId."""
        return [
            {
                "id": i,
                "documentId": loc.code,
                "name": loc.name,
                "code": loc.code,
                "createdAt": None,
                "updatedAt": None,
                "publishedAt": None,
                "isDefault": loc.code == self.default_locale,
            }
            for i, loc in enumerate(self.locales, start=1)
        ]


def database_banner(url: str) -> str:
    """The database as the start-up banner names it: its kind and where it is (no user,
    no password)."""
    return described(url)


def _database(db: dict[str, Any]) -> tuple[str | None, Any]:
    """The database URL and pool settings of config/database: `{"url"}`, Folio's
    `{"client", "connection": {...}, "pool"}` (or the connection's keys beside `client`), or
    the reference's `{"connection": {"client", "connection": {...}, "pool"}}`. The URL of a
    client and its connection is the store's to write (store.urls); an unknown client is
    refused."""
    if not db:
        return None, None
    nested = db.get("connection")
    level = nested if isinstance(nested, dict) and "client" in nested else db
    pool = level.get("pool", db.get("pool"))
    if isinstance(db.get("url"), str):
        return str(db["url"]), pool
    inner = level.get("connection")
    c: dict[str, Any] = inner if isinstance(inner, dict) else level
    if isinstance(c.get("connectionString"), str) and c["connectionString"]:
        return str(c["connectionString"]), pool
    return client_url(level.get("client", DEFAULT_CLIENT), c), pool


# api.json `rest` keys of the bounds of one read (whole numbers, 1 or more)
READ_LIMIT_KEYS = (
    "maxFilterConditions",
    "maxFilterValues",
    "maxFilterDepth",
    "maxSortFields",
    "maxPopulateDepth",
    "maxPopulatedEntries",
)


def whole_number(
    section: dict[str, Any], key: str, default: int, where: str, minimum: int | None = 1
) -> int:
    """An integer setting (of at least `minimum`, when given); ConfigError naming it
    otherwise."""
    value = section.get(key, default)
    if isinstance(value, str) and value.strip().lstrip("-").isdecimal():
        value = int(value)  # from the environment, in a Python config file
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or (minimum is not None and value < minimum)
    ):
        least = f" of at least {minimum}" if minimum is not None else ""
        raise ConfigError(f"{where}{key} must be a whole number{least} (got {value!r})")
    return value


def true_or_false(section: dict[str, Any], key: str, default: bool, where: str) -> bool:
    """A boolean setting; ConfigError naming it otherwise."""
    value = section.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(f"{where}{key} must be true or false (got {value!r})")
    return value


def _port(value: Any, where: str) -> int:
    if isinstance(value, str) and value.strip().isdecimal():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 65535:
        raise ConfigError(f"{where} must be a port number, 1 to 65535 (got {value!r})")
    return value


def load_settings(app_dir: Path) -> Settings:
    app_dir = app_dir.resolve()
    load_dotenv(app_dir / ".env")
    config_dir = app_dir / "config"
    _check_files(config_dir)
    raw = {name: _load_file(config_dir, name) for name in CONFIG_NAMES}
    s = Settings(app_dir=app_dir, raw=raw)
    server = raw["server"]
    s.host = str(server.get("host", s.host))
    s.port = _port(server.get("port", s.port), "config/server port")
    s.trusted_proxies = _proxies(server.get("trustedProxies", []), "config/server trustedProxies")
    _server_limits(s, server)
    url, pool = _database(raw["database"])
    if url:
        s.database_url = url
        s.database_from = "config/database"
    s.database_pool = _pool(pool)
    rest = raw["api"].get("rest", {}) if isinstance(raw["api"].get("rest"), dict) else {}
    api = raw["api"]
    s.rest_default_limit = whole_number(
        rest, "defaultLimit", s.rest_default_limit, "config/api: rest."
    )
    s.rest_max_limit = whole_number(rest, "maxLimit", s.rest_max_limit, "config/api: rest.")
    s.rest_with_count = true_or_false(rest, "withCount", s.rest_with_count, "config/api: rest.")
    s.rest_read_limits = {
        key: whole_number(rest, key, 1, "config/api: rest.")
        for key in READ_LIMIT_KEYS
        if key in rest
    }
    s.max_body_bytes = whole_number(api, "maxBodyBytes", s.max_body_bytes, "config/api: ")
    s.max_components = whole_number(api, "maxComponents", s.max_components, "config/api: ", 0)
    s.max_relation_entries = whole_number(
        api, "maxRelationEntries", s.max_relation_entries, "config/api: ", 0
    )
    i18n = raw["i18n"]
    if isinstance(i18n.get("locales"), list) and i18n["locales"]:
        s.locales = []
        for item in i18n["locales"]:
            if isinstance(item, str):
                s.locales.append(Locale(item, item))
            elif isinstance(item, dict) and isinstance(item.get("code"), str):
                s.locales.append(Locale(item["code"], str(item.get("name", item["code"]))))
            else:
                raise ConfigError("config/i18n: each locale needs a `code`")
    s.default_locale = str(i18n.get("defaultLocale", s.locales[0].code))
    if s.default_locale not in s.locale_codes:
        raise ConfigError(f"config/i18n: default locale {s.default_locale!r} is not in `locales`")
    _environment(s)
    return s


def environment_settings(app_dir: Path) -> Settings:
    """The defaults with what the environment (and `.env`) sets: what `folio develop`
    listens with while a config file is broken (the app answers 503 until it is fixed)."""
    app_dir = app_dir.resolve()
    load_dotenv(app_dir / ".env")
    s = Settings(app_dir=app_dir)
    _environment(s)
    return s


def _environment(s: Settings) -> None:
    """Environment variables win over the files."""
    s.host = os.environ.get("HOST", s.host)
    if os.environ.get("PORT", "") != "":
        s.port = _port(os.environ["PORT"], "PORT")
    if os.environ.get("DATABASE_URL", "") != "":
        s.database_url = os.environ["DATABASE_URL"]
        s.database_from = "DATABASE_URL"
    check_url(s.database_url, s.database_from)
    if "DATABASE_POOL_MIN" in os.environ or "DATABASE_POOL_MAX" in os.environ:
        low, high = s.database_pool or (None, None)
        s.database_pool = _pool(
            {
                "min": os.environ.get("DATABASE_POOL_MIN", low),
                "max": os.environ.get("DATABASE_POOL_MAX", high),
            },
            "DATABASE_POOL_MIN / DATABASE_POOL_MAX",
        )
    if "TRUSTED_PROXIES" in os.environ:
        s.trusted_proxies = _proxies(
            [p for p in os.environ["TRUSTED_PROXIES"].split(",") if p.strip()], "TRUSTED_PROXIES"
        )
    _server_limits(s, {}, os.environ)


# (setting, its server.json key (a timeout's under `timeouts`), environment variable)
SERVER_LIMITS = (
    ("headers_timeout", "headers", "HEADERS_TIMEOUT"),
    ("body_timeout", "body", "BODY_TIMEOUT"),
    ("keep_alive_timeout", "keepAlive", "KEEP_ALIVE_TIMEOUT"),
    ("max_connections_per_client", "maxConnectionsPerClient", "MAX_CONNECTIONS_PER_CLIENT"),
    ("max_connections", "maxConnections", "MAX_CONNECTIONS"),
)


def _server_limits(s: Settings, server: dict[str, Any], env: Any = None) -> None:
    """server.json's `timeouts` ({"headers", "body", "keepAlive"}: seconds, more than 0)
    and `maxConnectionsPerClient` / `maxConnections` (whole numbers, 0: no limit / the
    default), or their environment variables when `env` is given."""
    timeouts = server.get("timeouts", {})
    if not isinstance(timeouts, dict):
        raise ConfigError("config/server timeouts must be an object of seconds")
    for name, key, variable in SERVER_LIMITS:
        is_timeout = name.endswith("_timeout")
        if env is not None:
            if env.get(variable, "") == "":
                continue
            value: Any = env[variable]
            where = variable
        else:
            source = timeouts if is_timeout else server
            if key not in source:
                continue
            value = source[key]
            where = f"config/server {'timeouts.' if is_timeout else ''}{key}"
        try:
            number = float(value) if is_timeout else int(value)
        except (TypeError, ValueError):
            number = -1
        if isinstance(value, bool) or number < 0 or (is_timeout and number == 0):
            kind = "a number of seconds above 0" if is_timeout else "a whole number, 0 or more"
            raise ConfigError(f"{where} must be {kind} (got {value!r})")
        setattr(s, name, number)


def _pool(value: Any, where: str = "config/database pool") -> tuple[int, int | None] | None:
    """`{"min": n, "max": m}` (either may be left out: max None is the driver's default) as
    (min, max), or None."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be an object with `min` and `max`")
    try:
        high = int(value["max"]) if value.get("max") is not None else None
        low = int(value["min"]) if value.get("min") is not None else 1
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: `min` and `max` must be whole numbers") from None
    if low < 0 or (high is not None and (high < 1 or low > high)):
        raise ConfigError(f"{where}: needs 0 <= min <= max and max >= 1 (got {low}, {high})")
    return low, high


def _proxies(value: Any, where: str) -> list[str]:
    """Proxy addresses or networks (`10.0.0.0/8`), or `*` for any."""
    import ipaddress

    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a list of addresses or networks")
    out = []
    for item in (v.strip() for v in value):
        if item != "*":
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError:
                raise ConfigError(f"{where}: {item!r} is not an address or network") from None
        out.append(item)
    return out
