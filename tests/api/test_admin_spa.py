"""The admin panel's web app as served: every page of /admin is its index.html (no-cache,
under a strict content security policy), its hashed assets are cached for good and sent
gzip-compressed to clients that take it, the admin API and the key-protected routes keep
their own answers, and a missing build says how to make it."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from folio.http.admin.spa import BUILT
from tests.api.adminapp import make_admin_app
from tests.conftest import Api, database_url, make_api

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
INDEX = (
    '<!doctype html><html lang="en"><head><title>Folio admin</title>'
    '<script type="module" src="/admin/assets/main-TEST1234.js"></script></head>'
    '<body><div id="app"></div></body></html>'
)
SCRIPT = "export const panel = 1;\n" + "console.log('the admin panel');\n" * 400


def build(folder: Path) -> Path:
    (folder / "assets").mkdir(parents=True)
    (folder / "index.html").write_text(INDEX)
    (folder / "assets" / "main-TEST1234.js").write_text(SCRIPT)
    (folder / "assets" / "main-TEST1234.css").write_text("body{margin:0}")
    (folder / "assets" / "logo-TEST1234.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 600)
    return folder


@pytest.fixture
def panel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Api]:
    monkeypatch.setenv("FOLIO_ADMIN_ASSETS", str(build(tmp_path / "built")))
    app = make_admin_app(tmp_path)
    yield from make_api(app, database_url("sqlite", app))


def test_every_page_is_the_index_under_a_strict_policy(panel: Api) -> None:
    for path in (
        "/admin",
        "/admin/",
        "/admin/auth/login",
        "/admin/auth/reset-password?code=abc",
        "/admin/content-manager/collection-types/api::article.article/abc123?locale=fr",
        "/admin/plugins/upload",
        "/admin/me",
        "/admin/apis",  # not the admin API: a page
    ):
        r = panel.get(path)
        assert r.status_code == 200, path
        assert r.text == INDEX
        assert r.headers["content-type"] == "text/html; charset=utf-8"
        assert r.headers["content-security-policy"] == CSP
        assert r.headers["cache-control"] == "no-cache"
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["x-content-type-options"] == "nosniff"
    assert panel.client.head("/admin/auth/login").status_code == 200


def test_files_in_an_object_store_may_be_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With uploads in an object store the pages may show its images and media (its
    origin, or its CDN's), and nothing else from there."""
    monkeypatch.setenv("FOLIO_ADMIN_ASSETS", str(build(tmp_path / "built")))
    app = make_admin_app(tmp_path)
    options = {
        "s3Options": {
            "credentials": {"accessKeyId": "key", "secretAccessKey": "secret"},
            "region": "eu-west-3",
            "params": {"Bucket": "media"},
        }
    }
    for given, origin in (
        (options, "https://media.s3.eu-west-3.amazonaws.com"),
        ({**options, "baseUrl": "https://cdn.example.com/files"}, "https://cdn.example.com"),
    ):
        upload = {"upload": {"config": {"provider": "aws-s3", "providerOptions": given}}}
        (app / "config" / "plugins.json").write_text(json.dumps(upload))
        for api in make_api(app, database_url("sqlite", app)):
            policy = api.get("/admin").headers["content-security-policy"]
            assert f"img-src 'self' data: blob: {origin};" in policy
            assert f"media-src 'self' blob: {origin};" in policy
            assert "connect-src 'self';" in policy and "default-src 'self';" in policy


