#!/usr/bin/env python3
"""What GraphQL extensions cost, measured in-process (no network, no wrk):

1. the generated `articles` list (the shared bench's graphql-list query, 25 articles with
   category, tags and author) on an app without extensions and on the same app with a few
   (a disabled field, custom queries, a policy and middlewares on other fields), alternating
   rounds so that both see the same machine;
2. a custom query resolved bare (`auth: false`) against the same resolver wrapped in a
   middleware, executed directly on the built schema: the difference is the wrapper's cost.

    .venv/bin/python bench/graphql_extensions.py [--articles 100] [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from graphql import execute, parse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from folio.app import load_app  # noqa: E402
from folio.auth.principal import OPEN  # noqa: E402
from folio.http.app import build_asgi  # noqa: E402
from folio.http.graphql.endpoint import GraphQLEndpoint  # noqa: E402
from folio.http.graphql.resolvers import Context  # noqa: E402
from tests.conftest import open_access  # noqa: E402

LIST = (
    '{ articles(pagination:{pageSize:25}, sort:"publishDate:desc") '
    "{ documentId title slug views category { name } tags { name } author { name } } }"
)
INDEX = '''
def register(app):
    ext = app.graphql.extension
    ext.shadowCRUD("api::article.article").field("body").disableOutput()

    def middleware(next, parent, args, context, info):
        return next(parent, args, context, info)

    ext.use({
        "typeDefs": "extend type Query { bare: String wrapped: String guarded: String }",
        "resolvers": {"Query": {
            "bare": lambda *a: "x", "wrapped": lambda *a: "x", "guarded": lambda *a: "x",
        }},
        "resolversConfig": {
            "Query.bare": {"auth": False},
            "Query.wrapped": {"auth": False, "middlewares": [middleware]},
            "Query.guarded": {"auth": False, "policies": [lambda ctx, app: True]},
        },
    })
'''


def make_app(base: Path, name: str, extended: bool) -> Path:
    app = base / name
    shutil.copytree(ROOT / "tests" / "fixtures" / "blog", app)
    open_access(app)
    if extended:
        (app / "src" / "index.py").write_text(INDEX)
    return app


async def seed(folio, articles: int) -> None:  # type: ignore[no-untyped-def]
    d, r = folio.documents, folio.registry.content_types
    cats = [await d.create(r["api::category.category"], {"name": f"c{i}"}, {}, OPEN) for i in range(5)]
    tags = [await d.create(r["api::tag.tag"], {"name": f"t{i}"}, {}, OPEN) for i in range(10)]
    authors = [await d.create(r["api::author.author"], {"name": f"a{i}"}, {}, OPEN) for i in range(5)]
    for i in range(articles):
        data = {
            "title": f"article {i}",
            "views": i,
            "publishDate": f"2024-01-{i % 28 + 1:02d}",
            "category": cats[i % 5]["documentId"],
            "tags": [tags[i % 10]["documentId"], tags[(i + 3) % 10]["documentId"]],
            "author": authors[i % 5]["documentId"],
        }
        await d.create(r["api::article.article"], data, {}, OPEN)


async def list_rounds(apps: dict[str, Path], articles: int, rounds: int, n: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {name: [] for name in apps}
    clients = {}
    stack = []
    for name, path in apps.items():
        folio = load_app(path, f"sqlite:///{path / 'bench.db'}")
        asgi = build_asgi(folio)
        ctx = asgi.router.lifespan_context(asgi)
        await ctx.__aenter__()
        stack.append(ctx)
        await seed(folio, articles)
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=asgi), base_url="http://b")
        r = await client.post("/graphql", json={"query": LIST})
        assert r.status_code == 200 and "errors" not in r.json(), r.text
        for _ in range(50):
            await client.post("/graphql", json={"query": LIST})
        clients[name] = client
    for _ in range(rounds):
        for name, client in clients.items():
            start = time.perf_counter()
            for _ in range(n):
                await client.post("/graphql", json={"query": LIST})
            out[name].append((time.perf_counter() - start) / n * 1e6)
    for client in clients.values():
        await client.aclose()
    for ctx in stack:
        await ctx.__aexit__(None, None, None)
    return out


async def wrapper_cost(path: Path, n: int) -> dict[str, float]:
    folio = load_app(path, f"sqlite:///{path / 'bench.db'}")
    schema = GraphQLEndpoint(folio).schema
    assert schema is not None
    context = Context(None, OPEN, folio, ("bench",))  # type: ignore[arg-type]
    out: dict[str, float] = {}
    for field in ("bare", "wrapped", "guarded", "bare", "wrapped", "guarded"):
        document = parse("{ %s }" % field)
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(n):
                result = execute(schema, document, context_value=context)
                if not hasattr(result, "data"):
                    result = await result  # type: ignore[misc]
            best = min(best, (time.perf_counter() - start) / n * 1e6)
        out[field] = min(out.get(field, best), best)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--articles", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--requests", type=int, default=200)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        apps = {"plain": make_app(base, "plain", False), "extended": make_app(base, "ext", True)}
        times = asyncio.run(list_rounds(apps, args.articles, args.rounds, args.requests))
        costs = asyncio.run(wrapper_cost(apps["extended"], 20000))
    med = {name: statistics.median(v) for name, v in times.items()}
    print(f"graphql-list, median of {args.rounds} rounds of {args.requests} requests:")
    for name, value in med.items():
        print(f"  {name:9s} {value:8.1f} us/request   rounds: {[round(v) for v in times[name]]}")
    print(f"  extended / plain: {med['extended'] / med['plain']:.3f}")
    print("custom query executed on the schema (best of 5 x 20000):")
    for name, value in costs.items():
        print(f"  {name:9s} {value:6.2f} us")
    print(f"  middleware wrapper: {costs['wrapped'] - costs['bare']:+.2f} us; "
          f"policy wrapper: {costs['guarded'] - costs['bare']:+.2f} us")


if __name__ == "__main__":
    main()
