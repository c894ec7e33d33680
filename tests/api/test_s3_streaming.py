"""New files of at least a part go to the S3 store as their request's body arrives (a
multipart upload begun with the first full part, no temporary file), on every database;
the upload is completed once the files are checked and recorded, and aborted otherwise: a
refused link, a file past the size limit, a client that goes away, a store that fails
(503). Nothing is then stored nor recorded. Images, files of a type not allowed and small
files are not streamed (they are read whole first, as before)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from folio.app import load_app
from folio.http.app import build_asgi
from tests.api.test_relations import ok, png, upload
from tests.conftest import Api, database_url, failed, open_access
from tests.s3server import S3Server, closed_endpoint, running, shared

PART = 5 * 1024 * 1024
# what the app is handed of a body at a time (as a server hands on what arrives)
PIECE = 256 * 1024


@pytest.fixture(scope="module")
def store() -> S3Server:
    return shared()


class Pieces:
    """The app, taking each request body in pieces of PIECE bytes; `seen(bytes so far)` is
    called before each piece is handed on, and may answer a message to hand on instead
    (a client that goes away)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seen: Callable[[int], dict[str, Any] | None] = lambda taken: None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        pieces: list[bytes] = []
        more = True
        taken = 0

        async def piecewise() -> Any:
            nonlocal pieces, more, taken
            while not pieces and more:
                message = await receive()
                if message["type"] != "http.request":
                    return message
                body = message.get("body", b"")
                more = bool(message.get("more_body", False))
                pieces = [body[i : i + PIECE] for i in range(0, len(body), PIECE)]
            if not pieces:
                return await receive()
            instead = self.seen(taken)
            if instead is not None:
                return instead
            piece = pieces.pop(0)
            taken += len(piece)
            return {"type": "http.request", "body": piece, "more_body": bool(pieces) or more}

        await self.app(scope, piecewise, send)


def configure(app_dir: Path, plugins: dict[str, Any], **upload: Any) -> None:
    config = plugins["upload"]["config"]
    config.update(upload)
    config["providerOptions"]["providerConfig"] = {"multipart": {"partSize": PART}}
    (app_dir / "config" / "plugins.json").write_text(json.dumps(plugins))


@contextmanager
def serve(app_dir: Path, url: str) -> Iterator[tuple[Api, Pieces]]:
    open_access(app_dir)
    folio = load_app(app_dir, url)
    app = Pieces(build_asgi(folio))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Api(client, folio), app


@pytest.fixture
def bucket(store: S3Server) -> str:
    return store.bucket()


@pytest.fixture
def streaming(
    backend: str, app_dir: Path, store: S3Server, bucket: str
) -> Iterator[tuple[Api, Pieces]]:
    configure(app_dir, store.plugins(bucket), sizeLimit=64 * 1024 * 1024)
    with serve(app_dir, database_url(backend, app_dir)) as served:
        yield served


def temporary_files(api: Api) -> list[str]:
    folder = api.folio.settings.app_dir / ".tmp" / "uploads"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def nothing_left(api: Api, store: S3Server, bucket: str) -> None:
    assert ok(api.get("/api/upload/files")) == []
    assert store.keys(bucket) == []
    assert store.uploads_in_progress(bucket) == []
    assert temporary_files(api) == []


def test_a_large_file_goes_to_the_store_while_its_body_arrives(
    streaming: tuple[Api, Pieces], store: S3Server, bucket: str
) -> None:
    api, app = streaming
    body = os.urandom(4 * PART + 777)
    during: list[tuple[list[str], list[str]]] = []

    def seen(taken: int) -> None:
        # three parts in: the upload is under way, and nothing was written to disk
        if taken >= 3 * PART and not during:
            during.append((store.uploads_in_progress(bucket), temporary_files(api)))

    app.seen = seen
    [record] = ok(upload(api, ("film.mp4", body, "video/mp4")), 201)
    key = f"{record['hash']}{record['ext']}"
    assert during == [([key], [])]
    assert record["mime"] == "video/mp4" and record["size"] == round(len(body) / 1000, 2)
    assert store.get(bucket, key) == (200, body)
    assert store.uploads_in_progress(bucket) == []
    assert ok(api.get(f"/api/upload/files/{record['id']}"))["url"] == record["url"]


def test_streamed_small_and_image_files_in_one_request(
    streaming: tuple[Api, Pieces], store: S3Server, bucket: str
) -> None:
    api, _ = streaming
    big, image = os.urandom(2 * PART + 5), png(800, 600)
    records = ok(
        upload(
            api,
            ("big.bin", big, "application/octet-stream"),
            ("notes.txt", b"notes", "text/plain"),
            ("photo.png", image, "image/png"),
        ),
        201,
    )
    assert [r["name"] for r in records] == ["big.bin", "notes.txt", "photo.png"]
    got = {r["name"]: store.get(bucket, f"{r['hash']}{r['ext']}")[1] for r in records}
    assert got == {"big.bin": big, "notes.txt": b"notes", "photo.png": image}
    assert set(records[2]["formats"]) == {"thumbnail", "small", "medium"}
    assert store.uploads_in_progress(bucket) == []
    assert temporary_files(api) == []


