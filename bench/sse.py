"""Event streams under load: N concurrent subscribers of `GET /api/events` on one `folio
serve` process, then updates, one at a time; how long each update takes to reach every
subscriber, and the server's memory.

    .venv/bin/python bench/sse.py [--subscribers 1000] [--updates 30] [--interval 0.3]
                                  [--clients 2] [--url DATABASE_URL]
    .venv/bin/python bench/sse.py --cross [--watch notify|poll] --url postgresql://...
    .venv/bin/python bench/sse.py --rounds 5    # then 4 more rounds of connecting and leaving

The subscribers are raw sockets driven by asyncio (uvloop) in `--clients` processes, each
reading its streams and noting when it saw each update's new name. An update is a PUT of
one category; its latency to a subscriber is from the moment the PUT was sent (so it
includes the write itself: its commit comes before its answer) to that subscriber's
receipt; p50/p99/max are over every (update, subscriber) pair. The server's RSS is read
from /proc before the subscribers connect, once they all have, and after the updates.

`--cross`: two server processes on one database, the subscribers on one and the writes
through the other (what a process learns from PostgreSQL's notifications, `--watch
notify`, or from polling the outbox, `--watch poll`); also the subscribed server's CPU
time over 10 idle seconds.

Makes its own app (the test blog models, the public role may find everything) in a
temporary directory, on SQLite unless `--url` names a PostgreSQL database (emptied).

Measured on 2 cores (2026-11-26; 1,000 subscribers, 100 updates 0.2 s apart): SQLite p50
29 ms, p99 44-49 ms, max 60 ms; PostgreSQL p50 31 ms, p99 45-51 ms, max 55 ms; the server's
RSS +23 MB with the streams open (about 22 KB a stream), +1.4 MB more after the updates, and
flat over 5 more rounds of 1,000 streams connecting and leaving."""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.api.serving import CLEARED, serving  # noqa: E402
from tests.conftest import FIXTURES, reset_postgres  # noqa: E402

NAME = re.compile(rb'"name":"u(\d+)"')


def make_app(root: Path, realtime: dict[str, Any]) -> Path:
    app = root / "app"
    shutil.copytree(FIXTURES / "blog", app)
    permissions = {"roles": {"public": {"permissions": ["api::*"]}}}
    (app / "config" / "permissions.json").write_text(json.dumps(permissions))
    api = json.loads((app / "config" / "api.json").read_text())
    api["realtime"] = {"maxStreams": 0, **realtime}
    (app / "config" / "api.json").write_text(json.dumps(api))
    # every subscriber comes from 127.0.0.1
    (app / "config" / "server.json").write_text(json.dumps({"maxConnectionsPerClient": 0}))
    return app


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_pid(base: str) -> int:
    """The process listening on the base URL's port (found through /proc)."""
    port = int(base.rsplit(":", 1)[1])
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            parts = line.split()
            if int(parts[1].rsplit(":", 1)[1], 16) == port and parts[3] == "0A":  # LISTEN
                inodes.add(parts[9])
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    return int(entry.name)
        except OSError:
            continue
    raise RuntimeError(f"no process listens on {port}")


# --------------------------------------------------------------------------- subscribers


async def _subscriber(host: str, port: int, path: str, ok: list[int]) -> None:
    reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
    buffer = b""
    while b"event: ready" not in buffer:
        chunk = await reader.read(65536)
        if not chunk:
            raise RuntimeError(f"stream ended before ready: {buffer[:300]!r}")
        buffer += chunk
    ok.append(1)
    mine: dict[int, float] = {}
    tail = b""
    try:
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                break
            now = time.monotonic()
            for match in NAME.finditer(tail + chunk):
                mine.setdefault(int(match.group(1)), now)
            tail = chunk[-64:]
    finally:
        writer.close()
        _RECEIPTS.append(mine)


_RECEIPTS: list[dict[int, float]] = []


def client_process(host: str, port: int, path: str, count: int, conn: Any, spread: float) -> None:
    """Opens `count` streams, says when all are ready, and at the end sends back every
    stream's receipts."""
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass

    async def run() -> None:
        ok: list[int] = []
        tasks = []
        for i in range(count):
            tasks.append(asyncio.create_task(_subscriber(host, port, path, ok)))
            if spread and i % 50 == 49:
                await asyncio.sleep(spread)
        while len(ok) < count:
            failed = [t for t in tasks if t.done() and t.exception()]
            if failed:
                raise failed[0].exception()  # type: ignore[misc]
            await asyncio.sleep(0.05)
        conn.send(("ready", count))
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, conn.recv)  # "stop"
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        conn.send(("receipts", _RECEIPTS))

    asyncio.run(run())


