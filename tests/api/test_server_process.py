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


def test_responses_keep_their_framing_on_one_connection(served: tuple[str, str]) -> None:
    """The server sends a response's head and body together (one write when the body is
    small, two when it is large): on one kept-alive connection, a run of responses of every
    shape (JSON, empty, HEAD, errors, a large file and its range-less HEAD) each arrive
    whole, with the length they announce."""
    import http.client
    import os
    import uuid

    base, token = served
    host, port = base.removeprefix("http://").split(":")
    big = os.urandom(600 * 1024)  # past the size a body is joined to its head
    boundary = uuid.uuid4().hex
    form = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.bin"'
            f"\r\nContent-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + big
        + f"\r\n--{boundary}--\r\n".encode()
    )
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    auth = {"Authorization": f"Bearer {token}"}

    def call(method: str, path: str, body: bytes | None = None, **headers: str) -> Any:
        conn.request(method, path, body=body, headers={**auth, **headers})
        r = conn.getresponse()
        data = r.read()
        length = r.getheader("content-length")
        if method != "HEAD" and length is not None:
            assert len(data) == int(length), path
        return r.status, data, r

    status, data, _ = call(
        "POST", "/api/upload", form, **{"Content-Type": f"multipart/form-data; boundary={boundary}"}
    )
    assert status == 201, data[:300]
    url = json.loads(data)[0]["url"]
    for _ in range(3):
        status, data, _ = call("GET", "/api/i18n/locales")
        assert status == 200 and json.loads(data)[0]["code"] == "en"
        status, data, _ = call("GET", "/_health")
        assert (status, data) == (204, b"")
        status, data, r = call("HEAD", "/openapi.json")
        assert status == 200 and data == b"" and int(r.getheader("content-length")) > 0
        status, data, _ = call("GET", "/openapi.json")
        assert status == 200 and json.loads(data)["openapi"].startswith("3.")
        status, data, _ = call("GET", "/api/nothing-here")
        assert status == 404 and json.loads(data)["error"]["status"] == 404
        status, data, _ = call("GET", url)
        assert status == 200 and data == big
        status, data, r = call("HEAD", url)
        assert status == 200 and data == b"" and r.getheader("content-length") == str(len(big))
    conn.close()
