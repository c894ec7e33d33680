"""The server's edge under hostile clients and a database outage, against a real `folio
serve` process on the loopback.

    .venv/bin/python bench/edge.py slow [--sockets 5000] [--per-client 256] [--headers 10]
    .venv/bin/python bench/edge.py outage [--seconds 10] [--clients 8]   # needs PostgreSQL

`slow`: opens N sockets from 127.0.0.1 that each send half a request's headers, then asks
for a page from another address (127.0.0.2) and from 127.0.0.1 itself until it is served;
prints what the sockets were answered, the server's open descriptors, and how long the
normal requests took. `outage`: serves the app from its own PostgreSQL database through a
TCP relay, sends requests from N threads, stops the relay for the given time and starts it
again; prints the answers' statuses and the bytes the server logged meanwhile (request log
off and on)."""

from __future__ import annotations

import argparse
import collections
import os
import resource
import selectors
import socket
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.api.serving import CLEARED, piped_server  # noqa: E402
from tests.api.test_db_outage import Relay, _admin  # noqa: E402
from tests.api.test_slow_clients import _app  # noqa: E402
from tests.conftest import PG_URL  # noqa: E402


def _fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _get(base: str, source: str) -> tuple[int, float]:
    host, port = base.removeprefix("http://").rsplit(":", 1)
    started = time.perf_counter()
    with socket.socket() as sock:
        sock.bind((source, 0))
        sock.settimeout(30)
        sock.connect((host, int(port)))
        sock.sendall(b"GET /api/tags HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = b""
        while data := sock.recv(65536):
            answer += data
    return int(answer.split(b" ", 2)[1]) if answer else 0, time.perf_counter() - started


def slow(args: argparse.Namespace) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    server = {"timeouts": {"headers": args.headers}, "maxConnectionsPerClient": args.per_client}
    with tempfile.TemporaryDirectory() as tmp:
        app = _app(Path(tmp), server)
        with piped_server(app, args=["--no-request-log"]) as (base, proc, output):
            host, port = base.removeprefix("http://").rsplit(":", 1)
            before = _fds(proc.pid)
            sockets = []
            opened = time.perf_counter()
            for _ in range(args.sockets):
                sock = socket.create_connection((host, int(port)))
                sock.sendall(b"GET /api/tags HTTP/1.1\r\nHost: x\r\nUser-Agent: sl")
                sock.setblocking(False)
                sockets.append(sock)
            print(
                f"{args.sockets} half-header sockets opened in "
                f"{time.perf_counter() - opened:.2f} s; server descriptors {before} -> "
                f"{_fds(proc.pid)}"
            )
            status, took = _get(base, "127.0.0.2")
            print(f"another address (127.0.0.2): {status} in {took * 1000:.1f} ms")
            status, took = _get(base, "127.0.0.1")
            print(f"the same address (127.0.0.1): {status} in {took * 1000:.1f} ms")
            started = time.perf_counter()
            while status != 200 and time.perf_counter() - started < 120:
                time.sleep(0.1)
                status, took = _get(base, "127.0.0.1")
            print(
                f"the same address: {status} after {time.perf_counter() - started:.1f} s "
                f"(the slow ones timed out), this one in {took * 1000:.1f} ms"
            )
            answers: collections.Counter[str] = collections.Counter()
            selector = selectors.DefaultSelector()
            for sock in sockets:
                selector.register(sock, selectors.EVENT_READ)
            pending = len(sockets)
            deadline = time.monotonic() + args.headers + 30
            while pending and time.monotonic() < deadline:
                for key, _ in selector.select(timeout=1):
                    sock = key.fileobj
                    assert isinstance(sock, socket.socket)
                    try:
                        data = sock.recv(65536)
                    except (ConnectionResetError, BlockingIOError):
                        data = b""
                    answers[data.split(b"\r\n", 1)[0].decode() or "closed, no answer"] += 1
                    selector.unregister(sock)
                    sock.close()
                    pending -= 1
            answers["still open"] = pending
            for sock in sockets:
                sock.close()
            print("the half-header sockets were answered:", dict(answers))
            print(f"server descriptors at the end: {_fds(proc.pid)}")
        errors = [line for line in output.stderr if "ERROR" in line or "Traceback" in line]
        print(f"server log: {len(output.stderr)} lines, {len(errors)} errors")
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def outage(args: argparse.Namespace) -> None:
    if not PG_URL:
        sys.exit("needs FOLIO_TEST_DATABASE_URL (a PostgreSQL server to make a database in)")
    parts = urlsplit(PG_URL)
    for request_log in (False, True):
        name = f"folio_bench_outage_{os.getpid()}"
        _admin(f"DROP DATABASE IF EXISTS {name}")
        _admin(f"CREATE DATABASE {name}")
        relay = Relay((parts.hostname or "127.0.0.1", parts.port or 5432))
        relay.start()
        user = f"{parts.username}@" if parts.username else ""
        env = {k: v for k, v in os.environ.items() if k not in CLEARED}
        env["DATABASE_URL"] = f"postgresql://{user}127.0.0.1:{relay.port}/{name}"
        flags = [] if request_log else ["--no-request-log"]
        try:
            with tempfile.TemporaryDirectory() as tmp:
                app = _app(Path(tmp), {})
                with piped_server(app, env, flags) as (base, _, output):
                    _run_outage(base, relay, output, args, request_log)
        finally:
            relay.stop()
            _admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _run_outage(
    base: str, relay: Relay, output: object, args: argparse.Namespace, request_log: bool
) -> None:
    statuses: collections.Counter[int] = collections.Counter()
    stop = threading.Event()

    def client() -> None:
        while not stop.is_set():
            try:
                with urllib.request.urlopen(base + "/api/tags", timeout=30) as r:
                    statuses[r.status] += 1
            except urllib.error.HTTPError as e:
                statuses[e.code] += 1
            except OSError:
                statuses[0] += 1

    threads = [threading.Thread(target=client) for _ in range(args.clients)]
    for thread in threads:
        thread.start()
    time.sleep(1)
    lines: list[str] = output.stderr  # type: ignore[attr-defined]
    before_lines, before_bytes = len(lines), sum(len(x) + 1 for x in lines)
    relay.stop()
    time.sleep(args.seconds)
    during = lines[before_lines:]
    during_bytes = sum(len(x) + 1 for x in during)
    relay.start()
    time.sleep(4)  # the outage ends at a success 2 s after its last failure
    stop.set()
    for thread in threads:
        thread.join()
    transitions = [x for x in lines if "is unavailable" in x or "is available again" in x]
    print(
        f"request log {'on' if request_log else 'off'}: {args.seconds} s of outage under "
        f"{args.clients} clients: answers {dict(statuses)}; logged during the outage "
        f"{len(during)} lines, {during_bytes / 1024:.1f} KB (before it: {before_bytes} bytes"
        f" in all); outage lines: {len(transitions)}"
    )
    for line in transitions if request_log else during:
        print("   ", line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("slow")
    p.add_argument("--sockets", type=int, default=5000)
    p.add_argument("--per-client", type=int, default=256)
    p.add_argument("--headers", type=float, default=10)
    p = sub.add_parser("outage")
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--clients", type=int, default=8)
    args = parser.parse_args()
    if args.command == "slow":
        slow(args)
    else:
        outage(args)


if __name__ == "__main__":
    main()
