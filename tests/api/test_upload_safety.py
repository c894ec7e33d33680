"""Uploads cannot take the server down or serve active content as the site: a pixel limit
on images (configurable), the size limit enforced while the body streams (the reading stops
at the first byte past it, and nothing of the upload is left), images of many pixels still
given their formats, content that does not match its image type refused, file extensions
sanitized, and stored files served with a sandboxing policy (HTML, SVG and the like as
downloads)."""

from __future__ import annotations

import functools
import io
import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from starlette.testclient import TestClient

from folio.app import load_app
from folio.http.app import build_asgi
from tests.api.test_relations import ok, png, upload, upload_one
from tests.conftest import FIXTURES, Api, database_url, failed, make_api, open_access

LIMIT = 20_000
# what a server hands the app of a request body at a time
PIECE = 16 * 1024


class Trickle:
    """The app, taking each request body in pieces of PIECE bytes, as a server hands on
    what arrives; `taken` counts the bytes of the last request the app asked for."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.taken = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.taken = 0
        pieces: list[bytes] = []
        more = True

        async def trickled() -> Any:
            nonlocal pieces, more
            while not pieces and more:
                message = await receive()
                if message["type"] != "http.request":
                    return message
                body = message.get("body", b"")
                more = bool(message.get("more_body", False))
                pieces = [body[i : i + PIECE] for i in range(0, len(body), PIECE)]
            if not pieces:
                return await receive()
            piece = pieces.pop(0)
            self.taken += len(piece)
            return {"type": "http.request", "body": piece, "more_body": bool(pieces) or more}

        await self.app(scope, trickled, send)


@pytest.fixture
def limited_app(tmp_path: Path) -> Path:
    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    plugins = {"upload": {"config": {"sizeLimit": LIMIT, "maxImagePixels": 1_000_000}}}
    (app / "config" / "plugins.json").write_text(json.dumps(plugins))
    return app


@pytest.fixture
def limited(backend: str, limited_app: Path) -> Iterator[Api]:
    yield from make_api(limited_app, database_url(backend, limited_app))


@pytest.fixture
def trickled(backend: str, limited_app: Path) -> Iterator[tuple[Api, Trickle]]:
    open_access(limited_app)
    folio = load_app(limited_app, database_url(backend, limited_app))
    app = Trickle(build_asgi(folio))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Api(client, folio), app


def _left_behind(app: Path) -> list[str]:
    """The files an upload left in the app's temporary and served folders."""
    return sorted(
        p.name
        for folder in (app / ".tmp" / "uploads", app / "public" / "uploads")
        if folder.is_dir()
        for p in folder.iterdir()
    )


def _count(api: Api) -> int:
    return len(ok(api.get("/api/upload/files")))


def test_images_past_the_pixel_limit_are_refused(limited: Api) -> None:
    api = limited
    error = failed(upload(api, ("big.png", png(2000, 1000), "image/png")))
    assert "2000x1000 pixels" in error["message"] and "1000000" in error["message"]
    assert _count(api) == 0
    assert upload_one(api, ("fine.png", png(1000, 1000), "image/png"))["width"] == 1000


