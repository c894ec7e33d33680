"""`folio export`: the reference's archive format, read back by `folio import`.

An app with content of every kind (locales, drafts and published versions, relations of
each kind with their order, components, a dynamic zone, media in fields, components and
zones) is exported, imported into a fresh app, and answers the same REST requests; the
transfer groups, the uncompressed and the encrypted forms are checked on the archive."""

from __future__ import annotations

import json
import shutil
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from folio.errors import ValidationError
from folio.transfer.archive import ArchiveReader
from folio.transfer.exporter import export_archive
from folio.transfer.importer import import_archive
from tests.api.test_relations import png
from tests.conftest import FIXTURES, Api, database_url, make_api

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa75\x81\x84"
    b"\x00\x00\x00\x00IEND\xaeB`\x82"
)
DEEP = (
    "populate[category][populate]=*&populate[tags]=*&populate[author]=*&populate[cover]=true"
    "&populate[gallery]=true&populate[seo][populate]=*&populate[links]=true"
    "&populate[blocks][on][shared.quote]=true&populate[blocks][on][shared.media][populate]=*"
    "&sort=id"
)
REQUESTS = [
    f"/api/articles?locale=en&status=draft&{DEEP}",
    f"/api/articles?locale=en&status=published&{DEEP}",
    f"/api/articles?locale=fr&status=draft&{DEEP}",
    "/api/categories?populate=*&sort=id",
    "/api/tags?populate=*&sort=id",
    "/api/authors?populate=*&sort=id",
    "/api/events?status=draft&populate=*&sort=id",
    "/api/events?status=published&populate=*&sort=id",
    "/api/upload/files?sort=id",
]


def seed(api: Api) -> None:
    tech = api.create("categories", {"name": "Tech"})
    sub = api.create("categories", {"name": "Sub", "parent": tech["documentId"]})
    t1 = api.create("tags", {"name": "t1"})
    t2 = api.create("tags", {"name": "t2"})
    author = api.create("authors", {"name": "Ann"})
    r = api.post("/api/upload", files={"files": ("a.png", PNG, "image/png")})
    assert r.status_code == 201, r.text
    file_id = r.json()[0]["id"]
    article = api.create(
        "articles",
        {
            "title": "Alpha",
            "views": 3,
            "meta": {"k": [1, 2]},
            "content": [{"type": "paragraph", "children": [{"type": "text", "text": "Hi"}]}],
            "category": sub["documentId"],
            "tags": [t2["documentId"], t1["documentId"]],
            "author": author["documentId"],
            "cover": file_id,
            "gallery": [file_id],
            "seo": {"metaTitle": "s", "shareImage": file_id},
            "links": [{"label": "a", "url": "http://a"}, {"label": "b", "url": "http://b"}],
            "blocks": [
                {"__component": "shared.quote", "title": "q"},
                {"__component": "shared.media", "file": file_id},
            ],
        },
        "?status=published",
    )
    doc = article["documentId"]
    r = api.put(
        f"/api/articles/{doc}", {"data": {"title": "Alpha draft", "tags": [t1["documentId"]]}}
    )
    assert r.status_code == 200, r.text
    r = api.put(f"/api/articles/{doc}?locale=fr", {"data": {"title": "Alpha FR"}})
    assert r.status_code == 200, r.text
    api.create("articles", {"title": "Only a draft"})
    api.create("events", {"name": "E", "articles": [doc]}, "?status=published")


def answers(api: Api) -> list[Any]:
    out = []
    for path in REQUESTS:
        r = api.get(path)
        assert r.status_code == 200, (path, r.text)
        out.append(r.json())
    return out


