"""Start-up mistakes under the real `folio serve` (and `folio develop`): each is one line on
stderr naming the problem, no trace, nothing on stdout (the banner comes only once the app
is ready), and exit code 2 for the configuration or 3 for what the app runs on."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.api.serving import free_port
from tests.conftest import FIXTURES, PG_URL

FOLIO = str(Path(sys.executable).parent / "folio")
SECRETS = {"JWT_SECRET": "a-test-secret", "API_TOKEN_SALT": "a-test-salt"}
DATABASES = [None, *([PG_URL] if PG_URL else [])]


def _env(database_url: str | None = None, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "PORT", "HOST", "FOLIO_ENV", "NODE_ENV")
    }
    env.update(SECRETS)
    if database_url:
        env["DATABASE_URL"] = database_url
    env.update(extra)
    return env


@pytest.fixture
def app(tmp_path: Path) -> Path:
    target = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", target)
    return target


def _serve(
    app: Path, env: dict[str, str], command: str = "serve"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [FOLIO, command, str(app), "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _refused(done: subprocess.CompletedProcess[str], code: int, line: str) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines() == [f"folio: {line}"], done.stderr
    assert done.stdout == ""
    assert done.returncode == code


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _misspelt_policy(app: Path) -> None:
    _write(
        app / "src" / "policies" / "is-owner.py", "def policy(ctx, config, app):\n    return True\n"
    )
    _write(
        app / "src" / "api" / "article" / "routes" / "article.json",
        json.dumps({"config": {"find": {"policies": ["is-ownr"]}}}),
    )


# mistake -> (how it is made in the app, the line stderr shows)
Mistake = Callable[[Path], None]
CONFIGURATION: dict[str, tuple[Mistake, str]] = {
    "unknown action in permissions.json": (
        lambda app: _write(
            app / "config" / "permissions.json",
            json.dumps({"roles": {"public": {"permissions": ["api::artcle.article.find"]}}}),
        ),
        "config/permissions.json: role 'public': unknown action 'api::artcle.article.find'; "
        "did you mean 'api::article.article.find'?",
    ),
    "invalid JSON in permissions.json": (
        lambda app: _write(app / "config" / "permissions.json", '{"roles": {"public":\n'),
        "config/permissions.json: invalid JSON (unexpected end of data: line 2 column 1 (char 21))",
    ),
    "unknown policy in a route file": (
        _misspelt_policy,
        "src/api/article/routes/article.json: route api::article.article.find: unknown policy "
        "'is-ownr'; did you mean 'is-owner'?",
    ),
    "syntax error in src/index.py": (
        lambda app: _write(app / "src" / "index.py", "def register(app):\n    x = (\n"),
        "src/index.py: line 2: SyntaxError: '(' was never closed",
    ),
    "error raised by src/index.py": (
        lambda app: _write(app / "src" / "index.py", "import os\n\nLIMIT = 1 / 0\n"),
        "src/index.py: line 3: ZeroDivisionError: division by zero",
    ),
    "error raised by register": (
        lambda app: _write(app / "src" / "index.py", "def register(app):\n    app.nothing.x = 1\n"),
        "src/index.py: register: line 2: AttributeError: 'Folio' object has no attribute 'nothing'",
    ),
    "non-numeric defaultLimit": (
        lambda app: _write(app / "config" / "api.json", '{"rest": {"defaultLimit": "abc"}}'),
        "config/api: rest.defaultLimit must be a whole number of at least 1 (got 'abc')",
    ),
    "wrong value in middlewares.json": (
        lambda app: _write(app / "config" / "middlewares.json", '{"cors": {"origin": 5}}'),
        "config/middlewares: cors.origin is '*', an origin or a list",
    ),
    "wrong kind of value in the upload settings": (
        lambda app: _write(
            app / "config" / "plugins.json", '{"upload": {"config": {"sizeLimit": "10mb"}}}'
        ),
        "config/plugins: upload.config.sizeLimit must be a whole number of at least 1 (got '10mb')",
    ),
    "wrong kind of value in the GraphQL settings": (
        lambda app: _write(
            app / "config" / "plugins.json", '{"graphql": {"config": {"depthLimit": "seven"}}}'
        ),
        "config/plugins: graphql.config.depthLimit must be a whole number (got 'seven')",
    ),
    "unknown client in database.json": (
        lambda app: _write(app / "config" / "database.json", '{"client": "oracledb"}'),
        "config/database: client 'oracledb' is not supported (supported: sqlite, postgres, "
        "mysql (MySQL 8, MariaDB 10.6+))",
    ),
}


@pytest.mark.parametrize("database_url", DATABASES, ids=lambda u: "postgres" if u else "sqlite")
@pytest.mark.parametrize("mistake", list(CONFIGURATION))
def test_a_configuration_mistake_is_one_line_and_exit_2(
    app: Path, mistake: str, database_url: str | None
) -> None:
    make, line = CONFIGURATION[mistake]
    make(app)
    _refused(_serve(app, _env(database_url)), 2, line)
    assert not (app / ".tmp" / "data.db").exists()


@pytest.mark.parametrize(
    "variables, line",
    [
        ({"PORT": "abc"}, "PORT must be a port number, 1 to 65535 (got 'abc')"),
        (
            {"DATABASE_URL": "mongodb://folio@127.0.0.1/folio"},
            "DATABASE_URL: database 'mongodb' is not supported (supported: sqlite, postgres, "
            "mysql (MySQL 8, MariaDB 10.6+): sqlite:///path/to/file.db, "
            "postgresql://user@host:5432/database or mysql://user@host:3306/database)",
        ),
    ],
    ids=["PORT", "DATABASE_URL"],
)
@pytest.mark.parametrize("command", ["serve", "develop"])
def test_a_wrong_environment_variable_is_one_line_and_exit_2(
    app: Path, command: str, variables: dict[str, str], line: str
) -> None:
    """Under develop too: no file change would fix it."""
    done = subprocess.run(
        [FOLIO, command, str(app)], env=_env(**variables), capture_output=True, text=True
    )
    _refused(done, 2, line)


def test_the_line_is_json_with_log_format_json(app: Path) -> None:
    done = subprocess.run(
        [FOLIO, "serve", str(app), "--log-format", "json"],
        env=_env(PORT="abc"),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    (only,) = done.stderr.splitlines()
    entry = json.loads(only)
    assert (entry["level"], entry["logger"]) == ("error", "folio")
    assert entry["message"] == "PORT must be a port number, 1 to 65535 (got 'abc')"


def test_an_unreachable_database_is_exit_3(app: Path) -> None:
    closed = f"postgresql://folio:secret@127.0.0.1:{free_port()}/folio"
    _refused(
        _serve(app, _env(closed)),
        3,
        f"database postgresql://folio:***@127.0.0.1:{urlsplit(closed).port}/folio "
        "(DATABASE_URL): connection refused (is the database server running?)",
    )
    unknown = "postgresql://folio@no-such-host.invalid:5432/folio"
    _refused(
        _serve(app, _env(unknown)),
        3,
        f"database {unknown} (DATABASE_URL): unknown host no-such-host.invalid",
    )


def test_a_database_configured_in_a_file_is_named_so(app: Path) -> None:
    port = free_port()
    _write(
        app / "config" / "database.json",
        json.dumps(
            {"connection": {"client": "postgres", "connection": {"port": port, "user": "u"}}}
        ),
    )
    _refused(
        _serve(app, _env()),
        3,
        f"database postgresql://u@127.0.0.1:{port}/folio (config/database): connection "
        "refused (is the database server running?)",
    )


@pytest.mark.skipif(PG_URL is None, reason="needs PostgreSQL (FOLIO_TEST_DATABASE_URL)")
def test_a_database_that_refuses_the_url_is_exit_2(app: Path) -> None:
    assert PG_URL is not None
    server = urlsplit(PG_URL)
    missing = f"postgresql://{server.username}@{server.hostname}:{server.port}/no_such_db"
    _refused(
        _serve(app, _env(missing)),
        2,
        f'database {missing} (DATABASE_URL): database "no_such_db" does not exist',
    )
    nobody = f"postgresql://no_such_role@{server.hostname}:{server.port}/{server.path[1:]}"
    _refused(
        _serve(app, _env(nobody)),
        2,
        f'database {nobody} (DATABASE_URL): role "no_such_role" does not exist',
    )


def test_a_port_in_use_is_exit_3(app: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [FOLIO, "serve", str(app), "--port", str(port)],
            env=_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
    _refused(
        done,
        3,
        f"cannot listen on 127.0.0.1:{port}: the port is in use (another server?); choose "
        "another with --port or PORT",
    )


def test_a_port_out_of_range_is_exit_2(app: Path) -> None:
    done = subprocess.run(
        [FOLIO, "serve", str(app), "--port", "70000"], env=_env(), capture_output=True, text=True
    )
    _refused(done, 2, "cannot listen on 127.0.0.1:70000: a port is a number from 1 to 65535")


def test_a_database_file_that_cannot_be_made_is_exit_3(app: Path) -> None:
    (app / ".tmp" / "data.db").mkdir(parents=True)  # a directory where the file goes
    _refused(
        _serve(app, _env()),
        3,
        "database sqlite:///.tmp/data.db (the default): unable to open database file",
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_an_unreadable_config_file_is_exit_3(app: Path) -> None:
    path = app / "config" / "api.json"
    path.chmod(0)
    _refused(_serve(app, _env()), 3, "config/api.json: permission denied")


# ---------------------------------------------------------------------- develop


@pytest.fixture
def developing(app: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`folio develop app` with a misspelt key in api.json: (base URL, its log)."""
    _write(app / "config" / "api.json", '{"rest": {"maxLimt": 10}}')
    log = tmp_path / "develop.log"
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [FOLIO, "develop", str(app), "--port", str(port)],
            env=_env(),
            stdout=out,
            stderr=out,
        )
        try:
            yield f"http://127.0.0.1:{port}", log
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def _status(url: str) -> tuple[int, dict[str, object]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return int(r.status), json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return int(e.code), json.loads(e.read() or b"{}")


def _wait_for(url: str, wanted: int) -> tuple[int, dict[str, object]]:
    deadline = time.monotonic() + 60
    answer: tuple[int, dict[str, object]] = (0, {})
    while time.monotonic() < deadline:
        try:
            answer = _status(url)
        except OSError:  # not listening yet, or reloading
            answer = (0, {})
        if answer[0] == wanted:
            break
        time.sleep(0.1)
    return answer


def test_develop_answers_503_until_the_config_file_is_fixed(
    app: Path, developing: tuple[str, Path]
) -> None:
    base, log = developing
    problem = "config/api.json: `rest`: unknown key `maxLimt`; did you mean `maxLimit`?"
    status, body = _wait_for(base + "/_health", 503)
    assert status == 503
    assert body["error"] == {
        "status": 503,
        "name": "ServiceUnavailableError",
        "message": problem,
        "details": {},
    }
    lines = [line for line in log.read_text().splitlines() if "maxLimt" in line]
    assert len(lines) == 1 and lines[0].endswith(
        f"ERROR: folio: the app cannot start until this is fixed: {problem}"
    ), lines
    assert "Traceback" not in log.read_text()
    (app / "config" / "api.json").write_text('{"rest": {"maxLimit": 10}}')
    assert _wait_for(base + "/_health", 204)[0] == 204
