"""`folio new` + `folio serve` as a real process, spoken to over HTTP."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.serving import FOLIO, free_port, serving


def _call(method: str, url: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            raw = r.read()
            return r.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str]]:
    app = tmp_path / "blog"
    subprocess.run([*FOLIO, "new", str(app), "--empty"], check=True, capture_output=True)
    created = subprocess.run(
        [*FOLIO, "token", "create", "--name", "editor", "--type", "full-access", "--app", str(app)],
        check=True,
        capture_output=True,
        text=True,
    )
    token = created.stdout.strip().splitlines()[-1]
    with serving(app) as base:
        yield base, token
    assert (app / ".tmp" / "data.db").is_file()


def test_example_app_serves_the_rest_api(served: tuple[str, str]) -> None:
    base, token = served
    status, body = _call("POST", base + "/api/categories", {"data": {"name": "News"}})
    assert status == 403  # private by default: the public role of the example only reads
    assert body["error"]["name"] == "ForbiddenError"
    status, body = _call("POST", base + "/api/categories", {"data": {"name": "News"}}, token)
    assert status == 201
    doc_id = body["data"]["documentId"]
    status, body = _call("GET", base + "/api/categories?filters[name][$eq]=News")
    assert status == 200
    assert [d["documentId"] for d in body["data"]] == [doc_id]
    assert body["meta"]["pagination"]["total"] == 1
    status, body = _call("PUT", base + "/api/global", {"data": {"siteName": "My blog"}}, token)
    assert status == 200
    assert body["data"]["siteName"] == "My blog"
    status, body = _call("GET", base + "/api/nothing-here")
    assert status == 404
    assert body["error"]["name"] == "NotFoundError"
    status, _ = _call("DELETE", base + f"/api/categories/{doc_id}", token=token)
    assert status == 204
    status, body = _call("GET", base + "/api/categories", token="not-a-token")
    assert status == 401
    assert body["error"]["message"] == "Missing or invalid credentials"


def test_a_bad_model_stops_start_up_with_a_clear_message(tmp_path: Path) -> None:
    app = tmp_path / "blog"
    subprocess.run([*FOLIO, "new", str(app), "--empty"], check=True, capture_output=True)
    schema = app / "src/api/article/content-types/article/schema.json"
    model = json.loads(schema.read_text())
    model["attributes"]["views"] = {"type": "integer", "min": "zero"}
    schema.write_text(json.dumps(model))
    proc = subprocess.run(
        [*FOLIO, "serve", str(app), "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert proc.returncode != 0
    assert "src/api/article/content-types/article/schema.json" in proc.stderr
    assert "views" in proc.stderr
    assert "`min` must be a number" in proc.stderr
