"""`folio import` of the reference's blog archive (../shared/reference/exports, copied to
tests/fixtures/transfer), on SQLite and PostgreSQL: what lands (versions per locale and
status, documentIds, relation order, components, zones, media and their bytes, users and
roles), the answers compared with the reference's own after its import of the same archive
(tests/fixtures/reference/import-snapshot.json), and what is refused with nothing written."""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from folio.schema.builtins import FILE_UID
from folio.schema.model import ContentType, Registry, Schema
from folio.transfer.archive import ArchiveReader, ArchiveWriter
from folio.transfer.importer import ImportReport, TransferError, import_archive
from tests.conftest import FIXTURES, Api, database_url, make_api

ARCHIVE = FIXTURES / "transfer" / "blog-5.54.tar.gz"
SNAPSHOT = FIXTURES / "reference" / "import-snapshot.json"


@pytest.fixture
def app(backend: str, app_dir: Path) -> Iterator[Api]:
    yield from make_api(app_dir, database_url(backend, app_dir))


def run_import(api: Api, path: Path = ARCHIVE, **kw: Any) -> ImportReport:
    portal = api.client.portal
    assert portal is not None
    result: ImportReport = portal.call(functools.partial(import_archive, api.folio, path, **kw))
    return result


def copy_archive(
    target: Path,
    key: str | None = None,
    configuration: list[dict[str, Any]] | None = None,
    password_hash: str | None = None,
) -> Path:
    """The sample archive written again by Folio's writer (encrypted with `key`; with more
    `configuration` records; its users' password hashes replaced)."""
    src = ArchiveReader(ARCHIVE)
    with ArchiveWriter(target, key=key) as w:
        for item in src.lines("schemas"):
            w.add_line("schemas", item)
        for item in src.lines("entities"):
            if password_hash and item["type"] == "plugin::users-permissions.user":
                item["data"]["password"] = password_hash
            w.add_line("entities", item)
        for asset in src.assets():
            w.add_asset(asset.filename, asset.metadata, asset.read())
        for item in src.lines("links"):
            w.add_line("links", item)
        for item in [*src.lines("configuration"), *(configuration or [])]:
            w.add_line("configuration", item)
        w.set_metadata(src.metadata())
    return w.path


def archived_order(uid: str, row_id: int, field: str) -> list[str]:
    """The names of the targets of one row's relation, in the archive's order."""
    reader = ArchiveReader(ARCHIVE)
    links = [
        link
        for link in reader.lines("links")
        if link["left"]["type"] == uid
        and link["left"]["ref"] == row_id
        and link["left"]["field"] == field
    ]
    target = links[0]["right"]["type"]
    names = {e["id"]: e["data"]["name"] for e in reader.lines("entities") if e["type"] == target}
    return [names[link["right"]["ref"]] for link in sorted(links, key=lambda k: k["left"]["pos"])]


def listed(api: Api, path: str) -> list[dict[str, Any]]:
    r = api.get(path)
    assert r.status_code == 200, r.text
    return list(r.json()["data"])


# ---------------------------------------------------------------------------- what lands
def test_the_reference_archive_lands_whole(app: Api) -> None:
    report = run_import(app)
    assert report.entries["api::article.article"] == 49
    assert report.entries["api::profile.profile"] == 113
    q = "sort=id:asc&pagination[pageSize]=100"
    # versions per locale and status, with the archive's documentIds
    en_drafts = listed(app, f"/api/articles?locale=en&status=draft&{q}")
    en_published = listed(app, f"/api/articles?locale=en&status=published&{q}")
    fr_published = listed(app, f"/api/articles?locale=fr&status=published&{q}")
    assert en_drafts[0]["documentId"] == "uzq4qblhgu9fi7tep85y3bd9"
    assert en_drafts[0]["id"] == 1 and en_published[0]["id"] == 2  # numeric ids kept
    assert {a["documentId"] for a in en_published} <= {a["documentId"] for a in en_drafts}
    assert any(a["documentId"] == "uzq4qblhgu9fi7tep85y3bd9" for a in fr_published)
    # relations in their order, components and a dynamic zone
    alpha = app.get(
        "/api/articles/uzq4qblhgu9fi7tep85y3bd9?locale=en&populate[tags]=true"
        "&populate[seo]=true&populate[links]=true&populate[blocks]=true"
    ).json()["data"]
    assert [t["name"] for t in alpha["tags"]] == archived_order("api::article.article", 1, "tags")
    assert alpha["seo"]["metaTitle"] == "Alpha SEO"
    assert [link["label"] for link in alpha["links"]] == ["Docs", "Home"]
    assert [b["__component"] for b in alpha["blocks"]] == ["shared.quote", "shared.rich-text"]
    # a media morph link and the file's bytes, served
    authors = listed(app, f"/api/authors?populate[avatar]=true&{q}")
    avatar = next(a["avatar"] for a in authors if a["avatar"])
    assert avatar["url"] == "/uploads/tiny_36e161d3e6.png"
    served = app.get(avatar["url"])
    assert served.status_code == 200
    archived = {a.filename: a.read() for a in ArchiveReader(ARCHIVE).assets()}
    assert served.content == archived["tiny_36e161d3e6.png"]


