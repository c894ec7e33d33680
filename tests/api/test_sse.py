"""The realtime feed's event streams (`GET /api/events`, `GET /api/<name>/events`) under real
`folio serve` processes, read with httpx-sse and as raw bytes (what a browser's EventSource
parses): the wire format, who sees what (the public role, API tokens, a user's JWT, drafts,
files, private fields), resuming with Last-Event-ID, heartbeats, the stream limit, shutdown,
and delivery across processes (two servers on one database; `--workers 2`), on SQLite and
PostgreSQL."""

from __future__ import annotations

import json
import os
import queue
import shutil
import socket
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import ServerSentEvent, connect_sse

from tests.api.authapp import reference_permissions
from tests.api.serving import CLEARED, FOLIO, free_port, serving
from tests.api.test_relations import png
from tests.conftest import BACKENDS, FIXTURES, PG_URL, reset_postgres

END = ServerSentEvent(event="__end__")
WAIT = 30.0  # seconds: a generous deadline for anything to arrive (the machine is busy)


# --------------------------------------------------------------------------- the app


def make_app(root: Path, realtime: dict[str, Any] | None = None) -> Path:
    """The blog with the reference's access setup, less the public role's right to find
    tags, and a private field on articles."""
    app = root / "app"
    shutil.copytree(FIXTURES / "blog", app)
    permissions = reference_permissions()
    public = permissions["roles"]["public"]["permissions"]
    permissions["roles"]["public"]["permissions"] = [p for p in public if "api::tag." not in p]
    (app / "config" / "permissions.json").write_text(json.dumps(permissions))
    api = json.loads((app / "config" / "api.json").read_text())
    api["realtime"] = {"heartbeatSeconds": 0.3, **(realtime or {})}
    (app / "config" / "api.json").write_text(json.dumps(api))
    schema = app / "src/api/article/content-types/article/schema.json"
    model = json.loads(schema.read_text())
    model["attributes"]["secretNote"] = {"type": "string", "private": True}
    schema.write_text(json.dumps(model))
    return app


