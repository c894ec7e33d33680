"""The HTTP server's protocol (uvicorn's httptools one): a transport that sends a
response's head and body in one write, and the limits that keep slow or greedy clients from
taking the server's connections (time to send a request's headers and body, connections per
client address and in all).

uvicorn writes the status line and headers when the response starts and the body when it
comes: two writes, so two system calls and two TCP segments for every response. On the
loopback a segment's delivery (the receiver's TCP processing and wake-up) is charged to the
sender's call: the head's write alone was a fifth of the server's CPU for a 25-row page.
Here a write is held until the next one or the end of the loop's current iteration,
whichever comes first, and the two go out joined: a response whose body follows its start
at once (every response Folio makes) is one write; a streamed one is never held longer
than an iteration."""

from __future__ import annotations

import asyncio
import ipaddress
import os
import resource
from dataclasses import dataclass
from typing import Any

import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

# bodies up to this size are copied behind the head they follow
JOIN_LIMIT = 256 * 1024


class JoiningTransport:
    """Delegates to a socket transport; `write` joins a held write with the next one."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None

    def write(self, data: bytes) -> None:
        held = self._held
        if held is None:
            if not data:
                return
            self._held = bytes(data)
            self._loop.call_soon(self._flush)
            return
        self._held = None
        if len(data) > JOIN_LIMIT:
            # a large body: copying it costs more than the second call
            self._transport.write(held)
            self._transport.write(data)
        else:
            self._transport.write(held + data)

    def _flush(self) -> None:
        held = self._held
        if held is not None:
            self._held = None
            if not self._transport.is_closing():
                self._transport.write(held)

    def writelines(self, lines: Any) -> None:
        self.write(b"".join(lines))

    def write_eof(self) -> None:
        self._flush()
        self._transport.write_eof()

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def abort(self) -> None:
        self._held = None
        self._transport.abort()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + len(self._held or b"")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


@dataclass(frozen=True)
class Limits:
    """What the protocol allows a connection (server.json `timeouts`,
    `maxConnectionsPerClient`, `maxConnections`; `folio serve` hands them to its server
    processes through the environment, see `to_environ`)."""

    headers: float = 10.0  # seconds to send a request's headers, from their first byte
    body: float = 30.0  # seconds a request's body may go without a byte arriving
    per_client: int = 256  # open connections of one client address (0: no limit)
    total: int = 0  # open connections in all (0: the open-files limit less a reserve)
    exempt: tuple[str, ...] = ()  # addresses or networks the per-client limit spares

    def to_environ(self) -> dict[str, str]:
        return {"FOLIO_SERVER_LIMITS": orjson.dumps(self.__dict__).decode()}

    @classmethod
    def from_environ(cls) -> Limits:
        raw = os.environ.get("FOLIO_SERVER_LIMITS")
        if not raw:
            return cls()
        values = orjson.loads(raw)
        values["exempt"] = tuple(values.get("exempt", ()))
        return cls(**values)


def raise_open_files_limit() -> int:
    """Raises this process's open-files limit (soft) to its hard limit, so that the server
    can hold as many connections as the system lets it; returns the limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = 1 << 20
    if soft == resource.RLIM_INFINITY or soft >= hard:
        return soft if soft != resource.RLIM_INFINITY else hard
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):
        return soft
    return hard