def test_users_keep_their_roles_and_the_rest_is_reported(app: Api) -> None:
    report = run_import(app)
    assert report.entries["plugin::users-permissions.user"] == 2
    assert report.user_roles == 2
    lines = "\n".join(report.lines())
    assert "skipped: entities of plugin::users-permissions.permission: 67" in lines
    assert "without their password" in lines
    assert "skipped: configuration records (core-store): 43" in lines
    portal = app.client.portal
    assert portal is not None
    roles = {r["type"]: r["documentId"] for r in portal.call(app.folio.users.list_roles)}
    counts = portal.call(app.folio.users.role_counts)
    assert counts.get(roles["authenticated"], 0) + counts.get(roles["public"], 0) == 2


# ---------------------------------------------------------------------------- the reference
def _reference_ids(registry: Registry) -> dict[str, dict[int, int]]:
    """The reference's import numbers each type's rows afresh, in the archive's order: its
    k-th entity of a type gets id k. uid -> {reference id: archive id} (Folio keeps the
    archive's ids)."""
    order: dict[str, list[int]] = defaultdict(list)
    for item in ArchiveReader(ARCHIVE).lines("entities"):
        order[str(item["type"])].append(int(item["id"]))
    return {uid: {k: v for k, v in enumerate(ids, start=1)} for uid, ids in order.items()}


def _normalize(value: Any, schema: Schema, registry: Registry, ids: Any) -> Any:
    """An answer's entries with the archive's ids (`ids`: the reference's renumbering, None
    for Folio's own answers), components without theirs (numbered per table by either
    side), and `localizations` of populated relations left out: the reference lists them
    from its own state after the import (tests say where they differ)."""
    if isinstance(value, list):
        return [_normalize(v, schema, registry, ids) for v in value]
    if not isinstance(value, dict):
        return value
    out = dict(value)
    if isinstance(schema, ContentType):
        if ids is not None and isinstance(out.get("id"), int):
            out["id"] = ids.get(schema.uid, {}).get(out["id"], out["id"])
    else:
        out.pop("id", None)
    for name, attr in schema.attributes.items():
        v = out.get(name)
        if v is None:
            continue
        if attr.type == "relation" and attr.target in registry.content_types:
            target = registry.content_types[attr.target]
            out[name] = _normalize(v, target, registry, ids)
            for entry in out[name] if isinstance(out[name], list) else [out[name]]:
                if isinstance(entry, dict):
                    entry.pop("localizations", None)
        elif attr.type == "media":
            out[name] = _normalize(v, registry.content_types[FILE_UID], registry, ids)
        elif attr.type == "component" and attr.component:
            out[name] = _normalize(v, registry.components[attr.component], registry, ids)
        elif attr.type == "dynamiczone" and isinstance(v, list):
            out[name] = [
                _normalize(item, registry.components[item["__component"]], registry, ids)
                for item in v
            ]
    if "localizations" in out and isinstance(schema, ContentType):
        out["localizations"] = _normalize(out["localizations"], schema, registry, ids)
    return out


def _rest_schema(path: str, registry: Registry) -> ContentType:
    route = path.split("?")[0].split("/")[2]
    return (
        registry.by_route[route]
        if route in registry.by_route
        else next(ct for ct in registry.content_types.values() if route in (ct.plural, ct.singular))
    )


def _body(body: Any, schema: ContentType, registry: Registry, ids: Any) -> Any:
    out = dict(body)
    data = out.get("data")
    if isinstance(data, list):
        data = sorted(_normalize(data, schema, registry, ids), key=lambda e: e["id"])
        out["data"] = data
        out["meta"] = {"total": body["meta"]["pagination"]["total"]}
    elif isinstance(data, dict):
        out["data"] = _normalize(data, schema, registry, ids)
    return out


def _strip_ids(value: Any) -> Any:
    if isinstance(value, list):
        return [_strip_ids(v) for v in value]
    if isinstance(value, dict):
        return {k: _strip_ids(v) for k, v in value.items() if k != "id"}
    return value