def fresh_app(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(FIXTURES / "blog", target)
    return target


@pytest.fixture
def source(backend: str, tmp_path: Path) -> Iterator[Api]:
    app_dir = fresh_app(tmp_path, "source")
    yield from make_api(app_dir, database_url(backend, app_dir))


def export(api: Api, path: Path, **options: Any) -> Path:
    result = api.client.portal.call(lambda: export_archive(api.folio, path, **options))  # type: ignore[union-attr]
    return Path(result.path)


def members(archive: Path) -> list[str]:
    with tarfile.open(archive) as tar:
        return sorted(m.name for m in tar.getmembers())


def test_export_then_import_answers_the_same(backend: str, source: Api, tmp_path: Path) -> None:
    seed(source)
    before = answers(source)
    archive = export(source, tmp_path / "backup")
    assert archive.name == "backup.tar.gz"
    source.client.__exit__(None, None, None)

    target_dir = fresh_app(tmp_path, "target")
    for target in make_api(target_dir, database_url(backend, target_dir)):
        portal = target.client.portal  # type: ignore[union-attr]
        portal.call(lambda app=target.folio: import_archive(app, archive, force=True))
        assert answers(target) == before
        # the file's bytes came along
        url = before[-1][0]["url"]
        assert target.get(url).content == PNG


def test_an_images_formats_go_with_it(source: Api, tmp_path: Path) -> None:
    image = png(1200, 800)
    r = source.post("/api/upload", files={"files": ("big.png", image, "image/png")})
    assert r.status_code == 201, r.text
    record = r.json()[0]
    assert set(record["formats"]) == {"thumbnail", "small", "medium", "large"}
    expected = {f"{record['hash']}.png": image}
    for fmt in record["formats"].values():
        expected[f"{fmt['hash']}.png"] = source.get(fmt["url"]).content
    archive = export(source, tmp_path / "images")
    with ArchiveReader(archive) as reader:
        got = {asset.filename: asset.read() for asset in reader.assets()}
    assert got == expected


def test_only_and_exclude_choose_the_parts(source: Api, tmp_path: Path) -> None:
    seed(source)
    everything = members(export(source, tmp_path / "all"))
    assert "assets/uploads/" in " ".join(everything)
    assert "configuration/configuration_00001.jsonl" in everything
    content = members(export(source, tmp_path / "content", only=["content"]))
    assert not [m for m in content if m.startswith(("assets/", "configuration/"))]
    assert "entities/entities_00001.jsonl" in content
    no_files = members(export(source, tmp_path / "nofiles", exclude=["files"]))
    assert not [m for m in no_files if m.startswith("assets/")]
    assert "links/links_00001.jsonl" in no_files
    with pytest.raises(ValidationError):
        export(source, tmp_path / "bad", only=["everything"])


def test_no_compress_writes_a_plain_tar(source: Api, tmp_path: Path) -> None:
    seed(source)
    archive = export(source, tmp_path / "plain", compress=False)
    assert archive.name == "plain.tar"
    with tarfile.open(archive, "r:") as tar:
        assert "metadata.json" in tar.getnames()


def test_an_encrypted_export_needs_its_key(source: Api, tmp_path: Path) -> None:
    seed(source)
    with pytest.raises(ValidationError):
        export(source, tmp_path / "nokey", encrypt=True)
    archive = export(source, tmp_path / "secret", encrypt=True, key="s3cret")
    assert archive.name == "secret.tar.gz.enc"
    with ArchiveReader(archive, key="s3cret") as reader:
        assert reader.metadata()["strapi"]["version"] == "5.54.0"
        types = {line["type"] for line in reader.lines("entities")}
    assert {"api::article.article", "plugin::upload.file"} <= types


def add_pick_component(app_dir: Path) -> None:
    """A component with a relation to articles, held by articles (with drafts)."""
    (app_dir / "src" / "components" / "shared" / "pick.json").write_text(
        json.dumps(
            {
                "collectionName": "components_shared_picks",
                "info": {"displayName": "Pick"},
                "attributes": {
                    "articles": {
                        "type": "relation",
                        "relation": "oneToMany",
                        "target": "api::article.article",
                    }
                },
            }
        )
    )
    path = app_dir / "src" / "api" / "article" / "content-types" / "article" / "schema.json"
    schema = json.loads(path.read_text())
    schema["attributes"]["pick"] = {"type": "component", "component": "shared.pick"}
    path.write_text(json.dumps(schema))


def test_a_components_links_follow_its_entrys_version(backend: str, tmp_path: Path) -> None:
    app_dir = fresh_app(tmp_path, "picks")
    add_pick_component(app_dir)
    for api in make_api(app_dir, database_url(backend, app_dir)):
        target = api.create("articles", {"title": "Target"}, "?status=published")
        source = api.create(
            "articles",
            {"title": "Source", "pick": {"articles": [target["documentId"]]}},
            "?status=published",
        )
        archive = export(api, tmp_path / "picks")
        with ArchiveReader(archive) as reader:
            rows = {
                e["id"]: (e["data"]["documentId"], e["data"]["publishedAt"] is None)
                for e in reader.lines("entities")
                if e["type"] == "api::article.article"
            }
            picks = {
                e["id"]: e["data"]["pick"]["id"]
                for e in reader.lines("entities")
                if e["type"] == "api::article.article" and e["data"]["pick"]
            }
            links = [
                (line["left"]["ref"], line["right"]["ref"])
                for line in reader.lines("links")
                if line["left"]["type"] == "shared.pick"
            ]
        by_component = {cmp: row for row, cmp in picks.items()}
        # one link per component: the draft's to the target's draft, the published
        # version's to the target's published version
        assert len(links) == 2
        for component, target_row in links:
            owner = by_component[component]
            assert rows[owner][0] == source["documentId"]
            assert rows[target_row] == (target["documentId"], rows[owner][1])
