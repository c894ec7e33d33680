"""A write whose JSON body is sent without `Content-Type: application/json` (no type, or
text/plain) is not read, as the reference does; the 400 says which header to send."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Api, failed

MISSING = 'Missing "data" payload in the request body'
BODY = json.dumps({"data": {"name": "sent as text"}}).encode()


def _names(api: Api) -> list[str]:
    return [d["name"] for d in api.get("/api/tags").json()["data"]]


@pytest.mark.parametrize(
    "headers, sent",
    [
        ({}, "without a Content-Type"),
        ({"Content-Type": "text/plain"}, "as text/plain"),
        ({"Content-Type": "text/plain; charset=utf-8"}, "as text/plain"),
        (
            {"Content-Type": "application/x-www-form-urlencoded"},
            "as application/x-www-form-urlencoded",
        ),
    ],
    ids=["no type", "text/plain", "text/plain with charset", "form"],
)
def test_a_json_body_of_another_type_gets_the_hint(
    api: Api, headers: dict[str, str], sent: str
) -> None:
    before = _names(api)
    hint = f"the body was sent {sent}, not read as JSON: send Content-Type: application/json"
    r = api.post("/api/tags", content=b"  \n" + BODY, headers=headers)
    error = failed(r, 400, "ValidationError")
    assert error["message"] == f"{MISSING} ({hint})"
    assert error["details"] == {}
    created = api.post("/api/tags", {"data": {"name": "kept"}})
    assert created.status_code == 201
    document_id = created.json()["data"]["documentId"]
    r = api.put(f"/api/tags/{document_id}", content=BODY, headers=headers)
    assert failed(r, 400, "ValidationError")["message"] == f"{MISSING} ({hint})"
    assert _names(api) == [*before, "kept"]


def test_other_missing_data_keeps_its_message(api: Api) -> None:
    # a body that does not look like JSON, and a JSON body without `data`
    r = api.post("/api/tags", content=b"name=plain", headers={"Content-Type": "text/plain"})
    assert failed(r, 400, "ValidationError")["message"] == MISSING
    r = api.post("/api/tags", content=b"", headers={"Content-Type": "text/plain"})
    assert failed(r, 400, "ValidationError")["message"] == MISSING
    r = api.post("/api/tags", {"name": "no data"})
    assert failed(r, 400, "ValidationError")["message"] == MISSING
    # a JSON type with parameters, or a +json type, is read
    r = api.post(
        "/api/tags", content=BODY, headers={"Content-Type": "application/json; charset=utf-8"}
    )
    assert r.status_code == 201, r.text
    r = api.post("/api/tags", content=BODY, headers={"Content-Type": "application/vnd.api+json"})
    assert r.status_code == 201, r.text
