"""Uploads stored in a real S3-compatible store (SeaweedFS, `tests/s3server.py`) through the
`aws-s3` provider, on every database: the record and its URL, the objects in the bucket (the
file and its image formats), multipart uploads of large files, replacing and deleting, and
`rootPath` / `baseUrl` as the reference lays keys and URLs out."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.api.test_relations import ok, png, upload, upload_one
from tests.conftest import Api, database_url, make_api
from tests.s3server import PUBLIC_BUCKET, S3Server, shared


@pytest.fixture(scope="module")
def store() -> S3Server:
    return shared()


@contextmanager
def s3_app(
    app_dir: Path, url: str, plugins: dict[str, Any], extra: dict[str, Any] | None = None
) -> Iterator[Api]:
    """The app with `plugins` as config/plugins.json (its upload config merged with
    `extra`), served for the `with` block."""
    config = plugins["upload"]["config"]
    config.update(extra or {})
    (app_dir / "config" / "plugins.json").write_text(json.dumps(plugins))
    yield from make_api(app_dir, url)


@pytest.fixture
def bucket(store: S3Server) -> str:
    return store.bucket()


@pytest.fixture
def s3(backend: str, app_dir: Path, store: S3Server, bucket: str) -> Iterator[Api]:
    with s3_app(app_dir, database_url(backend, app_dir), store.plugins(bucket)) as api:
        yield api


def _key(record: dict[str, Any]) -> str:
    return f"{record['hash']}{record['ext']}"


def test_a_file_goes_to_the_bucket(s3: Api, store: S3Server, bucket: str) -> None:
    body = b"hello, store\n" * 100
    record = upload_one(s3, ("notes.txt", body, "text/plain"))
    assert record["provider"] == "aws-s3"
    assert record["url"] == f"{store.endpoint}/{bucket}/{_key(record)}"
    assert record["isUrlSigned"] is False
    assert store.keys(bucket) == [_key(record)]
    assert store.get(bucket, _key(record)) == (200, body)
    # nothing of the upload is left on the server's disk
    assert list((s3.folio.settings.app_dir / ".tmp" / "uploads").glob("*")) == []


def test_image_formats_go_to_the_bucket(s3: Api, store: S3Server, bucket: str) -> None:
    image = png(1200, 800)
    record = upload_one(s3, ("photo.png", image, "image/png"))
    formats = record["formats"]
    assert set(formats) == {"thumbnail", "small", "medium", "large"}
    names = [_key(record), *(f"{f['hash']}{f['ext']}" for f in formats.values())]
    assert store.keys(bucket) == sorted(names)
    for fmt in formats.values():
        key = f"{fmt['hash']}{fmt['ext']}"
        assert fmt["url"] == f"{store.endpoint}/{bucket}/{key}"
        status, got = store.get(bucket, key)
        assert status == 200 and len(got) == fmt["sizeInBytes"]
    assert store.get(bucket, _key(record)) == (200, image)


def test_a_large_file_goes_up_in_parts(
    backend: str, app_dir: Path, store: S3Server, bucket: str
) -> None:
    part = 5 * 1024 * 1024
    extra = {"sizeLimit": 64 * 1024 * 1024}
    plugins = store.plugins(bucket)
    plugins["upload"]["config"]["providerOptions"]["providerConfig"] = {
        "multipart": {"partSize": part, "queueSize": 2}
    }
    body = os.urandom(3 * part + 12345)
    with s3_app(app_dir, database_url(backend, app_dir), plugins, extra) as api:
        record = upload_one(api, ("big.bin", body, "application/octet-stream"))
        assert store.get(bucket, _key(record)) == (200, body)
        assert store.uploads_in_progress(bucket) == []
        assert record["size"] == round(len(body) / 1000, 2)


def test_replace_keeps_the_url_and_changes_the_bytes(s3: Api, store: S3Server, bucket: str) -> None:
    record = upload_one(s3, ("photo.png", png(1200, 800), "image/png"))
    assert len(store.keys(bucket)) == 5
    new = png(300, 200, (0, 0, 200))
    r = s3.client.post(
        f"/api/upload?id={record['id']}",
        data={"fileInfo": json.dumps({"caption": "new"})},
        files={"files": ("small.png", new, "image/png")},
    )
    got = ok(r)
    assert got["url"] == record["url"] and got["hash"] == record["hash"]
    assert store.get(bucket, _key(record)) == (200, new)
    # a 300 x 200 image has a thumbnail only: the other formats are gone from the bucket
    assert set(got["formats"]) == {"thumbnail"}
    thumb = got["formats"]["thumbnail"]
    assert store.keys(bucket) == sorted([_key(record), f"{thumb['hash']}{thumb['ext']}"])


def test_delete_removes_every_object(s3: Api, store: S3Server, bucket: str) -> None:
    keep = upload_one(s3, ("keep.txt", b"keep", "text/plain"))
    record = upload_one(s3, ("photo.png", png(800, 600), "image/png"))
    assert len(store.keys(bucket)) == 5
    ok(s3.client.delete(f"/api/upload/files/{record['id']}"))
    assert store.keys(bucket) == [_key(keep)]
    assert ok(s3.get("/api/upload/files")) != [] and len(ok(s3.get("/api/upload/files"))) == 1


def test_root_path_and_base_url(backend: str, app_dir: Path, store: S3Server, bucket: str) -> None:
    plugins = store.plugins(bucket)
    options = plugins["upload"]["config"]["providerOptions"]
    options["rootPath"] = "/media/site/"
    url = database_url(backend, app_dir)
    with s3_app(app_dir, url, plugins) as api:
        record = upload_one(api, ("a.txt", b"a", "text/plain"))
        key = f"media/site/{_key(record)}"
        assert record["url"] == f"{store.endpoint}/{bucket}/{key}"
        assert store.keys(bucket) == [key]
    options["baseUrl"] = "https://cdn.example.com/"
    with s3_app(app_dir, url, plugins) as api:
        record = upload_one(api, ("b.txt", b"b", "text/plain"))
        assert record["url"] == f"https://cdn.example.com/media/site/{_key(record)}"
        assert f"media/site/{_key(record)}" in store.keys(bucket)


def test_an_upload_refused_by_its_checks_stores_nothing(
    s3: Api, store: S3Server, bucket: str
) -> None:
    r = upload(s3, ("fake.png", b"not an image", "image/png"))
    assert r.status_code == 400
    assert store.keys(bucket) == []


def test_a_public_buckets_urls_open_as_recorded(
    backend: str, app_dir: Path, store: S3Server
) -> None:
    plugins = store.plugins(PUBLIC_BUCKET)
    with s3_app(app_dir, database_url(backend, app_dir), plugins) as api:
        image = png(600, 400)
        record = upload_one(api, ("photo.png", image, "image/png"))
        assert record["isUrlSigned"] is False and "?" not in record["url"]
        assert store.fetch(record["url"]) == (200, image)
        for fmt in record["formats"].values():
            assert store.fetch(fmt["url"])[0] == 200
        article = api.create("articles", {"title": "A", "cover": record["id"]})
        shown = ok(api.get(f"/api/articles/{article['documentId']}?populate=cover"))["data"]
        assert shown["cover"]["url"] == record["url"]
