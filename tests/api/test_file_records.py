"""File records as the reference's upload routes answer them (probed on Strapi 5.54):
`focalPoint` (null unless set through `fileInfo`) and `isUrlSigned`, and the file update
`POST /api/upload?id=N` (its information, and its bytes when a file is sent)."""

from __future__ import annotations

import json

from tests.api.test_relations import FILE_KEYS, ok, png, upload, upload_one
from tests.conftest import Api, failed

# the keys of a file record on the upload routes, as the reference answers them
RECORD_KEYS = FILE_KEYS | {"focalPoint", "provider_metadata", "publishedAt", "isUrlSigned"}


def _update(api: Api, file_id: object, info: dict[str, object], **files: object) -> object:
    return api.client.post(
        f"/api/upload?id={file_id}",
        data={"fileInfo": json.dumps(info)},
        files=files or {"unused": ("", b"", "text/plain")},
    )


def test_upload_list_get_and_delete_answer_whole_records(api: Api) -> None:
    record = upload_one(api, ("a.png", png(40, 30), "image/png"), focalPoint={"x": 1, "y": 2})
    assert set(record) == RECORD_KEYS
    assert record["focalPoint"] == {"x": 1, "y": 2}
    assert record["isUrlSigned"] is False
    plain = upload_one(api, ("b.png", png(40, 30), "image/png"))
    assert plain["focalPoint"] is None
    [listed, _] = ok(api.get("/api/upload/files?sort=id"))
    assert set(listed) == RECORD_KEYS and listed["focalPoint"] == {"x": 1, "y": 2}
    one = ok(api.get(f"/api/upload/files/{record['id']}"))
    assert one == listed
    gone = ok(api.client.delete(f"/api/upload/files/{plain['id']}"))
    assert set(gone) == RECORD_KEYS
    # a populated media field carries the record without isUrlSigned
    article = api.create("articles", {"title": "T", "cover": record["id"]})
    cover = ok(api.get(f"/api/articles/{article['documentId']}?populate=cover"))["data"]["cover"]
    assert cover["focalPoint"] == {"x": 1, "y": 2}
    assert "isUrlSigned" not in cover


def test_focal_point_checks(api: Api) -> None:
    error = failed(
        upload(api, ("a.png", png(10, 10), "image/png"), info=[{"focalPoint": {"x": 1}}])
    )
    assert error["message"] == "fileInfo.focalPoint.y is a required field"
    error = failed(
        upload(api, ("a.png", png(10, 10), "image/png"), info=[{"focalPoint": {"x": "a"}}])
    )
    assert error["message"] == "2 errors occurred"
    assert [e["path"] for e in error["details"]["errors"]] == [
        ["fileInfo", "focalPoint", "x"],
        ["fileInfo", "focalPoint", "y"],
    ]
    assert ok(api.get("/api/upload/files")) == []
    # anything but an object is ignored; other members of an object are kept
    assert upload_one(api, ("a.png", png(10, 10), "image/png"), focalPoint=5)["focalPoint"] is None
    kept = upload_one(api, ("b.png", png(10, 10), "image/png"), focalPoint={"x": 1, "y": 2, "z": 3})
    assert kept["focalPoint"] == {"x": 1, "y": 2, "z": 3}


def test_update_a_files_information(api: Api) -> None:
    record = upload_one(api, ("a.png", png(40, 30), "image/png"), caption="old")
    got = ok(_update(api, record["id"], {"alternativeText": "new", "focalPoint": {"x": 3, "y": 4}}))
    assert set(got) == RECORD_KEYS
    assert got["alternativeText"] == "new" and got["caption"] == "old"
    assert got["focalPoint"] == {"x": 3, "y": 4}
    assert got["url"] == record["url"] and got["hash"] == record["hash"]
    # unknown keys are ignored here (an upload refuses them)
    assert ok(_update(api, record["id"], {"zzz": 1, "caption": "c"}))["caption"] == "c"
    assert ok(api.get(f"/api/upload/files/{record['id']}"))["caption"] == "c"
    failed(_update(api, 999, {"caption": "c"}), 404, "NotFoundError")
    failed(_update(api, "abc", {"caption": "c"}), 404, "NotFoundError")
    error = failed(_update(api, record["id"], {"focalPoint": {"y": 1}}))
    assert error["message"] == "fileInfo.focalPoint.x is a required field"
    assert ok(api.get(f"/api/upload/files/{record['id']}"))["focalPoint"] == {"x": 3, "y": 4}


def test_update_a_files_bytes(api: Api) -> None:
    record = upload_one(
        api, ("a.png", png(40, 30), "image/png"), alternativeText="alt", focalPoint={"x": 1, "y": 1}
    )
    new = png(60, 20, (0, 0, 200))
    got = ok(_update(api, record["id"], {"caption": "cap"}, files=("b.png", new, "image/png")))
    assert (got["width"], got["height"]) == (60, 20)
    assert got["caption"] == "cap" and got["name"] == "b.png"
    assert got["alternativeText"] == "alt" and got["focalPoint"] is None
    assert got["formats"] == {}
    assert got["url"] == record["url"]
    assert api.get(got["url"]).content == new


def test_an_unknown_file_is_not_found(api: Api) -> None:
    for path in ("/api/upload/files/999", "/api/upload/files/abc"):
        assert failed(api.get(path), 404, "NotFoundError")["message"] == "file.notFound"
        failed(api.client.delete(path), 404, "NotFoundError")
