"""Events of committed writes: what the outbox records and what `app.events.on`
subscribers see, for every kind of write, through HTTP."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from folio.auth.principal import OPEN
from folio.cli.main import main
from folio.content.events import Event
from tests.api.test_relations import png, upload_one
from tests.conftest import FIXTURES, Api, make_api


def _since(api: Api, after: int) -> list[Event]:
    portal = api.client.portal  # type: ignore[attr-defined]
    found: list[Event] = portal.call(api.folio.documents.events_since, after, 1000)
    return found


def names(events: list[Event]) -> list[tuple[str, str | None, str | None]]:
    return [(e.event, e.status, e.locale) for e in events]


def test_create_update_publish_delete_make_one_event_per_version(api: Api) -> None:
    seen: list[Event] = []
    api.folio.events.on("*", seen.append)
    doc = api.create("articles", {"title": "One", "slug": "one"}, "?status=draft")
    events = _since(api, 0)
    assert names(events) == [("entry.create", "draft", "en")]
    assert events[0].entry["title"] == "One"
    assert events[0].entry["documentId"] == doc["documentId"]
    assert events[0].model == "article" and events[0].uid == "api::article.article"
    r = api.put(f"/api/articles/{doc['documentId']}", {"data": {"title": "Two"}})
    assert r.status_code == 200, r.text
    events = _since(api, events[-1].id)
    assert names(events) == [("entry.update", "draft", "en"), ("entry.publish", "published", "en")]
    r = api.delete(f"/api/articles/{doc['documentId']}")
    assert r.status_code == 204, r.text
    events = _since(api, events[-1].id)
    assert sorted(names(events)) == [
        ("entry.delete", "draft", "en"),
        ("entry.delete", "published", "en"),
    ]
    all_events = _since(api, 0)
    assert [e.id for e in all_events] == sorted(e.id for e in all_events)
    assert [e.id for e in seen] == [e.id for e in all_events]


def test_a_created_rows_event_holds_the_entry_its_answer_shows(api: Api, backend: str) -> None:
    """A create of one row with nothing to link (on PostgreSQL one statement writes the row
    and its event, the database building the stored entry): the outbox's entry, the
    subscribers' and the answer agree, value for value, for every kind of attribute."""
    seen: list[Event] = []
    api.folio.events.on("*", seen.append)
    values: dict[str, Any] = {
        "title": 'Quote " back\\slash \u00e9t\u00e9 \U0001f600 tab\t line\n',
        "description": "x" * 3000,
        "body": "# Heading\n\n*rich*",
        "content": [{"type": "paragraph", "children": [{"type": "text", "text": "b"}]}],
        "featured": True,
        "views": -2147483648,
        "rating": 12345678.91,
        "score": 0.1 + 0.2,
        "bigCount": "9007199254740993",
        "publishDate": "2024-02-29",
        "eventAt": "2024-03-01T04:05:06.789Z",
        "startTime": "13:14:15.123",
        "contactEmail": "a@b.example",
        "status2": "idea",
        "meta": {"z": 1, "a": [1.5, None, True, {"k": "v"}], "m": {}, "e": 1e-7},
    }
    before = api.statements()
    doc = api.create("articles", values, "?status=draft")
    if backend == "postgres":
        assert api.statements() - before == 1
    blank = api.create("articles", {"title": "Blank"}, "?status=draft")
    tag = api.create("tags", {"name": "lone"})
    events = _since(api, 0)
    assert [e.event for e in events] == ["entry.create"] * 3
    for event, answer in zip(events, [doc, blank, tag], strict=True):
        # the answer of a create leaves the row's id out, as the reference's does
        assert isinstance(event.entry["id"], int)
        entry = {k: v for k, v in event.entry.items() if k != "id"}
        assert entry == answer
        assert list(entry) == list(answer)
    assert [(e.status, e.locale, e.model) for e in events] == [
        ("draft", "en", "article"),
        ("draft", "en", "article"),
        (None, None, "tag"),
    ]
    api.client.portal.call(api.folio.events.drain)  # type: ignore[attr-defined]
    # the subscribers' entries hold JSON values as written (fragments): compared as JSON
    assert [(e.id, orjson.loads(orjson.dumps(e.entry))) for e in seen] == [
        (e.id, e.entry) for e in events
    ]
    assert [e.created_at for e in seen] == [e.created_at for e in events]


def test_failed_write_records_nothing(api: Api) -> None:
    r = api.post("/api/articles", {"data": {"title": 5}})
    assert r.status_code == 400
    assert _since(api, 0) == []


