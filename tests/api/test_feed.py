"""The realtime feed inside one app (folio.feed), driven on the app's own loop while writes
go through HTTP: it runs only while it has subscribers, a subscriber that does not keep up
is ended, a resumed one joins the live fan-out without gap or duplicate, and its settings
are checked at start-up. (The streams themselves are tested under real servers in
test_sse.py.)"""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from folio.app import load_app
from folio.auth.principal import OPEN, Principal
from folio.errors import ConfigError
from folio.feed import Feed, Subscription, Viewer
from folio.feed.base import OVERFLOW
from tests.conftest import FIXTURES, Api, database_url, make_api

WAIT = 30.0


def _app(tmp_path: Path, realtime: Any) -> Path:
    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    api = json.loads((app / "config" / "api.json").read_text())
    api["realtime"] = realtime
    (app / "config" / "api.json").write_text(json.dumps(api))
    return app


@pytest.fixture
def small(backend: str, tmp_path: Path) -> Iterator[Api]:
    """An app whose streams hold at most 3 waiting events."""
    app = _app(tmp_path, {"queueSize": 3})
    yield from make_api(app, database_url(backend, app))


def _call(api: Api, fn: Any, *args: Any) -> Any:
    return api.client.portal.call(fn, *args)  # type: ignore[attr-defined]


def _wait(test: Any) -> None:
    deadline = time.monotonic() + WAIT
    while not test():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _subscribe(api: Api, last_id: int | None = None, principal: Principal = OPEN) -> Subscription:
    sub: Subscription = _call(api, api.folio.feed.subscribe, Viewer(principal), last_id)
    return sub


def test_the_feed_runs_only_while_it_has_subscribers(small: Api) -> None:
    feed: Feed = small.folio.feed
    small.create("categories", {"name": "before"})
    assert not feed._running and feed.outbox_reads == 0  # nothing ran for that write
    sub = _subscribe(small)
    assert feed._running and feed.subscribers == 1
    small.create("categories", {"name": "seen"})
    _wait(lambda: sub.frames)
    assert [f.uid for f in sub.frames] == ["api::category.category"]
    small.client.portal.call(_leave, feed, sub)  # type: ignore[attr-defined]
    assert feed.subscribers == 0


async def _leave(feed: Feed, sub: Subscription) -> None:
    feed.leave(sub)


def test_subscribers_that_start_the_feed_together_start_from_now(small: Api) -> None:
    for i in range(3):
        small.create("categories", {"name": f"old{i}"})
    last = _call(small, small.folio.documents.last_event_id)
    assert last > 0

    async def together() -> list[Subscription]:
        feed = small.folio.feed
        return list(await asyncio.gather(*(feed.subscribe(Viewer(OPEN), None) for _ in range(5))))

    subs: list[Subscription] = _call(small, together)
    assert [s.after for s in subs] == [last] * 5 and all(s.live for s in subs)
    small.create("categories", {"name": "new"})
    _wait(lambda: all(s.frames for s in subs))
    assert {len(s.frames) for s in subs} == {1}


def test_a_subscriber_that_does_not_keep_up_is_ended(small: Api) -> None:
    feed: Feed = small.folio.feed
    slow = _subscribe(small)
    reading = _subscribe(small)
    for i in range(4):
        small.create("categories", {"name": f"c{i}"})
        _wait(lambda i=i: len(reading.frames) == 1)  # type: ignore[misc]
        reading.take()
    _wait(lambda: slow.ended == OVERFLOW)
    assert slow.frames == []  # what it held is let go
    assert feed.subscribers == 1 and reading.ended is None


def test_a_resumed_subscriber_joins_without_gap_or_duplicate(small: Api) -> None:
    first = small.create("categories", {"name": "first"})
    assert first
    events = _call(small, small.folio.documents.events_since, 0, 100)
    start = events[-1].id
    for i in range(5):
        small.create("categories", {"name": f"r{i}"})
    sub = _subscribe(small, start)
    assert not sub.live

    async def replay() -> list[int]:
        ids = []
        async for frames in small.folio.feed.replay(sub):
            ids += [f.id for f in frames]
        return ids

    replayed: list[int] = _call(small, replay)
    assert sub.live
    small.create("categories", {"name": "live"})
    _wait(lambda: sub.frames)
    ids = replayed + [f.id for f in sub.take()]
    every = [e.id for e in _call(small, small.folio.documents.events_since, start, 100)]
    assert ids == every and len(ids) == 6


def test_drafts_and_types_are_filtered_per_subscriber(small: Api) -> None:
    public = Principal(permissions=frozenset({"api::article.article.find"}))
    sub = _subscribe(small, principal=public)
    small.create("articles", {"title": "Hello"})  # a draft, then its published version
    small.create("categories", {"name": "not for it"})
    small.create("articles", {"title": "Again"})
    _wait(lambda: len(sub.frames) == 2)
    assert [(f.uid, f.status) for f in sub.frames] == [("api::article.article", "published")] * 2


@pytest.mark.parametrize(
    ("realtime", "message"),
    [
        ({"heartbeatSeconds": 0}, "heartbeatSeconds must be a number of seconds above 0"),
        ({"maxStreams": -1}, "maxStreams must be a whole number of at least 0"),
        ({"queueSize": "many"}, "queueSize must be a whole number"),
        ({"watch": "sometimes"}, "watch must be one of auto, notify, poll"),
        ({"watch": "notify"}, "this database has no notifications"),
        ({"maxStreamSeconds": -2}, "maxStreamSeconds must be a number of seconds, 0 or more"),
        ("yes", r"realtime must be an object \(or false\)"),
    ],
)
def test_bad_settings_stop_start_up(tmp_path: Path, realtime: Any, message: str) -> None:
    app = _app(tmp_path, realtime)
    with pytest.raises(ConfigError, match=message):
        load_app(app, f"sqlite:///{app / '.tmp' / 'data.db'}")
