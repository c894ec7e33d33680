"""The admin HTTP API (`/admin/api/...`) in the OpenAPI document: the Content Manager's
operations (http/admin/content.py) and those the account and media modules describe in
their `PATHS` dicts, under the admin session's security scheme (the `folio_admin` cookie,
and the `X-Folio-CSRF` header on every write)."""

from __future__ import annotations

import importlib
from typing import Any

from folio.http.admin.cm_meta import edited_types
from folio.schema.model import Registry

JSON = "application/json"
ERROR_REF = {"$ref": "#/components/responses/Error"}
CM = "/admin/api/content-manager"
CM_TAG = "Admin: Content Manager"
SESSION: list[dict[str, list[str]]] = [{"adminSession": []}]
# a page's `meta`
PAGE_META = {
    "type": "object",
    "properties": {"pagination": {"$ref": "#/components/schemas/Pagination"}},
}
# the modules of the admin API that describe their own operations (`PATHS`, with the
# constants and helpers of this module)
DESCRIBED = ("folio.http.admin.accounts", "folio.http.admin.media")

CSRF = {
    "name": "X-Folio-CSRF",
    "in": "header",
    "required": True,
    "description": "The session's CSRF token (given by sign-in and GET /admin/api/session)",
    "schema": {"type": "string"},
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _answer(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {JSON: {"schema": schema}}}


def data_schema(schema: dict[str, Any], meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """An answer's object: `data` (and `meta` when given)."""
    props: dict[str, Any] = {"data": schema}
    if meta is not None:
        props["meta"] = meta
    return {"type": "object", "properties": props, "required": ["data"]}


def _errors(*statuses: str) -> dict[str, Any]:
    return {s: ERROR_REF for s in ("401", *statuses)}


def _path_param(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description,
        "schema": schema,
    }


def query_param(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "description": description, "schema": schema}


def _body(schema: dict[str, Any], required: bool = True) -> dict[str, Any]:
    return {"required": required, "content": {JSON: {"schema": schema}}}


def _action(*actions: str) -> dict[str, Any]:
    return _path_param("action", {"type": "string", "enum": list(actions)}, "The action")


def _page_of(schema_name: str) -> dict[str, Any]:
    """A page of rows: `data` the rows, `meta.pagination` the page."""
    return _answer(data_schema({"type": "array", "items": _ref(schema_name)}, PAGE_META))


def _operation(
    op_id: str,
    summary: str,
    responses: dict[str, Any],
    *,
    params: list[dict[str, Any]] | None = None,
    body: dict[str, Any] | None = None,
    write: bool = False,
) -> dict[str, Any]:
    op: dict[str, Any] = {
        "summary": summary,
        "operationId": op_id,
        "tags": [CM_TAG],
        "security": SESSION,
        "parameters": [*(params or []), *([CSRF] if write else [])],
        "responses": responses,
    }
    if body is not None:
        op["requestBody"] = body
    return op


def _write(
    op_id: str,
    summary: str,
    answer: dict[str, Any],
    *,
    params: list[dict[str, Any]] | None = None,
    body: dict[str, Any] | None = None,
    status: str = "200",
) -> dict[str, Any]:
    """A write: its answer, the errors of a write (400, 403, 404), the CSRF header."""
    responses = {status: answer, **_errors("400", "403", "404")}
    return _operation(op_id, summary, responses, params=params, body=body, write=True)


def content_manager_paths(registry: Registry, locales: list[str]) -> dict[str, Any]:
    types = edited_types(registry)
    collections = [ct.uid for ct in types if not ct.is_single]
    singles = [ct.uid for ct in types if ct.is_single]
    uid_of = {"type": "string", "enum": collections} if collections else {"type": "string"}
    single_uid = {"type": "string", "enum": singles} if singles else {"type": "string"}
    coll = _path_param("uid", uid_of, "A collection type's uid")
    single = _path_param("uid", single_uid, "A single type's uid")
    document_id = _path_param("documentId", {"type": "string"}, "The document")
    locale = query_param(
        "locale", {"type": "string", "enum": locales}, "The locale version (the default locale)"
    )
    doc = _ref("AdminDocumentAnswer")
    write_body = _body(
        {
            "type": "object",
            "properties": {"data": {"type": "object", "additionalProperties": True}},
            "required": ["data"],
        }
    )
    count = data_schema({"type": "object", "properties": {"count": {"type": "integer"}}})
    bulk_body = _body(
        {
            "type": "object",
            "properties": {
                "documentIds": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "locale": {"type": "string", "enum": locales},
            },
            "required": ["documentIds"],
        }
    )
    document_action_body = _body(
        {
            "type": "object",
            "properties": {
                "data": {"type": "object", "additionalProperties": True},
                "discardDraft": {"type": "boolean"},
            },
        },
        required=False,
    )
    list_params = [
        coll,
        query_param("page", {"type": "integer", "minimum": 1}, "The page (1)"),
        query_param("pageSize", {"type": "integer", "minimum": 1, "maximum": 100}, "Rows a page"),
        query_param("sort", {"type": "string"}, "field:ASC or field:DESC (the configured sort)"),
        query_param("_q", {"type": "string"}, "Searched in the type's text fields"),
        {"$ref": "#/components/parameters/filters"},
        locale,
        query_param(
            "publicationFilter",
            {
                "type": "string",
                "enum": ["never_published", "has_published_version", "modified", "unmodified"],
            },
            "Rows by publication state",
        ),
    ]
    doc_params = [coll, document_id, locale]
    draft_actions = _action("publish", "unpublish", "discard")
    uid_body = _body(
        {
            "type": "object",
            "properties": {
                "contentTypeUID": {"type": "string"},
                "field": {"type": "string"},
                "data": {"type": "object", "additionalProperties": True},
                "value": {"type": "string"},
                "locale": {"type": "string"},
                "documentId": {"type": "string", "description": "The document editing the value"},
            },
            "required": ["contentTypeUID", "field"],
        }
    )
    answer = _answer(doc)
    deleted = _answer(
        data_schema({"type": "object", "properties": {"documentId": {"type": "string"}}})
    )
    configuration = _answer(data_schema(_ref("AdminListConfiguration")))
    return {
        f"{CM}/init": {
            "get": _operation(
                "adminContentManagerInit",
                "The model as the Content Manager shows it: types, components, locales",
                {"200": _answer(data_schema(_ref("AdminContentManagerInit"))), **_errors()},
            )
        },
        f"{CM}/configuration/{{uid}}": {
            "get": _operation(
                "adminGetListConfiguration",
                "A type's list configuration",
                {"200": configuration, **_errors("404")},
                params=[coll],
            ),
            "put": _write(
                "adminPutListConfiguration",
                "Change a type's list configuration",
                configuration,
                params=[coll],
                body=_body(_ref("AdminListConfiguration")),
            ),
        },
        f"{CM}/collection-types/{{uid}}": {
            "get": _operation(
                "adminListDocuments",
                "The drafts of a type in one locale, with their status",
                {"200": _page_of("AdminListRow"), **_errors("400", "404")},
                params=list_params,
            ),
            "post": _write(
                "adminCreateDocument",
                "Create a draft",
                _answer(doc, "The draft"),
                params=[coll, locale],
                body=write_body,
                status="201",
            ),
        },
        f"{CM}/collection-types/{{uid}}/actions/{{action}}": {
            "post": _write(
                "adminBulkAction",
                "Delete, publish or unpublish several documents",
                _answer(count),
                params=[coll, _action("bulkDelete", "bulkPublish", "bulkUnpublish")],
                body=bulk_body,
            )
        },
        f"{CM}/collection-types/{{uid}}/{{documentId}}": {
            "get": _operation(
                "adminGetDocument",
                "A document's draft as the edit view shows it",
                {"200": answer, **_errors("400", "404")},
                params=doc_params,
            ),
            "put": _write(
                "adminSaveDocument",
                "Save a document's draft (a new locale version when missing)",
                answer,
                params=doc_params,
                body=write_body,
            ),
            "delete": _write(
                "adminDeleteDocument",
                "Delete a locale version (locale=* every locale)",
                deleted,
                params=[
                    coll,
                    document_id,
                    query_param(
                        "locale", {"type": "string", "enum": [*locales, "*"]}, "The locale"
                    ),
                ],
            ),
        },
        f"{CM}/collection-types/{{uid}}/{{documentId}}/actions/{{action}}": {
            "post": _write(
                "adminDocumentAction",
                "Publish (saving `data` first), unpublish (discardDraft) or discard the draft",
                answer,
                params=[*doc_params, draft_actions],
                body=document_action_body,
            )
        },
        f"{CM}/single-types/{{uid}}": {
            "get": _operation(
                "adminGetSingleType",
                "A single type's draft (404 before it exists)",
                {"200": answer, **_errors("400", "404")},
                params=[single, locale],
            ),
            "put": _write(
                "adminSaveSingleType",
                "Save a single type's draft",
                answer,
                params=[single, locale],
                body=write_body,
            ),
            "delete": _write(
                "adminDeleteSingleType",
                "Delete a single type's locale version",
                deleted,
                params=[single, locale],
            ),
        },
        f"{CM}/single-types/{{uid}}/actions/{{action}}": {
            "post": _write(
                "adminSingleTypeAction",
                "Publish, unpublish or discard a single type's draft",
                answer,
                params=[single, locale, draft_actions],
                body=document_action_body,
            )
        },
        f"{CM}/uid/generate": {
            "post": _write(
                "adminGenerateUid",
                "An available uid value from the attribute's target field",
                _answer(data_schema({"type": "string"})),
                body=uid_body,
            )
        },
        f"{CM}/uid/check-availability": {
            "post": _write(
                "adminCheckUid",
                "Whether a uid value is free, and a free one when it is not",
                _answer(
                    {
                        "type": "object",
                        "properties": {
                            "isAvailable": {"type": "boolean"},
                            "suggestion": {"type": ["string", "null"]},
                        },
                        "required": ["isAvailable", "suggestion"],
                    }
                ),
                body=uid_body,
            )
        },
        f"{CM}/relations/{{uid}}/{{field}}": {
            "get": _operation(
                "adminRelationTargets",
                "Documents a relation may connect, with their status",
                {"200": _page_of("AdminRelationTarget"), **_errors("400", "404")},
                params=[
                    _path_param("uid", {"type": "string"}, "A type's or component's uid"),
                    _path_param("field", {"type": "string"}, "The relation attribute"),
                    query_param("_q", {"type": "string"}, "Searched in the target's main field"),
                    query_param("page", {"type": "integer", "minimum": 1}, "The page"),
                    query_param(
                        "pageSize", {"type": "integer", "minimum": 1, "maximum": 100}, "Rows"
                    ),
                    query_param(
                        "locale", {"type": "string", "enum": locales}, "The targets' locale"
                    ),
                    query_param(
                        "exclude", {"type": "string"}, "documentIds left out, comma separated"
                    ),
                ],
            )
        },
    }


def admin_schemas() -> dict[str, Any]:
    open_object: dict[str, Any] = {"type": "object", "additionalProperties": True}
    status = {"type": "string", "enum": ["draft", "published", "modified"]}
    target = {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "documentId": {"type": "string"},
            "locale": {"type": ["string", "null"]},
            "label": {"type": ["string", "null"]},
            "status": status,
        },
        "required": ["id", "documentId", "locale", "label", "status"],
    }
    return {
        "AdminRelationTarget": target,
        "AdminListRow": {
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "documentId": {"type": "string"},
                "updatedAt": {"type": "string"},
                "publishedAt": {"type": ["string", "null"]},
                "status": status,
            },
            "required": ["id", "documentId", "status"],
            "additionalProperties": True,
        },
        "AdminDocumentAnswer": {
            "type": "object",
            "properties": {
                "data": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "documentId": {"type": "string"},
                        "status": status,
                    },
                    "required": ["id", "documentId", "status"],
                    "additionalProperties": True,
                },
                "meta": {
                    "type": "object",
                    "properties": {
                        "availableLocales": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "locale": {"type": "string"},
                                    "documentId": {"type": "string"},
                                    "status": status,
                                    "updatedAt": {"type": ["string", "null"]},
                                },
                            },
                        },
                        "availableStatus": {"type": "array", "items": open_object},
                    },
                },
            },
            "required": ["data", "meta"],
        },
        "AdminListConfiguration": {
            "type": "object",
            "properties": {
                "columns": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "sort": {"type": "string", "description": "field:ASC or field:DESC"},
                "pageSize": {"type": "integer", "enum": [10, 20, 50, 100]},
                "mainField": {"type": "string"},
            },
        },
        "AdminContentManagerInit": {
            "type": "object",
            "properties": {
                "contentTypes": {"type": "array", "items": open_object},
                "components": {"type": "array", "items": open_object},
                "locales": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "code": {"type": "string"},
                            "name": {"type": "string"},
                            "isDefault": {"type": "boolean"},
                        },
                    },
                },
                "defaultLocale": {"type": "string"},
            },
        },
    }


def described_paths() -> dict[str, Any]:
    """The operations the other admin modules describe (`PATHS`)."""
    paths: dict[str, Any] = {}
    for name in DESCRIBED:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        found = getattr(module, "PATHS", None)
        if isinstance(found, dict):
            for path, operations in found.items():
                paths.setdefault(path, {}).update(operations)
    return paths


def add_admin_api(document: dict[str, Any], registry: Registry, locales: list[str]) -> None:
    """Adds the admin API's operations, schemas and security scheme to `document`."""
    paths = document.setdefault("paths", {})
    paths.update(described_paths())
    paths.update(content_manager_paths(registry, locales))
    components = document.setdefault("components", {})
    components.setdefault("schemas", {}).update(admin_schemas())
    components.setdefault("securitySchemes", {})["adminSession"] = {
        "type": "apiKey",
        "in": "cookie",
        "name": "folio_admin",
        "description": "The admin panel's session (POST /admin/api/login); writes also send "
        "the session's CSRF token in X-Folio-CSRF",
    }
