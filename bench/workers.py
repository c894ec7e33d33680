"""Throughput of `folio serve --workers N` against one PostgreSQL database: the scenarios of
../shared/bench (run.py, wrk) measured with each number of workers in turn, in one sitting,
alternating (1, 2, 1, 2, ...) so that the machine's noise falls on both alike; the ratio of
each scenario's requests per second to one worker's.

    scripts/bench-app /tmp/benchapp
    .venv/bin/python bench/workers.py --app /tmp/benchapp \\
        --database postgresql://postgres@127.0.0.1:5432/folio_bench [--workers 1,2] \\
        [--only list,get-one] [--rounds 2] [--articles 2000] [--out /tmp/workers.json]

The database is seeded once (../shared/bench/seed.py, through a one-worker server) when it
holds no article. Every server is started fresh, waited for (`/_health/ready`), measured,
and stopped with SIGTERM. wrk runs on the same machine and takes CPU that the workers then
do not have: run.py records its CPU (`wrk_cpu_s`), the database's (`db_cpu_s_per_1k`) and
everything else's (`other_cores`); they are printed beside each figure.

`--priority N` (root): on a machine shared with other work, the measured stack runs at
nice -N (this process and what it starts: the servers, run.py, wrk; and the database's
backends of the bench database, reniced as they appear), so that the others' work takes
what the stack leaves rather than half of each core."""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT.parent / "shared" / "bench"
FOLIO = [sys.executable, "-m", "folio.cli.main"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(app: Path, database: str, workers: int, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database}
    out = log.open("ab")
    proc = subprocess.Popen(
        [*FOLIO, "serve", str(app), "--port", str(port), "--workers", str(workers)],
        env=env,
        stdout=out,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(base + "/_health/ready", timeout=2) as r:
                if r.status == 204:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the server did not start: see {log}")
        time.sleep(0.1)
    # every worker has started (each opens its pool when its app starts)
    time.sleep(2.0 if workers > 1 else 0.5)
    return proc, base


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def harness(script: str, *args: str) -> None:
    subprocess.run([sys.executable, str(HARNESS / script), *args], check=True, cwd=HARNESS)


def set_harness(path: Path) -> None:
    global HARNESS
    HARNESS = path


def favour_backends(db_name: str, nice: int, finished: threading.Event) -> None:
    """Renices the PostgreSQL backends of `db_name` to `nice`, as they appear."""
    done: set[int] = set()
    while not finished.wait(0.5):
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) in done:
                continue
            try:
                command = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if command.startswith(b"postgres:") and f" {db_name} ".encode() in command:
                try:
                    os.setpriority(os.PRIO_PROCESS, int(entry), nice)
                    done.add(int(entry))
                except OSError:
                    pass


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--app", required=True, type=Path)
    ap.add_argument("--database", required=True)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--only", default="list,get-one")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--articles", type=int, default=2000)
    ap.add_argument("--duration", default="10")
    ap.add_argument("--quiet-wait", default="120")
    ap.add_argument("--retries", default="2")
    ap.add_argument("--warmup", default="3")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--harness", type=Path, default=HARNESS, help="../shared/bench")
    ap.add_argument("--priority", type=int, default=0, help="run the stack at nice -N")
    a = ap.parse_args()
    set_harness(a.harness)
    tokens = a.app / "tokens.json"
    db_name = urlsplit(a.database).path.lstrip("/")
    log = Path(tempfile.gettempdir()) / "folio-bench-workers.log"
    counts = [int(n) for n in a.workers.split(",")]
    done = threading.Event()
    if a.priority:
        os.setpriority(os.PRIO_PROCESS, 0, -a.priority)
        threading.Thread(
            target=favour_backends, args=(db_name, -a.priority, done), daemon=True
        ).start()

    proc, base = start(a.app, a.database, 1, log)
    try:
        with urllib.request.urlopen(base + "/api/articles?pagination[pageSize]=1") as r:
            seeded = json.load(r)["meta"]["pagination"]["total"] > 0
        if not seeded:
            harness(
                "seed.py",
                *("--base", base, "--tokens", str(tokens), "--articles", str(a.articles)),
                *("--db-name", db_name, "--quiet-wait", a.quiet_wait),
            )
    finally:
        stop(proc)

    results: dict[int, list[dict[str, Any]]] = {n: [] for n in counts}
    for round_ in range(a.rounds):
        for n in counts:
            proc, base = start(a.app, a.database, n, log)
            out = Path(tempfile.gettempdir()) / f"folio-bench-workers-{n}-{round_}.json"
            try:
                harness(
                    "run.py",
                    *("--base", base, "--tokens", str(tokens), "--label", f"workers-{n}"),
                    *("--out", str(out), "--pid", str(proc.pid), "--db-name", db_name),
                    *("--only", a.only, "--duration", a.duration, "--quiet-wait", a.quiet_wait),
                    *("--retries", a.retries, "--warmup", a.warmup),
                )
            finally:
                stop(proc)
            results[n].append(json.loads(out.read_text()))

    done.set()
    summary = report(results, counts)
    if a.out:
        a.out.write_text(json.dumps({"summary": summary, "runs": results}, indent=2))


def _scenarios(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found = run.get("scenarios", run.get("results", {}))
    if isinstance(found, list):
        return {s["name"]: s for s in found}
    return dict(found)


def report(results: dict[int, list[dict[str, Any]]], counts: list[int]) -> dict[str, Any]:
    """Per scenario and number of workers: the median round's req/s, the best (the least
    disturbed), every round's, and the ratios of both to the first count's."""
    summary: dict[str, Any] = {}
    names = sorted({name for runs in results.values() for r in runs for name in _scenarios(r)})
    for name in names:
        row: dict[str, Any] = {}
        for n in counts:
            rounds = [_scenarios(r).get(name, {}) for r in results[n]]
            rps = [float(s.get("rps", 0)) for s in rounds]
            row[n] = {
                "rps": max(rps),
                "median": sorted(rps)[len(rps) // 2],
                "rounds": rps,
                "wrk_cpu_s": [s.get("wrk_cpu_s") for s in rounds],
                "db_cpu_s_per_1k": [s.get("db_cpu_s_per_1k") for s in rounds],
                "other_cores": [s.get("other_cores") for s in rounds],
            }
        best = row[counts[0]]["rps"] or 1.0
        middle = row[counts[0]]["median"] or 1.0
        for n in counts:
            row[n]["ratio"] = round(row[n]["rps"] / best, 2)
            row[n]["median_ratio"] = round(row[n]["median"] / middle, 2)
        summary[name] = row
        print(name)
        for n in counts:
            r = row[n]
            print(
                f"  workers {n}: best {r['rps']:7.0f} req/s x{r['ratio']:.2f}, median"
                f" {r['median']:7.0f} x{r['median_ratio']:.2f}  rounds {r['rounds']}"
                f"  wrk cpu {r['wrk_cpu_s']}  other cores {r['other_cores']}"
            )
    return summary


if __name__ == "__main__":
    main()