def test_answers_equal_the_references_after_its_import_of_the_same_archive(app: Api) -> None:
    run_import(app)
    snapshot = json.loads(SNAPSHOT.read_text())
    registry = app.folio.registry
    ids = _reference_ids(registry)
    # a list the reference answered in pages is compared whole: its pages split the rows
    # by its own ids
    pages: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for entry in snapshot["rest"]:
        pages[entry["path"].split("&pagination[page]=")[0]].append(entry)
    problems = []
    for path, entries in pages.items():
        schema = _rest_schema(path, registry)
        theirs: Any = None
        ours: Any = None
        for entry in entries:
            got = app.get(entry["path"])
            assert got.status_code == entry["status"], (entry["path"], got.text)
            if got.status_code != 200:
                continue
            a = _body(got.json(), schema, registry, None)
            b = _body(entry["body"], schema, registry, ids)
            if isinstance(a["data"], list) and theirs is not None:
                ours["data"] = sorted(ours["data"] + a["data"], key=lambda e: e["id"])
                theirs["data"] = sorted(theirs["data"] + b["data"], key=lambda e: e["id"])
            else:
                ours, theirs = a, b
        if ours != theirs:
            problems.append(path)
    for entry in snapshot["graphql"]:
        got = app.post("/graphql", {"query": entry["query"]})
        assert got.status_code == entry["status"]
        if _strip_ids(got.json()) != _strip_ids(entry["body"]):
            problems.append(entry["query"][:80])
    assert problems == []


# ---------------------------------------------------------------------------- refusals
def _nothing_stored(api: Api, app_dir: Path) -> None:
    assert listed(api, "/api/articles?status=draft") == []
    assert listed(api, "/api/profiles") == []
    uploads = app_dir / "public" / "uploads"
    assert not uploads.exists() or list(uploads.iterdir()) == []


def test_a_schema_mismatch_is_refused_with_the_differences(backend: str, app_dir: Path) -> None:
    schema_file = app_dir / "src/api/article/content-types/article/schema.json"
    model = json.loads(schema_file.read_text())
    model["attributes"]["views"]["type"] = "biginteger"
    model["attributes"]["subtitle"] = {"type": "string"}
    del model["attributes"]["rating"]
    schema_file.write_text(json.dumps(model))
    for api in make_api(app_dir, database_url(backend, app_dir)):
        with pytest.raises(TransferError) as refused:
            run_import(api)
        message = str(refused.value)
        assert "api::article.article" in message
        assert "views: type is integer in the archive, biginteger in the app" in message
        assert "rating: in the archive, not in the app" in message
        assert "subtitle: in the app, not in the archive" in message
        _nothing_stored(api, app_dir)


def test_content_is_replaced_only_with_force(app: Api, app_dir: Path) -> None:
    app.create("tags", {"name": "Already here"})
    with pytest.raises(TransferError, match=r"already holds content.*--force"):
        run_import(app)
    assert [t["name"] for t in listed(app, "/api/tags")] == ["Already here"]
    # a count the database connection remembers: read again after the import
    assert app.get("/api/tags").json()["meta"]["pagination"]["total"] == 1
    run_import(app, force=True)
    assert app.get("/api/tags").json()["meta"]["pagination"]["total"] == 14
    names = [t["name"] for t in listed(app, "/api/tags?pagination[pageSize]=100")]
    assert "Already here" not in names and len(names) == 14
    # new writes get ids past the imported ones
    app.create("tags", {"name": "After the import"})
    last = listed(app, "/api/tags?sort=id:desc&pagination[pageSize]=1")[0]
    assert last["name"] == "After the import" and last["id"] > 16


def test_a_failure_late_in_the_archive_leaves_the_database_as_it_was(
    app: Api, app_dir: Path, tmp_path: Path
) -> None:
    # the archive unpacked, its 400th link (of 403) cut short
    broken = tmp_path / "unpacked"
    with tarfile.open(ARCHIVE) as tar:
        tar.extractall(broken, filter="data")
    links = broken / "links" / "links_00001.jsonl"
    lines = links.read_bytes().split(b"\n")
    lines[399] = lines[399][:40]
    links.write_bytes(b"\n".join(lines))
    kept = app.create("tags", {"name": "Kept"})
    with pytest.raises(TransferError, match=r"links_00001\.jsonl, line 400: not JSON"):
        run_import(app, broken, force=True)
    assert [t["documentId"] for t in listed(app, "/api/tags")] == [kept["documentId"]]
    assert listed(app, "/api/articles?status=draft") == []
    uploads = app_dir / "public" / "uploads"
    assert not uploads.exists() or list(uploads.iterdir()) == []


def test_an_encrypted_archive_needs_its_key(app: Api, tmp_path: Path) -> None:
    sealed = copy_archive(tmp_path / "sealed", key="correct horse")
    assert sealed.name == "sealed.tar.gz.enc"
    with pytest.raises(TransferError, match="encrypted; pass its key"):
        run_import(app, sealed)
    with pytest.raises(TransferError, match="the key does not decrypt"):
        run_import(app, sealed, key="wrong horse")
    report = run_import(app, sealed, key="correct horse")
    assert report.entries["api::article.article"] == 49
    assert len(listed(app, "/api/articles?locale=en&status=draft")) > 0


