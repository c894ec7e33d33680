"""The server's own CPU per benchmark request, without HTTP, sockets or other processes.

Loads the app in this process (on its configured database, seeded e.g. with
../shared/bench/seed.py against `folio serve`), then calls the ASGI application directly on a
uvloop event loop, one request at a time, and prints the best of several batches of the
process CPU per request (on PostgreSQL its pool backends' CPU too, on MySQL the server's).
Noise from the rest of the machine mostly stays out of it, so two versions of the code can
be compared to a few percent. `--profile` prints where the time went instead (cProfile,
sorted by own time); `--statements`, the statements of one request.

    .venv/bin/python bench/inprocess.py APP_DIR [--only list,create] [--requests 200]
        [--batches 5] [--pages N] [--profile [--sort cumulative] [--lines N] | --statements]

`--pages N` walks the lists' first N pages in turn instead of asking for the first one
again and again: each page relates to other documents, in other numbers, as real traffic
does (statements whose text depended on those numbers were prepared and planned anew).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import sys
import time
from pathlib import Path
from typing import Any

import uvloop

sys.path.insert(0, str(Path(__file__).parent))
from asgi_scope import http_scope
from explain import SCENARIOS, Recorder, sample

from folio.app import load_app
from folio.http.app import build_asgi

# the server's floor: an answer that reads nothing (what every request costs at least)
FLOOR = {"health": "/_health"}

WRITES = {
    "create": ("POST", "/api/tags", "full"),
    "update": ("PUT", "/api/articles/{document}", "full"),
}


class Driver:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.status = 0
        self.size = 0
        self.keep = False
        self.body = b""

    async def call(
        self, method: str, target: str, headers: list[tuple[bytes, bytes]], body: bytes
    ) -> None:
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if sent:
                await asyncio.sleep(3600)
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                self.status = message["status"]
                self.size = 0
                self.body = b""
            elif message["type"] == "http.response.body":
                self.size += len(message.get("body", b""))
                if self.keep:
                    self.body += message.get("body", b"")

        await self.app(http_scope(method, target, headers), receive, send)

    async def fetch(self, target: str) -> Any:
        self.keep = True
        try:
            await self.call("GET", target, [(b"host", b"127.0.0.1")], b"")
            return json.loads(self.body)
        finally:
            self.keep = False


class Served:
    """The app started in this process (its lifespan run), the driver that calls it, and the
    database processes whose CPU is counted beside (PostgreSQL: its pool's backends; MySQL:
    the server); `stop()` ends it."""

    def __init__(self, asgi: Any, folio: Any) -> None:
        self.asgi = asgi
        self.folio = folio
        self.driver = Driver(asgi)
        self.backends: list[int] = []
        self._lifespan: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._life: asyncio.Future[Any] | None = None

    async def start(self) -> Served:
        lifespan = self._lifespan
        await lifespan.put({"type": "lifespan.startup"})
        started = asyncio.Event()

        async def lreceive() -> dict[str, Any]:
            return await lifespan.get()

        async def lsend(message: dict[str, Any]) -> None:
            if message["type"].startswith("lifespan.startup"):
                started.set()

        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        self._life = asyncio.ensure_future(self.asgi(scope, lreceive, lsend))
        await started.wait()
        if self.folio.db.dialect.name == "postgres":
            pool = self.folio.db._pool
            held = [await pool.acquire() for _ in range(pool._max)]
            self.backends = [c.get_server_pid() for c in held]
            for c in held:
                pool.release(c, True)
        elif self.folio.db.dialect.name == "mysql":
            # one server process whose threads serve every connection: all of its CPU is
            # counted (the server must be on this machine and otherwise idle)
            self.backends = _mysql_servers()
        return self

    async def stop(self) -> None:
        await self._lifespan.put({"type": "lifespan.shutdown"})
        await self._life


def _mysql_servers() -> list[int]:
    """The MySQL or MariaDB server processes running on this machine."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "comm").read_text().strip() in (
                "mariadbd",
                "mysqld",
            ):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _backends_cpu(pids: list[int]) -> float:
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _body(name: str, i: int) -> bytes:
    if name == "create":
        return json.dumps({"data": {"name": f"inprocess-{time.time_ns()}-{i}"}}).encode()
    return json.dumps({"data": {"views": i}}).encode()


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("app_dir", type=Path)
    ap.add_argument("--only", help="comma-separated: " + ", ".join([*SCENARIOS, *FLOOR, *WRITES]))
    ap.add_argument("--requests", type=int, default=200, help="requests per batch")
    ap.add_argument("--batches", type=int, default=5)
    ap.add_argument("--pages", type=int, default=1, help="lists: walk their first N pages")
    ap.add_argument("--profile", action="store_true", help="cProfile one batch instead")
    ap.add_argument("--sort", default="tottime", help="--profile: pstats order (cumulative, ...)")
    ap.add_argument("--lines", type=int, default=30, help="--profile: functions printed")
    ap.add_argument(
        "--statements", action="store_true", help="print the statements of one request instead"
    )
    a = ap.parse_args()
    names = a.only.split(",") if a.only else [*SCENARIOS, *WRITES]
    folio = load_app(a.app_dir)
    asgi = build_asgi(folio)
    recorder = Recorder(folio.db)
    tokens = json.loads((a.app_dir / "tokens.json").read_text())

    async def run() -> None:
        served = await Served(asgi, folio).start()
        driver, backends = served.driver, served.backends
        loop = asyncio.get_running_loop()
        values = await loop.run_in_executor(
            None,
            sample,
            lambda path: asyncio.run_coroutine_threadsafe(driver.fetch(path), loop).result(),
        )
        for name in names:
            method, template, token = WRITES.get(
                name, ("GET", SCENARIOS.get(name) or FLOOR.get(name, ""), "")
            )
            if not template:
                sys.exit(f"unknown scenario {name}")
            target = template.format(**values)
            headers = [(b"host", b"127.0.0.1")]
            if token:
                headers.append((b"authorization", f"Bearer {tokens[token]}".encode()))
                headers.append((b"content-type", b"application/json"))
            for i in range(20):
                await driver.call(method, target, headers, _body(name, i) if token else b"")
            if driver.status >= 300:
                sys.exit(f"{name}: {method} {target} answered {driver.status}")
            if a.statements:
                recorder.stmts, recorder.on = [], True
                await driver.call(method, target, headers, _body(name, 99) if token else b"")
                recorder.on = False
                print(f"== {name}: {len(recorder.stmts)} statement(s)")
                for stmt in recorder.stmts:
                    print(f"  {stmt.sql}")
                continue
            if a.profile:
                prof = cProfile.Profile()
                prof.enable()
                for i in range(a.requests):
                    await driver.call(method, target, headers, _body(name, i) if token else b"")
                prof.disable()
                print(f"== {name}")
                pstats.Stats(prof).sort_stats(a.sort).print_stats(a.lines)
                continue
            best = best_db = float("inf")
            targets = [target]
            if a.pages > 1 and method == "GET" and "{document}" not in template:
                joint = "&" if "?" in target else "?"
                targets = [f"{target}{joint}pagination[page]={n}" for n in range(1, a.pages + 1)]
            for b in range(a.batches):
                calls = [
                    (
                        targets[i % len(targets)],
                        _body(name, b * a.requests + i) if token else b"",
                    )
                    for i in range(a.requests)
                ]
                d0 = _backends_cpu(backends)
                c0 = time.process_time()
                for path, body in calls:
                    await driver.call(method, path, headers, body)
                best = min(best, (time.process_time() - c0) / a.requests * 1000)
                best_db = min(best_db, (_backends_cpu(backends) - d0) / a.requests * 1000)
            db = f"  db {best_db:7.3f} ms" if backends else ""
            print(f"{name:22} {best:8.3f} ms cpu/request{db}  ({driver.size} bytes)", flush=True)
        await served.stop()

    uvloop.run(run())


if __name__ == "__main__":
    main()
