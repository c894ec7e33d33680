"""The app `folio new` makes, as its user meets it: the example content in the database
`DATABASE_URL` names (a fresh PostgreSQL database, or SQLite without it), articles with slugs
made from their titles, a printed API token that works; and its OpenAPI document's "Try it
out": every operation, sent as Swagger UI sends it with the document's examples, succeeds."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from folio.cli.example import slugify
from tests.api.serving import CLEARED, FOLIO
from tests.conftest import PG_URL, Api, make_api

TOKEN_LINE = re.compile(r"^A full-access API token .*: ([0-9a-f]+)$", re.M)


@dataclass
class Example:
    api: Api
    token: str
    output: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def _admin(sql: str) -> None:
    import asyncpg

    async def run() -> None:
        conn = await asyncpg.connect(PG_URL)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run())


@pytest.fixture
def fresh_database(backend: str) -> Iterator[str | None]:
    """A PostgreSQL database of its own (dropped after), or None for SQLite."""
    if backend != "postgres":
        yield None
        return
    assert PG_URL
    name = f"folio_example_{uuid.uuid4().hex[:12]}"
    _admin(f'CREATE DATABASE "{name}"')
    try:
        yield PG_URL.rsplit("/", 1)[0] + "/" + name
    finally:
        _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def example(
    fresh_database: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Example]:
    """`folio new` run as a user runs it, then the app served in-process."""
    app = tmp_path / "blog"
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    if fresh_database is not None:
        env["DATABASE_URL"] = fresh_database
    done = subprocess.run(
        [*FOLIO, "new", str(app)], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr
    found = TOKEN_LINE.search(done.stdout)
    assert found, done.stdout
    # the app's secrets, as `folio serve` reads them from its .env (restored after)
    for line in (app / ".env").read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            monkeypatch.setenv(key, value)
    url = fresh_database or f"sqlite:///{app / '.tmp' / 'data.db'}"
    for api in make_api(app, url, open=False):
        yield Example(api, found[1], done.stdout)


def test_folio_new_seeds_the_configured_database(example: Example) -> None:
    api = example.api
    r = api.get("/api/articles?sort=id&fields[0]=title&fields[1]=slug")
    assert r.status_code == 200, r.text
    articles = r.json()["data"]
    assert [a["title"] for a in articles] == [
        "Welcome to your content API",
        "Filtering, sorting and paging",
        "Asking GraphQL for exactly what you need",
    ]
    assert [a["slug"] for a in articles] == [
        "welcome-to-your-content-api",
        "filtering-sorting-and-paging",
        "asking-graphql-for-exactly-what-you-need",
    ]
    french = api.get("/api/articles?locale=fr&fields[0]=slug").json()["data"]
    assert [a["slug"] for a in french] == ["bienvenue-dans-votre-api-de-contenu"]
    drafts = api.get("/api/articles?status=draft&fields[0]=slug", headers=example.auth)
    assert sorted(a["slug"] for a in drafts.json()["data"]) == sorted(
        [a["slug"] for a in articles] + ["release-notes-draft", "performance-notes-draft"]
    )
    categories = api.get("/api/categories?sort=id").json()["data"]
    assert [c["slug"] for c in categories] == ["news", "tutorials", "releases"]
    # the printed token writes; without it, writing is refused
    data = {"data": {"name": "Guides"}}
    assert api.post("/api/categories", data).status_code == 403
    r = api.post("/api/categories", data, headers=example.auth)
    assert r.status_code == 201, r.text
    assert api.get("/api/categories").json()["meta"]["pagination"]["total"] == 4


def test_folio_new_names_its_database_in_the_app(tmp_path: Path, fresh_database: Any) -> None:
    """The content went where DATABASE_URL pointed: the app's .env names it for `serve`."""
    app = tmp_path / "named"
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    if fresh_database is not None:
        env["DATABASE_URL"] = fresh_database
    done = subprocess.run(
        [*FOLIO, "new", str(app), "--empty"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    lines = (app / ".env").read_text().splitlines()
    named = [line for line in lines if line.startswith("DATABASE_URL=")]
    assert named == ([f"DATABASE_URL={fresh_database}"] if fresh_database else [])


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("The Internet's Own Boy", "the-internet-s-own-boy"),
        ("  Déjà vu: l'été  ", "deja-vu-l-ete"),
        ("!!!", "entry"),
    ],
)
def test_slugs(text: str, slug: str) -> None:
    taken: set[str] = set()
    assert slugify(text, taken) == slug
    assert slugify(text, taken) == f"{slug}-2"
    assert slugify(text, taken) == f"{slug}-3"


# ------------------------------------------------------------------ "Try it out"

