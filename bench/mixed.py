"""The server's own CPU per request of the shared bench's `mixed` scenario, in process.

Replays ../shared/bench/run.py's `mixed` requests (a read-mostly site under editing: nine
reads, rotating over filtered pages, populated pages, single documents and deep filters, to
one update of a rotating article) against the app loaded in this process, one request at a
time on a uvloop event loop, without HTTP or sockets, as bench/inprocess.py does. Batches
alternate between the read memo on and off (the same process, the same data: the memo is
set aside for the `off` batches, as FOLIO_READ_MEMO_MB=0 does), and the best batch of each
is printed: the process CPU per request and, on PostgreSQL, its pool backends' CPU.
`--profile` prints where the time went (cProfile, by own time) for each side instead;
`--statements`, the statements of one round of the mix; `--kinds`, the CPU per request of
each kind of request (filter-sort, populate, one, deep-filter, update: the process's and,
where measured, the database's) and its share of the mix; `--db-statements`, the database's
CPU spent on each statement shape of the mix, per request of the mix and per run (read from
the scheduler's nanosecond counters of the backend that ran it on PostgreSQL, of every
thread of the MySQL server on MySQL; the statements run one at a time).

    .venv/bin/python bench/mixed.py APP_DIR [--rounds 10] [--batches 5] [--only on|off]
        [--profile] [--statements] [--kinds] [--db-statements]

The app is seeded with ../shared/bench/seed.py (2,000 articles) against `folio serve`.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

import uvloop

sys.path.insert(0, str(Path(__file__).parent))
from explain import Recorder
from inprocess import Driver, Served, _backends_cpu

from folio.app import load_app
from folio.http.app import build_asgi

# every tenth request is an update (run.py's `mixed_every`)
EVERY = 10
# the reads' kinds, in the order they rotate
KINDS = ("filter-sort", "populate", "one", "deep-filter")


def _q(value: str) -> str:
    return urllib.parse.quote(str(value), safe="")


async def requests(driver: Driver) -> tuple[list[str], list[str]]:
    """The mix's read paths (48, in run.py's order) and write paths (50)."""
    ids: list[str] = []
    page = 1
    while True:
        js = await driver.fetch(
            "/api/articles?fields[0]=slug&sort=slug:asc&pagination[pageSize]=100"
            f"&pagination[page]={page}"
        )
        ids += [d["documentId"] for d in js["data"]]
        if page >= js["meta"]["pagination"]["pageCount"] or not js["data"]:
            break
        page += 1
    js = await driver.fetch(
        "/api/articles?fields[0]=slug&sort=slug:asc&pagination[pageSize]=20"
        "&populate[category][fields][0]=name&populate[tags][fields][0]=name"
    )
    combos = []
    for d in js["data"]:
        tags = sorted(t["name"] for t in d.get("tags") or [])
        if d.get("category") and len(tags) >= 2:
            combos.append(
                f"/api/articles?filters[category][name][$eq]={_q(d['category']['name'])}"
                f"&filters[tags][name][$in][0]={_q(tags[0])}"
                f"&filters[tags][name][$in][1]={_q(tags[1])}"
            )
    reads = [
        path
        for k in range(12)
        for path in (
            "/api/articles?filters[title][$containsi]=ab&sort=publishDate:desc"
            f"&pagination[page]={k % 4 + 1}",
            "/api/articles?populate[0]=category&populate[1]=author&populate[2]=tags"
            f"&pagination[page]={k % 6 + 1}",
            "/api/articles/" + ids[(k * 37) % len(ids)],
            combos[k % len(combos)] if combos else "/api/articles",
        )
    ]
    writes = ["/api/articles/" + ids[(k * 53) % len(ids)] for k in range(50)]
    return reads, writes


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("app_dir", type=Path)
    ap.add_argument("--rounds", type=int, default=10, help="batches of 480 requests: 10 laps")
    ap.add_argument("--batches", type=int, default=5, help="batches per side")
    ap.add_argument("--only", choices=["on", "off"], help="one side only")
    ap.add_argument("--off-first", action="store_true", help="each pair of batches: off, then on")
    ap.add_argument("--profile", action="store_true", help="cProfile one batch per side")
    ap.add_argument("--statements", action="store_true", help="the statements of one lap")
    ap.add_argument("--kinds", action="store_true", help="CPU per kind of request")
    ap.add_argument(
        "--db-statements", action="store_true", help="the database's CPU per statement shape"
    )
    a = ap.parse_args()
    folio = load_app(a.app_dir)
    asgi = build_asgi(folio)
    recorder = Recorder(folio.db)
    tokens = json.loads((a.app_dir / "tokens.json").read_text())
    populator = folio.documents._reads.populator
    memo = populator.memo
    sides = [a.only] if a.only else ["off", "on"] if a.off_first else ["on", "off"]
    if "on" in sides and memo is None:
        sys.exit("the read memo is off (FOLIO_READ_MEMO_MB=0): run with it on, or --only off")

    async def run() -> None:
        served = await Served(asgi, folio).start()
        driver, backends = served.driver, served.backends
        reads, writes = await requests(driver)
        read_headers = [(b"host", b"127.0.0.1")]
        write_headers = [
            *read_headers,
            (b"authorization", f"Bearer {tokens['full']}".encode()),
            (b"content-type", b"application/json"),
        ]
        counter = {"n": 0, "r": 0, "w": 0}

        async def one() -> None:
            counter["n"] += 1
            if counter["n"] % EVERY == 0:
                path = writes[counter["w"] % len(writes)]
                counter["w"] += 1
                body = b'{"data":{"views":%d}}' % counter["n"]
                await driver.call("PUT", path, write_headers, body)
            else:
                path = reads[counter["r"] % len(reads)]
                counter["r"] += 1
                await driver.call("GET", path, read_headers, b"")
            if driver.status >= 300:
                sys.exit(f"{path} answered {driver.status}")

        lap = len(reads) * EVERY // (EVERY - 1)  # requests until the reads come round again
        size = a.rounds * 48

        def use(side: str) -> None:
            populator.memo = memo if side == "on" else None

        for side in sides:
            use(side)
            for _ in range(6 * lap):
                await one()  # warm: plans and caches made once per shape, the memo settled
        if a.statements:
            for side in sides:
                use(side)
                recorder.stmts, recorder.on = [], True
                for _ in range(lap):
                    await one()
                recorder.on = False
                print(f"== memo {side}: {len(recorder.stmts) / lap:.2f} statements/request")
                shapes: dict[str, int] = {}
                for stmt in recorder.stmts:
                    text = " ".join(stmt.sql.split())
                    shapes[text[:100]] = shapes.get(text[:100], 0) + 1
                for text, n in sorted(shapes.items(), key=lambda item: -item[1]):
                    print(f"  {n:4} x {text}")
        elif a.kinds:
            for side in sides:
                use(side)
                spent: dict[str, list[float]] = {}
                for _ in range(size * a.batches):
                    n, r = counter["n"] + 1, counter["r"]
                    kind = "update" if n % EVERY == 0 else KINDS[r % len(KINDS)]
                    c0 = time.process_time()
                    d0 = _backends_cpu(backends) if backends else 0.0
                    await one()
                    d1 = _backends_cpu(backends) if backends else 0.0
                    got = spent.setdefault(kind, [0.0, 0.0, 0])
                    got[0] += time.process_time() - c0
                    got[1] += d1 - d0
                    got[2] += 1
                total = sum(v[0] + v[1] for v in spent.values())
                print(f"== memo {side}: CPU per request of each kind (ms), share of the mix")
                for kind, (cpu, db, n) in spent.items():
                    print(
                        f"  {kind:12} {cpu / n * 1000:7.3f} + db {db / n * 1000:7.3f}"
                        f"  {(cpu + db) / total:6.1%}"
                    )
        elif a.db_statements:
            if not backends:
                sys.exit("--db-statements: the database's CPU is measured on PostgreSQL and MySQL")
            mysql = folio.db.dialect.name == "mysql"
            for side in sides:
                use(side)
                spent = await _statement_cpu(folio.db, backends if mysql else None, one, size)
                total = sum(ns for ns, _ in spent.values())
                print(f"== memo {side}: database CPU {total / size / 1000:.1f} us per request")
                for shape, (ns, n) in sorted(spent.items(), key=lambda item: -item[1][0])[:25]:
                    each = f"{n:6} x {ns / n / 1000:7.1f} us"
                    print(f"  {ns / size / 1000:7.1f} us/request {each}  {shape}")
        elif a.profile:
            for side in sides:
                use(side)
                prof = cProfile.Profile()
                prof.enable()
                for _ in range(size):
                    await one()
                prof.disable()
                print(f"== memo {side}")
                pstats.Stats(prof).sort_stats("tottime").print_stats(35)
        else:
            best = {side: (float("inf"), float("inf")) for side in sides}
            for _ in range(a.batches):
                for side in sides:
                    use(side)
                    d0 = _backends_cpu(backends)
                    c0 = time.process_time()
                    for _ in range(size):
                        await one()
                    cpu = (time.process_time() - c0) / size * 1000
                    db = (_backends_cpu(backends) - d0) / size * 1000
                    best[side] = (min(best[side][0], cpu), min(best[side][1], db))
            for side in sides:
                cpu, db = best[side]
                both = f"  db {db:7.3f} ms  sum {cpu + db:7.3f} ms" if backends else ""
                print(f"mixed memo {side:3} {cpu:8.3f} ms cpu/request{both}", flush=True)
            if memo is not None and hasattr(memo, "scores"):
                held = len(memo._entries)
                print(f"memo: {held} entries, {memo.size} bytes, scores {memo.scores}")
                print(f"memo: hits {memo.hits}, dropped unused {memo.wasted} (rows, pages)")
        await served.stop()

    uvloop.run(run())


def _run_ns(pid: int, threads: bool) -> int:
    """The nanoseconds a process (its main thread, or all of its threads) has run."""
    if not threads:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except OSError:
            continue
    return total


def _shape(sql: str) -> str:
    """A statement told apart by its start and what follows its first FROM."""
    text = " ".join(sql.split())
    at = text.find(" FROM ")
    return text[:40] + " ... " + (text[at : at + 160] if at >= 0 else text[40:160])


async def _statement_cpu(
    db: Any, servers: list[int] | None, one: Any, count: int
) -> dict[str, list[int]]:
    """{shape: [database ns, runs]} over `count` requests of the mix: each statement's
    backend (or, `servers` given, the MySQL server's threads) measured around it."""
    inner = db._one
    spent: dict[str, list[int]] = {}

    async def measured(conn: Any, stmt: Any) -> Any:
        pids = servers or [conn.get_server_pid()]
        before = sum(_run_ns(p, servers is not None) for p in pids)
        try:
            return await inner(conn, stmt)
        finally:
            ran = sum(_run_ns(p, servers is not None) for p in pids) - before
            got = spent.setdefault(_shape(stmt.sql), [0, 0])
            got[0] += ran
            got[1] += 1

    db._one = measured
    try:
        for _ in range(count):
            await one()
    finally:
        db._one = inner
    return spent


if __name__ == "__main__":
    main()
