"""The server process's log in one format: with `--log-format json` every line it writes
is a JSON object with `time`, `level` and `message` (uvicorn's start-up and shutdown lines
and its warnings too); in plain text Folio's and the server's lines read alike."""

from __future__ import annotations

import json
import re
import shutil
import socket
from pathlib import Path

from tests.api.serving import Output, piped_server
from tests.conftest import FIXTURES, open_access


def _app(tmp_path: Path) -> Path:
    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    open_access(app)
    return app


def _exchange(base: str, request: bytes) -> bytes:
    host, port = base.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=20) as sock:
        sock.sendall(request)
        out = b""
        while data := sock.recv(65536):
            out += data
        return out


def _serve_and_stop(app: Path, fmt: str) -> Output:
    with piped_server(app, args=["--log-format", fmt]) as (base, _, output):
        answer = _exchange(base, b"GET /api/tags HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 200")
        answer = _exchange(base, b"NOT HTTP AT ALL\x00\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 400")
        output.wait_for("Invalid HTTP request")
    return output


def test_every_line_is_json(tmp_path: Path) -> None:
    output = _serve_and_stop(_app(tmp_path), "json")
    lines = output.stdout + output.stderr
    entries = []
    for line in lines:
        entry = json.loads(line)  # every line, none excepted
        assert isinstance(entry, dict), line
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", entry["time"]), line
        assert entry["level"] in ("debug", "info", "warning", "error", "critical"), line
        assert isinstance(entry["message"], str) and entry["message"], line
        entries.append(entry)
    messages = [e["message"] for e in entries]
    assert any(m.startswith("folio ") and "database sqlite" in m for m in messages)  # banner
    assert any(m.startswith("Started server process") for m in messages)
    assert any(m == "Application startup complete." for m in messages)
    assert any(m.startswith("Finished server process") for m in messages)
    (invalid,) = [e for e in entries if e["message"] == "Invalid HTTP request received."]
    assert invalid["level"] == "warning"
    (request,) = [e for e in entries if e.get("path") == "/api/tags"]
    assert request["status"] == 200 and request["message"] == "GET /api/tags 200"


def test_plain_lines_share_one_format(tmp_path: Path) -> None:
    output = _serve_and_stop(_app(tmp_path), "plain")
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
    logged = re.compile(stamp + r" (DEBUG|INFO|WARNING|ERROR|CRITICAL): [\w.]+: .+")
    request = re.compile(stamp + r" [A-Z]+ /\S* \d{3} \d+\.\d\d ms [0-9a-f]{32}")
    assert output.stderr
    for line in output.stderr:
        assert logged.fullmatch(line) or request.fullmatch(line), line
    assert any(" GET /api/tags 200 " in line for line in output.stderr)
    assert any(": uvicorn: Started server process" in line for line in output.stderr)
    assert any(
        " WARNING: uvicorn: Invalid HTTP request received." in line for line in output.stderr
    )
