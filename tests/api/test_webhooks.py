"""Webhooks through HTTP, with a real receiver process: every event kind from REST,
GraphQL, uploads and the CLI reaches it with the reference's body and headers plus the
signature; the admin API; retries, order, disabled webhooks, a receiver that hangs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from folio.auth.principal import OPEN
from folio.cli.main import main
from folio.webhooks import verify
from tests.api.test_relations import png, upload_one
from tests.api.webhook_helpers import Receiver, receiver
from tests.conftest import Api, database_url, failed, make_api

ADMIN_KEY = "webhook-admin-key"
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}
SECRET = "config-secret-value"
# small waits, so that retries take a fraction of a second
FAST = {
    "backoff": 0.05,
    "maxBackoff": 0.2,
    "pollInterval": 0.1,
    "timeout": 5,
    "maxAttempts": 4,
    "defaultHeaders": {"X-Default": "from-server", "X-Shared": "default"},
}


@dataclass
class Site:
    api: Api
    receiver: Receiver
    app: Path
    url: str

    def received(self, path: str = "/site") -> list[dict[str, Any]]:
        return self.receiver.requests(path)

    def wait(self, n: int, path: str = "/site", timeout: float = 30) -> list[dict[str, Any]]:
        """The requests to `path`, once there are `n` of them."""
        return self.receiver.wait_count(n, path, timeout)

    def admin(self, method: str, path: str, body: Any = None) -> Any:
        kw: dict[str, Any] = {"headers": ADMIN}
        if body is not None:
            kw["json"] = body
        return self.api.client.request(method, "/admin/webhooks" + path, **kw)


def configure(
    app: Path, rec: Receiver, hooks: list[dict[str, Any]] | None = None, **server: Any
) -> None:
    config = app / "config"
    if hooks is None:
        hooks = [
            {
                "name": "site",
                "url": rec.url("/site"),
                "headers": {"X-Site": "yes", "X-Shared": "webhook"},
                "secret": SECRET,
            }
        ]
    (config / "webhooks.json").write_text(json.dumps({"webhooks": hooks}))
    (config / "server.json").write_text(json.dumps({"webhooks": {**FAST, **server}}))
    (config / "admin.json").write_text(json.dumps({"auth": {"keys": [ADMIN_KEY]}}))


@pytest.fixture
def site(backend: str, app_dir: Path, tmp_path: Path) -> Iterator[Site]:
    with receiver(tmp_path) as rec:
        configure(app_dir, rec)
        url = database_url(backend, app_dir)
        for api in make_api(app_dir, url):
            yield Site(api, rec, app_dir, url)


def ids(requests: list[dict[str, Any]]) -> list[int]:
    return [int(r["headers"]["x-folio-event-id"]) for r in requests]


def names(requests: list[dict[str, Any]]) -> list[str]:
    return [r["json"]["event"] for r in requests]


def check_delivery(request: dict[str, Any], secret: str | None = SECRET) -> None:
    """The reference's headers and body shape, plus the signature."""
    headers = request["headers"]
    body = request["json"]
    assert headers["content-type"] == "application/json"
    assert headers["x-strapi-event"] == body["event"]
    assert headers["x-default"] == "from-server"
    if secret is not None:
        assert verify(
            secret,
            request["body"].encode(),
            headers["x-folio-timestamp"],
            headers["x-folio-signature"],
        )
    assert body["createdAt"].endswith("Z")
    if body["event"] == "trigger-test":
        assert list(body) == ["event", "createdAt"]
    elif body["event"].startswith("media."):
        assert list(body) == ["event", "createdAt", "media"]
    else:
        assert list(body) == ["event", "createdAt", "model", "uid", "entry"]


