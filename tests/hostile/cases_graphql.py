"""GraphQL documents that cost the server far more than their size: fragment fan-out, many
operations, aliased nested lists, deep nesting of selections, variables and filters, wide
`or` filters; and the validation messages of production mode."""

from __future__ import annotations

import json

from .client import graphql_shaped
from .harness import Case, Context


def fragment_chain(levels: int, spreads: int) -> str:
    """`fragment F<n> on Article { ...F<n-1> x spreads }`: spreads**levels fields."""
    parts = ["fragment F0 on Article { title }"]
    for n in range(1, levels + 1):
        parts.append(f"fragment F{n} on Article {{ {' '.join([f'...F{n - 1}'] * spreads)} }}")
    parts.append(f"{{ articles {{ ...F{levels} }} }}")
    return "\n".join(parts)


def _answers(ctx: Context, query: str, variables: object = None, what: str = "") -> None:
    r = ctx.session.graphql(query, variables)
    if r is not None:
        ctx.check(graphql_shaped(r), f"{what or 'answer'} not GraphQL-shaped: {r.text[:200]!r}")
        ctx.notes.append(f"{what + ' ' if what else ''}{len(query.encode())} B -> {r.status_code}")


def fragments(ctx: Context) -> None:
    _answers(ctx, fragment_chain(22, 2), what="2^22")
    _answers(ctx, fragment_chain(16, 4), what="4^16")


def repeated(ctx: Context) -> None:
    """`articles { title }` 5,000 times in one selection (each pair compared when fields
    are merged), then as 5,000 anonymous operations and as 5,000 named ones."""
    _answers(ctx, "{ " + "articles { title } " * 5000 + "}", what="one selection")
    _answers(ctx, "{articles {title}}\n" * 5000, what="anonymous operations")
    named = "".join(f"query Q{i} {{ articles {{ title }} }}\n" for i in range(5000))
    r = ctx.session.post("/graphql", json={"query": named, "operationName": "Q1"})
    if r is not None:
        ctx.check(graphql_shaped(r), f"named operations: not GraphQL-shaped: {r.text[:200]!r}")
        ctx.notes.append(f"named operations {len(named)} B -> {r.status_code}")


def aliases(ctx: Context) -> None:
    one = (
        "articles(pagination:{limit:100}) { title category {"
        " articles(pagination:{limit:100}) { title } } }"
    )
    query = "{\n" + "\n".join(f"a{i}: {one}" for i in range(100)) + "\n}"
    r = ctx.session.graphql(query)
    if r is not None:
        ctx.check(graphql_shaped(r), f"not GraphQL-shaped: {r.text[:200]!r}")
        ctx.notes.append(f"{len(query)} B -> {r.status_code}, answer {len(r.content) / 1e6:.1f} MB")


def depth(ctx: Context) -> None:
    levels = 150
    opening = " ".join("articles {" if i % 2 == 0 else "category {" for i in range(levels))
    _answers(ctx, "{ " + opening + " title " + "} " * levels + "}")


def _nested(key: str, levels: int, leaf: str) -> str:
    """JSON text of `{key: {key: ... leaf}}` (deeper than Python's own encoder goes)."""
    return f'{{"{key}": ' * levels + leaf + "}" * levels


def _send_text(ctx: Context, query: str, variables: str, what: str) -> None:
    body = '{"query": ' + json.dumps(query) + ', "variables": ' + variables + "}"
    r = ctx.session.post("/graphql", content=body, headers={"Content-Type": "application/json"})
    if r is not None:
        ctx.check(graphql_shaped(r), f"{what} not GraphQL-shaped: {r.text[:200]!r}")
        ctx.notes.append(f"{what} {len(body)} B -> {r.status_code}")


def variables_depth(ctx: Context) -> None:
    query = "query($f: ArticleFiltersInput) { articles(filters: $f) { title } }"
    leaf = '{"title": {"eq": "x"}}'
    for levels in (300, 3000):
        _send_text(ctx, query, '{"f": ' + _nested("not", levels, leaf) + "}", f"{levels} levels")
    # a JSON variable of no schema: depth only the parser sees
    deep_json = "query($m: JSON) { articles(filters: {meta: {eq: $m}}) { title } }"
    _send_text(ctx, deep_json, '{"m": ' + _nested("a", 3000, "1") + "}", "JSON 3000 levels")


def not_nested(ctx: Context) -> None:
    literal = '{title: {eq: "x"}}'
    for _ in range(200):
        literal = "{not: " + literal + "}"
    _answers(ctx, f"{{ articles(filters: {literal}) {{ title }} }}")


def or_wide(ctx: Context) -> None:
    branches = ", ".join(f'{{title: {{eq: "x{i}"}}}}' for i in range(5000))
    _answers(ctx, f"{{ articles(filters: {{or: [{branches}]}}) {{ title }} }}", what="literal")
    variables = {"f": {"or": [{"title": {"eq": f"x{i}"}} for i in range(5000)]}}
    query = "query($f: ArticleFiltersInput) { articles(filters: $f) { title } }"
    _answers(ctx, query, variables, what="variables")


def production_suggestions(ctx: Context) -> None:
    documents = [
        "{ articles { titel } }",
        "{ articls { title } }",
        '{ articles(filtres: {title: {eq: "x"}}) { title } }',
        "query($f: ArticleFiltersInputt) { articles(filters: $f) { title } }",
        "{ articles { category { nam } } }",
    ]
    for query in documents:
        r = ctx.session.graphql(query)
        if r is None:
            continue
        ctx.check(graphql_shaped(r), f"not GraphQL-shaped: {r.text[:200]!r}")
        ctx.check(r.status_code == 400, f"{query!r} answered {r.status_code}")
        messages = json.dumps([e.get("message") for e in r.json().get("errors", [])])
        ctx.check("did you mean" not in messages.lower(), f"suggestion in {messages[:200]}")


CASES = [
    Case("graphql-fragments", fragments),
    Case("graphql-repeated", repeated),
    Case("graphql-aliases", aliases),
    Case("graphql-depth", depth),
    Case("graphql-variables-depth", variables_depth),
    Case("graphql-not-200", not_nested),
    Case("graphql-or-5000", or_wide),
    Case("graphql-production", production_suggestions, env={"FOLIO_ENV": "production"}),
]
