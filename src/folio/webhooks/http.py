"""The HTTP/1.1 client that posts deliveries: POST requests over asyncio streams (TLS for
https), with keep-alive connections per origin.

Why not a general client: deliveries run in the server's own process, beside the requests
it serves, and a general client's machinery cost about 1.3 ms of CPU per POST on this
machine against 25 µs for these few steps (measured with a local receiver): with three
webhooks that was the difference between writes served at nearly full speed and at half
of it. What a delivery needs is small: one request shape, a status, the start of the
answer's body for the record, and reuse of the connection.

The answer's body is read to its end when it is small enough (`DRAIN`), and its first
`KEEP` bytes kept; a larger or unframed one closes the connection. A connection that the
receiver closed while idle (a request on it fails before any byte of an answer) is
replaced once. Proxies (`HTTP_PROXY`) are not used."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ssl
import time
from collections import deque
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

# bytes of an answer's body kept for the delivery record
KEEP = 2048
# the largest body read to its end so that the connection can be used again
DRAIN = 1024 * 1024
# a status line or header line longer than this ends the connection
LINE_LIMIT = 64 * 1024
MAX_HEADERS = 200
# idle connections kept per origin, and for how long (under the 5 s after which common
# servers close an idle keep-alive connection)
IDLE_PER_ORIGIN = 4
IDLE_SECONDS = 4.0


class HttpError(Exception):
    """The request got no usable answer (refused, reset, a malformed answer)."""


@dataclass
class Answer:
    status: int
    body: bytes  # its first KEEP bytes


@dataclass(frozen=True)
class Target:
    """Where a URL points: the origin to connect to and the request's target."""

    scheme: str
    host: str  # for the connection (an IPv6 address without brackets)
    port: int
    host_header: str
    path: str
    authorization: str | None  # from user:password@ in the URL

    @property
    def origin(self) -> tuple[str, str, int]:
        return (self.scheme, self.host, self.port)


def target(url: str) -> Target:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise HttpError(f"unsupported URL scheme {parts.scheme!r}")
    host = parts.hostname
    if not host:
        raise HttpError("the URL has no host")
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError as exc:
        raise HttpError(f"invalid port in the URL ({exc})") from None
    ascii_host = host if ":" in host else host.encode("idna").decode("ascii")
    shown = f"[{ascii_host}]" if ":" in ascii_host else ascii_host
    if port != (443 if scheme == "https" else 80):
        shown += f":{port}"
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    authorization = None
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        authorization = "Basic " + base64.b64encode(pair.encode()).decode()
    return Target(scheme, ascii_host, port, shown, path, authorization)


@dataclass(frozen=True)
class Prepared:
    """A request's target and its fixed header lines (the request line first), checked
    and encoded once for all the requests to one webhook."""

    target: Target
    head: bytes


def prepare(url: str, headers: list[tuple[str, str]]) -> Prepared:
    """`url` and `headers` as a request's fixed part (Host, and Authorization from
    user:password@ in the URL unless `headers` give one, are added)."""
    where = target(url)
    lines = [f"POST {where.path} HTTP/1.1", f"Host: {where.host_header}"]
    if where.authorization and all(n.lower() != "authorization" for n, _ in headers):
        lines.append(f"Authorization: {where.authorization}")
    for name, value in headers:
        if any(c in value for c in "\r\n\0") or any(c in name for c in "\r\n\0: "):
            raise HttpError(f"invalid header {name!r}")
        lines.append(f"{name}: {value}")
    head = "\r\n".join(lines) + "\r\n"
    return Prepared(where, head.encode("latin-1", "replace"))