def test_every_event_kind_reaches_the_receiver_signed(site: Site) -> None:
    api = site.api
    doc = api.create("articles", {"title": "Hello", "slug": "hello"})
    r = api.put(f"/api/articles/{doc['documentId']}", {"data": {"title": "Hello 2"}})
    assert r.status_code == 200, r.text
    ct = api.folio.registry.content_types["api::article.article"]
    portal = api.client.portal  # type: ignore[attr-defined]
    portal.call(api.folio.documents.unpublish, ct, doc["documentId"], {}, OPEN)
    r = api.delete(f"/api/articles/{doc['documentId']}")
    assert r.status_code == 204, r.text
    got = site.wait(6)
    assert names(got) == [
        "entry.create",
        "entry.publish",
        "entry.update",
        "entry.publish",
        "entry.unpublish",
        "entry.delete",
    ]
    for request in got:
        check_delivery(request)
        assert request["headers"]["x-site"] == "yes"
        # the webhook's own header wins over the default of the same name
        assert request["headers"]["x-shared"] == "webhook"
    create = got[0]["json"]
    assert create["model"] == "article" and create["uid"] == "api::article.article"
    assert create["entry"]["documentId"] == doc["documentId"]
    assert create["entry"]["title"] == "Hello" and create["entry"]["publishedAt"] is None
    # as the reference: relations, media and components populated (empty here)
    assert (create["entry"]["category"], create["entry"]["tags"]) == (None, [])
    assert "seo" in create["entry"] and "cover" in create["entry"]
    # an update's draft carries the title it was given, whatever came after
    assert got[2]["json"]["entry"]["title"] == "Hello 2"
    assert got[1]["json"]["entry"]["publishedAt"] is not None
    assert ids(got) == sorted(ids(got)) and len(set(ids(got))) == len(got)
    # media, from the upload routes
    record = upload_one(api, ("a.png", png(20, 10), "image/png"))
    r = api.client.post(
        f"/api/upload?id={record['id']}",
        data={"fileInfo": json.dumps({"alternativeText": "alt"})},
        files={"unused": ("", b"", "text/plain")},
    )
    assert r.status_code == 200, r.text
    r = api.client.delete(f"/api/upload/files/{record['id']}")
    assert r.status_code == 200, r.text
    media = site.wait(9)[6:]
    assert names(media) == ["media.create", "media.update", "media.delete"]
    for request in media:
        check_delivery(request)
        assert request["json"]["media"]["id"] == record["id"]
    assert media[1]["json"]["media"]["alternativeText"] == "alt"
    # GraphQL
    r = api.post(
        "/graphql",
        {"query": 'mutation { createTag(data: {name: "g"}) { documentId } }'},
    )
    assert r.status_code == 200 and "errors" not in r.json(), r.text
    tag = r.json()["data"]["createTag"]["documentId"]
    r = api.post(
        "/graphql",
        {"query": f'mutation {{ deleteTag(documentId: "{tag}") {{ documentId }} }}'},
    )
    assert r.status_code == 200 and "errors" not in r.json(), r.text
    graph = site.wait(11)[9:]
    assert [(x["json"]["event"], x["json"]["uid"]) for x in graph] == [
        ("entry.create", "api::tag.tag"),
        ("entry.delete", "api::tag.tag"),
    ]


def test_users_and_failed_writes_send_nothing(site: Site) -> None:
    api = site.api
    r = api.post(
        "/api/auth/local/register",
        {"username": "ann", "email": "ann@example.com", "password": "secret123"},
    )
    assert r.status_code == 200, r.text
    r = api.post("/api/articles", {"data": {"title": 5}})
    assert r.status_code == 400
    api.create("tags", {"name": "after"})
    [only] = site.wait(1)
    assert only["json"]["uid"] == "api::tag.tag"


