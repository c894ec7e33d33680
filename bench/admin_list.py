"""The Content Manager's list call with many articles: server time per request.

Copies the blog app (tests/fixtures/blog) to a scratch folder, seeds N articles through the
document service (drafts; every third one published, every fifth of those changed after),
signs the first administrator in, then calls the ASGI application directly (no sockets),
one request at a time, and prints the median, 95th percentile and best time of each list
request (the whole request: routing, the session check, the reads and the JSON answer).

    .venv/bin/python bench/admin_list.py [--articles 10000] [--requests 200]
        [--database-url postgresql://...]   (default: SQLite in the scratch folder;
                                             PostgreSQL: an empty database, vacuumed and
                                             analyzed after the seeding)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from asgi_scope import http_scope  # noqa: E402

from folio.app import load_app  # noqa: E402
from folio.auth.principal import OPEN  # noqa: E402
from folio.http.app import build_asgi  # noqa: E402

ARTICLES = "/admin/api/content-manager/collection-types/api::article.article"
CASES = {
    "first page": ARTICLES,
    "page 500": ARTICLES + "?page=500",
    "sort by views, descending": ARTICLES + "?sort=views:DESC",
    "filter views > 5000": ARTICLES + "?filters[views][$gt]=5000",
    "search (_q) in text fields": ARTICLES + "?_q=article%2042",
    "french locale": ARTICLES + "?locale=fr",
}


class Client:
    """Calls an ASGI app in this process; keeps the cookie and CSRF token."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.headers: list[tuple[bytes, bytes]] = []

    async def call(
        self, method: str, target: str, body: Any = None
    ) -> tuple[int, Any, dict[str, str]]:
        payload = json.dumps(body).encode() if body is not None else b""
        headers = [*self.headers, (b"host", b"localhost")]
        if body is not None:
            headers += [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ]
        sent = False
        status = 0
        chunks: list[bytes] = []
        got: dict[str, str] = {}

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if sent:
                await asyncio.sleep(3600)
            sent = True
            return {"type": "http.request", "body": payload, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                for k, v in message.get("headers", []):
                    got.setdefault(k.decode().lower(), v.decode())
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(http_scope(method, target, headers), receive, send)
        raw = b"".join(chunks)
        return status, (json.loads(raw) if raw else None), got


async def lifespan(app: Any) -> Any:
    """Starts the app (its lifespan) and returns the function that stops it."""
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    started: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    await queue.put({"type": "lifespan.startup"})

    async def receive() -> dict[str, Any]:
        return await queue.get()

    async def send(message: dict[str, Any]) -> None:
        await started.put(message)

    task = asyncio.create_task(app({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send))
    message = await started.get()
    if message["type"] != "lifespan.startup.complete":
        raise SystemExit(f"start-up failed: {message}")

    async def stop() -> None:
        await queue.put({"type": "lifespan.shutdown"})
        await started.get()
        await task

    return stop


async def seed(folio: Any, count: int) -> None:
    ct = folio.registry.content_types["api::article.article"]
    docs = folio.documents
    began = time.perf_counter()
    for i in range(count):
        data = {
            "title": f"Article {i}",
            "slug": f"article-{i}",
            "description": f"About article {i}: " + "words " * 20,
            "views": i,
            "featured": i % 7 == 0,
        }
        doc = await docs.create(ct, data, {"status": "draft"}, OPEN)
        if i % 3 == 0:
            await docs.publish(ct, doc["documentId"], {}, OPEN)
            if i % 5 == 0:
                await docs.update(
                    ct, doc["documentId"], {"views": i + 1}, {"status": "draft"}, OPEN
                )
        if i % 50 == 0:
            await docs.create(
                ct, {"title": f"Article fr {i}"}, {"status": "draft", "locale": "fr"}, OPEN
            )
        if (i + 1) % 1000 == 0:
            print(f"  seeded {i + 1} ({time.perf_counter() - began:.0f} s)", flush=True)


async def vacuum_analyze(url: str) -> None:
    """What autovacuum does soon after a load on PostgreSQL: statistics and the visibility
    map."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        await conn.execute("VACUUM ANALYZE")
    finally:
        await conn.close()


async def run(args: argparse.Namespace) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="folio-admin-list-"))
    app_dir = scratch / "app"
    shutil.copytree(ROOT / "tests" / "fixtures" / "blog", app_dir)
    url = args.database_url or f"sqlite:///{app_dir / '.tmp' / 'data.db'}"
    folio = load_app(app_dir, url)
    app = build_asgi(folio)
    stop = await lifespan(app)
    try:
        print(f"seeding {args.articles} articles ({url.split(':')[0]})", flush=True)
        await seed(folio, args.articles)
        if url.startswith("postgres"):
            await vacuum_analyze(url)
            print("  VACUUM ANALYZE done", flush=True)
        client = Client(app)
        status, body, headers = await client.call(
            "POST",
            "/admin/api/register-admin",
            {"email": "bench@example.com", "password": "Bench-Pass1", "firstname": "Bench"},
        )
        assert status == 201, body
        cookie = headers["set-cookie"].split(";", 1)[0]
        client.headers = [
            (b"cookie", cookie.encode()),
            (b"x-folio-csrf", body["data"]["csrfToken"].encode()),
        ]
        ct = folio.registry.content_types["api::article.article"]
        page = await folio.documents.find(
            ct, {"status": "draft", "pagination": {"pageSize": "1"}}, OPEN
        )
        writer = page.documents[0]["documentId"]
        print(
            "\nrepeated: the same request again (the database may answer reads it keeps while "
            "nothing is written);\nafter a write: an article saved (untimed) before each request"
        )
        print(f"\n{'request':30} {'mode':14} {'median':>8} {'p95':>8} {'best':>8}  rows / total")
        for name, target in CASES.items():
            for mode in ("repeated", "after a write"):
                times = []
                for n in range(args.requests):
                    if mode == "after a write":
                        await folio.documents.update(
                            ct, writer, {"views": n}, {"status": "draft"}, OPEN
                        )
                    began = time.perf_counter()
                    status, body, _ = await client.call("GET", target)
                    times.append((time.perf_counter() - began) * 1000)
                    assert status == 200, body
                times.sort()
                p95 = times[int(len(times) * 0.95) - 1]
                total = body["meta"]["pagination"]["total"]
                print(
                    f"{name:30} {mode:14} {statistics.median(times):7.2f}ms {p95:7.2f}ms "
                    f"{times[0]:7.2f}ms  {len(body['data'])} / {total}",
                    flush=True,
                )
    finally:
        await stop()
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--articles", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