def test_the_command_line_imports_and_reports(app_dir: Path, capsys: Any) -> None:
    from folio.cli.main import main

    assert main(["import", str(ARCHIVE), "--app", str(app_dir)]) == 0
    out = capsys.readouterr()
    assert "api::article.article: 49 entry versions" in out.out
    assert "Imported 167 documents (196 entry versions)" in out.out
    assert "No webhooks were sent" in out.out
    assert "entities: 269" in out.err  # the progress, in plain lines off a terminal
    assert main(["import", str(ARCHIVE), "--app", str(app_dir)]) == 1
    assert "--force" in capsys.readouterr().err
    shutil.rmtree(app_dir / "public" / "uploads")


def test_the_parts_are_the_references(app: Api, app_dir: Path) -> None:
    """`files` is the files' bytes (their records are content, as the reference has it),
    `config` the configuration stage, `content` every entity and link."""
    report = run_import(app, exclude=["files"])
    assert report.assets == 0 and report.entries[FILE_UID] == 3 and report.media_links == 5
    uploads = app_dir / "public" / "uploads"
    assert not uploads.exists() or list(uploads.iterdir()) == []
    # only the configuration: the content stays, nothing is refused
    report = run_import(app, only=["config"])
    assert report.versions == 0
    assert len(listed(app, "/api/tags?pagination[pageSize]=100")) == 14
    with pytest.raises(TransferError, match="unknown part 'media'"):
        run_import(app, only=["media"])


def test_webhooks_are_added_after_the_content(app: Api, tmp_path: Path) -> None:
    hooks = [
        {
            "type": "webhook",
            "value": {
                "id": i,
                "name": name,
                "url": "http://127.0.0.1:9/hook",
                "headers": {"X-Site": "blog"},
                "events": ["entry.publish"],
                "enabled": True,
            },
        }
        for i, name in enumerate(["Build", "Build"], start=1)
    ]
    report = run_import(app, copy_archive(tmp_path / "hooks", configuration=hooks))
    portal = app.client.portal
    assert portal is not None
    stored = portal.call(app.folio.webhooks.stored)
    assert [(h.name, h.url, list(h.events)) for h in stored] == [
        ("Build", "http://127.0.0.1:9/hook", ["entry.publish"])
    ]
    lines = "\n".join(report.lines())
    assert "1 webhooks added" in lines
    assert "webhook 'Build' not added" in lines  # the second one's name is taken


def test_a_folio_password_hash_is_kept_a_bcrypt_one_is_not(app: Api, tmp_path: Path) -> None:
    from folio.auth.passwords import hash_password

    report = run_import(
        app, copy_archive(tmp_path / "own", password_hash=hash_password("pa55word"))
    )
    assert "without their password" not in "\n".join(report.lines())
    signed = app.post("/api/auth/local", {"identifier": "alice", "password": "pa55word"})
    assert signed.status_code == 200, signed.text
    assert signed.json()["user"]["email"] == "alice@example.com"


def _many_articles(base: Path, documents: int) -> Path:
    """The sample's schemas and `documents` English articles, each a draft and a published
    version."""
    src = ArchiveReader(ARCHIVE)
    template = next(e for e in src.lines("entities") if e["type"] == "api::article.article")
    with ArchiveWriter(base, compress=False) as w:
        for item in src.lines("schemas"):
            w.add_line("schemas", item)
        for i in range(documents):
            for version, published in enumerate((None, "2026-01-02T00:00:00.000Z")):
                data = {**template["data"], "seo": None, "links": [], "blocks": []}
                data.update(documentId=f"doc{i:021d}", publishedAt=published, title=f"A{i}")
                w.add_line(
                    "entities",
                    {"type": "api::article.article", "id": 2 * i + version + 1, "data": data},
                )
        w.set_metadata(src.metadata())
    return w.path


def test_a_killed_import_leaves_the_database_as_it_was(
    backend: str, app_dir: Path, tmp_path: Path
) -> None:
    archive = _many_articles(tmp_path / "many", 5000)
    url = database_url(backend, app_dir)
    command = [
        sys.executable,
        "-m",
        "folio.cli.main",
        "import",
        str(archive),
        "--app",
        str(app_dir),
    ]
    env = {**os.environ, "DATABASE_URL": url}
    with subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    ) as proc:
        assert proc.stderr is not None
        # killed once it reports its first entries written (of 10,000)
        for line in proc.stderr:
            if line.startswith(b"entities:"):
                break
        proc.kill()
        assert proc.wait() == -signal.SIGKILL
    for api in make_api(app_dir, url):
        assert listed(api, "/api/articles?status=draft") == []
        assert api.get("/api/articles").json()["meta"]["pagination"]["total"] == 0