def test_users_make_no_events(api: Api) -> None:
    r = api.post(
        "/api/auth/local/register",
        {"username": "ann", "email": "ann@example.com", "password": "secret123"},
    )
    assert r.status_code == 200, r.text
    assert _since(api, 0) == []


def test_middleware_sees_and_can_refuse_and_roll_back(api: Api) -> None:
    calls: list[tuple[str, str]] = []

    async def mw(ctx: Any, next: Any) -> Any:
        calls.append((ctx.action, ctx.uid))
        if ctx.action == "create" and ctx.params["data"].get("title") == "refuse":
            from folio.errors import ForbiddenError

            raise ForbiddenError("refused by a hook")
        if ctx.action == "create":
            ctx.params["data"]["title"] = ctx.params["data"]["title"].upper()
        result = await next()
        if ctx.action == "create" and result.get("slug") == "rollback":
            from folio.errors import ValidationError

            raise ValidationError("rolled back by a hook")
        return result

    api.folio.documents.use(mw)
    doc = api.create("articles", {"title": "shout", "slug": "s"})
    assert doc["title"] == "SHOUT"
    r = api.post("/api/articles", {"data": {"title": "refuse"}})
    assert r.status_code == 403, r.text
    r = api.post("/api/articles", {"data": {"title": "x", "slug": "rollback"}})
    assert r.status_code == 400, r.text
    assert "rolled back by a hook" in r.text
    listed = api.get("/api/articles").json()["data"]
    assert [d["title"] for d in listed] == ["SHOUT"]
    assert ("findMany", "api::article.article") in calls
    assert [e.event for e in _since(api, 0)] == ["entry.create", "entry.publish"]


def test_locales_single_types_and_unpublish(api: Api) -> None:
    doc = api.create("articles", {"title": "Hello"})
    start = _since(api, 0)[-1].id
    # a new locale of a document, through an update: its versions are created
    r = api.put(f"/api/articles/{doc['documentId']}?locale=fr", {"data": {"title": "Bonjour"}})
    assert r.status_code == 200, r.text
    assert names(_since(api, start)) == [
        ("entry.create", "draft", "fr"),
        ("entry.publish", "published", "fr"),
    ]
    start = _since(api, 0)[-1].id
    # a single type's first update creates its document
    r = api.put("/api/global?status=draft", {"data": {"siteName": "Site"}})
    assert r.status_code == 200, r.text
    [created] = _since(api, start)
    assert (created.event, created.uid, created.model) == (
        "entry.create",
        "api::global.global",
        "global",
    )
    start = created.id
    # unpublishing (app code: the document service) removes the published version
    ct = api.folio.registry.content_types["api::article.article"]
    portal = api.client.portal  # type: ignore[attr-defined]
    answer = portal.call(
        api.folio.documents.unpublish, ct, doc["documentId"], {"locale": "fr"}, OPEN
    )
    assert answer["publishedAt"] is None and answer["title"] == "Bonjour"
    [gone] = _since(api, start)
    assert (gone.event, gone.status, gone.locale) == ("entry.unpublish", "published", "fr")
    assert gone.entry["publishedAt"] is not None
    r = api.get(f"/api/articles/{doc['documentId']}?locale=fr")
    assert r.status_code == 404
    # deleting one locale deletes that locale's versions only
    start = gone.id
    r = api.delete(f"/api/articles/{doc['documentId']}?locale=fr")
    assert r.status_code == 204, r.text
    assert names(_since(api, start)) == [("entry.delete", "draft", "fr")]


def test_media_events_from_the_upload_routes(api: Api) -> None:
    record = upload_one(api, ("a.png", png(20, 10), "image/png"))
    [made] = _since(api, 0)
    assert (made.event, made.uid, made.status) == ("media.create", "plugin::upload.file", None)
    assert made.entry["name"] == "a.png" and made.entry["id"] == record["id"]
    assert made.payload() == {
        "event": "media.create",
        "createdAt": made.created_at,
        "media": made.entry,
    }
    r = api.client.post(
        f"/api/upload?id={record['id']}",
        data={"fileInfo": json.dumps({"alternativeText": "alt"})},
        files={"unused": ("", b"", "text/plain")},
    )
    assert r.status_code == 200, r.text
    [changed] = _since(api, made.id)
    assert changed.event == "media.update" and changed.entry["alternativeText"] == "alt"
    r = api.client.delete(f"/api/upload/files/{record['id']}")
    assert r.status_code == 200, r.text
    [gone] = _since(api, changed.id)
    assert gone.event == "media.delete" and gone.entry["id"] == record["id"]


