"""Events of committed writes: what the outbox records and what `app.events.on`
subscribers see, for every kind of write, through HTTP."""

from __future__ import annotations

from typing import Any

from folio.content.events import Event
from tests.conftest import Api


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