def server_env(backend: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    if backend == "postgres":
        assert PG_URL
        env["DATABASE_URL"] = PG_URL
    return env


def make_token(app: Path, env: dict[str, str], kind: str) -> str:
    created = subprocess.run(
        [*FOLIO, "token", "create", "--name", kind, "--type", kind, "--app", str(app)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return created.stdout.strip().splitlines()[-1]


@dataclass
class Site:
    base: str
    backend: str
    app: Path
    full: str
    read: str
    jwt: str = ""
    written: list[str] = field(default_factory=list)

    def auth(self, token: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"} if token else {}

    def post(self, path: str, data: dict[str, Any], token: str | None = None) -> dict[str, Any]:
        r = httpx.post(
            self.base + path, json={"data": data}, headers=self.auth(token or self.full), timeout=30
        )
        assert r.status_code == 201, r.text
        return dict(r.json()["data"])

    def category(self, name: str) -> dict[str, Any]:
        return self.post("/api/categories", {"name": name})


@pytest.fixture(scope="module", params=BACKENDS)
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    backend = str(request.param)
    app = make_app(tmp_path_factory.mktemp(f"sse-{backend}"))
    if backend == "postgres":
        assert PG_URL
        reset_postgres(PG_URL)
    env = server_env(backend)
    full, read = make_token(app, env, "full-access"), make_token(app, env, "read-only")
    with serving(app, env=env) as base:
        s = Site(base, backend, app, full, read)
        r = httpx.post(
            base + "/api/auth/local/register",
            json={"username": "ann", "email": "ann@example.com", "password": "secret123"},
            timeout=30,
        )
        assert r.status_code == 200, r.text
        s.jwt = r.json()["jwt"]
        yield s


# --------------------------------------------------------------------------- a reader


class Reader:
    """An event stream read with httpx-sse on a thread of its own; events are queued as
    they come (END once the stream ended)."""

    def __init__(
        self,
        url: str,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        params: dict[str, str] | None = None,
    ) -> None:
        self.url = url
        self.headers = {
            **({"Authorization": f"Bearer {token}"} if token else {}),
            **(headers or {}),
        }
        self.params = params
        self.events: queue.Queue[ServerSentEvent] = queue.Queue()
        self.client = httpx.Client(timeout=httpx.Timeout(30, read=60))
        self.response: httpx.Response | None = None
        self.body = b""
        self.error: BaseException | None = None
        self.opened = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            with connect_sse(
                self.client, "GET", self.url, headers=dict(self.headers), params=self.params
            ) as source:
                self.response = source.response
                if source.response.status_code != 200:
                    self.body = source.response.read()
                    return
                self.opened.set()
                for sse in source.iter_sse():
                    self.events.put(sse)
        except BaseException as exc:
            self.error = exc
        finally:
            self.opened.set()
            self.events.put(END)

    @property
    def status(self) -> int:
        self.opened.wait(WAIT)
        assert self.response is not None, self.error
        return self.response.status_code

    def next(self, timeout: float = WAIT) -> ServerSentEvent:
        return self.events.get(timeout=timeout)

    def until(self, test: Callable[[ServerSentEvent], bool]) -> list[ServerSentEvent]:
        """The events up to the first that passes `test` (included)."""
        out = []
        deadline = time.monotonic() + WAIT
        while True:
            sse = self.next(max(0.1, deadline - time.monotonic()))
            assert sse is not END, f"the stream ended before the awaited event: {out}"
            out.append(sse)
            if test(sse):
                return out

    def ready(self) -> tuple[list[ServerSentEvent], ServerSentEvent]:
        """The events sent before `ready` (a resumed stream's), and `ready`."""
        assert self.status == 200, self.body
        events = self.until(lambda e: e.event == "ready")
        return events[:-1], events[-1]

    def close(self) -> None:
        self.client.close()
        self.thread.join(10)


def data(sse: ServerSentEvent) -> dict[str, Any]:
    return dict(json.loads(sse.data))


def is_category(name: str) -> Callable[[ServerSentEvent], bool]:
    return lambda e: e.event.startswith("entry.") and data(e)["entry"].get("name") == name


@pytest.fixture
def readers() -> Iterator[Callable[..., Reader]]:
    made: list[Reader] = []

    def make(*args: Any, **kw: Any) -> Reader:
        reader = Reader(*args, **kw)
        made.append(reader)
        return reader

    yield make
    for reader in made:
        reader.close()


# --------------------------------------------------------------------------- raw bytes


class RawStream:
    """A stream read from a socket, the chunked encoding undone by hand: the bytes an
    EventSource parses."""

    def __init__(self, base: str, path: str, headers: dict[str, str] | None = None) -> None:
        host, port = base.removeprefix("http://").rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=WAIT)
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        self.sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n{extra}\r\n".encode()
        )
        self.raw = b""
        while b"\r\n\r\n" not in self.raw:
            self.raw += self._recv()
        head, _, self.raw = self.raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split()[1])
        self.headers = {k.lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
        self.body = b""

    def _recv(self) -> bytes:
        got = self.sock.recv(65536)
        if not got:
            raise EOFError("the server closed the connection")
        return got

    def read_until(self, needle: bytes) -> bytes:
        """The body (chunked encoding undone) up to and including `needle`."""
        while needle not in self.body:
            while b"\r\n" not in self.raw:
                self.raw += self._recv()
            size_line, _, rest = self.raw.partition(b"\r\n")
            size = int(size_line, 16)
            while len(rest) < size + 2:
                rest += self._recv()
            self.body += rest[:size]
            self.raw = rest[size + 2 :]
            if size == 0:
                raise EOFError(f"the stream ended: {self.body!r}")
        cut = self.body.index(needle) + len(needle)
        out, self.body = self.body[:cut], self.body[cut:]
        return out

    def close(self) -> None:
        self.sock.close()


def parse_blocks(text: str) -> list[dict[str, str]]:
    """SSE blocks as EventSource reads them: fields by name, comment lines dropped."""
    out = []
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")
        if fields:
            out.append(fields)
    return out


# --------------------------------------------------------------------------- tests


def test_wire_format_as_an_event_source_reads_it(site: Site) -> None:
    raw = RawStream(site.base, "/api/categories/events", site.auth(site.full))
    try:
        assert raw.status == 200
        assert raw.headers["content-type"] == "text/event-stream"
        assert raw.headers["cache-control"] == "no-cache"
        assert raw.headers["x-accel-buffering"] == "no"
        assert raw.headers["transfer-encoding"] == "chunked"
        assert "content-length" not in raw.headers
        first = raw.read_until(b"\n\n").decode()
        assert first.startswith("retry: 3000\n")
        [ready] = parse_blocks(first)
        assert ready["event"] == "ready" and json.loads(ready["data"]) == {
            "lastEventId": int(ready["id"])
        }
        doc = site.category("wire")
        block = raw.read_until(b"\n\n").decode()
        while block.startswith(": keep-alive\n"):
            block = block.removeprefix(": keep-alive\n")
        [event] = parse_blocks(block)
        assert int(event["id"]) > int(ready["id"])
        assert event["event"] == "entry.create"
        body = json.loads(event["data"])
        assert set(body) == {
            "event",
            "createdAt",
            "model",
            "uid",
            "documentId",
            "locale",
            "status",
            "entry",
        }
        assert body["event"] == "entry.create"
        assert body["model"] == "category" and body["uid"] == "api::category.category"
        assert body["documentId"] == doc["documentId"]
        assert body["status"] is None  # no Draft & Publish
        assert body["entry"]["name"] == "wire"
        assert body["createdAt"].endswith("Z")
    finally:
        raw.close()


def test_httpx_sse_reads_events_with_ids_and_retry(site: Site, readers: Any) -> None:
    reader = readers(site.base + "/api/events", site.full)
    before, ready = reader.ready()
    assert before == []
    assert ready.retry == 3000
    assert ready.id.isdecimal() and data(ready) == {"lastEventId": int(ready.id)}
    site.category("httpx")
    [event] = reader.until(is_category("httpx"))
    assert event.event == "entry.create" and int(event.id) > int(ready.id)
    assert data(event)["entry"]["name"] == "httpx"


def test_who_sees_what(site: Site, readers: Any) -> None:
    public = readers(site.base + "/api/events")
    full = readers(site.base + "/api/events", site.full)
    read_only = readers(site.base + "/api/events", site.read)
    user = readers(site.base + "/api/events", site.jwt)
    everyone = [public, full, read_only, user]
    for reader in everyone:
        reader.ready()
    article = site.post("/api/articles?status=draft", {"title": "Draft", "secretNote": "psst"})
    site.post("/api/tags", {"name": "hidden-from-public"})
    upload = httpx.post(
        site.base + "/api/upload",
        files={"files": ("pic.png", png(8, 8), "image/png")},
        headers=site.auth(site.full),
        timeout=30,
    )
    assert upload.status_code == 201, upload.text
    published = site.post("/api/articles", {"title": "Published", "secretNote": "psst"})
    site.category("marker")
    seen = {}
    for name, reader in zip(("public", "full", "read", "user"), everyone, strict=True):
        events = reader.until(is_category("marker"))
        seen[name] = [(e.event, data(e)["uid"], data(e)["status"]) for e in events]
        for e in events:
            assert "secretNote" not in data(e)["entry"]
            if e.event.startswith("entry.") and data(e)["uid"] == "api::article.article":
                assert data(e)["documentId"] in (article["documentId"], published["documentId"])
    article_uid, tag_uid, file_uid = "api::article.article", "api::tag.tag", "plugin::upload.file"
    category = ("entry.create", "api::category.category", None)
    every = [
        ("entry.create", article_uid, "draft"),
        ("entry.create", tag_uid, None),
        ("media.create", file_uid, None),
        ("entry.create", article_uid, "draft"),
        ("entry.publish", article_uid, "published"),
        category,
    ]
    assert seen["full"] == every
    # API tokens that may read a type read its drafts; files: find on the upload feature
    assert seen["read"] == every
    # the authenticated role may update (so read drafts) and upload
    assert seen["user"] == every
    # the public role: published versions of the types it may find, no files
    assert seen["public"] == [("entry.publish", article_uid, "published"), category]


def test_one_types_stream(site: Site, readers: Any) -> None:
    categories = readers(site.base + "/api/categories/events")
    categories.ready()
    about = readers(site.base + "/api/about/events", site.full)  # a single type: singular
    about.ready()
    site.post("/api/articles", {"title": "Elsewhere"})
    r = httpx.put(
        site.base + "/api/about",
        json={"data": {"title": "About us"}},
        headers=site.auth(site.full),
        timeout=30,
    )
    assert r.status_code == 200, r.text
    site.category("only-categories")
    events = categories.until(is_category("only-categories"))
    assert [data(e)["uid"] for e in events] == ["api::category.category"]
    [event] = about.until(lambda e: e.event.startswith("entry."))
    assert data(event)["uid"] == "api::about.about" and data(event)["entry"]["title"] == "About us"


@pytest.mark.parametrize(
    ("path", "token", "status", "name"),
    [
        ("/api/tags/events", None, 403, "ForbiddenError"),  # the public role may not find tags
        ("/api/nothing/events", None, 404, "NotFoundError"),
        ("/api/abouts/events", None, 404, "NotFoundError"),  # a single type by its plural
        ("/api/events", "not-a-token", 401, "UnauthorizedError"),
        ("/api/events?lastEventId=abc", None, 400, "ValidationError"),
        ("/api/events?lastEventId=-1", None, 400, "ValidationError"),
        ("/api/events?lastEventId=99999999999999999999", None, 400, "ValidationError"),
    ],
)
def test_refused_streams_answer_the_error_envelope(
    site: Site, path: str, token: str | None, status: int, name: str
) -> None:
    r = httpx.get(
        site.base + path,
        headers={"Accept": "text/event-stream", **site.auth(token)},
        timeout=30,
    )
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert r.json()["error"]["name"] == name


def test_a_bad_last_event_id_header_is_a_400(site: Site) -> None:
    r = httpx.get(
        site.base + "/api/events",
        headers={"Accept": "text/event-stream", "Last-Event-ID": "x1"},
        timeout=30,
    )
    assert r.status_code == 400
    assert r.json()["error"]["name"] == "ValidationError"


def test_the_list_of_a_type_named_events_is_still_served(site: Site) -> None:
    """The blog has a type named `events`: `/api/events` lists it unless the request asks
    for an event stream (as EventSource and httpx-sse do); its own stream is
    `/api/events/events`."""
    r = httpx.get(site.base + "/api/events", timeout=30)
    assert r.status_code == 200 and r.json()["data"] == []
    r = httpx.post(
        site.base + "/api/events", json={"data": {"name": "Conf"}}, headers=site.auth(site.full)
    )
    assert r.status_code == 201, r.text
    document_id = r.json()["data"]["documentId"]
    r = httpx.get(
        site.base + f"/api/events/{document_id}?status=draft", headers=site.auth(site.full)
    )
    assert r.status_code == 200, r.text


def test_the_stream_of_a_type_named_events(site: Site, readers: Any) -> None:
    reader = readers(site.base + "/api/events/events", site.full)
    reader.ready()
    site.post("/api/events", {"name": "Meetup"})
    site.category("after-meetup")
    events = reader.until(lambda e: e.event == "entry.publish")
    assert [data(e)["uid"] for e in events] == ["api::event.event"] * 2


def test_resume_sends_what_was_missed_then_goes_live(site: Site, readers: Any) -> None:
    watcher = readers(site.base + "/api/categories/events", site.full)
    watcher.ready()
    for name in ("r1", "r2", "r3"):
        site.category(name)
    seen = watcher.until(is_category("r3"))
    ids = [int(e.id) for e in seen]
    # resumed after r1, with the header
    resumed = readers(
        site.base + "/api/categories/events", site.full, headers={"Last-Event-ID": str(ids[0])}
    )
    before, ready = resumed.ready()
    assert [int(e.id) for e in before] == ids[1:]
    assert [data(e)["entry"]["name"] for e in before] == ["r2", "r3"]
    assert int(ready.id) >= ids[-1]
    site.category("r4")
    [live] = resumed.until(is_category("r4"))
    assert int(live.id) > ids[-1]
    # with the query parameter; the header wins over it (an EventSource reconnecting sends
    # the header, with the URL it was made with)
    by_query = readers(
        site.base + "/api/categories/events", site.full, params={"lastEventId": str(ids[1])}
    )
    before, _ = by_query.ready()
    assert [int(e.id) for e in before] == [*ids[2:], int(live.id)]
    both = readers(
        site.base + "/api/categories/events",
        site.full,
        headers={"Last-Event-ID": str(ids[2])},
        params={"lastEventId": str(ids[0])},
    )
    before, _ = both.ready()
    assert [int(e.id) for e in before] == [int(live.id)]


def test_resume_under_writes_has_no_gap_and_no_duplicate(site: Site, readers: Any) -> None:
    reference = readers(site.base + "/api/categories/events", site.full)
    _, start = reference.ready()
    names = [f"w{i}" for i in range(40)]
    writer = threading.Thread(target=lambda: [site.category(n) for n in names])
    writer.start()
    try:
        # joins while the writes go on: some are replayed, the rest come live
        got = reference.until(is_category("w10"))
        resumed = readers(
            site.base + "/api/categories/events", site.full, headers={"Last-Event-ID": start.id}
        )
        events = [e for e in resumed.until(is_category("w39")) if e.event != "ready"]
        got += reference.until(is_category("w39"))
    finally:
        writer.join()
    assert [data(e)["entry"]["name"] for e in events] == names
    assert [e.id for e in events] == [e.id for e in got]
    assert [int(e.id) for e in events] == sorted({int(e.id) for e in events})


def _delete_events_up_to(site: Site, last: int) -> None:
    """Prunes the outbox by hand, as its retention would."""
    if site.backend == "postgres":
        import asyncio

        import asyncpg

        async def run() -> None:
            conn = await asyncpg.connect(PG_URL)
            try:
                await conn.execute("DELETE FROM folio_events WHERE id <= $1", last)
            finally:
                await conn.close()

        asyncio.run(run())
        return
    with sqlite3.connect(site.app / ".tmp" / "data.db") as db:
        db.execute("DELETE FROM folio_events WHERE id <= ?", (last,))


def test_an_id_that_cannot_be_resumed_is_answered_reset(site: Site, readers: Any) -> None:
    watcher = readers(site.base + "/api/categories/events", site.full)
    watcher.ready()
    site.category("p1")
    site.category("p2")
    seen = watcher.until(is_category("p2"))
    first, second = int(seen[0].id), int(seen[1].id)
    _delete_events_up_to(site, first)
    # right after the pruned ones: nothing was lost
    ok = readers(
        site.base + "/api/categories/events", site.full, params={"lastEventId": str(first)}
    )
    before, _ = ok.ready()
    assert [int(e.id) for e in before] == [second]
    # before them: a gap
    gone = readers(
        site.base + "/api/categories/events", site.full, params={"lastEventId": str(first - 1)}
    )
    reset = gone.next()
    assert reset.event == "reset"
    assert data(reset)["lastEventId"] == first - 1
    assert data(reset)["oldestEventId"] is not None and data(reset)["oldestEventId"] > first
    assert int(reset.id) == data(reset)["resumeFrom"]
    before, ready = gone.ready()
    assert before == [] and int(ready.id) >= second
    # an id never given (another database)
    future = readers(
        site.base + "/api/categories/events", site.full, params={"lastEventId": "9" * 15}
    )
    reset = future.next()
    assert reset.event == "reset" and data(reset)["oldestEventId"] is None
    site.category("p3")
    assert future.until(is_category("p3"))[-1].event == "entry.create"


def test_a_stream_ends_when_its_token_is_revoked(site: Site, readers: Any) -> None:
    env = server_env(site.backend)
    command = ["token", "create", "--name", "short-lived", "--type", "read-only"]
    created = subprocess.run(
        [*FOLIO, *command, "--app", str(site.app)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    token = created.stdout.strip().splitlines()[-1]
    token_id = created.stderr.split("Created API token ", 1)[1].split()[0]
    reader = readers(site.base + "/api/events", token)
    reader.ready()
    subprocess.run(
        [*FOLIO, "token", "revoke", token_id, "--app", str(site.app)],
        env=env,
        check=True,
        capture_output=True,
    )
    # another process revoked it: the server sees it once its cached answer expires (a
    # few seconds), at the stream's next check
    while (sse := reader.next()) is not END:
        assert sse.event != "ready"
    assert reader.error is None
    r = httpx.get(site.base + "/api/events", headers=site.auth(token), timeout=30)
    assert r.status_code == 401


def test_heartbeat_keeps_an_idle_stream_talking(site: Site) -> None:
    raw = RawStream(site.base, "/api/categories/events")
    try:
        raw.read_until(b"event: ready")
        raw.read_until(b"\n\n")
        # heartbeatSeconds is 0.3 in this app: a few come while nothing is written
        for _ in range(3):
            assert raw.read_until(b"\n") == b": keep-alive\n"
    finally:
        raw.close()


def test_head_answers_the_headers_only(site: Site) -> None:
    r = httpx.head(site.base + "/api/categories/events", timeout=30)
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/event-stream"
    assert r.content == b""


# --------------------------------------------------------------------------- own servers


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "postgres":
        assert PG_URL
        reset_postgres(PG_URL)
    return str(request.param)


def test_stream_limit_answers_503_and_leaves_no_trace(
    tmp_path: Path, backend: str, readers: Any
) -> None:
    app = make_app(tmp_path, {"maxStreams": 2})
    with serving(app, env=server_env(backend)) as base:
        first, second = readers(base + "/api/categories/events"), readers(base + "/api/events")
        first.ready()
        second.ready()
        r = httpx.get(base + "/api/events", headers={"Accept": "text/event-stream"}, timeout=30)
        assert r.status_code == 503
        assert r.headers["retry-after"] == "5"
        assert r.json()["error"]["name"] == "ServiceUnavailableError"
        first.close()
        second.close()
        # the server sees both leave; then two streams fit again
        deadline = time.monotonic() + WAIT
        while True:
            again = [readers(base + "/api/events") for _ in range(2)]
            if all(a.status == 200 for a in again):
                break
            assert time.monotonic() < deadline, "closed streams were not let go"
            for a in again:
                a.close()
            time.sleep(0.2)


def test_the_servers_timeouts_leave_streams_alone(tmp_path: Path, readers: Any) -> None:
    """A stream is a request without a body whose answer lasts: the headers, body and
    keep-alive timeouts of the server (1 s each here) never cut it."""
    app = make_app(tmp_path, {"heartbeatSeconds": 0.5})
    (app / "config" / "server.json").write_text(
        json.dumps({"timeouts": {"headers": 1, "body": 1, "keepAlive": 1}})
    )
    env = server_env("sqlite")
    token = make_token(app, env, "full-access")
    with serving(app, env=env) as base:
        reader = readers(base + "/api/categories/events")
        reader.ready()
        raw = RawStream(base, "/api/categories/events")
        try:
            raw.read_until(b"event: ready")
            time.sleep(3.5)
            r = httpx.post(
                base + "/api/categories",
                json={"data": {"name": "still-here"}},
                headers={"Authorization": f"Bearer {token}"},
                timeout=30,
            )
            assert r.status_code == 201, r.text
            assert reader.until(is_category("still-here"))
            assert b"still-here" in raw.read_until(b'"name":"still-here"')
        finally:
            raw.close()


def test_shutdown_ends_open_streams_cleanly(tmp_path: Path, backend: str) -> None:
    app = make_app(tmp_path, {"heartbeatSeconds": 60})
    env = server_env(backend)
    base = f"http://127.0.0.1:{free_port()}"
    log = (tmp_path / "server.log").open("wb")
    proc = subprocess.Popen(
        [*FOLIO, "serve", str(app), "--port", base.rsplit(":", 1)[1]],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + WAIT
        while True:
            try:
                if httpx.get(base + "/_health", timeout=2).status_code == 204:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        reader = Reader(base + "/api/events")
        reader.ready()
        proc.terminate()
        # the stream ends (the server's last chunk, no error), and so does the server
        assert reader.next() is END
        assert reader.error is None
        # uvicorn ends by raising the signal again once it has shut down
        assert proc.wait(WAIT) in (0, -15)
        reader.close()
        assert "Application shutdown complete" in (tmp_path / "server.log").read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()


def test_a_write_through_one_server_reaches_the_subscribers_of_another(
    tmp_path: Path, backend: str, readers: Any
) -> None:
    """Two `folio serve` processes on one database: SQLite's feed polls the outbox,
    PostgreSQL's listens to its notifications."""
    app = make_app(tmp_path)
    env = server_env(backend)
    token = make_token(app, env, "full-access")
    with serving(app, env=env) as one, serving(app, env=env, log=tmp_path / "two.log") as two:
        other = readers(two + "/api/categories/events")
        other.ready()
        r = httpx.post(
            one + "/api/categories",
            json={"data": {"name": "across"}},
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
        )
        assert r.status_code == 201, r.text
        [event] = other.until(is_category("across"))
        assert event.event == "entry.create"


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(c) for c in text]
    return found


def _serving_pid(port: int, client_port: int, pids: list[int]) -> int | None:
    """The worker process that holds the server side of the connection from `client_port`."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            parts = line.split()
            local, remote = parts[1], parts[2]
            if int(local.rsplit(":", 1)[1], 16) == port and (
                int(remote.rsplit(":", 1)[1], 16) == client_port
            ):
                inodes.add(parts[9])
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                return pid
    return None


def test_workers_of_one_server_see_each_others_writes(tmp_path: Path, backend: str) -> None:
    """`folio serve --workers 2`: subscribers on both worker processes (found from the
    connections' sockets) get a write made through either."""
    app = make_app(tmp_path)
    env = server_env(backend)
    token = make_token(app, env, "full-access")
    port = free_port()
    log = (tmp_path / "server.log").open("wb")
    proc = subprocess.Popen(
        [*FOLIO, "serve", str(app), "--port", str(port), "--workers", "2"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    streams: list[tuple[RawStream, int]] = []
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + WAIT
        workers: list[int] = []
        while True:
            try:
                workers = _children(proc.pid)
                started = (tmp_path / "server.log").read_text().count("startup complete")
                if started >= 2 and httpx.get(base + "/_health").status_code == 204:
                    break
            except (httpx.HTTPError, OSError):
                pass
            assert time.monotonic() < deadline and proc.poll() is None, "did not start"
            time.sleep(0.1)
        # subscribers until each worker holds one (the kernel picks the worker)
        while len({pid for _, pid in streams}) < 2:
            assert time.monotonic() < deadline and len(streams) < 200, "one worker took all"
            raw = RawStream(base, "/api/categories/events")
            raw.read_until(b"event: ready")
            pid = _serving_pid(port, raw.sock.getsockname()[1], workers)
            assert pid is not None
            streams.append((raw, pid))
        for name in ("across-1", "across-2", "across-3", "across-4"):
            r = httpx.post(
                base + "/api/categories",
                json={"data": {"name": name}},
                headers={"Authorization": f"Bearer {token}"},
                timeout=30,
            )
            assert r.status_code == 201, r.text
        for raw, _ in streams:
            text = raw.read_until(b'"name":"across-4"').decode()
            assert [n in text for n in ("across-1", "across-2", "across-3")] == [True] * 3
    finally:
        for raw, _ in streams:
            raw.close()
        proc.terminate()
        proc.wait(WAIT)
        log.close()


def _listening_sessions(port: int | None = None) -> int:
    """The listening sessions open on the test database (of the server on `port` only,
    when given: other servers on it have theirs)."""
    import asyncio

    import asyncpg

    async def run() -> list[int]:
        conn = await asyncpg.connect(PG_URL)
        try:
            rows = await conn.fetch(
                "SELECT client_port FROM pg_stat_activity "
                "WHERE application_name = 'folio-listen' AND datname = current_database()"
            )
            return [int(r[0]) for r in rows]
        finally:
            await conn.close()

    ports = asyncio.run(run())
    if port is None:
        return len(ports)
    mine = _local_ports(_listener_pid(port))
    return len([p for p in ports if p in mine])


def _tcp_table() -> list[list[str]]:
    rows = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        rows += [line.split() for line in Path(table).read_text().splitlines()[1:]]
    return rows


def _socket_inodes(pid: int) -> set[str]:
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            found.add(target[8:-1])
    return found


def _listener_pid(port: int) -> int:
    """The process listening on `port` (state 0A: LISTEN)."""
    inodes = {
        r[9] for r in _tcp_table() if r[3] == "0A" and int(r[1].rsplit(":", 1)[1], 16) == port
    }
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if _socket_inodes(int(entry.name)) & inodes:
                    return int(entry.name)
            except OSError:
                continue
    raise AssertionError(f"no process listens on {port}")


def _local_ports(pid: int) -> set[int]:
    """The local ports of the TCP connections of process `pid`."""
    inodes = _socket_inodes(pid)
    return {int(r[1].rsplit(":", 1)[1], 16) for r in _tcp_table() if r[9] in inodes}


@pytest.mark.skipif(not PG_URL, reason="PostgreSQL only (FOLIO_TEST_DATABASE_URL)")
def test_a_server_without_subscribers_listens_to_nothing(tmp_path: Path) -> None:
    """The feed's listening session opens with the first subscriber and closes a few
    seconds after the last one left (the one session that stays is the change messages'
    between processes, folio.broadcast)."""
    reset_postgres(PG_URL or "")
    app = make_app(tmp_path)
    with serving(app, env=server_env("postgres")) as base:
        httpx.get(base + "/api/categories", timeout=30)
        port = int(base.rsplit(":", 1)[1])
        deadline = time.monotonic() + WAIT
        while _listening_sessions(port) != 1:
            assert time.monotonic() < deadline, "not the change messages' session alone"
            time.sleep(0.1)
        reader = Reader(base + "/api/events")
        reader.ready()
        while _listening_sessions(port) != 2:
            assert time.monotonic() < deadline, "no listening session"
            time.sleep(0.1)
        reader.close()
        while _listening_sessions(port) != 1:
            assert time.monotonic() < deadline, "the listening session stayed"
            time.sleep(0.2)


@pytest.mark.skipif(not PG_URL, reason="PostgreSQL only (FOLIO_TEST_DATABASE_URL)")
def test_a_lost_listening_session_is_reopened(tmp_path: Path, readers: Any) -> None:
    """The listening connection of a server is terminated: it reconnects, and reads what
    was committed meanwhile."""
    assert PG_URL
    reset_postgres(PG_URL)
    app = make_app(tmp_path)
    env = server_env("postgres")
    token = make_token(app, env, "full-access")

    def write(base: str, name: str) -> None:
        r = httpx.post(
            base + "/api/categories",
            json={"data": {"name": name}},
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
        )
        assert r.status_code == 201, r.text

    def terminate_listeners() -> int:
        import asyncio

        import asyncpg

        async def run() -> int:
            conn = await asyncpg.connect(PG_URL)
            try:
                rows = await conn.fetch(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = 'folio-listen' AND datname = current_database()"
                )
                return len(rows)
            finally:
                await conn.close()

        return asyncio.run(run())

    with serving(app, env=env) as one, serving(app, env=env, log=tmp_path / "two.log") as two:
        other = readers(two + "/api/categories/events")
        other.ready()
        write(one, "before")
        other.until(is_category("before"))
        assert terminate_listeners() >= 1
        write(one, "meanwhile")
        write(one, "after")
        names = [data(e)["entry"]["name"] for e in other.until(is_category("after"))]
        assert names == ["meanwhile", "after"]


# --------------------------------------------------------------------------- OpenAPI


def _operation(document: dict[str, Any], path: str) -> dict[str, Any]:
    return dict(document["paths"][path]["get"])


def test_the_streams_in_the_openapi_document(site: Site, readers: Any) -> None:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    document = httpx.get(site.base + "/openapi.json", timeout=30).json()
    operation = _operation(document, "/api/categories/events")
    assert operation["operationId"] == "streamCategoryEvents"
    assert set(operation["responses"]) == {"200", "400", "401", "403", "503"}
    assert list(operation["responses"]["200"]["content"]) == ["text/event-stream"]
    assert {p["name"] for p in operation["parameters"]} == {"Last-Event-ID", "lastEventId"}
    assert "/api/about/events" in document["paths"]  # a single type, by its singular
    # the blog's type named `events` keeps `/api/events` (its stream: /api/events/events)
    assert _operation(document, "/api/events")["operationId"] != "streamEvents"
    assert "/api/events/events" in document["paths"]
    # what a stream sends matches the schemas
    registry: Registry = Registry().with_resource(
        "urn:folio", Resource.from_contents(document, default_specification=DRAFT202012)
    )
    schemas = "urn:folio#/components/schemas/"
    frame = Draft202012Validator({"$ref": schemas + "StreamFrame"}, registry=registry)
    change = Draft202012Validator({"$ref": schemas + "StreamEvent"}, registry=registry)
    ready_data = Draft202012Validator({"$ref": schemas + "StreamReady"}, registry=registry)
    reader = readers(site.base + "/api/categories/events", site.full)
    _, ready = reader.ready()
    site.category("documented")
    [event] = reader.until(is_category("documented"))
    for sse, data_schema in ((ready, ready_data), (event, change)):
        frame.validate({"event": sse.event, "data": sse.data, "id": sse.id})
        data_schema.validate(data(sse))


def test_the_stream_of_every_type_is_documented_where_no_type_takes_its_name(
    tmp_path: Path,
) -> None:
    from tests.conftest import make_api

    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    shutil.rmtree(app / "src" / "api" / "event")
    for api in make_api(app, f"sqlite:///{app / '.tmp' / 'data.db'}"):
        document = api.get("/openapi.json").json()
        operation = _operation(document, "/api/events")
        assert operation["operationId"] == "streamEvents"
        assert set(operation["responses"]) == {"200", "400", "401", "503"}
        assert "/api/events/events" not in document["paths"]


def test_streams_can_be_turned_off(tmp_path: Path) -> None:
    from tests.conftest import make_api

    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    shutil.rmtree(app / "src" / "api" / "event")
    config = json.loads((app / "config" / "api.json").read_text())
    (app / "config" / "api.json").write_text(json.dumps({**config, "realtime": False}))
    for api in make_api(app, f"sqlite:///{app / '.tmp' / 'data.db'}"):
        assert api.get("/api/events").status_code == 404
        assert api.get("/api/categories/events").status_code == 404
        document = api.get("/openapi.json").json()
        assert not [p for p in document["paths"] if p.endswith("/events")]


@pytest.mark.skipif(not PG_URL, reason="PostgreSQL only (FOLIO_TEST_DATABASE_URL)")
def test_streams_outlive_an_outage_of_the_database(tmp_path: Path, readers: Any) -> None:
    """The subscribers' server loses its database (a relay of the test's own is cut) while
    another server keeps writing: the streams stay open, and once the database is back,
    what was written meanwhile arrives, in order."""
    from urllib.parse import urlsplit

    from tests.api.test_db_outage import _admin
    from tests.hostile.relay import TcpProxy

    assert PG_URL
    parts = urlsplit(PG_URL)
    name = f"folio_sse_outage_{os.getpid()}"
    _admin(f"DROP DATABASE IF EXISTS {name}")
    _admin(f"CREATE DATABASE {name}")
    relay = TcpProxy((parts.hostname or "127.0.0.1", parts.port or 5432))
    relay.start()
    user = f"{parts.username}@" if parts.username else ""
    direct = f"postgresql://{user}{parts.hostname}:{parts.port or 5432}/{name}"
    relayed = f"postgresql://{user}127.0.0.1:{relay.port}/{name}"
    app = make_app(tmp_path)
    env = server_env("sqlite")
    token = make_token(app, {**env, "DATABASE_URL": direct}, "full-access")
    try:
        with (
            serving(app, env={**env, "DATABASE_URL": direct}) as writer,
            serving(app, env={**env, "DATABASE_URL": relayed}, log=tmp_path / "two.log") as two,
        ):

            def write(name: str) -> None:
                r = httpx.post(
                    writer + "/api/categories",
                    json={"data": {"name": name}},
                    headers={"Authorization": f"Bearer {token}"},
                    timeout=30,
                )
                assert r.status_code == 201, r.text

            reader = readers(two + "/api/categories/events")
            reader.ready()
            write("before")
            reader.until(is_category("before"))
            relay.stop()
            write("during-1")
            write("during-2")
            time.sleep(1.0)  # the heartbeats go on meanwhile (0.3 s)
            relay.start()
            write("after")
            names = [data(e)["entry"]["name"] for e in reader.until(is_category("after"))]
            assert names == ["during-1", "during-2", "after"]
        log = (tmp_path / "two.log").read_text()
        assert "lost the notifications of folio_events" in log
        assert "Traceback" not in log
    finally:
        relay.stop()
        _admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
