"""The statements Folio sends for each benchmark request, with their plans.

Serves the app in-process on its configured database (seed it first, e.g. with
../shared/bench/seed.py against `folio serve`), records every statement the request runs,
then explains each one on a connection of its own: `EXPLAIN (ANALYZE, BUFFERS)` on
PostgreSQL, `EXPLAIN QUERY PLAN` on SQLite.

    scripts/explain APP_DIR [--only list,get-one] [--no-analyze] [--url DATABASE_URL]
        [--page N] [--cpu N]

`--page N` asks the lists for their page N instead of the first.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.testclient import TestClient

from folio.app import load_app
from folio.http.app import build_asgi
from folio.store.program import Stmt

DEEP = (
    "populate[category][populate][articles][fields][0]=title"
    "&populate[category][populate][articles][fields][1]=slug&populate[tags]=true"
    "&populate[author]=true&populate[cover]=true&populate[gallery]=true&populate[seo]=true"
    "&populate[links]=true&populate[blocks]=true"
)

# the requests of ../shared/bench (get-one and deep-filter take the first seeded article)
SCENARIOS: dict[str, str] = {
    "list": "/api/articles",
    "list-filter-sort": "/api/articles?filters[title][$containsi]=ab&sort=publishDate:desc"
    "&pagination[pageSize]=25",
    "list-populate": "/api/articles?populate[0]=category&populate[1]=author&populate[2]=tags",
    "list-populate-star": "/api/articles?populate=*",
    "list-populate-deep": "/api/articles?" + DEEP,
    "list-populate-nested": "/api/articles?populate[category][populate][0]=articles",
    "get-one": "/api/articles/{document}",
    "deep-filter": "/api/articles?filters[category][name][$eq]={category}"
    "&filters[tags][name][$in][0]={tag1}&filters[tags][name][$in][1]={tag2}",
}


class Recorder:
    """Wraps the database's statement runner to keep what it runs."""

    def __init__(self, db: Any) -> None:
        self.stmts: list[Stmt] = []
        self.on = False
        inner = db._one
        if asyncio.iscoroutinefunction(inner):

            async def traced_async(conn: Any, stmt: Stmt) -> Any:
                if self.on:
                    self.stmts.append(stmt)
                return await inner(conn, stmt)

            db._one = traced_async
        else:

            def traced(conn: Any, stmt: Stmt) -> Any:
                if self.on:
                    self.stmts.append(stmt)
                return inner(conn, stmt)

            db._one = traced


def sample(get: Callable[[str], Any]) -> dict[str, str]:
    """The values the templated requests take: the first seeded article (by slug), its
    category and tags. `get(path)` answers the decoded JSON body."""
    doc = get(
        "/api/articles?sort=slug&pagination[pageSize]=1&fields[0]=slug"
        "&populate[category][fields][0]=name&populate[tags][fields][0]=name"
    )["data"][0]
    tags = [t["name"] for t in doc.get("tags") or []] + ["", ""]
    return {
        "document": doc["documentId"],
        "category": quote((doc.get("category") or {}).get("name", "")),
        "tag1": quote(tags[0]),
        "tag2": quote(tags[1]),
    }


def record(
    app_dir: Path, url: str | None, names: list[str], page: int = 1
) -> list[tuple[str, str, list[Stmt]]]:
    folio = load_app(app_dir, url)
    recorder = Recorder(folio.db)
    out = []
    with TestClient(build_asgi(folio)) as client:
        values = sample(lambda path: client.get(path).json())
        for name in names:
            path = SCENARIOS[name].format(**values)
            if page > 1 and "{document}" not in SCENARIOS[name]:
                path += f"{'&' if '?' in path else '?'}pagination[page]={page}"
            client.get(path)  # warm: plans and caches made once per shape
            recorder.stmts = []
            recorder.on = True
            r = client.get(path)
            recorder.on = False
            if r.status_code != 200:
                sys.exit(f"{name}: {path} answered {r.status_code}: {r.text[:300]}")
            out.append((name, path, recorder.stmts))
    return out


def _shown(params: Any) -> str:
    text = repr(list(params))
    return text if len(text) < 300 else text[:300] + "...]"


async def explain_postgres(
    url: str, runs: list[tuple[str, str, list[Stmt]]], analyze: bool
) -> None:
    import asyncpg

    from folio.store.dialects.postgres import to_numbered
    from folio.store.postgres import SESSION

    conn = await asyncpg.connect(url, server_settings=SESSION)
    try:
        mode = "(ANALYZE, BUFFERS)" if analyze else ""
        for name, path, stmts in runs:
            print(f"\n=== {name}: GET {path}\n{len(stmts)} statement(s)")
            for i, stmt in enumerate(stmts, 1):
                sql = to_numbered(stmt.sql)
                print(f"\n--- {i}. {sql}\n    params {_shown(stmt.params)}")
                t0 = time.perf_counter()
                rows = await conn.fetch(f"EXPLAIN {mode} {sql}", *stmt.params)
                took = (time.perf_counter() - t0) * 1000
                for row in rows:
                    print("    " + row[0])
                print(f"    (explained in {took:.2f} ms)")
    finally:
        await conn.close()