def test_assets_are_immutable_and_compressed_once(panel: Api) -> None:
    path = "/admin/assets/main-TEST1234.js"
    packed = panel.get(path, headers={"Accept-Encoding": "gzip, br"})
    assert packed.status_code == 200
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert packed.headers["x-content-type-options"] == "nosniff"
    assert "Accept-Encoding" in packed.headers["vary"]
    assert packed.headers["content-type"].startswith("text/javascript")
    assert packed.text == SCRIPT  # the client undid the compression
    size = int(packed.headers["content-length"])
    assert size < len(SCRIPT) / 10
    again = panel.get(path, headers={"Accept-Encoding": "gzip"})
    assert int(again.headers["content-length"]) == size

    plain = panel.get(path, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert plain.content == SCRIPT.encode()
    refused = panel.get(path, headers={"Accept-Encoding": "gzip;q=0"})
    assert "content-encoding" not in refused.headers

    css = panel.get("/admin/assets/main-TEST1234.css", headers={"Accept-Encoding": "gzip"})
    assert css.headers["content-type"].startswith("text/css")
    assert "content-encoding" not in css.headers  # too small to gain anything
    image = panel.get("/admin/assets/logo-TEST1234.png", headers={"Accept-Encoding": "gzip"})
    assert image.headers["content-type"] == "image/png"
    assert "content-encoding" not in image.headers  # images are compressed already

    for missing in (
        "/admin/assets/main-NOPE.js",
        "/admin/assets/..%2Findex.html",
        "/admin/assets/.hidden",
        "/admin/assets/sub/main-TEST1234.js",
        "/admin/assets/",
    ):
        r = panel.get(missing)
        assert r.status_code == 404, missing
        assert r.json()["error"]["name"] == "NotFoundError"


def test_other_admin_routes_keep_their_answers(panel: Api) -> None:
    r = panel.get("/admin/api/nothing-here")
    assert r.status_code == 404 and r.json()["error"]["name"] == "NotFoundError"
    assert panel.get("/admin/api/session").status_code == 401
    for path in (
        "/admin/api-tokens",
        "/admin/api-tokens/1",
        "/admin/webhooks",
        "/admin/webhooks/x",
    ):
        r = panel.get(path)
        assert r.status_code == 401, path
        assert r.headers["content-type"].startswith("application/json")
    # pages are read, never written
    r = panel.post("/admin/content-manager", {"x": 1})
    assert r.status_code in (404, 405)
    assert r.headers["content-type"].startswith("application/json")


def test_a_missing_build_says_how_to_make_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FOLIO_ADMIN_ASSETS", str(tmp_path / "nowhere"))
    app = make_admin_app(tmp_path)
    for api in make_api(app, database_url("sqlite", app)):
        for path in ("/admin", "/admin/auth/login"):
            r = api.get(path)
            assert r.status_code == 503
            assert r.headers["content-type"] == "text/html; charset=utf-8"
            assert "npm run build" in r.text and "scripts/setup" in r.text
            assert r.headers["cache-control"] == "no-store"
        assert api.get("/admin/assets/main-TEST1234.js").status_code == 404
        # the admin API works without the panel
        assert api.get("/admin/api/init").status_code == 200


@pytest.mark.skipif(not (BUILT / "index.html").exists(), reason="the panel is not built")
def test_the_packaged_build_is_served_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FOLIO_ADMIN_ASSETS", raising=False)
    app = make_admin_app(tmp_path)
    for api in make_api(app, database_url("sqlite", app)):
        r = api.get("/admin")
        assert r.status_code == 200
        assert r.text == (BUILT / "index.html").read_text()
        # every script comes from a file (the policy allows no inline script) and loads
        scripts = re.findall(r"<script\b([^>]*)>", r.text)
        assert scripts and all("src=" in attrs for attrs in scripts)
        for ref in re.findall(r'(?:src|href)="(/admin/assets/[^"]+)"', r.text):
            asset = api.get(ref, headers={"Accept-Encoding": "gzip"})
            assert asset.status_code == 200, ref
            on_disk = (BUILT / ref.removeprefix("/admin/")).read_bytes()
            assert asset.content == on_disk
            if asset.headers.get("content-encoding") == "gzip":
                assert int(asset.headers["content-length"]) < len(on_disk)
                assert len(gzip.compress(on_disk)) >= int(asset.headers["content-length"]) - 64