class _Connection:
    __slots__ = ("idle_since", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.idle_since = 0.0

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


class _Fresh(Exception):
    """A reused connection failed before any byte of an answer: try a new one."""


class HttpClient:
    def __init__(self) -> None:
        self._idle: dict[tuple[str, str, int], deque[_Connection]] = {}
        self._tls: ssl.SSLContext | None = None

    async def post(self, url: str, headers: list[tuple[str, str]], body: bytes) -> Answer:
        """POSTs `body` with `headers` (Host and Content-Length are added); the caller
        bounds the time (a cancelled request closes its connection)."""
        return await self.send(prepare(url, headers), b"", body)

    async def send(self, prepared: Prepared, extra: bytes, body: bytes) -> Answer:
        """POSTs `body` as `prepared` says, with the header lines `extra` (each ending
        with CRLF, from a trusted caller)."""
        where = prepared.target
        request = b"%s%sContent-Length: %d\r\n\r\n%s" % (prepared.head, extra, len(body), body)
        conn = self._reuse(where.origin)
        if conn is not None:
            try:
                return await self._exchange(where, conn, request, reused=True)
            except _Fresh:
                pass
        conn = await self._connect(where)
        try:
            return await self._exchange(where, conn, request, reused=False)
        except _Fresh:
            raise HttpError("the connection was closed before an answer") from None

    async def close(self) -> None:
        for idle in self._idle.values():
            for conn in idle:
                conn.close()
        self._idle.clear()

    def _reuse(self, origin: tuple[str, str, int]) -> _Connection | None:
        idle = self._idle.get(origin)
        now = time.monotonic()
        while idle:
            conn = idle.pop()
            if now - conn.idle_since < IDLE_SECONDS and not conn.reader.at_eof():
                return conn
            conn.close()
        return None

    def _keep(self, origin: tuple[str, str, int], conn: _Connection) -> None:
        idle = self._idle.setdefault(origin, deque())
        if len(idle) >= IDLE_PER_ORIGIN:
            conn.close()
            return
        conn.idle_since = time.monotonic()
        idle.append(conn)

    async def _connect(self, where: Target) -> _Connection:
        tls = None
        if where.scheme == "https":
            if self._tls is None:
                self._tls = ssl.create_default_context()
            tls = self._tls
        try:
            reader, writer = await asyncio.open_connection(
                where.host,
                where.port,
                ssl=tls,
                server_hostname=where.host if tls else None,
                limit=LINE_LIMIT,
            )
        except ssl.SSLError as exc:
            raise HttpError(f"TLS: {exc.reason or exc}") from None
        except OSError as exc:
            raise HttpError(_os_error(exc)) from None
        return _Connection(reader, writer)

    async def _exchange(
        self, where: Target, conn: _Connection, request: bytes, reused: bool
    ) -> Answer:
        done = False
        try:
            try:
                conn.writer.write(request)
                await conn.writer.drain()
                line = await conn.reader.readuntil(b"\r\n")
            except (asyncio.IncompleteReadError, ConnectionError) as exc:
                if reused:
                    raise _Fresh() from None
                raise HttpError(_os_error(exc)) from None
            answer, reusable = await self._answer(conn.reader, line)
            done = True
        except asyncio.LimitOverrunError:
            raise HttpError("an answer line is too long") from None
        except asyncio.IncompleteReadError:
            raise HttpError("the connection was closed in the middle of the answer") from None
        except OSError as exc:
            raise HttpError(_os_error(exc)) from None
        finally:
            if not done:
                conn.close()
        if reusable:
            self._keep(where.origin, conn)
        else:
            conn.close()
        return answer

    async def _answer(self, reader: asyncio.StreamReader, line: bytes) -> tuple[Answer, bool]:
        """Reads an answer whose status line is `line`; whether the connection can carry
        another request."""
        while True:
            version, status = _status(line)
            fields = await _headers(reader)
            if not 100 <= status < 200 or status == 101:
                break
            line = await reader.readuntil(b"\r\n")  # an interim answer (100 Continue)
        keep_alive = version == "HTTP/1.1" and "close" not in fields.get("connection", "")
        if status in (204, 304):
            return Answer(status, b""), keep_alive
        if "chunked" in fields.get("transfer-encoding", ""):
            body, whole = await _chunked(reader)
            return Answer(status, body), keep_alive and whole
        length = fields.get("content-length")
        if length is not None:
            if not length.strip().isdecimal():
                raise HttpError(f"invalid Content-Length {length!r}")
            size = int(length)
            if size <= DRAIN:
                data = await reader.readexactly(size)
                return Answer(status, data[:KEEP]), keep_alive
            return Answer(status, await reader.readexactly(KEEP)), False
        # no framing: the body ends with the connection
        return Answer(status, await _read_some(reader, KEEP)), False


def _status(line: bytes) -> tuple[str, int]:
    parts = line.decode("latin-1").strip().split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdecimal():
        raise HttpError(f"not an HTTP answer: {line[:80]!r}")
    return parts[0], int(parts[1])


async def _headers(reader: asyncio.StreamReader) -> dict[str, str]:
    fields: dict[str, str] = {}
    for _ in range(MAX_HEADERS):
        line = await reader.readuntil(b"\r\n")
        if line == b"\r\n":
            return fields
        name, sep, value = line.decode("latin-1").partition(":")
        if not sep:
            raise HttpError(f"malformed header line {line[:80]!r}")
        key = name.strip().lower()
        value = value.strip()
        fields[key] = f"{fields[key]}, {value}".lower() if key in fields else value.lower()
    raise HttpError("too many header lines in the answer")


async def _chunked(reader: asyncio.StreamReader) -> tuple[bytes, bool]:
    """The first KEEP bytes of a chunked body, and whether it was read to its end."""
    kept = bytearray()
    total = 0
    while True:
        size_line = await reader.readuntil(b"\r\n")
        text = size_line.split(b";", 1)[0].strip()
        try:
            size = int(text, 16)
        except ValueError:
            raise HttpError(f"malformed chunk size {text[:20]!r}") from None
        if size == 0:
            await _headers(reader)  # trailers
            return bytes(kept), True
        total += size
        if total > DRAIN:
            if len(kept) < KEEP:
                kept += await reader.readexactly(min(size, KEEP - len(kept)))
            return bytes(kept), False
        data = await reader.readexactly(size)
        if len(kept) < KEEP:
            kept += data[: KEEP - len(kept)]
        await reader.readexactly(2)


async def _read_some(reader: asyncio.StreamReader, limit: int) -> bytes:
    out = bytearray()
    while len(out) < limit:
        data = await reader.read(limit - len(out))
        if not data:
            break
        out += data
    return bytes(out)


def _os_error(exc: BaseException) -> str:
    if isinstance(exc, asyncio.IncompleteReadError):
        return "the connection was closed before an answer"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, ConnectionResetError):
        return "connection reset by the receiver"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower() if not exc.filename else f"{exc.filename}: {exc.strerror}"
    text = str(exc)
    if "Connect call failed" in text or "Multiple exceptions" in text:
        return "connection refused"
    return text or type(exc).__name__
