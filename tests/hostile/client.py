"""The suite's side of the wire: an HTTP session that tallies every status code it sees
(or how a request failed), and a raw-socket sender for bodies too large or too slow for an
ordinary client (it stops sending as soon as the server answers)."""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterable
from typing import Any

import httpx


class Session:
    """Requests against one server; `statuses` counts what came back ("reset", "timeout"
    for requests that got no answer)."""

    def __init__(self, base: str, timeout: float = 30.0) -> None:
        self.base = base
        self.port = int(base.rsplit(":", 1)[1])
        self.timeout = timeout
        self.statuses: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._local = threading.local()

    def _client(self, local_address: str | None) -> httpx.Client:
        key = local_address or "default"
        clients: dict[str, httpx.Client] = self._local.__dict__.setdefault("clients", {})
        if key not in clients:
            transport = httpx.HTTPTransport(local_address=local_address) if local_address else None
            clients[key] = httpx.Client(
                base_url=self.base, timeout=self.timeout, transport=transport
            )
        return clients[key]

    def record(self, status: str) -> None:
        with self._lock:
            self.statuses[status] += 1

    @property
    def requests(self) -> int:
        return sum(self.statuses.values())

    def request(
        self, method: str, path: str, local_address: str | None = None, **kw: Any
    ) -> httpx.Response | None:
        try:
            r = self._client(local_address).request(method, path, **kw)
        except httpx.TimeoutException:
            self.record("timeout")
            return None
        except httpx.HTTPError as e:
            self.record(type(e).__name__)
            return None
        self.record(str(r.status_code))
        return r

    def get(self, path: str, **kw: Any) -> httpx.Response | None:
        return self.request("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> httpx.Response | None:
        return self.request("POST", path, **kw)

    def graphql(self, query: str, variables: Any = None, **kw: Any) -> httpx.Response | None:
        body: dict[str, Any] = {"query": query}
        if variables is not None:
            body["variables"] = variables
        return self.post("/graphql", json=body, **kw)

    def close(self) -> None:
        for client in self._local.__dict__.get("clients", {}).values():
            client.close()


def graphql_shaped(r: httpx.Response) -> bool:
    """A JSON object with `data` and/or a list of `errors`, each with a message."""
    try:
        body = r.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False
    if not isinstance(body, dict) or not ({"data", "errors"} & body.keys()):
        return False
    errors = body.get("errors", [])
    return isinstance(errors, list) and all(
        isinstance(e, dict) and isinstance(e.get("message"), str) for e in errors
    )


def _read_answer(sock: socket.socket, deadline: float) -> tuple[int | None, bytes]:
    """The status and body of the answer on `sock` (None: closed without one)."""
    data = b""
    while b"\r\n\r\n" not in data:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except (TimeoutError, OSError):
            chunk = b""
        if not chunk:
            return None, data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = next(
        (
            int(v)
            for k, _, v in (h.partition(":") for h in lines[1:])
            if k.lower() == "content-length"
        ),
        0,
    )
    while len(body) < length and time.monotonic() < deadline:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except (TimeoutError, OSError):
            break
        if not chunk:
            break
        body += chunk
    return status, body


def raw_send(
    port: int, head: bytes, body: Iterable[bytes], timeout: float = 300.0
) -> tuple[int | None, bytes, int]:
    """Sends a request's head, then its body piece by piece until the server answers or
    closes; returns (status or None, answer body, body bytes sent)."""
    deadline = time.monotonic() + timeout
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head)
        for piece in body:
            view = memoryview(piece)
            while view:
                readable, writable, _ = select.select([sock], [sock], [], 30)
                if readable:  # an early answer (a refusal) or the server closing
                    return (*_read_answer(sock, deadline), sent)
                if not writable or time.monotonic() > deadline:
                    return None, b"stalled", sent
                try:
                    n = sock.send(view[: 1 << 20])
                except OSError:
                    return (*_read_answer(sock, deadline), sent)
                sent += n
                view = view[n:]
        return (*_read_answer(sock, deadline), sent)


def chunked(pieces: Iterable[bytes]) -> Iterable[bytes]:
    """HTTP/1.1 chunked transfer coding of `pieces`."""
    for piece in pieces:
        yield b"%x\r\n" % len(piece) + piece + b"\r\n"
    yield b"0\r\n\r\n"
