"""Helpers of the GraphQL mutation and access tests: sending an operation, reading its
answer in the reference's shapes, and an app with the reference's access setup and the
usual callers (public, a user's JWT, read-only and full-access API tokens)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.api.authapp import auth_api, bearer, make_auth_app, register, token
from tests.conftest import Api

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
    b"\x90wS\xde\x00\x00\x00\x0cIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\r\xefF\xb8\x00\x00"
    b"\x00\x00IEND\xaeB`\x82"
)
FORBIDDEN = "Forbidden access"
# what an error answer must never show, whatever the input
LEAKS = ("select ", "SELECT ", "sqlite", "psycopg", "asyncpg", "Traceback", "syntax for type")


@dataclass
class World:
    """An app with the reference's permissions and one header set per caller."""

    api: Api
    headers: dict[str, dict[str, str]]

    @property
    def full(self) -> dict[str, str]:
        return self.headers["full-access"]

    def gql(
        self,
        query: str,
        variables: Any = None,
        caller: str = "full-access",
        operation: str | None = None,
    ) -> Any:
        return gql(self.api, query, variables, self.headers[caller], operation)

    def data(self, query: str, variables: Any = None, caller: str = "full-access") -> Any:
        return data_of(self.gql(query, variables, caller))

    def error(self, query: str, variables: Any = None, caller: str = "full-access") -> Any:
        return resolver_error(self.gql(query, variables, caller))


def make_world(backend: str, tmp_path: Path) -> Iterator[World]:
    for api in auth_api(backend, make_auth_app(tmp_path)):
        headers: dict[str, dict[str, str]] = {"public": {}}
        headers["user"] = bearer(register(api, "alice")["jwt"])
        headers["read-only"] = bearer(token(api, "read-only"))
        headers["full-access"] = bearer(token(api, "full-access"))
        yield World(api, headers)


def gql(
    api: Api,
    query: str,
    variables: Any = None,
    headers: dict[str, str] | None = None,
    operation: str | None = None,
) -> Any:
    body: dict[str, Any] = {"query": query}
    if variables is not None:
        body["variables"] = variables
    if operation is not None:
        body["operationName"] = operation
    return api.post("/graphql", body, headers=headers or {})


def data_of(r: Any) -> Any:
    """The `data` of an operation that must succeed without errors."""
    assert r.status_code == 200, r.text
    body = r.json()
    assert "errors" not in body, body
    return body["data"]


def resolver_error(r: Any) -> dict[str, Any]:
    """The one error a resolver raised (HTTP 200, beside the data)."""
    assert r.status_code == 200, r.text
    body = r.json()
    assert "data" in body, body
    assert len(body.get("errors") or []) == 1, body
    error = body["errors"][0]
    no_leak(r)
    return dict(error)


def refused(r: Any, status: int = 400, code: str | None = None) -> list[dict[str, Any]]:
    """The errors of a request refused before any resolver ran (no `data` key)."""
    assert r.status_code == status, r.text
    body = r.json()
    assert "data" not in body, body
    errors = list(body["errors"])
    if code is not None:
        assert [e["extensions"]["code"] for e in errors] == [code] * len(errors), errors
    no_leak(r)
    return errors


def no_leak(r: Any) -> None:
    assert r.status_code < 500, r.text
    for word in LEAKS:
        assert word not in r.text, r.text
    assert "INTERNAL_SERVER_ERROR" not in r.text, r.text


def is_forbidden(r: Any, field: str) -> bool:
    """Whether `field` was refused as the reference refuses it: HTTP 200, code FORBIDDEN,
    message "Forbidden access", error path [field] and a null field."""
    assert r.status_code == 200, r.text
    body = r.json()
    errors = body.get("errors") or []
    if not errors or errors[0].get("extensions", {}).get("code") != "FORBIDDEN":
        return False
    assert len(errors) == 1, body
    error = errors[0]
    assert error["message"] == FORBIDDEN, body
    assert error["path"] == [field], body
    assert error["extensions"] == {
        "code": "FORBIDDEN",
        "error": {"name": "ForbiddenError", "message": FORBIDDEN, "details": {}},
    }, body
    assert body["data"] is None or body["data"][field] is None, body
    return True


def upload_png(api: Api, headers: dict[str, str], name: str = "a.png") -> dict[str, Any]:
    files = {"files": (name, io.BytesIO(PNG), "image/png")}
    r = api.client.post("/api/upload", files=files, headers=headers)
    assert r.status_code == 201, r.text
    return dict(r.json()[0])
