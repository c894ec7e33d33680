"""A private bucket (`ACL: private`): every answer that shows a file shows it through a
pre-signed URL that the store honours until it expires (REST lists, single documents and
write answers with populated media, components and zones, relations, GraphQL, the upload
routes, the admin's media library and content manager), while the database keeps the
plain URL; a public bucket's and a CDN's (`baseUrl`) URLs are shown as recorded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from folio.files.sigv4 import Credentials, Signer
from tests.api.adminapp import register_admin
from tests.api.test_relations import ok, png, upload_one
from tests.conftest import Api, database_url, make_api
from tests.s3server import REGION, S3Server, shared

EXPIRES = 120


@pytest.fixture(scope="module")
def store() -> S3Server:
    return shared()


@pytest.fixture
def bucket(store: S3Server) -> str:
    return store.bucket()


@contextmanager
def serve(app_dir: Path, url: str, plugins: dict[str, Any]) -> Iterator[Api]:
    """The app with `plugins` as config/plugins.json, for the `with` block."""
    (app_dir / "config" / "plugins.json").write_text(json.dumps(plugins))
    yield from make_api(app_dir, url)


def private_plugins(store: S3Server, bucket: str) -> dict[str, Any]:
    return store.plugins(bucket, ACL="private", signedUrlExpires=EXPIRES)


@pytest.fixture
def private(backend: str, app_dir: Path, store: S3Server, bucket: str) -> Iterator[Api]:
    with serve(app_dir, database_url(backend, app_dir), private_plugins(store, bucket)) as api:
        yield api


def signed(store: S3Server, bucket: str, url: str, body: bytes | None = None) -> None:
    """`url` is a pre-signed URL of an object of `bucket` that the store serves (with
    `body`, when given), valid EXPIRES seconds from about now; the same URL unsigned is
    refused."""
    parts = urlsplit(url)
    assert url.startswith(f"{store.endpoint}/{bucket}/"), url
    query = parse_qs(parts.query)
    assert query["X-Amz-Expires"] == [str(EXPIRES)]
    assert query["X-Amz-SignedHeaders"] == ["host"]
    stamp = datetime.strptime(query["X-Amz-Date"][0], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    assert abs((datetime.now(UTC) - stamp).total_seconds()) < 600
    status, got = store.fetch(url)
    assert status == 200
    if body is not None:
        assert got == body
    assert store.fetch(url.split("?")[0])[0] == 403


def signed_file(store: S3Server, bucket: str, record: dict[str, Any]) -> None:
    """A file record whose URL and formats' URLs are signed."""
    assert record["isUrlSigned"] is True
    signed(store, bucket, record["url"])
    for fmt in (record.get("formats") or {}).values():
        assert fmt["isUrlSigned"] is True
        signed(store, bucket, fmt["url"])


def test_the_upload_routes_answer_signed_urls(private: Api, store: S3Server, bucket: str) -> None:
    image = png(600, 400)
    record = upload_one(private, ("photo.png", image, "image/png"))
    assert set(record["formats"]) == {"thumbnail", "small"}
    signed_file(store, bucket, record)
    signed(store, bucket, record["url"], image)
    [listed] = ok(private.get("/api/upload/files"))
    signed_file(store, bucket, listed)
    signed_file(store, bucket, ok(private.get(f"/api/upload/files/{record['id']}")))
    info = {"fileInfo": json.dumps({"caption": "c"})}
    # a multipart body without a file: the information alone
    nothing = {"unused": ("", b"", "text/plain")}
    changed = ok(private.client.post(f"/api/upload?id={record['id']}", data=info, files=nothing))
    signed_file(store, bucket, changed)
    gone = ok(private.client.delete(f"/api/upload/files/{record['id']}"))
    assert gone["isUrlSigned"] is True
    assert store.keys(bucket) == []


def test_populated_media_are_signed_wherever_they_are(
    private: Api, store: S3Server, bucket: str
) -> None:
    cover = upload_one(private, ("cover.png", png(300, 200), "image/png"))
    pic = upload_one(private, ("pic.txt", b"text", "text/plain"))
    category = private.create("categories", {"name": "News"})
    made = private.client.post(
        "/api/articles?populate=cover",
        json={
            "data": {
                "title": "A",
                "cover": cover["id"],
                "gallery": [cover["id"], pic["id"]],
                "seo": {"metaTitle": "m", "shareImage": cover["id"]},
                "blocks": [{"__component": "shared.media", "file": cover["id"]}],
                "category": category["documentId"],
            }
        },
    )
    article = ok(made, 201)["data"]
    signed_file(store, bucket, article["cover"])
    doc_id = article["documentId"]
    populate = (
        "populate[cover]=true&populate[gallery]=true&populate[seo][populate]=shareImage"
        "&populate[blocks][on][shared.media][populate]=file"
    )
    [listed] = ok(private.get(f"/api/articles?{populate}"))["data"]
    one = ok(private.get(f"/api/articles/{doc_id}?{populate}"))["data"]
    for doc in (listed, one):
        signed_file(store, bucket, doc["cover"])
        assert len(doc["gallery"]) == 2
        for item in doc["gallery"]:
            signed_file(store, bucket, item)
        signed_file(store, bucket, doc["seo"]["shareImage"])
        signed_file(store, bucket, doc["blocks"][0]["file"])
    # through a relation: a category's articles' covers
    deep = "populate[articles][populate]=cover"
    cat = ok(private.get(f"/api/categories/{category['documentId']}?{deep}"))["data"]
    signed_file(store, bucket, cat["articles"][0]["cover"])
    updated = private.put(
        f"/api/articles/{doc_id}?populate=gallery", {"data": {"title": "B", "gallery": [pic["id"]]}}
    )
    [item] = ok(updated)["data"]["gallery"]
    signed_file(store, bucket, item)


