"""`folio export` of an app whose uploads are in an S3-compatible store (SeaweedFS,
`tests/s3server.py`), on every database: the archive holds every file's bytes and its image
formats' as the store holds them (read back through the provider), and `folio import` of it
into an app with the local provider serves the same bytes. A record whose object is gone
from the store goes without bytes; a store that is down stops the export, and no archive is
left behind."""

from __future__ import annotations

import json
import os
import shutil
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from folio.files.providers import StoreUnavailable
from folio.transfer.archive import ArchiveReader
from folio.transfer.exporter import export_archive
from folio.transfer.importer import import_archive
from tests.api.test_relations import ok, png, upload_one
from tests.conftest import FIXTURES, Api, database_url, make_api
from tests.s3server import S3Server, running, shared


@pytest.fixture(scope="module")
def store() -> S3Server:
    return shared()


def new_app(tmp_path: Path, name: str, plugins: dict[str, Any] | None = None) -> Path:
    target = tmp_path / name
    shutil.copytree(FIXTURES / "blog", target)
    if plugins is not None:
        (target / "config" / "plugins.json").write_text(json.dumps(plugins))
    return target


@contextmanager
def served(app_dir: Path, url: str) -> Iterator[Api]:
    yield from make_api(app_dir, url)


def export(api: Api, path: Path) -> Path:
    result = api.client.portal.call(lambda: export_archive(api.folio, path))  # type: ignore[union-attr]
    return Path(result.path)


def key(item: dict[str, Any]) -> str:
    return f"{item['hash']}{item['ext']}"


def archived(archive: Path) -> dict[str, bytes]:
    """The archive's asset files: name -> bytes."""
    with tarfile.open(archive) as tar:
        out = {}
        for member in tar.getmembers():
            if member.name.startswith("assets/uploads/"):
                got = tar.extractfile(member)
                assert got is not None
                out[member.name.removeprefix("assets/uploads/")] = got.read()
        return out


def test_an_export_holds_the_stores_bytes_and_imports_into_a_local_app(
    backend: str, tmp_path: Path, store: S3Server
) -> None:
    bucket = store.bucket()
    source_dir = new_app(tmp_path, "source", store.plugins(bucket, ACL="private"))
    image = png(1200, 800)
    # larger than a chunk of the store's answer, so that it comes in several
    big = os.urandom(3 * 1024 * 1024 + 4321)
    with served(source_dir, database_url(backend, source_dir)) as api:
        photo = upload_one(api, ("photo.png", image, "image/png"))
        data = upload_one(api, ("data.bin", big, "application/octet-stream"))
        notes = upload_one(api, ("notes.txt", b"some notes\n", "text/plain"))
        article = api.create("articles", {"title": "A", "cover": photo["id"]})
        archive = export(api, tmp_path / "backup")
        # the records as stored (the answers' URLs are pre-signed: the bucket is private)
        records = {r["id"]: r for r in ok(api.get("/api/upload/files?sort=id"))}

    assets = archived(archive)
    formats = photo["formats"]
    assert set(formats) == {"thumbnail", "small", "medium", "large"}
    expected = {key(photo): image, key(data): big, key(notes): b"some notes\n"}
    for fmt in formats.values():
        status, stored = store.get(bucket, key(fmt))
        assert status == 200 and len(stored) == fmt["sizeInBytes"]
        expected[key(fmt)] = stored
    assert assets == expected
    with ArchiveReader(archive) as reader:
        meta = {a.filename: a.metadata for a in reader.assets()}
    assert meta[key(photo)]["id"] == photo["id"]
    thumb = meta[key(formats["thumbnail"])]
    assert (thumb["type"], thumb["mainHash"], thumb["id"]) == (
        "thumbnail",
        photo["hash"],
        photo["id"],
    )

    target_dir = new_app(tmp_path, "target")
    with served(target_dir, database_url(backend, target_dir)) as target:
        portal = target.client.portal  # type: ignore[union-attr]
        portal.call(lambda: import_archive(target.folio, archive, force=True))
        files = {r["id"]: r for r in ok(target.get("/api/upload/files?sort=id"))}
        assert set(files) == set(records)
        for file_id, before in records.items():
            record = files[file_id]
            assert record["provider"] == "local"
            assert record["url"] == f"/uploads/{key(record)}"
            assert target.get(record["url"]).content == expected[key(before)]
        got = files[photo["id"]]
        assert set(got["formats"]) == set(formats)
        for name, fmt in got["formats"].items():
            assert fmt["url"] == f"/uploads/{key(fmt)}"
            assert target.get(fmt["url"]).content == expected[key(formats[name])]
        shown = ok(target.get(f"/api/articles/{article['documentId']}?populate=cover"))
        assert shown["data"]["cover"]["url"] == got["url"]


def test_a_file_gone_from_the_store_goes_without_its_bytes(
    backend: str, tmp_path: Path, store: S3Server
) -> None:
    bucket = store.bucket()
    app_dir = new_app(tmp_path, "app", store.plugins(bucket))
    with served(app_dir, database_url(backend, app_dir)) as api:
        kept = upload_one(api, ("kept.txt", b"kept", "text/plain"))
        gone = upload_one(api, ("gone.txt", b"gone", "text/plain"))
        portal = api.client.portal  # type: ignore[union-attr]
        portal.call(lambda: api.folio.storage.delete(key(gone)))
        archive = export(api, tmp_path / "backup")
    assert archived(archive) == {key(kept): b"kept"}
    with ArchiveReader(archive) as reader:
        hashes = {
            line["data"]["hash"]
            for line in reader.lines("entities")
            if line["type"] == "plugin::upload.file"
        }
    assert hashes == {kept["hash"], gone["hash"]}


def test_a_store_that_is_down_stops_the_export(backend: str, tmp_path: Path) -> None:
    with running(tmp_path / "store") as own:
        bucket = own.bucket()
        app_dir = new_app(tmp_path, "app", own.plugins(bucket))
        with served(app_dir, database_url(backend, app_dir)) as api:
            upload_one(api, ("a.txt", b"a", "text/plain"))
            own.stop()
            with pytest.raises(StoreUnavailable):
                export(api, tmp_path / "backup")
            assert list(tmp_path.glob("backup*")) == []
            own.start()
            # the store back, the export goes through
            archive = export(api, tmp_path / "backup")
            assert len(archived(archive)) == 1