def test_the_size_limit_holds_while_the_body_streams(limited: Api) -> None:
    api = limited
    boundary = "folioboundary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.bin"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()

    def chunks() -> Iterator[bytes]:  # no Content-Length: sent chunked
        yield head
        for _ in range(400):
            yield b"x" * 10_000  # 4 MB in all, 200 times the limit
        yield f"\r\n--{boundary}--\r\n".encode()

    r = api.client.post(
        "/api/upload",
        content=chunks(),
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert r.status_code == 413, r.text
    assert _count(api) == 0
    # a file over the limit within a small body is refused too
    r = upload(api, ("over.bin", b"y" * 20_001, "application/octet-stream"))
    assert r.status_code == 413, r.text


def test_a_file_past_the_limit_is_refused_as_soon_as_it_passes_it(
    trickled: tuple[Api, Trickle], limited_app: Path
) -> None:
    api, app = trickled
    # with a Content-Length: a first file within the limit, then one past it, then more
    # that are never read
    first, big, rest = b"a" * 1000, b"b" * (LIMIT * 8), b"c" * (LIMIT * 8)
    r = api.client.post(
        "/api/upload",
        files=[
            ("files", ("fine.bin", first, "application/octet-stream")),
            ("files", ("over.bin", big, "application/octet-stream")),
            ("files", ("never.bin", rest, "application/octet-stream")),
        ],
    )
    error = failed(r, 413, "PayloadTooLargeError")
    assert error["message"] == f"over.bin exceeds the size limit of {LIMIT} bytes"
    # read up to the first byte past the limit (and the piece it came in), no further
    assert app.taken <= len(first) + LIMIT + 2 * PIECE
    assert _count(api) == 0
    assert _left_behind(limited_app) == []
    # the same files within the limit are stored, and only they are left
    r = upload(api, ("fine.bin", first, "application/octet-stream"))
    assert r.status_code == 201, r.text
    assert len(_left_behind(limited_app)) == 1 and _count(api) == 1


def test_a_chunked_body_past_the_limit_is_not_read_to_its_end(
    trickled: tuple[Api, Trickle], limited_app: Path
) -> None:
    api, app = trickled
    boundary = "folioboundary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.bin"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    sent = 0

    def chunks() -> Iterator[bytes]:  # no Content-Length: sent chunked
        nonlocal sent
        yield head
        for _ in range(400):
            sent += 10_000
            yield b"x" * 10_000  # 4 MB in all, 200 times the limit
        yield f"\r\n--{boundary}--\r\n".encode()

    r = api.client.post(
        "/api/upload",
        content=chunks(),
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    failed(r, 413, "PayloadTooLargeError")
    assert sent == 4_000_000
    assert app.taken <= len(head) + LIMIT + 2 * PIECE
    assert _count(api) == 0
    assert _left_behind(limited_app) == []


PART = 'Content-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\n'


@pytest.mark.parametrize(
    ("content_type", "body", "message"),
    [
        ("multipart/form-data", b"--x\r\n", "The multipart body has no boundary"),
        ("multipart/form-data; boundary=xx", b"not a multipart body", "is not valid"),
        ("multipart/form-data; boundary=xx", f"--xx\r\n{PART}hello".encode(), "ends inside"),
        (
            "multipart/form-data; boundary=xx",
            b'--xx\r\nContent-Disposition: form-data; filename="a.txt"\r\n\r\nhi\r\n--xx--\r\n',
            'must give its "name"',
        ),
    ],
)
def test_a_body_that_is_not_multipart_is_refused_and_leaves_nothing(
    limited: Api, limited_app: Path, content_type: str, body: bytes, message: str
) -> None:
    r = limited.client.post("/api/upload", content=body, headers={"Content-Type": content_type})
    assert message in failed(r)["message"]
    assert _count(limited) == 0
    assert _left_behind(limited_app) == []


def test_files_a_stopped_server_left_are_swept_at_start(backend: str, limited_app: Path) -> None:
    tmp = limited_app / ".tmp" / "uploads"
    tmp.mkdir(parents=True)
    stale, fresh = tmp / "upload-stale.part", tmp / "upload-fresh.part"
    stale.write_bytes(b"left")
    fresh.write_bytes(b"being written")
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    for api in make_api(limited_app, database_url(backend, limited_app)):
        assert _count(api) == 0
    assert sorted(p.name for p in tmp.iterdir()) == ["upload-fresh.part"]


@functools.cache
def _large_image(fmt: str) -> bytes:
    """A 6,300 x 6,300 image (just under the default pixel limit), a few hundred KB."""
    image = Image.new("RGB", (6300, 6300), (30, 90, 160))
    image.paste((240, 200, 40), (1000, 1000, 5300, 2000))
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()


@pytest.mark.parametrize(("fmt", "mime"), [("PNG", "image/png"), ("JPEG", "image/jpeg")])
def test_an_image_of_many_pixels_gets_its_formats(api: Api, fmt: str, mime: str) -> None:
    data = _large_image(fmt)
    record = upload_one(api, (f"wide.{fmt.lower()}", data, mime))
    assert (record["width"], record["height"]) == (6300, 6300)
    sizes = {name: (f["width"], f["height"]) for name, f in record["formats"].items()}
    assert sizes == {
        "thumbnail": (156, 156),
        "small": (500, 500),
        "medium": (750, 750),
        "large": (1000, 1000),
    }
    for name, fmt_record in record["formats"].items():
        r = api.get(fmt_record["url"])
        assert r.status_code == 200, name
        with Image.open(io.BytesIO(r.content)) as image:
            assert image.size == sizes[name]
            # the band across the top third is still there, in its colour
            x, y = image.width // 2, image.height * 15 // 63
            got = image.convert("RGB").getpixel((x, y))
            assert isinstance(got, tuple)
            assert all(abs(a - b) < 12 for a, b in zip(got, (240, 200, 40), strict=True))


def test_content_that_is_not_its_image_type_is_refused(api: Api) -> None:
    error = failed(
        upload(api, ("fake.png", b"<html><script>alert(1)</script></html>", "image/png"))
    )
    assert "not a valid image/png file" in error["message"]
    assert _count(api) == 0


def test_file_extensions_are_sanitized(api: Api) -> None:
    # a name past 255 characters is refused with a clear message (it used to be a 500)
    error = failed(upload(api, ("notes." + "x" * 300, b"hello", "text/plain")))
    assert error["message"] == "name must be at most 255 characters"
    long = upload_one(api, ("notes." + "x" * 200, b"hello", "text/plain"))
    assert long["ext"] == "" and len(long["url"]) < 120
    odd = upload_one(api, ("report.T%X?T", b"hello", "text/plain"))
    assert odd["ext"] == ""
    normal = upload_one(api, ("Report.TXT", b"hello", "text/plain"))
    assert normal["ext"] == ".txt" and normal["url"].endswith(".txt")
    for record in (long, odd, normal):
        r = api.get(record["url"])
        assert r.status_code == 200 and r.content == b"hello"


@pytest.mark.parametrize(
    ("name", "mime", "body"),
    [
        ("page.html", "text/html", b"<html><script>alert(document.cookie)</script></html>"),
        (
            "drawing.svg",
            "image/svg+xml",
            b'<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>',
        ),
    ],
)
def test_active_files_are_served_as_sandboxed_downloads(
    api: Api, name: str, mime: str, body: bytes
) -> None:
    record = upload_one(api, (name, body, mime))
    r = api.get(record["url"])
    assert r.status_code == 200 and r.content == body
    assert r.headers["content-disposition"] == "attachment"
    assert "sandbox" in r.headers["content-security-policy"]
    assert "default-src 'none'" in r.headers["content-security-policy"]
    assert r.headers["x-content-type-options"] == "nosniff"


def test_images_are_served_inline_with_the_sandboxing_policy(api: Api) -> None:
    record = upload_one(api, ("pic.png", png(20, 20), "image/png"))
    r = api.get(record["url"])
    assert r.status_code == 200 and "content-disposition" not in r.headers
    assert "sandbox" in r.headers["content-security-policy"]
