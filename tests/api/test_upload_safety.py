"""Uploads cannot take the server down or serve active content as the site: a pixel limit
on images (configurable), the size limit enforced while the body streams, content that does
not match its image type refused, file extensions sanitized, and stored files served with a
sandboxing policy (HTML, SVG and the like as downloads)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.test_relations import ok, png, upload, upload_one
from tests.conftest import FIXTURES, Api, database_url, failed, make_api


@pytest.fixture
def limited(backend: str, tmp_path: Path) -> Iterator[Api]:
    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    plugins = {"upload": {"config": {"sizeLimit": 20_000, "maxImagePixels": 1_000_000}}}
    (app / "config" / "plugins.json").write_text(json.dumps(plugins))
    yield from make_api(app, database_url(backend, app))


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
