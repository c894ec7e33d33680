"""Nothing in the configuration is silently ignored: a key Folio does not know, in any
`config/*.json` (or `.py`) file, permissions.json or a route file, stops start-up with the
file, the key and the nearest valid one; the reference's keys that mean nothing here (its
admin panel, its cookies) are accepted, and an app configured as the reference's is served."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from folio.app import load_app
from folio.config import load_settings
from folio.errors import ConfigError
from tests.api.serving import free_port
from tests.conftest import database_url, make_api

FOLIO = str(Path(sys.executable).parent / "folio")


def _write(app: Path, name: str, data: Any) -> None:
    path = app / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def test_folio_serve_refuses_a_misspelt_key_with_the_nearest(app_dir: Path) -> None:
    _write(app_dir, "config/api.json", {"rest": {"maxLimt": 10}})
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "PORT")}
    done = subprocess.run(
        [FOLIO, "serve", str(app_dir), "--port", str(free_port())],
        env={**env, "JWT_SECRET": "s", "API_TOKEN_SALT": "t"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "folio: config/api.json: `rest`: unknown key `maxLimt`; did you mean `maxLimit`?"
    ]
    assert done.stdout == ""


@pytest.mark.parametrize(
    "file, data, message",
    [
        (
            "config/server.json",
            {"host": "127.0.0.1", "prot": 1337},
            "config/server.json: unknown key `prot`; did you mean `port`?",
        ),
        (
            "config/server.json",
            {"timeouts": {"keepalive": 5}},
            "config/server.json: `timeouts`: unknown key `keepalive`; did you mean `keepAlive`?",
        ),
        (
            "config/database.json",
            {"clinet": "sqlite"},
            "config/database.json: unknown key `clinet`; did you mean `client`?",
        ),
        (
            "config/database.json",
            {"client": "postgres", "connection": {"hots": "db"}},
            "config/database.json: `connection`: unknown key `hots`; did you mean `host`?",
        ),
        (
            "config/database.json",
            {"client": "sqlite", "pool": {"maximum": 3}},
            "config/database.json: `pool`: unknown key `maximum`; did you mean `max`?",
        ),
        (
            "config/api.json",
            {"rest": {"defaultLimit": 10}, "maxBodyByte": 10},
            "config/api.json: unknown key `maxBodyByte`; did you mean `maxBodyBytes`?",
        ),
        (
            "config/i18n.json",
            {"defaultLocale": "en", "locales": [{"code": "en", "nmae": "English"}]},
            "config/i18n.json: `locales[0]`: unknown key `nmae`; did you mean `name`?",
        ),
        (
            "config/plugins.json",
            {"graphql": {"config": {"depthLimt": 5}}},
            "config/plugins.json: `graphql.config`: unknown key `depthLimt`; did you mean "
            "`depthLimit`?",
        ),
        (
            "config/plugins.json",
            {"graphql": {"config": {"engineServer": {"tracng": True}}}},
            "config/plugins.json: `graphql.config.engineServer`: unknown key `tracng`; did you "
            "mean `tracing`?",
        ),
        (
            "config/plugins.json",
            {"upload": {"config": {"sizeLimt": 10}}},
            "config/plugins.json: `upload.config`: unknown key `sizeLimt`; did you mean "
            "`sizeLimit`?",
        ),
        (
            "config/plugins.json",
            {"users-permissions": {"config": {"jwt": {"expiresin": "7d"}}}},
            "config/plugins.json: `users-permissions.config.jwt`: unknown key `expiresin`; did "
            "you mean `expiresIn`?",
        ),
        (
            "config/plugins.json",
            {"graphq": {"config": {}}},
            "config/plugins.json: unknown key `graphq`; did you mean `graphql`?",
        ),
        (
            "config/middlewares.json",
            ["strapi::errors", {"name": "strapi::cors", "config": {"orign": "*"}}],
            "config/middlewares.json: `stack[1].config`: unknown key `orign`; did you mean "
            "`origin`?",
        ),
        (
            "config/middlewares.json",
            ["strapi::errors", "strapi::secuirty"],
            "config/middlewares.json: `stack[1]`: unknown middleware `strapi::secuirty`; did "
            "you mean `strapi::security`?",
        ),
        (
            "config/middlewares.json",
            {"security": {"frameguard": {"acton": "deny"}}},
            "config/middlewares.json: `security.frameguard`: unknown key `acton`; did you mean "
            "`action`?",
        ),
        (
            "config/admin.json",
            {"apiToken": {"slat": "x"}},
            "config/admin.json: `apiToken`: unknown key `slat`; did you mean `salt`?",
        ),
        (
            "config/api.py",
            'config = {"rest": {"withCout": True}}\n',
            "config/api.py: `rest`: unknown key `withCout`; did you mean `withCount`?",
        ),
    ],
)
def test_an_unknown_key_is_refused_with_the_nearest(
    app_dir: Path, file: str, data: Any, message: str
) -> None:
    for old in (app_dir / "config").glob(Path(file).stem + ".*"):
        old.unlink()
    _write(app_dir, file, data)
    with pytest.raises(ConfigError) as caught:
        load_settings(app_dir)
    assert str(caught.value) == message


def test_permissions_and_route_files_refuse_unknown_keys(app_dir: Path) -> None:
    _write(
        app_dir,
        "config/permissions.json",
        {"roles": {"public": {"permisions": ["api::tag.tag.find"]}}},
    )
    with pytest.raises(ConfigError) as caught:
        load_app(app_dir)
    assert str(caught.value) == (
        "config/permissions.json: `roles.public`: unknown key `permisions`; did you mean "
        "`permissions`?"
    )
    (app_dir / "config" / "permissions.json").unlink()
    # `only` / `except` would choose the routes: not silently kept
    _write(app_dir, "src/api/tag/routes/tag.json", {"only": ["find"], "config": {}})
    with pytest.raises(ConfigError) as caught:
        load_app(app_dir)
    assert str(caught.value) == "src/api/tag/routes/tag.json: unknown key `only`"
    _write(app_dir, "src/api/tag/routes/tag.json", {"config": {"find": {"polices": []}}})
    with pytest.raises(ConfigError) as caught:
        load_app(app_dir)
    assert str(caught.value) == (
        "src/api/tag/routes/tag.json: `config.find`: unknown key `polices`; did you mean "
        "`policies`?"
    )


def test_a_config_file_folio_does_not_read_is_refused(app_dir: Path) -> None:
    _write(app_dir, "config/sever.json", {"port": 1337})
    with pytest.raises(ConfigError) as caught:
        load_settings(app_dir)
    assert str(caught.value) == (
        "config/sever.json: not a configuration file Folio reads; did you mean `server.json`?"
    )
    (app_dir / "config" / "sever.json").unlink()
    # the JSON form would be read and the Python one ignored
    _write(app_dir, "config/api.py", 'config = {"rest": {"maxLimit": 10}}\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(app_dir)
    assert str(caught.value) == ("config/api.py: config/api.json is read instead: keep one of them")
    # the reference's JavaScript form of a file Folio reads, alone, is not taken for none
    (app_dir / "config" / "api.py").unlink()
    _write(app_dir, "config/server.js", "module.exports = ({ env }) => ({ port: 1338 });\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(app_dir)
    assert str(caught.value) == (
        "config/server.js: Folio reads config/server.json or config/server.py (a `config` "
        "object or a function `config(env)`), not JavaScript"
    )
    _write(app_dir, "config/server.json", {"port": 1338})
    assert load_settings(app_dir).port == 1338


@pytest.mark.parametrize("client", ["mysql", "mysql2", "mariadb"])
def test_a_mysql_client_selects_mysql(app_dir: Path, client: str) -> None:
    connection = {"host": "db", "user": "folio", "password": "p@ss", "database": "blog"}
    _write(app_dir, "config/database.json", {"client": client, "connection": connection})
    assert load_settings(app_dir).database_url == "mysql://folio:p%40ss@db:3306/blog"


@pytest.mark.parametrize("client", ["oracledb", "mssql", "", 3])
def test_an_unsupported_client_is_refused(app_dir: Path, client: Any) -> None:
    _write(app_dir, "config/database.json", {"client": client, "connection": {"host": "db"}})
    with pytest.raises(ConfigError) as caught:
        load_settings(app_dir)
    assert str(caught.value) == (
        f"config/database: client {client!r} is not supported "
        "(supported: sqlite, postgres, mysql (MySQL 8, MariaDB 10.6+))"
    )


@pytest.mark.parametrize("url", ["mysql://root@127.0.0.1:3306/x", "mariadb://root@db/x"])
def test_a_mysql_url_is_taken(app_dir: Path, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", url)
    assert load_settings(app_dir).database_url == url


def test_the_references_database_form_is_read(app_dir: Path) -> None:
    """`{"connection": {"client", "connection": {...}, "pool"}}`, as the reference writes it."""
    _write(
        app_dir,
        "config/database.json",
        {
            "connection": {
                "client": "postgres",
                "connection": {
                    "host": "db.internal",
                    "port": 5433,
                    "database": "cms",
                    "user": "app",
                    "password": "p@ss",
                    "ssl": True,
                    "schema": "public",
                },
                "pool": {"min": 0, "max": 5},
                "acquireConnectionTimeout": 60000,
            }
        },
    )
    settings = load_settings(app_dir)
    assert settings.database_url == "postgresql://app:p%40ss@db.internal:5433/cms?sslmode=require"
    assert settings.database_pool == (0, 5)
    _write(
        app_dir,
        "config/database.json",
        {"connection": {"client": "postgres", "connection": {"schema": "tenant"}}},
    )
    with pytest.raises(ConfigError, match="schema 'tenant' is not supported"):
        load_settings(app_dir)


# a project configured as the reference's scaffold configures it, with Folio's own keys
REFERENCE_CONFIG: dict[str, Any] = {
    "server": {
        "host": "127.0.0.1",
        "port": 1337,
        "app": {"keys": ["key-a", "key-b"]},
        "webhooks": {"populateRelations": False},
    },
    "admin": {
        "auth": {"secret": "admin-jwt-secret"},
        "apiToken": {"salt": "a-salt"},
        "transfer": {"token": {"salt": "transfer-salt"}},
        "secrets": {"encryptionKey": "a-key"},
        "flags": {"nps": True, "promoteEE": True},
    },
    "database": {
        "connection": {
            "client": "sqlite",
            "connection": {"filename": ".tmp/reference.db"},
            "useNullAsDefault": True,
            "acquireConnectionTimeout": 60000,
        }
    },
    "api": {"rest": {"defaultLimit": 25, "maxLimit": 100, "withCount": True}},
    "middlewares": [
        "strapi::logger",
        "strapi::errors",
        "strapi::security",
        {"name": "strapi::cors", "config": {"origin": ["https://example.com"], "maxAge": 60}},
        "strapi::poweredBy",
        "strapi::query",
        "strapi::body",
        "strapi::session",
        "strapi::favicon",
        "strapi::public",
    ],
    "plugins": {
        "graphql": {"enabled": True, "config": {"depthLimit": 7, "amountLimit": 50}},
        "upload": {"config": {"sizeLimit": 1000000}},
        "users-permissions": {"config": {"jwt": {"expiresIn": "7d"}}},
    },
}


def test_a_reference_configured_app_is_served(app_dir: Path, backend: str) -> None:
    for name, data in REFERENCE_CONFIG.items():
        _write(app_dir, f"config/{name}.json", data)
    if backend == "sqlite":
        settings = load_settings(app_dir)
        assert settings.database_url == "sqlite:///.tmp/reference.db"
        url = settings.database_url
    else:
        url = database_url(backend, app_dir)
    for api in make_api(app_dir, url):
        r = api.get("/api/tags", headers={"Origin": "https://example.com"})
        assert r.status_code == 200, r.text
        assert r.headers["access-control-allow-origin"] == "https://example.com"
    if backend == "sqlite":
        assert (app_dir / ".tmp" / "reference.db").is_file()