# operations a reader cannot try with the document's examples alone, and why
NOT_TRIED = {
    "upload": "needs a file chosen",
    "signIn": "needs a real account's password",
    "register": "creates an account (tried by the users tests)",
    "forgotPassword": "sends mail",
    "resetPassword": "needs the code a mail brings",
    "changePassword": "needs a user's JWT and password",
    "sendEmailConfirmation": "sends mail",
    "emailConfirmation": "needs the code a mail brings",
    "me": "needs a user's JWT (an API token is no user)",
    "countUsers": "needs a user's JWT",
    "getFile": "needs a file id",
    "deleteFile": "needs a file id",
}


def _encode(value: Any) -> str:
    """A value as Swagger UI writes it in a query: objects and lists as JSON, then every
    character but letters, digits and `-._~` percent-encoded."""
    if isinstance(value, dict | list):
        import json

        value = json.dumps(value, separators=(",", ":"))
    elif isinstance(value, bool):
        value = "true" if value else "false"
    return quote(str(value), safe="-._~")


def swagger_query(parameters: list[dict[str, Any]]) -> str:
    """The query string Swagger UI sends for parameters filled with their examples
    (parameters without one are left empty, and not sent)."""
    pairs: list[tuple[str, str]] = []
    for p in parameters:
        if p["in"] != "query" or "example" not in p:
            continue
        name, value = p["name"], p["example"]
        style = p.get("style", "form")
        explode = p.get("explode", style == "form")
        if isinstance(value, list):
            if explode:
                pairs += [(quote(name, safe=""), _encode(v)) for v in value]
            else:
                pairs.append((quote(name, safe=""), "%2C".join(_encode(v) for v in value)))
        elif isinstance(value, dict):
            assert style == "deepObject", name
            pairs += [(quote(f"{name}[{k}]", safe=""), _encode(v)) for k, v in value.items()]
        else:
            pairs.append((quote(name, safe=""), _encode(value)))
    return "&".join(f"{k}={v}" for k, v in pairs)


def _resolve(doc: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = doc
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def test_every_operation_tried_with_its_examples_succeeds(example: Example) -> None:
    api = example.api
    doc = api.get("/openapi.json").json()
    # the documentIds a reader would paste, one per route
    ids = {
        "/api/articles/{documentId}": api.get("/api/articles").json()["data"][0]["documentId"],
        "/api/categories/{documentId}": api.get("/api/categories").json()["data"][0]["documentId"],
        "/api/authors/{documentId}": api.get("/api/authors").json()["data"][0]["documentId"],
        "/api/tags/{documentId}": api.get("/api/tags").json()["data"][0]["documentId"],
    }
    tried = []
    # reads and writes first, deletes last (what they delete is what the others read)
    order = {"get": 0, "post": 1, "put": 2, "delete": 3}
    operations = sorted(
        (
            (order[method], path, method, op)
            for path, item in doc["paths"].items()
            for method, op in item.items()
            if method in order
        ),
        key=lambda x: x[0],
    )
    for _, path, method, op in operations:
        if op["operationId"] in NOT_TRIED:
            continue
        if path.startswith("/admin/api/"):
            continue  # the admin panel's API needs a signed-in administrator (test_admin_*.py)
        if "text/event-stream" in op["responses"].get("200", {}).get("content", {}):
            continue  # an event stream does not end (test_sse.py reads them)
        item = doc["paths"][path]
        params = [
            _resolve(doc, p) for p in [*item.get("parameters", []), *op.get("parameters", [])]
        ]
        url = path.replace("{documentId}", ids.get(path, ""))
        query = swagger_query(params)
        kwargs: dict[str, Any] = {"headers": example.auth}
        body = op.get("requestBody", {}).get("content", {}).get("application/json")
        if body is not None:
            kwargs["json"] = body["example"]
        r = api.client.request(method.upper(), url + (f"?{query}" if query else ""), **kwargs)
        assert r.status_code < 400, (op["operationId"], url, query, r.text)
        tried.append(op["operationId"])
    # every content operation of the five example types, and the plugins' lists
    assert len(tried) == 4 * 5 + 3 + 2, tried


def test_summaries_are_english(example: Example) -> None:
    doc = example.api.get("/openapi.json").json()
    summary = {
        op["operationId"]: op["summary"]
        for item in doc["paths"].values()
        for key, op in item.items()
        if key != "parameters"
    }
    assert summary["createArticle"] == "Create an Article"
    assert summary["createAuthor"] == "Create an Author"
    assert summary["createCategory"] == "Create a Category"
    assert summary["listCategory"] == "Find Categories"
    assert summary["listArticle"] == "Find Articles"
    assert summary["updateTag"] == "Update a Tag"
    assert summary["putGlobal"] == "Create or update the Global"
    assert summary["getGlobal"] == "Find the Global"
