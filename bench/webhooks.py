"""What webhooks cost the writes: the `create` and `update` scenarios of ../shared/bench run
against `folio serve` with no webhook, with three enabled webhooks to a live receiver, and
with three to a receiver that answers nothing for 10 s, in one sitting.

    .venv/bin/python bench/webhooks.py [--articles 300] [--database-url URL] [--out FILE]

The receiver (`bench/webhooks.py receiver --port P --mode live|silent`) is a small asyncio
server in its own process: `live` answers 204 at once, `silent` reads each request and
answers nothing for 10 s (then 204). Each variant gets a fresh app (scripts/bench-app), is
seeded with --articles articles, and measured by run.py with --only create,update; the
table gives requests/s and the server's CPU per 1,000 requests (including deliveries made
after wrk stopped, until the server is idle)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT.parent / "shared" / "bench"
PYTHON = sys.executable


# ------------------------------------------------------------------ the receiver
async def _receive(port: int, mode: str, counts: Path) -> None:
    served = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal served
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                await reader.readexactly(length)
                served += 1
                if mode == "silent":
                    await asyncio.sleep(10)
                writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=1024)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    async with server:
        await stop.wait()
    counts.write_text(str(served))


# ------------------------------------------------------------------ the sitting
def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _variant(name: str, work: Path, args: argparse.Namespace) -> dict[str, float]:
    app = work / f"app-{name}"
    if app.exists():
        app = work / f"app-{name}-{time.monotonic_ns()}"
    subprocess.run(["scripts/bench-app", str(app)], cwd=ROOT, check=True, capture_output=True)
    receiver = None
    if name != "none":
        rport = _free_port()
        mode = "live" if name == "live" else "silent"
        receiver = subprocess.Popen(
            [
                PYTHON,
                __file__,
                "receiver",
                "--port",
                str(rport),
                "--mode",
                mode,
                "--counts",
                str(work / f"received-{name}.txt"),
            ]
        )
        hooks = [{"name": f"hook{i}", "url": f"http://127.0.0.1:{rport}/hook{i}"} for i in range(3)]
        (app / "config" / "webhooks.json").write_text(json.dumps({"webhooks": hooks}))
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = dict(os.environ)
    if args.database_url:
        env["DATABASE_URL"] = args.database_url
        _reset(args.database_url)
    start = work / f"start-{name}.json"
    log = work / f"server-{name}.log"
    serve = f"{ROOT / '.venv/bin/folio'} serve {app} --port {port} > {log} 2>&1"
    subprocess.run(
        [PYTHON, "start.py", "--cmd", serve, "--url", f"{base}/api/articles", "--out", str(start)],
        cwd=HARNESS,
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    pid = json.loads(start.read_text())["pid"]
    try:
        tokens = app / "tokens.json"
        deadline = time.monotonic() + 30
        while not tokens.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        seed = work / f"seed-{name}.json"
        subprocess.run(
            [
                PYTHON,
                "seed.py",
                "--base",
                base,
                "--tokens",
                str(tokens),
                "--articles",
                str(args.articles),
                "--out",
                str(seed),
            ],
            cwd=HARNESS,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        out = work / f"run-{name}.json"
        subprocess.run(
            [
                PYTHON,
                "run.py",
                "--base",
                base,
                "--tokens",
                str(tokens),
                "--label",
                name,
                "--out",
                str(out),
                "--pid",
                str(pid),
                "--only",
                "create,update",
                "--quiet-wait",
                str(args.quiet_wait),
            ],
            cwd=HARNESS,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        result = json.loads(out.read_text())
    finally:
        os.kill(pid, signal.SIGTERM)
        time.sleep(1)
        if receiver is not None:
            receiver.terminate()
            receiver.wait(timeout=15)
    figures: dict[str, float] = {}
    scenarios = result["scenarios"]
    for scenario in ("create", "update"):
        found = scenarios[scenario] if isinstance(scenarios, dict) else None
        if found is None:
            found = next(s for s in scenarios if s.get("name") == scenario)
        figures[f"{scenario}_rps"] = found["rps"]
        figures[f"{scenario}_cpu_per_1k"] = found.get("server_cpu_s_per_1k_incl_inflight", 0.0)
        figures[f"{scenario}_p99_ms"] = found.get("p99_ms", 0.0)
    counts = work / f"received-{name}.txt"
    if counts.exists():
        figures["received"] = float(counts.read_text() or 0)
    return figures


def _reset(url: str) -> None:
    import asyncpg

    async def run() -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute("DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;")
        finally:
            await conn.close()

    asyncio.run(run())


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command")
    rec = sub.add_parser("receiver")
    rec.add_argument("--port", type=int, required=True)
    rec.add_argument("--mode", choices=["live", "silent"], default="live")
    rec.add_argument("--counts", type=Path, required=True)
    parser.add_argument("--articles", type=int, default=300)
    parser.add_argument("--database-url")
    parser.add_argument("--quiet-wait", type=float, default=120)
    parser.add_argument("--variants", default="none,live,silent")
    parser.add_argument("--work", type=Path, default=Path("/tmp/folio-webhook-bench"))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.command == "receiver":
        try:
            import uvloop

            uvloop.install()
        except ImportError:
            pass
        asyncio.run(_receive(args.port, args.mode, args.counts))
        return
    args.work.mkdir(parents=True, exist_ok=True)
    table: dict[str, list[dict[str, float]]] = {}
    for name in args.variants.split(","):
        figures = _variant(name, args.work, args)
        table.setdefault(name, []).append(figures)
        print(name, json.dumps(figures), flush=True)
    # the median of the passes of each variant (the machine is shared: pass several times
    # with --variants none,live,silent,none,live,silent)
    base = table.get("none")
    if base:
        for name, passes in table.items():
            if name == "none":
                continue
            for scenario in ("create", "update"):
                key = f"{scenario}_rps"
                ratio = _median([p[key] for p in passes]) / _median([p[key] for p in base])
                print(f"{name:<7} {scenario:<7} {ratio:6.3f} of the requests/s without webhooks")
    if args.out:
        args.out.write_text(json.dumps(table, indent=2))


if __name__ == "__main__":
    main()