# --------------------------------------------------------------------------- the run


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def run(args: argparse.Namespace) -> None:
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    realtime: dict[str, Any] = {}
    if args.url:
        reset_postgres(args.url)
        env["DATABASE_URL"] = args.url
    if args.watch:
        realtime["watch"] = args.watch
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        app = make_app(Path(tmp), realtime)
        writes = stack.enter_context(serving(app, env=env, log=Path(tmp) / "one.log"))
        subscribed = writes
        if args.cross:
            subscribed = stack.enter_context(serving(app, env=env, log=Path(tmp) / "two.log"))
        pid = server_pid(subscribed)
        client = httpx.Client(base_url=writes, timeout=30)
        r = client.post("/api/categories", json={"data": {"name": "u0"}})
        assert r.status_code == 201, r.text
        document_id = r.json()["data"]["documentId"]
        for _ in range(20):  # warm the server up
            httpx.get(subscribed + "/api/categories")
        rss_before = rss_mb(pid)
        started = time.monotonic()
        clients = connect(subscribed, args)
        connected = time.monotonic() - started
        time.sleep(1.0)
        rss_connected = rss_mb(pid)
        idle_cpu = None
        if args.cross:
            before = cpu_seconds(pid)
            time.sleep(10)
            idle_cpu = cpu_seconds(pid) - before
        sent: dict[int, float] = {}
        round_trips = []
        cpu_before = cpu_seconds(pid)
        for number in range(1, args.updates + 1):
            time.sleep(args.interval)
            sent[number] = time.monotonic()
            r = client.put(f"/api/categories/{document_id}", json={"data": {"name": f"u{number}"}})
            round_trips.append(time.monotonic() - sent[number])
            assert r.status_code == 200, r.text
        time.sleep(max(1.0, args.interval * 3))
        cpu_updates = cpu_seconds(pid) - cpu_before
        rss_after = rss_mb(pid)
        receipts = disconnect(clients)
        churn = []
        for _ in range(args.rounds - 1):
            disconnect(connect(subscribed, args))
            time.sleep(1.0)
            churn.append(rss_mb(pid))
    latencies = []
    missing = 0
    for mine in receipts:
        for number, at in sent.items():
            if number in mine:
                latencies.append((mine[number] - at) * 1000)
            else:
                missing += 1
    what = "PostgreSQL" if args.url else "SQLite"
    mode = f", across two processes ({args.watch or 'auto'})" if args.cross else ""
    print(f"{what}{mode}: {args.subscribers} subscribers of {args.path}, {args.updates} updates")
    print(f"  connected in {connected:.1f} s; receipts {len(latencies)}, missing {missing}")
    print(
        f"  latency from the update's request: p50 {percentile(latencies, 50):.1f} ms, "
        f"p90 {percentile(latencies, 90):.1f}, p99 {percentile(latencies, 99):.1f}, "
        f"max {max(latencies):.1f}"
    )
    print(
        f"  update round trip: median {statistics.median(round_trips) * 1000:.1f} ms, "
        f"max {max(round_trips) * 1000:.1f}"
    )
    print(
        f"  server RSS: {rss_before:.1f} MB before, {rss_connected:.1f} connected, "
        f"{rss_after:.1f} after updates (growth {rss_after - rss_before:+.1f} MB)"
    )
    print(f"  server CPU during the updates: {cpu_updates:.2f} s")
    if idle_cpu is not None:
        print(f"  subscribed server's CPU over 10 idle seconds: {idle_cpu:.3f} s")
    if churn:
        shown = ", ".join(f"{r:.1f}" for r in churn)
        print(f"  server RSS after each further round of connecting and leaving: {shown} MB")


def connect(base: str, args: argparse.Namespace) -> list[tuple[Any, Any]]:
    """`args.subscribers` streams of `args.path`, in `args.clients` processes, all ready."""
    host, port = base.removeprefix("http://").rsplit(":", 1)
    per = [args.subscribers // args.clients] * args.clients
    per[0] += args.subscribers - sum(per)
    ctx = multiprocessing.get_context("fork")
    clients = []
    for count in per:
        mine, theirs = ctx.Pipe()
        proc = ctx.Process(
            target=client_process, args=(host, int(port), args.path, count, theirs, 0.0)
        )
        proc.start()
        clients.append((mine, proc))
    for pipe, _ in clients:
        kind, _ = pipe.recv()
        assert kind == "ready"
    return clients


def disconnect(clients: list[tuple[Any, Any]]) -> list[dict[int, float]]:
    """Closes the streams; every stream's receipts."""
    receipts: list[dict[int, float]] = []
    for pipe, _ in clients:
        pipe.send("stop")
    for pipe, _ in clients:
        _, got = pipe.recv()
        receipts += got
    for _, proc in clients:
        proc.join(30)
    return receipts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subscribers", type=int, default=1000)
    parser.add_argument("--updates", type=int, default=30)
    parser.add_argument("--interval", type=float, default=0.3, help="seconds between updates")
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--path", default="/api/events")
    parser.add_argument("--url", help="a PostgreSQL database (emptied); SQLite by default")
    parser.add_argument("--cross", action="store_true", help="subscribers on another process")
    parser.add_argument("--watch", choices=["auto", "notify", "poll"])
    parser.add_argument(
        "--rounds", type=int, default=1, help="then connect and leave again, this many rounds"
    )
    run(parser.parse_args())


if __name__ == "__main__":
    main()
