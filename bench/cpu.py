"""CPU per request, split between the server and the database: a regression figure that
does not depend on how busy the machine is (unlike throughput).

Sends each benchmark request N times, one at a time over a kept-alive connection, to a
running server (seeded, e.g. with ../shared/bench/seed.py), and reads from /proc the CPU
time of the server's process tree and, for PostgreSQL (`--db-name`), of that database's
backends, plus the database's committed transactions (statements outside a transaction
count one each). For SQLite the database works inside the server process: its CPU is in
the server's column.

    .venv/bin/python bench/cpu.py --base http://127.0.0.1:1400 --pid PID [--db-name DB]
        [--requests 500] [--only list,get-one]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).parent))
from explain import SCENARIOS, sample

TICK = os.sysconf("SC_CLK_TCK")
# an idle backend publishes its transaction counters up to 10 s after its last transaction
STATS_LAG_S = 11.0


def _cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def _tree(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True).stdout
    children: dict[int, list[int]] = {}
    for line in out.splitlines():
        p, pp = (int(x) for x in line.split())
        children.setdefault(pp, []).append(p)
    todo, seen = [pid], []
    while todo:
        p = todo.pop()
        seen.append(p)
        todo.extend(children.get(p, []))
    return seen


def _psql(db: str, sql: str) -> str:
    return subprocess.run(
        ["psql", "-U", "postgres", "-h", "127.0.0.1", "-d", db, "-Atc", sql],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def _db_backends(db: str) -> list[int]:
    got = _psql(db, f"SELECT pid FROM pg_stat_activity WHERE datname = '{db}'")
    return [int(p) for p in got.split()]


def _db_xacts(db: str) -> int:
    return int(_psql(db, f"SELECT xact_commit FROM pg_stat_database WHERE datname = '{db}'"))


class Client:
    def __init__(self, base: str) -> None:
        u = urlsplit(base)
        self.host, self.port = u.hostname or "127.0.0.1", u.port or 80
        self.conn = http.client.HTTPConnection(self.host, self.port)

    def get(self, path: str) -> tuple[int, bytes]:
        try:
            self.conn.request("GET", path)
            r = self.conn.getresponse()
        except (http.client.RemoteDisconnected, ConnectionError):
            # the server closes a connection idle past its keep-alive time
            self.conn.close()
            self.conn = http.client.HTTPConnection(self.host, self.port)
            self.conn.request("GET", path)
            r = self.conn.getresponse()
        return r.status, r.read()


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--base", required=True)
    ap.add_argument("--pid", type=int, required=True, help="the server's process id")
    ap.add_argument("--db-name", help="PostgreSQL database the server uses")
    ap.add_argument("--requests", type=int, default=500)
    ap.add_argument("--only")
    a = ap.parse_args()
    names = a.only.split(",") if a.only else list(SCENARIOS)
    client = Client(a.base)
    values = sample(lambda path: json.loads(client.get(path)[1]))
    print(
        f"{'scenario':<22}{'requests':>9}{'server ms/req':>15}{'db ms/req':>11}"
        f"{'db xacts/req':>14}{'wall ms/req':>13}"
    )
    for name in names:
        path = SCENARIOS[name].format(**values)
        n = max(1, a.requests // (10 if name == "list-populate-nested" else 1))
        for _ in range(min(20, n)):  # warm: plans, caches, connections
            status, _ = client.get(path)
            if status != 200:
                sys.exit(f"{name}: {path} answered {status}")
        tree = _tree(a.pid)
        s0 = sum(_cpu(p) for p in tree)
        backends = _db_backends(a.db_name) if a.db_name else []
        d0 = sum(_cpu(p) for p in backends)
        if a.db_name:
            time.sleep(STATS_LAG_S)
        x0 = _db_xacts(a.db_name) if a.db_name else 0
        t0 = time.perf_counter()
        for _ in range(n):
            client.get(path)
        wall = time.perf_counter() - t0
        s1 = sum(_cpu(p) for p in tree)
        db_ms = "-"
        xacts = "-"
        if a.db_name:
            d1 = sum(_cpu(p) for p in backends)
            time.sleep(STATS_LAG_S)
            db_ms = f"{(d1 - d0) / n * 1000:.3f}"
            xacts = f"{(_db_xacts(a.db_name) - x0 - 1) / n:.2f}"  # minus the reading query's own
        print(
            f"{name:<22}{n:>9}{(s1 - s0) / n * 1000:>15.3f}{db_ms:>11}{xacts:>14}"
            f"{wall / n * 1000:>13.3f}"
        )


if __name__ == "__main__":
    main()