def default_total() -> int:
    """Connections a process holds at most by default: its open-files limit less a tenth
    (at least 64) kept for the database's connections, the app's files and the logs: past
    the limit, `accept` fails and so does every file the app opens."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        soft = 1 << 20
    return max(16, soft - max(64, soft // 10))


def _answer(status: int, reason: str, name: str, message: str, extra: bytes = b"") -> bytes:
    """An error answer in the API's envelope, written by the protocol itself, that closes
    the connection."""
    body = orjson.dumps(
        {
            "data": None,
            "error": {"status": status, "name": name, "message": message, "details": {}},
        }
    )
    return (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n".encode()
        + extra
        + b"\r\n"
        + body
    )


TIMED_OUT = _answer(408, "Request Timeout", "RequestTimeoutError", "Request Timeout")
TOO_MANY = _answer(
    503,
    "Service Unavailable",
    "ServiceUnavailableError",
    "Too many connections",
    b"retry-after: 5\r\n",
)

# seconds a refused connection stays open for its client to read the 503
REFUSED_LINGER = 1.0

# The scope key where an answer that runs until it is told to stop (an event stream) puts
# the function that stops it: at shutdown the server waits for every connection to end.
STOP = "folio.stop"
# seconds a stopped answer has to end before its connection is cut (a client that reads
# nothing would hold it, and the shutdown, forever)
STOP_GRACE = 5.0

# waiting for the next request's headers; reading a request's body; handed to another
# protocol (an upgrade), no longer timed here
HEADERS, BODY, UPGRADED = 0, 1, 2


class _Shared:
    """The limits and the open connections of each client address, per process."""

    def __init__(self) -> None:
        self.limits: Limits | None = None
        self.total = 0
        self.networks: list[Any] = []
        self.everyone = False
        self.clients: dict[str, int] = {}
        self.spared: dict[str, bool] = {}

    def load(self) -> Limits:
        limits = Limits.from_environ()
        self.limits = limits
        self.total = limits.total or default_total()
        self.everyone = "*" in limits.exempt
        self.networks = [ipaddress.ip_network(n, strict=False) for n in limits.exempt if n != "*"]
        return limits

    def is_spared(self, host: str) -> bool:
        if self.everyone:
            return True
        if not self.networks:
            return False
        found = self.spared.get(host)
        if found is None:
            try:
                address = ipaddress.ip_address(host)
            except ValueError:
                found = False
            else:
                found = any(address in network for network in self.networks)
            if len(self.spared) > 4096:
                self.spared.clear()
            self.spared[host] = found
        return found


SHARED = _Shared()


class FolioHttpProtocol(HttpToolsProtocol):
    """uvicorn's protocol, on a joining transport, with Folio's connection limits.

    A request's headers must arrive within `headers` seconds: from the moment the
    connection opens, or from the first byte of a later request (an idle keep-alive
    connection is uvicorn's `timeout_keep_alive`'s). Its body may go `body` seconds without
    a byte (not counted while the server itself stops reading: the app has not taken what
    came). Either one late: a 408 when part of a request came, and the connection closed.
    A connection past its address's limit, or past the process's, is answered 503 at once
    and closed. Timers are armed only while a request is incomplete after the bytes
    received so far have been read, so a request that arrives whole costs none."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = SHARED.limits or SHARED.load()
        self._phase = HEADERS
        self._begun = False  # bytes of the next request have come
        self._timer: asyncio.TimerHandle | None = None
        self._last = 0.0  # when the body's last bytes came
        self._address: str | None = None  # counted against its address's limit
        self._refused = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        joined: Any = JoiningTransport(transport, self.loop)
        super().connection_made(joined)
        host = self.client[0] if self.client else None
        limits = self.limits
        if host is not None and limits.per_client and not SHARED.is_spared(host):
            count = SHARED.clients.get(host, 0) + 1
            SHARED.clients[host] = count
            self._address = host
            if count > limits.per_client:
                self._refuse()
                return
        if len(self.connections) > SHARED.total:
            self._refuse()
            return
        self._timer = self.loop.call_later(limits.headers, self._headers_late)

    def _refuse(self) -> None:
        """503, then the connection closed once the client's first bytes are read (or at
        once if it cannot be half-closed): closed with its request unread, the client would
        get a reset instead of the answer. A client that sends nothing has REFUSED_LINGER
        seconds to read it."""
        self._refused = True
        self.transport.write(TOO_MANY)
        if not self.transport.can_write_eof():
            self.transport.close()
            return
        self.transport.write_eof()
        self._timer = self.loop.call_later(REFUSED_LINGER, self.transport.close)

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel()
        host = self._address
        if host is not None:
            self._address = None
            count = SHARED.clients.get(host, 0) - 1
            if count > 0:
                SHARED.clients[host] = count
            else:
                SHARED.clients.pop(host, None)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            self.transport.close()
            return
        super().data_received(data)
        if self._timer is not None or self.transport.is_closing():
            if self._phase == BODY:
                self._last = self.loop.time()
            return
        if self._phase == BODY:
            self._last = self.loop.time()
            self._timer = self.loop.call_later(self.limits.body, self._body_late)
        elif self._phase == HEADERS and (
            self._begun or self.cycle is None or self.cycle.response_complete
        ):
            # part of a request's headers (or bytes that start none) with no request under
            # way; a whole request's answer comes first
            self._timer = self.loop.call_later(self.limits.headers, self._headers_late)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._begun = True

    def on_headers_complete(self) -> None:
        self._cancel()
        self._phase = BODY
        self._begun = False
        super().on_headers_complete()
        if self.parser.should_upgrade() and self._should_upgrade():
            self._phase = UPGRADED

    def on_message_complete(self) -> None:
        self._cancel()
        self._phase = HEADERS
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._begun and self._timer is None and not self.transport.is_closing():
            # the next request's headers began during the answer
            self._timer = self.loop.call_later(self.limits.headers, self._headers_late)

    def shutdown(self) -> None:
        cycle = self.cycle
        stop: Any = None
        if cycle is not None and not cycle.response_complete:
            stop = self.scope.get(STOP)
        super().shutdown()
        if callable(stop):
            stop()
            self.loop.call_later(STOP_GRACE, self._cut)

    def _cut(self) -> None:
        if self in self.connections:  # not gone yet: its end, or its close, is stuck
            self.transport.abort()

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _headers_late(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            return  # timed again once the answer under way is complete
        if self._begun:
            self.transport.write(TIMED_OUT)
        self.transport.close()

    def _body_late(self) -> None:
        self._timer = None
        if self.transport.is_closing() or self._phase != BODY:
            return
        waited = self.loop.time() - self._last
        cycle = self.cycle
        waiting = self.flow.read_paused or (cycle is not None and cycle.waiting_for_100_continue)
        if waited < self.limits.body or waiting:
            # bytes came meanwhile, or the server is the one waiting (it stopped reading:
            # the app has not taken the body that came; or the client waits for its
            # `100 Continue`): time again from now
            if waiting:
                self._last = self.loop.time()
            self._timer = self.loop.call_later(
                self.limits.body - (self.loop.time() - self._last), self._body_late
            )
            return
        if cycle is not None and not cycle.response_started:
            self.transport.write(TIMED_OUT)
        if cycle is not None:
            cycle.disconnected = True
            cycle.message_event.set()
        self.transport.close()


# the name it had when it only joined writes
JoiningHttpToolsProtocol = FolioHttpProtocol