def test_the_cli_removal_of_a_locale_reaches_the_receiver(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", site.url)
    api = site.api
    doc = api.create("articles", {"title": "Hello"})["documentId"]
    r = api.put(f"/api/articles/{doc}?locale=fr", {"data": {"title": "Bonjour"}})
    assert r.status_code == 200, r.text
    site.wait(4)
    # another process (the CLI) deletes; the server's worker finds its events
    assert main(["locale", "remove", "fr", "--app", str(site.app), "--force"]) == 0
    got = site.wait(6)
    assert sorted((x["json"]["event"], x["json"]["entry"]["locale"]) for x in got[4:]) == [
        ("entry.delete", "fr"),
        ("entry.delete", "fr"),
    ]
    for request in got[4:]:
        check_delivery(request)


def test_retries_until_the_receiver_recovers_and_every_attempt_is_recorded(site: Site) -> None:
    site.receiver.control("/site", fail=2)
    api = site.api
    api.create("tags", {"name": "one"})
    api.create("tags", {"name": "two"})
    got = site.wait(4)
    assert [r["status"] for r in got] == [500, 500, 200, 200]
    # the second event waited for the first
    assert ids(got) == [1, 1, 1, 2]
    assert len({r["headers"]["x-folio-timestamp"] for r in got}) >= 1
    r = site.admin("GET", "/config:site/deliveries")
    assert r.status_code == 200, r.text
    records = _wait_records(site, "config:site", 4)
    assert [(d["eventId"], d["attempt"], d["status"], d["statusCode"]) for d in records] == [
        (2, 1, "delivered", 200),
        (1, 3, "delivered", 200),
        (1, 2, "retry", 500),
        (1, 1, "retry", 500),
    ]
    assert records[-1]["error"] == "receiver says no"
    assert all(d["durationMs"] >= 0 and d["webhookName"] == "site" for d in records)


def test_a_late_delivery_sends_the_values_of_its_own_event(site: Site) -> None:
    site.receiver.control("/site", fail=2)
    api = site.api
    doc = api.create("articles", {"title": "First"}, "?status=draft")["documentId"]
    r = api.put(f"/api/articles/{doc}?status=draft", {"data": {"title": "Second"}})
    assert r.status_code == 200, r.text
    delivered = [r for r in site.wait(4) if r["status"] == 200]
    assert [(r["json"]["event"], r["json"]["entry"]["title"]) for r in delivered] == [
        ("entry.create", "First"),
        ("entry.update", "Second"),
    ]
    assert all(r["json"]["entry"]["tags"] == [] for r in delivered)


def _wait_records(site: Site, webhook: str, n: int, query: str = "") -> list[dict[str, Any]]:
    import time

    deadline = time.monotonic() + 30
    while True:
        r = site.admin("GET", f"/{webhook}/deliveries{query}")
        assert r.status_code == 200, r.text
        data: list[dict[str, Any]] = r.json()["data"]
        if len(data) >= n or time.monotonic() > deadline:
            return data
        time.sleep(0.05)


def test_a_delivery_given_up_is_listed_failed_and_can_be_redelivered(site: Site) -> None:
    site.receiver.control("/site", fail=4)
    api = site.api
    api.create("tags", {"name": "lost"})
    api.create("tags", {"name": "next"})
    got = site.wait(5)
    # four attempts at the first event (maxAttempts), then the next one
    assert [(r["status"], r["headers"]["x-folio-event-id"]) for r in got] == [
        (500, "1"),
        (500, "1"),
        (500, "1"),
        (500, "1"),
        (200, "2"),
    ]
    [gone] = _wait_records(site, "config:site", 1, "?status=failed")
    assert (gone["eventId"], gone["attempt"], gone["status"]) == (1, 4, "failed")
    r = site.admin("POST", f"/config:site/deliveries/{gone['id']}/redeliver")
    assert r.status_code == 201, r.text
    again = r.json()["data"]
    assert again["status"] == "delivered" and again["redeliveryOf"] == gone["id"]
    assert again["eventId"] == 1 and again["statusCode"] == 200
    last = site.wait(6)[-1]
    assert last["headers"]["x-folio-event-id"] == "1" and last["json"]["entry"]["name"] == "lost"
    check_delivery(last)
    r = site.admin("POST", "/config:site/deliveries/999999/redeliver")
    failed(r, 404, "NotFoundError")


def test_pruning_keeps_the_events_an_enabled_webhook_is_owed(site: Site) -> None:
    api = site.api
    api.create("tags", {"name": "delivered"})
    _wait_records(site, "config:site", 1)
    site.receiver.control("/site", fail=1000)
    api.create("tags", {"name": "owed"})
    api.create("tags", {"name": "waiting"})
    site.receiver.wait_for(lambda got: any(r["status"] == 500 for r in got), "/site")
    portal = api.client.portal  # type: ignore[attr-defined]
    later = "9999-01-01T00:00:00.000Z"
    pruned = portal.call(api.folio.webhooks.prune, ["config:site"], later)
    assert pruned[0] == 1 and pruned[1] >= 1
    kept = portal.call(api.folio.documents.events_since, 0, 100)
    assert [(e.id, e.entry["name"]) for e in kept] == [(2, "owed"), (3, "waiting")]
    # events owed to no enabled webhook go
    assert portal.call(api.folio.webhooks.prune, [], later)[0] == 2
    assert portal.call(api.folio.documents.events_since, 0, 100) == []


def test_disabled_webhooks_get_nothing_and_enabling_starts_from_now(site: Site) -> None:
    made = site.admin(
        "POST",
        "",
        {
            "name": "off",
            "url": site.receiver.url("/off"),
            "headers": {},
            "events": ["entry.create"],
        },
    )
    assert made.status_code == 201, made.text
    hook = made.json()["data"]
    body = {k: hook[k] for k in ("name", "url", "headers", "events")}
    r = site.admin("PUT", f"/{hook['id']}", {**body, "isEnabled": False})
    assert r.status_code == 200 and r.json()["data"]["isEnabled"] is False, r.text
    site.api.create("tags", {"name": "while off"})
    site.wait(1)  # the enabled webhook got it
    r = site.admin("PUT", f"/{hook['id']}", {**body, "isEnabled": True})
    assert r.status_code == 200, r.text
    site.api.create("tags", {"name": "on again"})
    [got] = site.wait(1, "/off")
    assert got["json"]["entry"]["name"] == "on again"
    site.wait(2)
    assert len(site.received("/off")) == 1


def test_per_webhook_order_under_failures(site: Site) -> None:
    site.receiver.control("/site", fail=3)
    for i in range(30):
        site.api.create("tags", {"name": f"t{i}"})
    got = site.wait(33)
    delivered = [int(r["headers"]["x-folio-event-id"]) for r in got if r["status"] == 200]
    assert delivered == list(range(1, 31))
    # nothing was sent past an event before it was delivered
    seen = [int(r["headers"]["x-folio-event-id"]) for r in got]
    assert seen == sorted(seen)


def test_a_receiver_that_hangs_slows_neither_writes_nor_other_webhooks(
    backend: str, app_dir: Path, tmp_path: Path
) -> None:
    with receiver(tmp_path) as rec:
        hooks = [
            {"name": "stuck", "url": rec.url("/stuck")},
            {"name": "fine", "url": rec.url("/fine")},
        ]
        configure(app_dir, rec, hooks, timeout=3600)
        rec.control("/stuck", hang=3600)
        for api in make_api(app_dir, database_url(backend, app_dir)):
            for i in range(20):
                api.create("tags", {"name": f"t{i}"})
            # every write answered, and the other webhook got every event, while the
            # stuck receiver still holds the first request
            assert len(rec.wait_count(20, "/fine")) == 20
            # (its first request may arrive after the other webhook's twentieth)
            assert len(rec.wait_count(1, "/stuck")) == 1


def test_admin_api_lists_creates_updates_deletes(site: Site) -> None:
    r = site.api.get("/admin/webhooks")
    failed(r, 401, "UnauthorizedError")
    r = site.admin("GET", "")
    assert r.status_code == 200, r.text
    [configured] = r.json()["data"]
    assert configured == {
        "id": "config:site",
        "name": "site",
        "url": site.receiver.url("/site"),
        "headers": {"X-Site": "yes", "X-Shared": "webhook"},
        "events": [
            "entry.create",
            "entry.update",
            "entry.delete",
            "entry.publish",
            "entry.unpublish",
            "media.create",
            "media.update",
            "media.delete",
        ],
        "isEnabled": True,
        "source": "config",
        "signed": True,
    }
    body = {
        "name": "api hook",
        "url": site.receiver.url("/api"),
        "headers": {"Authorization": "Bearer receiver-key"},
        "events": ["entry.create", "entry.create", "media.create"],
    }
    r = site.admin("POST", "", body)
    assert r.status_code == 201, r.text
    made = r.json()["data"]
    secret = made.pop("secret")
    assert len(secret) == 64
    assert made == {
        "id": made["id"],
        "name": "api hook",
        "url": body["url"],
        "headers": body["headers"],
        "events": ["entry.create", "media.create"],
        "isEnabled": True,
        "source": "api",
        "signed": True,
    }
    assert made["id"].isdecimal()
    r = site.admin("GET", f"/{made['id']}")
    assert r.status_code == 200 and r.json()["data"] == made, r.text
    assert "secret" not in r.text
    # it receives, signed with its own secret, with its own headers
    site.api.create("tags", {"name": "x"})
    [got] = site.wait(1, "/api")
    check_delivery(got, secret)
    assert got["headers"]["authorization"] == "Bearer receiver-key"
    assert got["headers"]["x-shared"] == "default"
    # a full update (as the reference: name, url, headers and events again)
    r = site.admin("PUT", f"/{made['id']}", {**body, "name": "renamed", "secret": None})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["name"] == "renamed" and r.json()["data"]["signed"] is False
    r = site.admin("PUT", f"/{made['id']}", {"name": "partial"})
    error = failed(r)
    assert error["message"] == "3 errors occurred"
    assert [e["path"] for e in error["details"]["errors"]] == [["url"], ["headers"], ["events"]]
    r = site.admin("PUT", "/99999", body)
    failed(r, 404, "NotFoundError")
    # the configured webhook is read-only
    r = site.admin("PUT", "/config:site", body)
    assert "config/webhooks.json" in failed(r, 403, "ForbiddenError")["message"]
    r = site.admin("DELETE", "/config:site")
    failed(r, 403, "ForbiddenError")
    r = site.admin("DELETE", f"/{made['id']}")
    assert r.status_code == 200 and r.json()["data"]["name"] == "renamed", r.text
    r = site.admin("GET", f"/{made['id']}")
    assert failed(r, 404, "NotFoundError")["message"] == "webhook.notFound"
    r = site.admin("GET", "/nope")
    failed(r, 404, "NotFoundError")
    # batch delete: the ids as sent, unknown ones passed over
    r = site.admin("POST", "", {**body, "name": "b1"})
    one = r.json()["data"]["id"]
    r = site.admin("POST", "/batch-delete", {"ids": [one, 9999]})
    assert r.status_code == 200 and r.json() == {"data": [one, 9999]}, r.text
    r = site.admin("POST", "/batch-delete", {"ids": []})
    failed(r, 400, "BadRequestError")
    assert [h["id"] for h in site.admin("GET", "").json()["data"]] == ["config:site"]


@pytest.mark.parametrize(
    ("body", "message", "paths"),
    [
        ({}, "4 errors occurred", [["name"], ["url"], ["headers"], ["events"]]),
        (
            {"name": "x", "url": "not a url", "headers": {}, "events": []},
            "url must be a valid URL",
            [["url"]],
        ),
        (
            {"name": "x", "url": "ftp://example.com/x", "headers": {}, "events": []},
            "url must be an http:// or https:// URL (got 'ftp://example.com/x')",
            [["url"]],
        ),
        (
            {"name": "x", "url": "http://a.example", "headers": "X: y", "events": []},
            "headers must be an object of header names and string values",
            [["headers"]],
        ),
        (
            {"name": "x", "url": "http://a.example", "headers": {}, "events": "entry.create"},
            "events must be a list of events (entry.create, entry.update, entry.delete, "
            "entry.publish, entry.unpublish, media.create, media.update, media.delete)",
            [["events"]],
        ),
        (
            {"name": "", "url": "http://a.example", "headers": {}, "events": []},
            "name must be a non-empty string",
            [["name"]],
        ),
        (
            {"name": "x", "url": "http://a.example", "headers": {}, "events": [], "other": 1},
            "this field has unspecified keys: other",
            [[]],
        ),
        (
            {"name": "x", "url": "http://a.example", "headers": {"Host": "h"}, "events": []},
            "headers cannot set Host (Folio sets it)",
            [["headers"]],
        ),
        (
            {"name": "x", "url": "http://a.example", "headers": {}, "events": [], "secret": "s"},
            "secret must be a string of 8 to 512 characters, or null",
            [["secret"]],
        ),
        (
            {"name": "x", "url": "http://a.example", "headers": {}, "events": ["entry.explode"]},
            "Webhook event entry.explode is not supported",
            None,
        ),
    ],
)
def test_admin_api_validation(
    site: Site, body: dict[str, Any], message: str, paths: list[list[str]] | None
) -> None:
    error = failed(site.admin("POST", "", body))
    assert error["message"] == message
    if paths is None:
        assert error["details"] == {}
    else:
        assert [e["path"] for e in error["details"]["errors"]] == paths


def test_admin_api_refuses_a_name_in_use_and_takes_the_reference_s_extra_event(
    site: Site,
) -> None:
    body = {"name": "site", "url": "http://a.example/x", "headers": {}, "events": []}
    error = failed(site.admin("POST", "", body))
    assert error["message"] == "name: a webhook named 'site' exists already"
    r = site.admin("POST", "", {**body, "name": "discard", "events": ["entry.draft-discard"]})
    assert r.status_code == 201, r.text


def test_trigger_answers_as_the_reference(site: Site) -> None:
    r = site.admin("POST", "/config:site/trigger")
    assert r.status_code == 200 and r.json() == {"data": {"statusCode": 200}}, r.text
    [got] = site.wait(1)
    assert got["json"]["event"] == "trigger-test" and list(got["json"]) == ["event", "createdAt"]
    assert got["headers"]["x-strapi-event"] == "trigger-test"
    assert "x-folio-event-id" not in got["headers"]
    check_delivery(got)
    site.receiver.control("/site", status=404)
    r = site.admin("POST", "/config:site/trigger")
    assert r.json() == {"data": {"statusCode": 404, "message": "receiver says no"}}, r.text
    made = site.admin(
        "POST", "", {"name": "closed", "url": "http://127.0.0.1:9/x", "headers": {}, "events": []}
    ).json()["data"]
    r = site.admin("POST", f"/{made['id']}/trigger")
    answer = r.json()["data"]
    assert answer["statusCode"] == 500 and answer["message"] == "connection refused", r.text
    # the trigger tests are recorded
    records = _wait_records(site, "config:site", 2)
    assert [(d["event"], d["eventId"], d["status"]) for d in records] == [
        ("trigger-test", None, "failed"),
        ("trigger-test", None, "delivered"),
    ]
    r = site.admin("POST", "/12345/trigger")
    failed(r, 404, "NotFoundError")


def test_deliveries_list_parameters(site: Site) -> None:
    r = site.admin("GET", "/config:site/deliveries?status=nope")
    failed(r)
    r = site.admin("GET", "/config:site/deliveries?limit=0")
    failed(r)
    r = site.admin("GET", "/9999/deliveries")
    failed(r, 404, "NotFoundError")
    for i in range(3):
        site.api.create("tags", {"name": f"t{i}"})
    records = _wait_records(site, "config:site", 3)
    r = site.admin("GET", "/config:site/deliveries?limit=2")
    assert [d["eventId"] for d in r.json()["data"]] == [3, 2]
    r = site.admin("GET", f"/config:site/deliveries?before={records[1]['id']}")
    assert [d["eventId"] for d in r.json()["data"]] == [1]


def test_cli_lists_tests_and_redelivers(
    site: Site, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", site.url)
    site.receiver.control("/site", fail=4)
    site.api.create("tags", {"name": "t"})
    site.wait(4)
    records = _wait_records(site, "config:site", 1, "?status=failed")
    app = str(site.app)
    assert main(["webhook", "list", "--app", app]) == 0
    out = capsys.readouterr().out
    assert "config:site" in out and "site" in out and "enabled" in out
    assert main(["webhook", "deliveries", "--app", app, "--webhook", "site", "--failed"]) == 0
    out = capsys.readouterr().out
    assert f"{records[0]['id']:>6}" in out and "failed" in out and "entry.create#1" in out
    assert main(["webhook", "redeliver", str(records[0]["id"]), "--app", app]) == 0
    assert "delivered" in capsys.readouterr().out
    assert main(["webhook", "test", "site", "--app", app]) == 0
    assert capsys.readouterr().out.strip() == "site: 200"
    assert main(["webhook", "test", "nope", "--app", app]) == 1
    assert "there is no webhook 'nope'" in capsys.readouterr().err
    assert main(["webhook", "redeliver", "999999", "--app", app]) == 1
    assert main(["webhook", "deliveries", "--app", app, "--limit", "2"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 2
    got = site.wait(6)
    assert [r["json"]["event"] for r in got[4:]] == ["entry.create", "trigger-test"]