def test_graphql_answers_signed_urls(private: Api, store: S3Server, bucket: str) -> None:
    cover = upload_one(private, ("cover.png", png(300, 200), "image/png"))
    private.create("articles", {"title": "A", "cover": cover["id"], "gallery": [cover["id"]]})
    query = "{ articles { cover { url formats } gallery { url } } uploadFiles { url } }"
    r = private.post("/graphql", {"query": query})
    assert r.status_code == 200, r.text
    data = r.json()["data"]
    [article] = data["articles"]
    signed(store, bucket, article["cover"]["url"])
    for fmt in article["cover"]["formats"].values():
        signed(store, bucket, fmt["url"])
    signed(store, bucket, article["gallery"][0]["url"])
    signed(store, bucket, data["uploadFiles"][0]["url"])


def test_the_admin_answers_signed_urls(private: Api, store: S3Server, bucket: str) -> None:
    register_admin(private.client)
    made = private.client.post(
        "/admin/api/upload/files", files=[("files", ("a.png", png(300, 200), "image/png"))]
    )
    [record] = ok(made, 201)["data"]
    signed_file(store, bucket, record)
    [listed] = ok(private.get("/admin/api/upload/files"))["data"]
    signed_file(store, bucket, listed)
    signed_file(store, bucket, ok(private.get(f"/admin/api/upload/files/{record['id']}"))["data"])
    article = private.create("articles", {"title": "A", "cover": record["id"]})
    path = (
        f"/admin/api/content-manager/collection-types/api::article.article/{article['documentId']}"
    )
    shown = ok(private.get(path))["data"]
    signed_file(store, bucket, shown["cover"])


def test_a_signed_url_expires(private: Api, store: S3Server, bucket: str) -> None:
    record = upload_one(private, ("a.txt", b"secret", "text/plain"))
    signed(store, bucket, record["url"], b"secret")
    # the same object signed as the provider signs it, two hours ago for two minutes:
    # the store refuses it (no waiting: the signature's own time is in the past)
    parts = urlsplit(record["url"])
    signer = Signer(Credentials(store.access_key, store.secret_key), REGION)
    past = datetime.now(UTC) - timedelta(hours=2)
    stale = signer.presign("GET", parts.netloc, parts.path, EXPIRES, now=past)
    assert store.fetch(f"{store.endpoint}{parts.path}?{stale}")[0] == 403
    fresh = signer.presign("GET", parts.netloc, parts.path, EXPIRES)
    assert store.fetch(f"{store.endpoint}{parts.path}?{fresh}") == (200, b"secret")


def test_the_database_keeps_the_plain_url(
    backend: str, app_dir: Path, store: S3Server, bucket: str
) -> None:
    url = database_url(backend, app_dir)
    with serve(app_dir, url, private_plugins(store, bucket)) as api:
        record = upload_one(api, ("a.txt", b"a", "text/plain"))
        api.create("articles", {"title": "A", "cover": record["id"]})
    # the same database served with a public bucket: the recorded URL, unsigned
    public = store.plugins(bucket)
    with serve(app_dir, url, public) as api:
        [shown] = ok(api.get("/api/upload/files"))
        assert shown["url"] == f"{store.endpoint}/{bucket}/{shown['hash']}{shown['ext']}"
        assert shown["isUrlSigned"] is False
        [article] = ok(api.get("/api/articles?populate=cover"))["data"]
        assert article["cover"]["url"] == shown["url"]
        assert "isUrlSigned" not in article["cover"]


def test_urls_under_a_base_url_are_not_signed(
    backend: str, app_dir: Path, store: S3Server, bucket: str
) -> None:
    plugins = store.plugins(bucket, ACL="private")
    plugins["upload"]["config"]["providerOptions"]["baseUrl"] = "https://cdn.example.com"
    with serve(app_dir, database_url(backend, app_dir), plugins) as api:
        record = upload_one(api, ("a.txt", b"a", "text/plain"))
        assert record["url"] == f"https://cdn.example.com/{record['hash']}{record['ext']}"
        assert record["isUrlSigned"] is False


def test_graphql_variant_fields_are_signed(private: Api, store: S3Server, bucket: str) -> None:
    # the same media field twice with other arguments: loaded apart from the list's read
    cover = upload_one(private, ("cover.png", png(300, 200), "image/png"))
    private.create("articles", {"title": "A", "gallery": [cover["id"]]})
    query = (
        "{ articles { a: gallery(pagination: {limit: 1}) { url }"
        ' b: gallery(sort: "name") { url } } }'
    )
    r = private.post("/graphql", {"query": query})
    assert r.status_code == 200, r.text
    [article] = r.json()["data"]["articles"]
    for alias in ("a", "b"):
        [item] = article[alias]
        signed(store, bucket, item["url"])
