"""`folio serve` as a real process: the banner line, the default mail sender's messages in
the log, `--version`, and `--log-level` refusing unknown names."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

from folio import __version__
from tests.api.serving import FOLIO, free_port, serving
from tests.conftest import FIXTURES, open_access


def _post(url: str, body: object) -> int:
    req = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def test_version() -> None:
    done = subprocess.run([*FOLIO, "--version"], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout.strip() == f"folio {__version__}"


def test_an_unknown_log_level_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [*FOLIO, "serve", str(tmp_path), "--log-level", "loud"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "unknown log level 'loud'" in done.stderr
    assert "critical, error, warning, info, debug, trace" in done.stderr


def test_banner_and_mail_in_the_log(tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "NODE_ENV")}
    env["FOLIO_ENV"] = "development"
    log = tmp_path / "server.log"
    with serving(app, log, env) as base:
        user = {"username": "mailme", "email": "mailme@example.com", "password": "secret123"}
        assert _post(base + "/api/auth/local/register", user) == 200
        assert _post(base + "/api/auth/forgot-password", {"email": user["email"]}) == 200
        deadline = time.monotonic() + 5
        while "mail to mailme@example.com" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
    text = log.read_text()
    banner = next(line for line in text.splitlines() if line.startswith("folio "))
    assert banner == (
        f"folio {__version__} · app {app.resolve()} · database sqlite .tmp/data.db"
        f" · {base} · environment development · admin panel {base}/admin"
    )
    assert "INFO: folio.mail: mail to mailme@example.com: Reset password" in text
    assert "Use this code to reset it: " in text


def test_commands_refuse_to_act_outside_an_app(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    missing = tmp_path / "missing"
    cases = [
        (["serve", str(missing)], tmp_path, f"{missing} does not exist"),
        (["develop", str(empty)], tmp_path, f"{empty} is not a Folio app"),
        (["token", "list"], empty, f"{empty} is not a Folio app"),
        (["user", "list", "--app", str(missing)], tmp_path, f"{missing} does not exist"),
        (["locale", "list", "--app", str(empty)], tmp_path, f"{empty} is not a Folio app"),
        (["permissions", "list", "public"], empty, f"{empty} is not a Folio app"),
    ]
    for command, cwd, message in cases:
        done = subprocess.run([*FOLIO, *command], cwd=cwd, capture_output=True, text=True)
        assert done.returncode == 2, (command, done.stderr)
        assert message in done.stderr, (command, done.stderr)
        assert "Traceback" not in done.stderr
    # nothing was created
    assert not missing.exists()
    assert list(empty.iterdir()) == []


def test_a_misspelt_model_key_stops_start_up_with_the_nearest_key(tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    schema_file = app / "src" / "api" / "tag" / "content-types" / "tag" / "schema.json"
    schema = json.loads(schema_file.read_text())
    schema["attributes"]["name"] = {"tpye": "string", "requird": True}
    schema["options"] = {"draftAndPublsh": True}
    schema_file.write_text(json.dumps(schema))
    seo = app / "src" / "components" / "shared" / "seo.json"
    component = json.loads(seo.read_text())
    component["atributes"] = component.pop("attributes")
    seo.write_text(json.dumps(component))
    done = subprocess.run(
        [*FOLIO, "serve", str(app), "--port", "1"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    where = "src/api/tag/content-types/tag/schema.json"
    assert f"{where}: attribute `name`: unknown key `tpye`; did you mean `type`?" in done.stderr
    assert f"{where}: attribute `name`: unknown key `requird`; did you mean `required`?" in (
        done.stderr
    )
    assert f"{where}: unknown key `draftAndPublsh`; did you mean `draftAndPublish`?" in (
        done.stderr
    )
    assert (
        "src/components/shared/seo.json: unknown key `atributes`; did you mean `attributes`?"
        in done.stderr
    )
    assert not (app / ".tmp" / "data.db").exists()


def _get(url: str, headers: dict[str, str] | None = None) -> int:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def _lines(log: Path, needle: str) -> list[str]:
    deadline = time.monotonic() + 5
    while True:
        found = [line for line in log.read_text().splitlines() if needle in line]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_each_request_is_logged_in_plain_text(tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    open_access(app)
    log = tmp_path / "server.log"
    with serving(app, log=log) as base:
        assert _get(base + "/api/tags?sort=name", {"X-Request-Id": "req-42"}) == 200
        assert _get(base + "/api/nothing") == 404
    (line,) = _lines(log, "/api/tags?sort=name")
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z GET /api/tags\?sort=name 200 "
        r"\d+\.\d\d ms req-42",
        line,
    ), line
    (missing,) = _lines(log, "/api/nothing")
    assert " 404 " in missing


def test_each_request_is_logged_as_json_lines(tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    open_access(app)
    log = tmp_path / "server.log"
    with serving(app, log=log, args=["--log-format", "json"]) as base:
        assert _get(base + "/api/tags", {"X-Request-Id": "req-43"}) == 200
    (line,) = _lines(log, '"req-43"')
    entry = json.loads(line)
    assert entry["method"] == "GET" and entry["path"] == "/api/tags"
    assert entry["status"] == 200 and entry["level"] == "info"
    assert isinstance(entry["duration_ms"], float) and entry["time"].endswith("Z")


def test_the_request_log_can_be_turned_off(tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    open_access(app)
    log = tmp_path / "server.log"
    with serving(app, log=log, args=["--no-request-log"]) as base:
        assert _get(base + "/api/tags?marker=1") == 200
    time.sleep(0.3)
    assert "marker=1" not in log.read_text()


def _json(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url, timeout=5) as r:
        return dict(json.loads(r.read()))


def test_a_new_app_has_example_content_and_an_empty_one_has_none(tmp_path: Path) -> None:
    app = tmp_path / "blog"
    done = subprocess.run([*FOLIO, "new", str(app)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    made = "Added example content: 3 categories, 2 authors, 4 tags, 5 articles, 1 file."
    assert made in done.stdout
    with serving(app) as base:
        articles = _json(base + "/api/articles?populate[cover][fields][0]=url&sort=id")
        data = articles["data"]
        assert isinstance(data, list) and len(data) == 3  # the two drafts are not public
        covers = [a["cover"]["url"] for a in data if a["cover"]]
        assert len(covers) == 1
        with urllib.request.urlopen(base + covers[0], timeout=5) as r:
            assert r.status == 200 and r.headers["content-type"] == "image/png"
        french = _json(base + "/api/articles?locale=fr")["data"]
        assert isinstance(french, list) and len(french) == 1
        for plural, n in (("categories", 3), ("authors", 2), ("tags", 4)):
            got = _json(f"{base}/api/{plural}")["data"]
            assert isinstance(got, list) and len(got) == n, plural
    empty = tmp_path / "empty"
    done = subprocess.run([*FOLIO, "new", str(empty), "--empty"], capture_output=True, text=True)
    assert done.returncode == 0 and "example content" not in done.stdout
    with serving(empty) as base:
        assert _json(base + "/api/articles")["data"] == []


def _status(url: str) -> tuple[int, dict[str, object] | None]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return int(r.status), json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return int(e.code), json.loads(e.read() or b"null")
    except OSError:
        return 0, None  # restarting


def _until(url: str, status: int, seconds: float = 30) -> dict[str, object] | None:
    deadline = time.monotonic() + seconds
    while True:
        got, body = _status(url)
        if got == status:
            return body
        assert time.monotonic() < deadline, (got, body)
        time.sleep(0.2)


def test_develop_answers_503_naming_the_broken_file_until_it_is_fixed(tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    open_access(app)
    schema_file = app / "src" / "api" / "tag" / "content-types" / "tag" / "schema.json"
    good = schema_file.read_text()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "NODE_ENV")}
    with (tmp_path / "develop.log").open("wb") as out:
        proc = subprocess.Popen(
            [*FOLIO, "develop", str(app), "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
        try:
            _until(base + "/api/tags", 200)
            broken = json.loads(good)
            broken["attributes"]["name"]["type"] = "strnig"
            schema_file.write_text(json.dumps(broken))
            body = _until(base + "/api/tags", 503)
            assert body is not None and body["data"] is None
            error = body["error"]
            assert isinstance(error, dict) and error["name"] == "ServiceUnavailableError"
            assert "src/api/tag/content-types/tag/schema.json" in str(error["message"])
            assert "unknown type 'strnig'" in str(error["message"])
            # every route answers the same, at once
            assert _status(base + "/graphql")[0] == 503
            schema_file.write_text(good)
            _until(base + "/api/tags", 200)
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    assert "unknown type 'strnig'" in (tmp_path / "develop.log").read_text()
