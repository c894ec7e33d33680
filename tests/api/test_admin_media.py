"""The admin panel's media library API (`/admin/api/upload/...`): upload several files,
list them (search, type filters, sort, pages), one file, its information and focal point,
where it is used, replacing its bytes under the same id, delete and bulk delete; only for
a signed-in administrator, writes with the session's CSRF token."""

from __future__ import annotations

import io
import json
from typing import Any

from PIL import Image

from tests.api.adminapp import (
    CSRF_HEADER,
    AdminApi,
    admin_api_fixture,  # noqa: F401  (the admin_api fixture)
)

FILES = "/admin/api/upload/files"


def png(width: int, height: int, color: tuple[int, int, int] = (200, 40, 40)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buffer, format="PNG")
    return buffer.getvalue()


def upload(admin: AdminApi, *files: tuple[str, bytes, str], info: list[Any] | None = None) -> Any:
    data = {"fileInfo": [json.dumps(i) for i in info]} if info is not None else None
    return admin.client.post(FILES, files=[("files", f) for f in files], data=data)


def three_files(admin: AdminApi) -> list[dict[str, Any]]:
    r = upload(
        admin,
        ("sunset.png", png(320, 200), "image/png"),
        ("harbour.png", png(64, 48, (10, 90, 200)), "image/png"),
        ("notes.txt", b"a text file\n", "text/plain"),
        info=[
            {"alternativeText": "A red sunset", "caption": "Evening"},
            {"name": "Harbour at dawn"},
            {},
        ],
    )
    assert r.status_code == 201, r.text
    files: list[dict[str, Any]] = r.json()["data"]
    return files


def names(r: Any) -> list[str]:
    assert r.status_code == 200, r.text
    return [f["name"] for f in r.json()["data"]]


def test_upload_list_search_filter_and_pages(admin_api: AdminApi) -> None:
    files = three_files(admin_api)
    assert [f["name"] for f in files] == ["sunset.png", "Harbour at dawn", "notes.txt"]
    sunset = files[0]
    assert sunset["alternativeText"] == "A red sunset" and sunset["caption"] == "Evening"
    assert (sunset["width"], sunset["height"], sunset["mime"]) == (320, 200, "image/png")
    assert set(sunset["formats"]) == {"thumbnail"}
    for key in ("id", "documentId", "hash", "ext", "size", "url", "createdAt", "updatedAt"):
        assert key in sunset

    r = admin_api.get(FILES, params={"sort": "name:asc"})
    assert names(r) == ["Harbour at dawn", "notes.txt", "sunset.png"]
    assert r.json()["meta"]["pagination"] == {"page": 1, "pageSize": 25, "pageCount": 1, "total": 3}
    r = admin_api.get(FILES, params={"sort": "name:desc", "page": 2, "pageSize": 2})
    assert names(r) == ["Harbour at dawn"]
    assert r.json()["meta"]["pagination"] == {"page": 2, "pageSize": 2, "pageCount": 2, "total": 3}
    # the search reads names, alternative texts and captions, whatever the case
    assert names(admin_api.get(FILES, params={"_q": "HARBOUR"})) == ["Harbour at dawn"]
    assert names(admin_api.get(FILES, params={"_q": "evening"})) == ["sunset.png"]
    assert names(admin_api.get(FILES, params={"_q": "nothing like it"})) == []
    images = {"filters[mime][$startsWith]": "image/", "sort": "name:asc"}
    assert names(admin_api.get(FILES, params=images)) == ["Harbour at dawn", "sunset.png"]
    others = {
        "filters[$and][0][$not][mime][$startsWith]": "image/",
        "filters[$and][1][$not][mime][$startsWith]": "video/",
    }
    assert names(admin_api.get(FILES, params=others)) == ["notes.txt"]
    both = {"filters[mime][$startsWith]": "image/", "_q": "red"}
    assert names(admin_api.get(FILES, params=both)) == ["sunset.png"]

    one = admin_api.get(f"{FILES}/{sunset['id']}")
    assert one.status_code == 200 and one.json()["data"] == sunset
    for missing in ("999999", "abc"):
        r = admin_api.get(f"{FILES}/{missing}")
        assert r.status_code == 404 and r.json()["error"]["name"] == "NotFoundError"


def test_file_information_and_focal_point(admin_api: AdminApi) -> None:
    sunset = three_files(admin_api)[0]
    path = f"{FILES}/{sunset['id']}"
    r = admin_api.put(
        path, {"name": "Sunset", "caption": None, "focalPoint": {"x": 25.5, "y": 60}, "id": 7}
    )
    assert r.status_code == 200, r.text
    data = r.json()["data"]
    assert (data["id"], data["name"], data["caption"]) == (sunset["id"], "Sunset", None)
    assert data["focalPoint"] == {"x": 25.5, "y": 60}
    assert data["alternativeText"] == "A red sunset" and data["url"] == sunset["url"]
    assert admin_api.get(path).json()["data"]["focalPoint"] == {"x": 25.5, "y": 60}
    assert admin_api.put(path, {"focalPoint": None}).json()["data"]["focalPoint"] is None

    for body, where in (
        ({"name": ""}, ["name"]),
        ({"alternativeText": 5}, ["alternativeText"]),
        ({"focalPoint": {"x": "left", "y": 1}}, ["focalPoint", "x"]),
        ({"focalPoint": [1, 2]}, ["focalPoint"]),
    ):
        r = admin_api.put(path, body)
        assert r.status_code == 400, body
        assert r.json()["error"]["details"]["errors"][0]["path"] == where
    assert admin_api.put(f"{FILES}/999999", {"name": "x"}).status_code == 404