async def cost_postgres(url: str, runs: list[tuple[str, str, list[Stmt]]], times: int) -> None:
    """Each statement run `times` times over one connection: the backend's CPU per run
    (from /proc, so the server must be on this machine) beside the wall time."""
    import asyncpg

    from folio.store.dialects.postgres import to_numbered
    from folio.store.postgres import SESSION

    tick = os.sysconf("SC_CLK_TCK")

    def cpu(pid: int) -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    conn = await asyncpg.connect(url, server_settings=SESSION)
    try:
        pid = await conn.fetchval("SELECT pg_backend_pid()")
        for name, path, stmts in runs:
            print(f"\n=== {name}: GET {path}")
            total = 0.0
            for i, stmt in enumerate(stmts, 1):
                sql = to_numbered(stmt.sql)
                for _ in range(3):
                    rows = await conn.fetch(sql, *stmt.params)
                c0, t0 = cpu(pid), time.perf_counter()
                for _ in range(times):
                    await conn.fetch(sql, *stmt.params)
                spent = (cpu(pid) - c0) / times * 1000
                wall = (time.perf_counter() - t0) / times * 1000
                total += spent
                print(
                    f"  {i:2}. {spent:7.3f} ms cpu {wall:7.3f} ms wall {len(rows):5} rows  {sql[:70]}"
                )
            print(f"      {total:7.3f} ms cpu in all")
    finally:
        await conn.close()


async def cost_mysql(db: Any, runs: list[tuple[str, str, list[Stmt]]], times: int) -> None:
    """Each statement run `times` times over one of the app's connections: the MySQL
    server's CPU per run (the whole server process, from /proc: the server must be on this
    machine and otherwise idle) beside the wall time."""
    import subprocess

    tick = os.sysconf("SC_CLK_TCK")
    pid = int(
        subprocess.run(
            ["pidof", "-s", "mariadbd", "mysqld"], capture_output=True, text=True
        ).stdout.split()[0]
    )

    def cpu() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    await db.start()
    try:
        async with db._connection() as conn:
            for name, path, stmts in runs:
                print(f"\n=== {name}: GET {path}")
                total = 0.0
                for i, stmt in enumerate(stmts, 1):
                    for _ in range(3):
                        rows = await db._one(conn, stmt)
                    c0, t0 = cpu(), time.perf_counter()
                    for _ in range(times):
                        await db._one(conn, stmt)
                    spent = (cpu() - c0) / times * 1000
                    wall = (time.perf_counter() - t0) / times * 1000
                    total += spent
                    count = len(rows) if isinstance(rows, list) else rows
                    print(
                        f"  {i:2}. {spent:7.3f} ms cpu {wall:7.3f} ms wall {count!s:>5} rows"
                        f"  {stmt.sql[:70]}"
                    )
                print(f"      {total:7.3f} ms cpu in all")
    finally:
        await db.close()


def explain_sqlite(path: str, runs: list[tuple[str, str, list[Stmt]]]) -> None:
    conn = sqlite3.connect(path)
    try:
        for name, url_path, stmts in runs:
            print(f"\n=== {name}: GET {url_path}\n{len(stmts)} statement(s)")
            for i, stmt in enumerate(stmts, 1):
                print(f"\n--- {i}. {stmt.sql}\n    params {_shown(stmt.params)}")
                for row in conn.execute(f"EXPLAIN QUERY PLAN {stmt.sql}", stmt.params):
                    print(f"    {'  ' * (0 if row[1] == 0 else 1)}{row[3]}")
                t0 = time.perf_counter()
                conn.execute(stmt.sql, stmt.params).fetchall()
                print(f"    (ran in {(time.perf_counter() - t0) * 1000:.2f} ms)")
    finally:
        conn.close()


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("app_dir", type=Path)
    ap.add_argument("--only", help="comma-separated scenario names: " + ", ".join(SCENARIOS))
    ap.add_argument("--url", help="database URL (default: the app's configuration)")
    ap.add_argument("--no-analyze", action="store_true", help="PostgreSQL: plans without running")
    ap.add_argument(
        "--cpu",
        type=int,
        metavar="N",
        help="PostgreSQL: instead of plans, run each statement N times and print the "
        "database CPU per run (MySQL: always so, 100 times unless given)",
    )
    ap.add_argument("--page", type=int, default=1, help="the lists' page N instead of the first")
    a = ap.parse_args()
    names = a.only.split(",") if a.only else list(SCENARIOS)
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        sys.exit(f"unknown scenario(s): {', '.join(unknown)}")
    runs = record(a.app_dir, a.url, names, a.page)
    folio = load_app(a.app_dir, a.url)
    db = folio.db
    if db.dialect.name == "postgres" and a.cpu:
        asyncio.run(cost_postgres(db.url, runs, a.cpu))
    elif db.dialect.name == "postgres":
        asyncio.run(explain_postgres(db.url, runs, not a.no_analyze))
    elif db.dialect.name == "mysql":
        asyncio.run(cost_mysql(db, runs, a.cpu or 100))
    else:
        explain_sqlite(db.path, runs)  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
