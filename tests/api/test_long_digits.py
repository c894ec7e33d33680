"""Ids written with more digits than Python converts (4,300) are refused like any number
past a database's range (400), never a 500: in the paths of the admin API, the content
API's upload routes and the users' routes, in a bulk deletion's ids, and as a media or a
component id in a written document. Nothing is written."""

from __future__ import annotations

from typing import Any

import pytest

from folio.content.ids import decimal_id
from folio.errors import ValidationError
from tests.api.adminapp import (
    AdminApi,
    admin_api_fixture,  # noqa: F401  (the admin_api fixture)
)
from tests.conftest import Api

LONG = "9" * 5000
OUT_OF_RANGE = "A number is out of the supported range"


def _refused(r: Any) -> None:
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["name"] == "ValidationError" and error["message"] == OUT_OF_RANGE


def test_decimal_id() -> None:
    assert decimal_id("42") == 42
    assert decimal_id("0042") == 42
    assert decimal_id("abc") is None
    assert decimal_id("") is None
    assert decimal_id("1" * 64) == int("1" * 64)
    with pytest.raises(ValidationError):
        decimal_id("1" * 65)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", f"/admin/api/upload/files/{LONG}"),
        ("GET", f"/admin/api/upload/files/{LONG}/usage"),
        ("DELETE", f"/admin/api/upload/files/{LONG}"),
        ("GET", f"/admin/api-tokens/{LONG}"),
        ("DELETE", f"/admin/api-tokens/{LONG}"),
        ("POST", f"/admin/api-tokens/{LONG}/regenerate"),
    ],
)
def test_long_ids_in_admin_paths(admin_api: AdminApi, method: str, path: str) -> None:
    _refused(admin_api.client.request(method, path))


def test_long_ids_in_a_bulk_deletion(admin_api: AdminApi) -> None:
    r = admin_api.post("/admin/api/upload/files/actions/bulkDelete", {"ids": [LONG]})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["details"]["errors"][0]["path"] == ["ids"]


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", f"/api/upload/files/{LONG}"), ("DELETE", f"/api/upload/files/{LONG}")],
)
def test_long_ids_in_upload_paths(api: Api, method: str, path: str) -> None:
    _refused(api.client.request(method, path))


@pytest.mark.parametrize(
    "data",
    [
        {"cover": LONG},
        {"seo": {"id": LONG, "metaTitle": "t"}},
        {"blocks": [{"__component": "shared.quote", "id": LONG}]},
    ],
)
def test_long_ids_in_a_written_document(api: Api, data: dict[str, Any]) -> None:
    _refused(api.post("/api/articles", {"data": {"title": "Long ids", **data}}))
    r = api.get("/api/articles?status=draft&filters[title][$eq]=Long ids")
    assert r.json()["data"] == []
