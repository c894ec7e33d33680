"""A file store that is down or fails: a clear 503 `ServiceUnavailableError` in the error
envelope (with `Retry-After`), and nothing half-written: an upload leaves no record, a
replacement leaves the old file, a deletion leaves the file (to be tried again); a multipart
upload that fails half-way is aborted in the store. Signing needs no store: a private
bucket's files still answer with pre-signed URLs while the store is down."""

from __future__ import annotations

import asyncio
import io
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from folio.files.providers import StoreUnavailable
from folio.files.providers.s3 import S3Provider
from folio.files.providers.s3_options import read_options
from tests.api.test_relations import ok, png, upload, upload_one
from tests.conftest import Api, database_url, failed, make_api
from tests.s3server import S3Server, closed_endpoint, running, shared


@pytest.fixture(scope="module")
def store() -> S3Server:
    return shared()


@contextmanager
def serve(app_dir: Path, url: str, plugins: dict[str, Any]) -> Iterator[Api]:
    (app_dir / "config" / "plugins.json").write_text(json.dumps(plugins))
    yield from make_api(app_dir, url)


def down(plugins: dict[str, Any]) -> dict[str, Any]:
    """The same configuration, with the store's address one nothing answers on."""
    options = plugins["upload"]["config"]["providerOptions"]
    options["s3Options"]["endpoint"] = closed_endpoint()
    return plugins


def unavailable(r: Any) -> None:
    error = failed(r, 503, "ServiceUnavailableError")
    assert "file store" in error["message"]
    assert r.headers["retry-after"] == "5"
    # the store's address and account are not shown
    assert "127.0.0.1" not in r.text and "folio-test" not in r.text


def test_an_upload_to_a_store_that_is_down(backend: str, app_dir: Path, store: S3Server) -> None:
    plugins = down(store.plugins(store.bucket()))
    with serve(app_dir, database_url(backend, app_dir), plugins) as api:
        unavailable(upload(api, ("a.txt", b"a", "text/plain")))
        unavailable(upload(api, ("p.png", png(800, 600), "image/png")))
        article = api.create("articles", {"title": "A"})
        linked = upload(
            api,
            ("b.txt", b"b", "text/plain"),
            ref="api::article.article",
            refId=article["documentId"],
            field="cover",
        )
        unavailable(linked)
        assert ok(api.get("/api/upload/files")) == []
        [shown] = ok(api.get("/api/articles?populate=cover"))["data"]
        assert shown["cover"] is None
        assert list((app_dir / ".tmp" / "uploads").glob("*")) == []


def test_replace_and_delete_while_the_store_is_down(backend: str, app_dir: Path) -> None:
    with running(app_dir.parent / "store") as own:
        bucket = own.bucket()
        image = png(800, 600)
        with serve(
            app_dir, database_url(backend, app_dir), own.plugins(bucket, ACL="private")
        ) as api:
            record = upload_one(api, ("photo.png", image, "image/png"))
            keys = own.keys(bucket)
            own.stop()
            r = api.client.post(
                f"/api/upload?id={record['id']}",
                data={"fileInfo": json.dumps({"caption": "new"})},
                files={"files": ("other.png", png(300, 200), "image/png")},
            )
            unavailable(r)
            unavailable(api.client.delete(f"/api/upload/files/{record['id']}"))
            kept = ok(api.get(f"/api/upload/files/{record['id']}"))
            for name in ("name", "caption", "size", "width", "hash"):
                assert kept[name] == record[name]
            assert set(kept["formats"]) == set(record["formats"])
            # signing asks nothing of the store: the URL is still pre-signed
            assert kept["isUrlSigned"] is True and "X-Amz-Signature=" in kept["url"]
            own.start()
            assert own.keys(bucket) == keys
            assert own.fetch(kept["url"]) == (200, image)
            # the store back: the deletion goes through
            ok(api.client.delete(f"/api/upload/files/{record['id']}"))
            assert ok(api.get("/api/upload/files")) == []
            assert own.keys(bucket) == []


def test_a_refusing_store_is_unavailable_too(backend: str, app_dir: Path, store: S3Server) -> None:
    plugins = store.plugins(store.bucket())
    plugins["upload"]["config"]["providerOptions"]["s3Options"]["credentials"][
        "secretAccessKey"
    ] = "wrong"
    with serve(app_dir, database_url(backend, app_dir), plugins) as api:
        unavailable(upload(api, ("a.txt", b"a", "text/plain")))
        assert ok(api.get("/api/upload/files")) == []


class Failing(io.RawIOBase):
    """A stream that gives `good` bytes, then fails."""

    def __init__(self, good: int) -> None:
        self.left = good

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self.left <= 0:
            raise OSError("the source broke")
        n = self.left if size < 0 else min(size, self.left)
        self.left -= n
        return os.urandom(n)


def test_a_failed_multipart_upload_is_aborted(store: S3Server) -> None:
    bucket = store.bucket()
    options = store.provider_options(bucket)
    options["providerConfig"] = {"multipart": {"partSize": 5 * 1024 * 1024, "queueSize": 1}}
    provider = S3Provider(read_options(options))

    async def run() -> None:
        try:
            with pytest.raises(OSError, match="the source broke"):
                await provider.put("broken.bin", Failing(12 * 1024 * 1024), "text/plain")
            # a store that goes away half-way: its error is the store's
            down_options = {**options, "s3Options": {**options["s3Options"]}}
            down_options["s3Options"]["endpoint"] = closed_endpoint()
            gone = S3Provider(read_options(down_options))
            with pytest.raises(StoreUnavailable):
                await gone.put("x.bin", b"x" * 10, "text/plain")
            await gone.close()
        finally:
            await provider.close()

    asyncio.run(run())
    assert store.uploads_in_progress(bucket) == []
    assert store.keys(bucket) == []
