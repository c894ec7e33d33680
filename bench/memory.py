"""Memory stays flat whatever clients send: many requests of ever new shapes (field lists
in random orders, filters with random operators and long `$in` lists, long query strings,
GraphQL documents that differ), served in-process, with the process's RSS sampled along.

    .venv/bin/python bench/memory.py [--requests 100000] [--url DATABASE_URL]

Makes its own app (the test blog models, public access, a few documents) in a temporary
directory; prints RSS every tenth of the run and the growth over the second half (the first
half fills the caches to their bounds)."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from folio.app import load_app  # noqa: E402
from folio.http.app import build_asgi  # noqa: E402
from tests.conftest import FIXTURES, open_access  # noqa: E402

FIELDS = ["title", "slug", "description", "views", "rating", "featured", "publishDate", "score"]
OPS = ["$eq", "$ne", "$lt", "$gt", "$contains", "$startsWith", "$in", "$notIn"]


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _rest(rng: random.Random) -> str:
    fields = rng.sample(FIELDS, rng.randint(1, len(FIELDS)))
    parts = [f"fields[{i}]={f}" for i, f in enumerate(fields)]
    kind = rng.random()
    if kind < 0.4:
        op = rng.choice(OPS)
        field = rng.choice(["title", "views", "slug"])
        if op in ("$in", "$notIn"):
            values = [str(rng.randint(0, 10**9)) for _ in range(rng.randint(1, 400))]
            parts += [f"filters[{field}][{op}][{i}]={v}" for i, v in enumerate(values)]
        else:
            value = "x" * rng.randint(1, 3000) if field != "views" else str(rng.randint(0, 9))
            parts.append(f"filters[{field}][{op}]={value}")
    elif kind < 0.6:
        parts.append(f"sort={rng.choice(FIELDS)}:{rng.choice(['asc', 'desc'])}")
        parts.append(f"pagination[page]={rng.randint(1, 50)}")
    else:
        parts.append(f"populate[category][fields][0]={rng.choice(['name', 'slug'])}")
        parts.append(f"noise={rng.randint(0, 10**12)}")
    return "/api/articles?" + "&".join(parts)


def _graphql(rng: random.Random) -> dict[str, object]:
    fields = " ".join(rng.sample(FIELDS, rng.randint(1, len(FIELDS))))
    alias = f"a{rng.randint(0, 10**9)}"
    return {
        "query": f"{{ {alias}: articles(pagination: {{ limit: {rng.randint(1, 99)} }}) "
        f"{{ documentId {fields} }} }}"
    }


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=100_000)
    ap.add_argument("--url", help="database URL (default: SQLite in the temporary app)")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="folio-memory-"))
    app_dir = tmp / "app"
    shutil.copytree(FIXTURES / "blog", app_dir)
    open_access(app_dir)
    app = build_asgi(load_app(app_dir, a.url))
    rng = random.Random(7)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://memory") as client:
            for i in range(20):
                await client.post("/api/articles", json={"data": {"title": f"T{i}", "views": i}})
            samples = []
            step = max(1, a.requests // 10)
            t0 = time.perf_counter()
            statuses: dict[int, int] = {}
            for n in range(1, a.requests + 1):
                if rng.random() < 0.8:
                    r = await client.get(_rest(rng))
                else:
                    r = await client.post("/graphql", json=_graphql(rng))
                statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                if n % step == 0:
                    samples.append((n, _rss_mb()))
                    print(f"{n:>8} requests  RSS {samples[-1][1]:7.1f} MB", flush=True)
    half = samples[len(samples) // 2 - 1][1]
    print(
        json.dumps(
            {
                "requests": a.requests,
                "seconds": round(time.perf_counter() - t0, 1),
                "statuses": statuses,
                "rss_mb": [round(s[1], 1) for s in samples],
                "growth_second_half_mb": round(samples[-1][1] - half, 1),
            }
        )
    )
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
