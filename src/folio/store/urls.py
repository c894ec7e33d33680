"""Database URLs: which engine a URL names, the URL of config/database's `client` and
`connection` (the reference's knex form), and the URL as shown (without its password).
The one place that knows the names databases go by; the rest of Folio passes URLs."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

from folio.errors import ConfigError

# engine -> (URL schemes, config/database clients, default port, default user)
ENGINES: dict[str, tuple[tuple[str, ...], tuple[str, ...], int, str]] = {
    "sqlite": (("sqlite",), ("sqlite", "better-sqlite3", "sqlite3"), 0, ""),
    "postgres": (("postgres", "postgresql"), ("postgres", "postgresql", "pg"), 5432, "postgres"),
    "mysql": (("mysql", "mariadb"), ("mysql", "mysql2", "mariadb"), 3306, "root"),
}
# config/database's client when it names none, and the database of an app that names none
DEFAULT_CLIENT = "sqlite"
DEFAULT_URL = "sqlite:///.tmp/data.db"
# a server database's URL, as an app's .env.example shows it
EXAMPLE_URL = "postgresql://postgres@127.0.0.1:5432/folio"
SUPPORTED = "sqlite, postgres, mysql (MySQL 8, MariaDB 10.6+)"
EXAMPLES = (
    "sqlite:///path/to/file.db, postgresql://user@host:5432/database or "
    "mysql://user@host:3306/database"
)


def engine_of(url: str) -> str | None:
    """The engine a URL names ("sqlite", "postgres", "mysql"), or None."""
    scheme = url.partition(":")[0].lower() if ":" in url else ""
    for engine, (schemes, _, _, _) in ENGINES.items():
        if scheme in schemes:
            return engine
    return None


def check_url(url: str, where: str) -> None:
    """Refuses a URL of no engine Folio has a driver for; `where`: where it comes from."""
    if engine_of(url) is not None:
        return
    shown = url.partition(":")[0] if ":" in url else url
    raise ConfigError(
        f"{where}: database {shown!r} is not supported (supported: {SUPPORTED}: {EXAMPLES})"
    )


def client_url(client: Any, c: dict[str, Any]) -> str:
    """The URL of config/database's `client` with its `connection` keys `c` (host, port,
    user, password, database, ssl, schema; SQLite: filename). An unknown client is
    refused."""
    engine = next((e for e, spec in ENGINES.items() if client in spec[1]), None)
    if engine is None:
        raise ConfigError(
            f"config/database: client {client!r} is not supported (supported: {SUPPORTED})"
        )
    if engine == "sqlite":
        return f"sqlite:///{c.get('filename', '.tmp/data.db')}"
    _, _, port, default_user = ENGINES[engine]
    if engine == "postgres":
        schema = c.get("schema")
        if schema not in (None, "", "public"):
            raise ConfigError(
                f"config/database: schema {schema!r} is not supported (tables live in `public`)"
            )
    user = quote(str(c.get("user", default_user)), safe="")
    password = c.get("password")
    auth = f"{user}:{quote(str(password), safe='')}@" if password else f"{user}@"
    ssl = ""
    if c.get("ssl"):
        ssl = "?sslmode=require" if engine == "postgres" else "?ssl=true"
    scheme = "postgresql" if engine == "postgres" else engine
    return (
        f"{scheme}://{auth}{c.get('host', '127.0.0.1')}:{c.get('port', port)}/"
        f"{c.get('database', 'folio')}{ssl}"
    )


def shown_url(url: str) -> str:
    """The URL without its password."""
    if engine_of(url) == "sqlite":
        return url
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":***@", 1)


def described(url: str) -> str:
    """The database as a start-up banner names it: `sqlite <path>`, `<scheme> <host/db>`
    (no user, no password)."""
    if engine_of(url) == "sqlite":
        return "sqlite " + url.split(":///", 1)[-1]
    scheme, _, rest = url.partition("://")
    return f"{scheme} {rest.rpartition('@')[2]}"
