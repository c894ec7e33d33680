"""Sockets and bodies: thousands of clients that never finish their request's head, large
uploads (many 49 MB parts in one request, a 500 MB chunked one, huge-dimension PNGs at
once), and the database going away under a running server (PostgreSQL, through a proxy
the suite owns)."""

from __future__ import annotations

import contextlib
import io
import resource
import selectors
import socket
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import cache

from .client import chunked, raw_send
from .harness import Case, Context
from .server import written_bytes

SLOW_SOCKETS = 5000
SLOW_ADDRESSES = 50  # client addresses they come from (127.0.9.x): past any per-client limit
SLOW_SERVER_FILES = 4096  # the server's descriptor limit in that case: fewer than the sockets
HEADER_TIMEOUT = 5  # seconds (the server's HEADERS_TIMEOUT in that case)
MB = 1 << 20


def slow_clients(ctx: Context) -> None:
    """SLOW_SOCKETS connections, from SLOW_ADDRESSES client addresses, each send half a
    request head and wait; then a normal request from another address must be answered
    200 within twice the head timeout and 20 s (refused meanwhile, with a 503 or a closed
    connection, at most: until the head timeout frees the slots)."""
    want = SLOW_SOCKETS + 1000
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        try:  # raising the hard limit needs root; otherwise the hard limit must do
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))
        except (ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    ctx.check(
        resource.getrlimit(resource.RLIMIT_NOFILE)[0] >= want,
        f"the suite may open only {resource.getrlimit(resource.RLIMIT_NOFILE)[0]} files",
    )
    half = b"GET /api/articles HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
    selector = selectors.DefaultSelector()
    sockets: list[socket.socket] = []
    try:
        for i in range(SLOW_SOCKETS):
            s = socket.socket()
            s.bind((f"127.0.9.{1 + i % SLOW_ADDRESSES}", 0))
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", ctx.server.port))
            sockets.append(s)
            selector.register(s, selectors.EVENT_WRITE)
        pending = len(sockets)
        deadline = time.monotonic() + 10
        while pending and time.monotonic() < deadline:
            for key, _ in selector.select(timeout=0.5):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                selector.unregister(sock)
                pending -= 1
                with contextlib.suppress(OSError):
                    sock.send(half)
        ctx.extra_requests += SLOW_SOCKETS
        ctx.notes.append(f"{SLOW_SOCKETS - pending} slow heads sent")
        started = time.monotonic()
        deadline = started + 2 * HEADER_TIMEOUT + 20
        answered = False
        while not answered and time.monotonic() < deadline:
            wait = max(1.0, deadline - time.monotonic())
            r = ctx.session.get(
                "/api/articles?pagination[pageSize]=1", timeout=wait, local_address="127.0.0.2"
            )
            answered = r is not None and r.status_code == 200
            if r is None:  # refused at the door (closed or reset): as a 503, try again
                time.sleep(1.0)
            elif r.status_code == 503:
                time.sleep(min(float(r.headers.get("retry-after", "1")), 5.0))
            elif not answered:
                break
        ctx.check(answered, f"no normal request answered 200 within {deadline - started:.0f}s")
        ctx.notes.append(f"a normal request answered after {time.monotonic() - started:.1f}s")
    finally:
        selector.close()
        for s in sockets:
            s.close()


def _part_head(boundary: bytes, name: str, content_type: str) -> bytes:
    return (
        b"--" + boundary + b"\r\n"
        b'Content-Disposition: form-data; name="files"; filename="' + name.encode() + b'"\r\n'
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n"
    )


def _zeros(size: int) -> Iterator[bytes]:
    block = bytes(MB)
    while size > 0:
        yield block[: min(size, MB)]
        size -= MB


def _upload_head(port: int, boundary: bytes, length: int | None) -> bytes:
    framing = f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked"
    return (
        f"POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary.decode()}\r\n"
        f"{framing}\r\nConnection: close\r\n\r\n"
    ).encode()


def _record(ctx: Context, status: int | None, sent: int, what: str) -> None:
    ctx.session.record(str(status) if status is not None else "no-answer")
    ctx.notes.append(f"{what}: {status}, {sent / MB:.0f} MB sent")


def upload_parts(ctx: Context) -> None:
    """10 parts of 49 MB each (each under the 50 MB file limit) in one request."""
    boundary = b"hostile-parts"
    size = 49 * MB
    heads = [_part_head(boundary, f"part{i}.bin", "application/octet-stream") for i in range(10)]
    tail = b"--" + boundary + b"--\r\n"
    length = sum(len(h) + size + 2 for h in heads) + len(tail)

    def body() -> Iterable[bytes]:
        for head in heads:
            yield head
            yield from _zeros(size)
            yield b"\r\n"
        yield tail

    status, _, sent = raw_send(
        ctx.server.port, _upload_head(ctx.server.port, boundary, length), body()
    )
    _record(ctx, status, sent, "10 x 49 MB")


def upload_chunked(ctx: Context) -> None:
    """A chunked 500 MB file: refused with 413 before the server has taken it all in."""
    boundary = b"hostile-chunked"
    size = 500 * MB

    def body() -> Iterable[bytes]:
        yield _part_head(boundary, "huge.bin", "application/octet-stream")
        yield from _zeros(size)
        yield b"\r\n--" + boundary + b"--\r\n"

    status, _, sent = raw_send(
        ctx.server.port, _upload_head(ctx.server.port, boundary, None), chunked(body())
    )
    _record(ctx, status, sent, "500 MB chunked")
    ctx.check(status == 413, f"500 MB chunked upload answered {status}, not 413")
    written = written_bytes(ctx.server.pid) - ctx.written_before
    ctx.notes.append(f"server wrote {written / MB:.0f} MB")
    ctx.check(written < 250 * MB, f"server wrote {written / MB:.0f} MB of the 500 MB upload")


@cache
def _big_png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (6300, 6300), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def upload_images(ctx: Context) -> None:
    """Six 6,300 x 6,300 PNGs (a solid colour, ~130 KB each) uploaded at once."""
    png = _big_png()

    def one(i: int) -> None:
        ctx.session.post("/api/upload", files={"files": (f"big{i}.png", png, "image/png")})

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(one, range(6)))
    ctx.notes.append(f"6 x {len(png) / 1000:.0f} KB PNGs")