def test_graphql_mutations_make_the_same_events(api: Api) -> None:
    r = api.post(
        "/graphql",
        {
            "query": 'mutation { createTag(data: {name: "g"}) { documentId } '
            'createArticle(data: {title: "G"}, status: DRAFT) { documentId } }'
        },
    )
    assert r.status_code == 200 and "errors" not in r.json(), r.text
    article = r.json()["data"]["createArticle"]["documentId"]
    r = api.post(
        "/graphql",
        {"query": f'mutation {{ deleteArticle(documentId: "{article}") {{ documentId }} }}'},
    )
    assert r.status_code == 200 and "errors" not in r.json(), r.text
    assert [(e.event, e.uid) for e in _since(api, 0)] == [
        ("entry.create", "api::tag.tag"),
        ("entry.create", "api::article.article"),
        ("entry.delete", "api::article.article"),
    ]


def test_a_failing_subscriber_changes_nothing_for_the_write(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    got: list[str] = []

    def broken(event: Event) -> None:
        raise RuntimeError("subscriber broke")

    async def fine(event: Event) -> None:
        got.append(event.event)

    api.folio.events.on("entry.create", broken)
    api.folio.events.on("entry.create", fine)
    api.create("tags", {"name": "a"})
    api.client.portal.call(api.folio.events.drain)  # type: ignore[attr-defined]
    assert got == ["entry.create"]
    assert "subscriber broke" in caplog.text
    with pytest.raises(ValueError, match=r"unknown event 'entry\.created'"):
        api.folio.events.on("entry.created", fine)


def test_a_middleware_cannot_write_inside_the_transaction_it_holds(api: Api) -> None:
    ct = api.folio.registry.content_types["api::tag.tag"]

    async def mw(ctx: Any, next: Any) -> Any:
        result = await next()
        if ctx.action == "create" and ctx.uid == "api::article.article":
            # a write here would wait for the transaction this middleware holds open
            await api.folio.documents.create(ct, {"name": "nested"}, {}, ctx.principal)
        return result

    api.folio.documents.use(mw)
    r = api.post("/api/articles", {"data": {"title": "x"}})
    assert r.status_code == 500, r.text
    assert "cannot write after next()" in r.json()["error"]["message"]
    assert api.get("/api/articles").json()["data"] == []
    assert api.get("/api/tags").json()["data"] == []
    assert _since(api, 0) == []


def test_the_cli_removal_of_a_locale_makes_delete_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = tmp_path / "blog"
    shutil.copytree(FIXTURES / "blog", app)
    url = f"sqlite:///{app / '.tmp' / 'data.db'}"
    for api in make_api(app, url):
        doc = api.create("articles", {"title": "Hello"})["documentId"]
        r = api.put(f"/api/articles/{doc}?locale=fr", {"data": {"title": "Bonjour"}})
        assert r.status_code == 200, r.text
        before = _since(api, 0)[-1].id
    assert main(["locale", "remove", "fr", "--app", str(app), "--force"]) == 0
    for api in make_api(app, url):
        assert sorted(names(_since(api, before))) == [
            ("entry.delete", "draft", "fr"),
            ("entry.delete", "published", "fr"),
        ]


def test_concurrent_writes_reach_subscribers_in_commit_order(api: Api) -> None:
    """Writes running at once, of one document and of many: the subscribers see every
    event once, in the order of the outbox, which is the order of the commits."""
    seen: list[int] = []
    api.folio.events.on("*", lambda event: seen.append(event.id))
    tags = api.folio.registry.content_types["api::tag.tag"]
    articles = api.folio.registry.content_types["api::article.article"]
    doc = api.create("articles", {"title": "Shared"})["documentId"]

    async def burst() -> None:
        docs = api.folio.documents
        writes = [docs.create(tags, {"name": f"t{i}"}, {}, OPEN) for i in range(20)]
        writes += [
            docs.update(articles, doc, {"views": i}, {"status": "draft"}, OPEN) for i in range(20)
        ]
        await asyncio.gather(*writes)
        await docs.events.drain()

    api.client.portal.call(burst)  # type: ignore[attr-defined]
    stored = [e.id for e in _since(api, 0)]
    assert len(stored) == 2 + 20 + 20
    assert seen == stored == sorted(stored)


def test_writes_commit_side_by_side_and_readers_wait_for_the_earlier_id(
    api: Api, backend: str
) -> None:
    """A write that recorded its event and is still open does not hold up another write's
    commit. A reader of the outbox meanwhile never passes the open write's id (it would
    never see it): on PostgreSQL it stops below it, on MySQL it waits for the write to
    end. Once that write commits, the reader gets both events, in id order. (SQLite has
    one writer: a second write cannot commit while the first is open.)"""
    if backend == "sqlite":
        pytest.skip("SQLite has one writer")
    from folio.content.sql import outbox
    from folio.store.program import Pause, Program

    docs = api.folio.documents
    db = docs._db
    before = _since(api, 0)
    after = before[-1].id if before else 0

    def event(name: str) -> Event:
        return Event("entry.create", "api::tag.tag", "tag", name, "en", None, {"name": name})

    async def scenario() -> tuple[list[str | None], list[str | None], list[int]]:
        opened, go = asyncio.Event(), asyncio.Event()

        def first() -> Program:
            yield from outbox.record([event("first")], db.dialect)
            yield Pause(opened.set, lambda: None, go.wait)

        held = asyncio.create_task(db.write(first()))
        await asyncio.wait_for(opened.wait(), 10)
        # commits while the first write is open (it would wait for it forever otherwise)
        await asyncio.wait_for(db.write(outbox.record([event("second")], db.dialect)), 10)
        reader = asyncio.create_task(docs.events_since(after, 10))
        await asyncio.sleep(0.3)
        if backend == "mysql":
            assert not reader.done()  # waiting for the open write
            go.set()
        meanwhile = await asyncio.wait_for(reader, 20)
        go.set()
        await held
        found = await docs.events_since(after, 10)
        return (
            [e.document_id for e in meanwhile],
            [e.document_id for e in found],
            [e.id for e in found],
        )

    meanwhile, found, ids = api.client.portal.call(scenario)  # type: ignore[attr-defined]
    assert meanwhile == ([] if backend == "postgres" else ["first", "second"])
    assert found == ["first", "second"] and ids == sorted(ids)
    assert api.client.portal.call(docs.last_event_id) == ids[-1]  # type: ignore[attr-defined]


PROBES = FIXTURES / "reference" / "webhook-probes.json"


def _probe_entry(step: str, event: str) -> dict[str, Any]:
    steps = json.loads(PROBES.read_text())["steps"]
    [found] = [s for s in steps if s["step"].startswith(step)]
    [body] = [d["body"] for d in found["deliveries"] if d["body"]["event"] == event]
    return dict(body["entry"])


def _shape(value: Any) -> Any:
    """Keys, recursively (lists by their first item): what must match the reference."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items() if k not in ("formats",)}
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return [_shape(v) for v in value]
    return None


def test_a_webhooks_entry_is_shaped_as_the_reference_sends_it(api: Api) -> None:
    """Created as in the reference's probe: the publish event's entry, re-read for the
    webhook, has the same members at every level (relations one level, media, components
    and zones with their media)."""
    pic = upload_one(api, ("pic.png", png(40, 30), "image/png"))["id"]
    note = api.client.post(
        "/api/upload", files=[("files", ("note.txt", b"hello", "text/plain"))]
    ).json()[0]["id"]
    category = api.create("categories", {"name": "News", "slug": "news"})["documentId"]
    tag = api.create("tags", {"name": "t1"})["documentId"]
    author = api.create("authors", {"name": "Ann", "email": "ann@example.com"})["documentId"]
    steps = json.loads(PROBES.read_text())["steps"]
    [probe] = [s for s in steps if s["step"].startswith("create article without status")]
    data = probe["request"]["body"]["data"]
    data.update(
        cover=pic,
        gallery=[pic, note],
        category=category,
        tags=[tag],
        author=author,
        seo={**data["seo"], "shareImage": pic},
        blocks=[data["blocks"][0], {"__component": "shared.media", "file": pic}],
    )
    doc = api.create("articles", data)
    [publish] = [e for e in _since(api, 0) if e.event == "entry.publish"]
    entry = api.client.portal.call(api.folio.documents.event_entry, publish)  # type: ignore[attr-defined]
    expected = _probe_entry("create article without status", "entry.publish")
    assert _shape(orjson.loads(orjson.dumps(entry))) == _shape(expected)
    assert entry["documentId"] == doc["documentId"]
    assert entry["seo"]["shareImage"]["id"] == pic
    # a version replaced since is sent as it was recorded
    r = api.put(f"/api/articles/{doc['documentId']}", {"data": {"title": "Again"}})
    assert r.status_code == 200, r.text
    again = api.client.portal.call(api.folio.documents.event_entry, publish)  # type: ignore[attr-defined]
    assert again == publish.entry
