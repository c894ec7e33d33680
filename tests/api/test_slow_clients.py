"""Slow and greedy clients against a real server process: a request whose headers or body
stop coming is answered 408 and its connection closed after the configured time; a client
address past its connection limit is answered 503 at once while other addresses are
served (every 127.x.y.z address is the loopback's, so a socket bound to 127.0.0.2 is
another client); the limit spares the trusted proxies' addresses."""

from __future__ import annotations

import json
import shutil
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.serving import Output, piped_server
from tests.conftest import FIXTURES, open_access

# a served app's address and its output
Served = tuple[str, Output]

# long enough that a request sent whole is never cut, however slow the machine
WAIT = 60.0


def _app(tmp_path: Path, server: dict[str, Any]) -> Path:
    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    open_access(app)
    (app / "config" / "server.json").write_text(json.dumps(server))
    return app


def _connect(base: str, source: str = "127.0.0.1") -> socket.socket:
    host, port = base.removeprefix("http://").rsplit(":", 1)
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(WAIT)
    sock.connect((host, int(port)))
    return sock


def _read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    out = b""
    while True:
        try:
            data = sock.recv(65536)
        except ConnectionResetError:
            return out
        if not data:
            return out
        out += data


def _status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer else 0


def _body(answer: bytes) -> Any:
    return json.loads(answer.split(b"\r\n\r\n", 1)[1])


def _get(base: str, path: str, source: str = "127.0.0.1") -> bytes:
    with _connect(base, source) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        return _read_all(sock)


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A server with a 1 s limit for headers and for pauses in a body."""
    server = {"timeouts": {"headers": 1, "body": 1}}
    app = _app(tmp_path_factory.mktemp("strict"), server)
    with piped_server(app) as (base, _, output):
        yield base, output


def test_half_a_header_is_answered_408_and_closed(strict: Served) -> None:
    base = strict[0]
    with _connect(base, "127.0.0.3") as sock:
        sock.sendall(b"GET /api/tags HTTP/1.1\r\nHost: x\r\nAccept: appl")
        answer = _read_all(sock)
    assert _status(answer) == 408
    assert b"connection: close" in answer.lower()
    assert _body(answer)["error"]["name"] == "RequestTimeoutError"


def test_half_a_header_after_a_kept_alive_request_is_answered_408(
    strict: Served,
) -> None:
    base = strict[0]
    with _connect(base, "127.0.0.3") as sock:
        sock.sendall(b"GET /_health HTTP/1.1\r\nHost: x\r\n\r\n")
        first = sock.recv(65536)
        assert _status(first) == 204
        sock.sendall(b"GET /api/tags HTTP/1.1\r\nHo")
        answer = _read_all(sock)
    assert _status(answer) == 408


def test_a_connection_that_sends_nothing_is_closed(strict: Served) -> None:
    base = strict[0]
    with _connect(base, "127.0.0.4") as sock:
        assert _read_all(sock) == b""  # closed, nothing to answer


def test_a_body_that_stops_coming_is_answered_408(strict: Served) -> None:
    base, output = strict
    before = _body(_get(base, "/api/tags", "127.0.0.5"))["data"]
    with _connect(base, "127.0.0.5") as sock:
        sock.sendall(
            b"POST /api/tags HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 200\r\n\r\n{"data": {"na'
        )
        answer = _read_all(sock)
    assert _status(answer) == 408
    assert _body(answer)["error"]["name"] == "RequestTimeoutError"
    # nothing was written; the request is logged as one its client left (499), without
    # an error
    assert _body(_get(base, "/api/tags", "127.0.0.5"))["data"] == before
    (line,) = output.wait_for(" 499 ")
    assert " POST /api/tags 499 " in line
    assert not [line for line in output.stderr if "Traceback" in line or "ERROR" in line]


def test_slow_requests_that_do_complete_are_served(strict: Served) -> None:
    """The timers measure silence, not the whole request: a body that keeps coming, in
    pieces, is read to the end."""
    base = strict[0]
    with _connect(base, "127.0.0.6") as sock:
        body = json.dumps({"data": {"name": "slow"}}).encode()
        sock.sendall(
            b"POST /api/tags HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            b"Content-Type: application/json\r\nContent-Length: "
            + str(len(body)).encode()
            + b"\r\n\r\n"
        )
        # 2 bytes every 0.1 s: longer than the 1 s limit in all
        for i in range(0, len(body), 2):
            sock.sendall(body[i : i + 2])
            time.sleep(0.1)
        answer = _read_all(sock)
    assert _status(answer) == 201, answer


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server that allows 2 connections per client address but any number from the
    trusted proxy 127.0.0.9, with time enough for headers that the slow connections stay
    open while the test runs."""
    server = {
        "timeouts": {"headers": WAIT},
        "maxConnectionsPerClient": 2,
        "trustedProxies": ["127.0.0.9"],
    }
    app = _app(tmp_path_factory.mktemp("capped"), server)
    with piped_server(app, args=["--no-request-log"]) as (base, _, _):
        yield base


def test_one_address_past_its_limit_does_not_stop_the_others(capped: str) -> None:
    slow = []
    try:
        for _ in range(2):
            sock = _connect(capped, "127.0.0.7")
            sock.sendall(b"GET /api/tags HTTP/1.1\r\nHost: x\r\n")
            slow.append(sock)
        # the third from that address is turned away at once
        with _connect(capped, "127.0.0.7") as extra:
            answer = _read_all(extra)
        assert _status(answer) == 503
        assert b"retry-after: 5" in answer.lower()
        assert _body(answer)["error"]["name"] == "ServiceUnavailableError"
        # another address is served meanwhile
        assert _status(_get(capped, "/api/tags", "127.0.0.8")) == 200
    finally:
        for sock in slow:
            sock.close()
    # once its slow connections are gone, the address is served again
    deadline = time.monotonic() + WAIT
    while _status(_get(capped, "/api/tags", "127.0.0.7")) != 200:
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_the_limit_spares_trusted_proxies(capped: str) -> None:
    held = [_connect(capped, "127.0.0.9") for _ in range(3)]
    try:
        for sock in held:
            sock.sendall(b"GET /api/tags HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert _status(_read_all(sock)) == 200
    finally:
        for sock in held:
            sock.close()