def db_outage(ctx: Context) -> None:
    """The proxy between the server and PostgreSQL stops (its connections cut): answers are
    503 with Retry-After, the log stays short; once it is back, the server serves again."""
    assert ctx.proxy is not None
    log_lines = len(ctx.server.log.read_text(errors="replace").splitlines())
    ctx.proxy.stop()
    try:
        codes = []
        for i in range(100):
            path = f"/api/articles?pagination[page]={i % 5 + 1}" if i % 2 else "/api/categories"
            r = ctx.session.get(path, timeout=60)
            if r is not None:
                codes.append(r.status_code)
                if r.status_code == 503:
                    ctx.check("retry-after" in r.headers, "a 503 without Retry-After")
        r = ctx.session.graphql("{ articles { title } }")
        ctx.check(
            bool(codes) and all(c == 503 for c in codes), f"outage answers: {sorted(set(codes))}"
        )
    finally:
        ctx.proxy.start()
    added = len(ctx.server.log.read_text(errors="replace").splitlines()) - log_lines
    ctx.notes.append(f"{added} log lines for 101 requests")
    ctx.check(added <= 30, f"{added} log lines for 101 requests during the outage")


CASES = [
    Case(
        "slow-clients",
        slow_clients,
        env={"HEADERS_TIMEOUT": str(HEADER_TIMEOUT)},
        max_files=SLOW_SERVER_FILES,
        after_timeout=4 * HEADER_TIMEOUT + 30,
        allowed_5xx=frozenset({"503"}),  # the refusal of connections past the server's limit
    ),
    # taking in and writing out 490 MB costs 0.6-0.9 s by itself on a busy machine, and
    # 1.5-2.3 s with a whole second test suite running beside it (the kernel's copies of the
    # bytes, socket to page cache, slow down with the cores and caches shared): three
    # seconds more, so that the case fails on buffering, not on the machine's load
    Case("upload-parts", upload_parts, cpu_allowance=3.0),
    Case("upload-chunked", upload_chunked),
    Case("upload-images", upload_images),
    Case(
        "db-outage",
        db_outage,
        postgres_only=True,
        via_proxy=True,
        allowed_5xx=frozenset({"503"}),
    ),
]