def test_where_a_file_is_used(admin_api: AdminApi) -> None:
    sunset, harbour, notes = three_files(admin_api)
    r = admin_api.post(
        "/api/articles?status=published",
        {
            "data": {
                "title": "Evening walk",
                "cover": sunset["id"],
                "gallery": [sunset["id"], harbour["id"]],
                "seo": {"metaTitle": "walk", "shareImage": sunset["id"]},
            }
        },
    )
    assert r.status_code == 201, r.text
    document_id = r.json()["data"]["documentId"]
    usage = admin_api.get(f"{FILES}/{sunset['id']}/usage")
    assert usage.status_code == 200, usage.text
    found = sorted(usage.json()["data"], key=lambda u: u["field"])
    expected = {
        "uid": "api::article.article",
        "displayName": "Article",
        "documentId": document_id,
        "locale": "en",
        "label": "Evening walk",
    }
    # once per field, though the draft and the published version both hold it
    assert found == [
        {**expected, "field": "cover"},
        {**expected, "field": "gallery"},
        {**expected, "field": "seo.shareImage"},
    ]
    assert [u["field"] for u in admin_api.get(f"{FILES}/{harbour['id']}/usage").json()["data"]] == [
        "gallery"
    ]
    assert admin_api.get(f"{FILES}/{notes['id']}/usage").json()["data"] == []
    assert admin_api.get(f"{FILES}/999999/usage").status_code == 404


def test_replace_keeps_the_id_and_address(admin_api: AdminApi) -> None:
    sunset = three_files(admin_api)[0]
    path = f"{FILES}/{sunset['id']}/replace"
    r = admin_api.client.post(path, files=[("files", ("bigger.png", png(400, 300), "image/png"))])
    assert r.status_code == 200, r.text
    data = r.json()["data"]
    assert (data["id"], data["documentId"], data["url"]) == (
        sunset["id"],
        sunset["documentId"],
        sunset["url"],
    )
    assert (data["width"], data["height"]) == (400, 300)
    assert data["alternativeText"] == "A red sunset"  # kept
    served = admin_api.get(data["url"])
    assert served.status_code == 200
    assert Image.open(io.BytesIO(served.content)).size == (400, 300)

    assert admin_api.client.post(path).status_code == 400  # not multipart
    two = [
        ("files", ("a.png", png(8, 8), "image/png")),
        ("files", ("b.png", png(8, 8), "image/png")),
    ]
    r = admin_api.client.post(path, files=two)
    assert r.status_code == 400
    r = admin_api.client.post(
        f"{FILES}/999999/replace", files=[("files", ("a.png", png(8, 8), "image/png"))]
    )
    assert r.status_code == 404


def test_delete_and_bulk_delete(admin_api: AdminApi) -> None:
    sunset, harbour, notes = three_files(admin_api)
    r = admin_api.delete(f"{FILES}/{sunset['id']}")
    assert r.status_code == 200 and r.json()["data"]["id"] == sunset["id"]
    assert admin_api.get(f"{FILES}/{sunset['id']}").status_code == 404
    assert admin_api.get(sunset["url"]).status_code == 404  # the bytes are gone too
    assert admin_api.delete(f"{FILES}/{sunset['id']}").status_code == 404

    r = admin_api.post(
        f"{FILES}/actions/bulkDelete", {"ids": [harbour["id"], str(notes["id"]), 999999]}
    )
    assert r.status_code == 200 and r.json()["data"] == {"count": 2}
    assert names(admin_api.get(FILES)) == []
    for bad in ({"ids": "1"}, {"ids": [True]}, {}, {"ids": [-1]}):
        r = admin_api.post(f"{FILES}/actions/bulkDelete", bad)
        assert r.status_code == 400, bad


def test_the_media_library_is_for_administrators(admin_api: AdminApi) -> None:
    sunset = three_files(admin_api)[0]
    with admin_api.anonymous() as c:
        assert c.get(FILES).status_code == 401
        assert c.get(f"{FILES}/{sunset['id']}").status_code == 401
        r = c.post(FILES, files=[("files", ("a.png", png(8, 8), "image/png"))])
        assert r.status_code == 401
    # writes need the CSRF token
    no_csrf = {CSRF_HEADER: ""}
    r = admin_api.client.post(
        FILES, files=[("files", ("a.png", png(8, 8), "image/png"))], headers=no_csrf
    )
    assert r.status_code == 403
    assert (
        admin_api.client.put(
            f"{FILES}/{sunset['id']}", json={"name": "x"}, headers=no_csrf
        ).status_code
        == 403
    )
    assert admin_api.client.delete(f"{FILES}/{sunset['id']}", headers=no_csrf).status_code == 403
    assert admin_api.get(f"{FILES}/{sunset['id']}").json()["data"]["name"] == "sunset.png"