def test_a_streamed_file_whose_upload_is_refused_after_is_dropped(
    streaming: tuple[Api, Pieces], store: S3Server, bucket: str
) -> None:
    api, _ = streaming
    big = ("big.bin", os.urandom(2 * PART + 5), "application/octet-stream")
    # the entry to link the files to is not one: checked once the body is read
    r = upload(api, big, ref="api::nothing.nothing", refId="1", field="cover")
    assert failed(r)["message"] == "ref 'api::nothing.nothing' is not a content type"
    nothing_left(api, store, bucket)
    # a fileInfo that is not an object
    r = api.client.post("/api/upload", data={"fileInfo": "[1]"}, files={"files": big[:3]})
    failed(r)
    nothing_left(api, store, bucket)


def test_a_streamed_file_past_the_size_limit_is_dropped(
    backend: str, app_dir: Path, store: S3Server, bucket: str
) -> None:
    configure(app_dir, store.plugins(bucket), sizeLimit=3 * PART)
    with serve(app_dir, database_url(backend, app_dir)) as (api, _):
        r = upload(api, ("big.bin", os.urandom(4 * PART), "application/octet-stream"))
        failed(r, 413, "PayloadTooLargeError")
        nothing_left(api, store, bucket)


def test_a_client_that_goes_away_leaves_nothing(
    streaming: tuple[Api, Pieces], store: S3Server, bucket: str
) -> None:
    api, app = streaming

    def seen(taken: int) -> dict[str, Any] | None:
        return {"type": "http.disconnect"} if taken >= 2 * PART + PIECE else None

    app.seen = seen
    upload(api, ("big.bin", os.urandom(4 * PART), "application/octet-stream"))
    app.seen = lambda taken: None
    nothing_left(api, store, bucket)


def test_a_type_not_allowed_is_not_sent(
    backend: str, app_dir: Path, store: S3Server, bucket: str
) -> None:
    configure(
        app_dir,
        store.plugins(bucket),
        sizeLimit=64 * 1024 * 1024,
        security={"deniedTypes": ["application/zip"]},
    )
    with serve(app_dir, database_url(backend, app_dir)) as (api, app):
        begun: list[list[str]] = []

        def seen(taken: int) -> None:
            if taken >= 3 * PART and not begun:
                begun.append(store.uploads_in_progress(bucket))

        app.seen = seen
        r = upload(api, ("a.zip", os.urandom(4 * PART), "application/zip"))
        assert "application/zip is not allowed" in failed(r)["message"]
        assert begun == [[]]
        nothing_left(api, store, bucket)


def test_a_store_that_fails_while_the_body_arrives(
    backend: str, app_dir: Path, tmp_path: Path
) -> None:
    body = ("big.bin", os.urandom(4 * PART), "application/octet-stream")
    with running(tmp_path / "store") as own:
        bucket = own.bucket()
        configure(app_dir, own.plugins(bucket), sizeLimit=64 * 1024 * 1024)
        with serve(app_dir, database_url(backend, app_dir)) as (api, app):
            stopped: list[int] = []

            def seen(taken: int) -> None:
                if taken >= 2 * PART + PIECE and not stopped:
                    own.stop()
                    stopped.append(taken)

            app.seen = seen
            r = upload(api, body)
            assert stopped
            error = failed(r, 503, "ServiceUnavailableError")
            assert "file store" in error["message"]
            app.seen = lambda taken: None
            own.start()
            assert ok(api.get("/api/upload/files")) == []
            assert own.keys(bucket) == []
            assert temporary_files(api) == []
            # the store back, the same upload goes through
            [record] = ok(upload(api, body), 201)
            assert own.get(bucket, f"{record['hash']}{record['ext']}") == (200, body[1])


def test_a_store_that_is_down_from_the_start(
    backend: str, app_dir: Path, store: S3Server, bucket: str
) -> None:
    plugins = store.plugins(bucket)
    plugins["upload"]["config"]["providerOptions"]["s3Options"]["endpoint"] = closed_endpoint()
    configure(app_dir, plugins, sizeLimit=64 * 1024 * 1024)
    with serve(app_dir, database_url(backend, app_dir)) as (api, _):
        r = upload(api, ("big.bin", os.urandom(2 * PART), "application/octet-stream"))
        failed(r, 503, "ServiceUnavailableError")
        assert ok(api.get("/api/upload/files")) == []
        assert temporary_files(api) == []
