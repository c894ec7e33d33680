"""The admin API's media library (`/admin/api/upload/...`), for a signed-in administrator;
files are read and written as the content API's upload routes do (http/upload.py: one
multipart reader, one way to store bytes and formats, the file records of the document
service).

    GET    /files                      list: page, pageSize, sort (default createdAt:desc),
                                       _q (name, alternative text or caption), filters in
                                       the REST syntax -> {data: [FILE], meta: {pagination}}
    GET    /files/:id                  one file
    GET    /files/:id/usage            the entries using it: [{uid, displayName,
                                       documentId, locale, field, label}]
    POST   /files                      multipart: `files` (several), `fileInfo` (a JSON
                                       object per file) -> 201 [FILE]
    PUT    /files/:id                  {name?, alternativeText?, caption?, focalPoint?:
                                       {x, y} | null}
    POST   /files/:id/replace          multipart: one `files` part -> the same file (same
                                       id and URL), new bytes and formats
    DELETE /files/:id                  -> the deleted file
    POST   /files/actions/bulkDelete   {ids: [...]} -> {count}"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from folio.content.ids import MAX_ID_DIGITS, decimal_id
from folio.errors import FieldError, NotFoundError, ValidationError, validation_failed
from folio.http.admin.openapi import (
    CSRF,
    ERROR_REF,
    JSON,
    PAGE_META,
    SESSION,
    data_schema,
    query_param,
)
from folio.http.admin.session import AdminAuth, principal
from folio.http.responses import json_response
from folio.http.rest.content import query_params, read_json_data
from folio.http.upload import FileUploads, delete_file
from folio.schema.builtins import FILE_UID

if TYPE_CHECKING:
    from folio.app import Folio

BASE = "/admin/api/upload"
# the text fields `_q` searches
SEARCHED = ("name", "alternativeText", "caption")
MAX_BULK = 1000


def _text(value: Any, key: str, errors: list[FieldError], required: bool = False) -> Any:
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        what = "a non-empty text" if required else "a text or null"
        errors.append(FieldError([key], f"{key} must be {what}", value))
        return None
    if len(value) > 10_000:
        errors.append(FieldError([key], f"{key} must be at most 10000 characters", value))
    return value.strip() if required else value


def _focal_point(value: Any, errors: list[FieldError]) -> Any:
    if value is None:
        return None
    if not isinstance(value, dict):
        errors.append(FieldError(["focalPoint"], "focalPoint must be {x, y} or null", value))
        return None
    point: dict[str, float] = {}
    for axis in ("x", "y"):
        given = value.get(axis)
        if isinstance(given, bool) or not isinstance(given, int | float):
            errors.append(FieldError(["focalPoint", axis], f"focalPoint.{axis} must be a number"))
        else:
            point[axis] = given
    return point


def file_info(body: dict[str, Any]) -> dict[str, Any]:
    """The changes of a file's information (other keys are passed over, as the
    reference's file update does)."""
    errors: list[FieldError] = []
    values: dict[str, Any] = {}
    if "name" in body:
        values["name"] = _text(body["name"], "name", errors, required=True)
    for key in ("alternativeText", "caption"):
        if key in body:
            values[key] = _text(body[key], key, errors)
    if "focalPoint" in body:
        values["focalPoint"] = _focal_point(body["focalPoint"], errors)
    if errors:
        raise validation_failed(errors)
    return values


def _list_params(request: Request) -> dict[str, Any]:
    """The REST parameters of a list request: `page` / `pageSize` as the pagination, `_q`
    as a case-insensitive search of the searched fields (with the given filters)."""
    params = dict(query_params(request))
    search = params.pop("_q", None)
    page, size = params.pop("page", None), params.pop("pageSize", None)
    if page is not None or size is not None:
        pagination = params.get("pagination")
        pagination = dict(pagination) if isinstance(pagination, dict) else {}
        if page is not None:
            pagination["page"] = page
        if size is not None:
            pagination["pageSize"] = size
        params["pagination"] = pagination
    if isinstance(search, str) and search.strip():
        term = search.strip()
        found = {"$or": [{name: {"$containsi": term}} for name in SEARCHED]}
        given = params.get("filters")
        params["filters"] = {"$and": [given, found]} if given else found
    params.setdefault("sort", "createdAt:desc")
    return params


def _id(request: Request) -> int:
    file_id = decimal_id(request.path_params["id"])
    if file_id is None:
        raise NotFoundError("File not found")
    return file_id


class MediaEndpoints:
    def __init__(self, folio: Folio, auth: AdminAuth) -> None:
        self.folio = folio
        self.auth = auth
        self.file_type = folio.registry.content_types[FILE_UID]
        self.uploads = FileUploads(folio)

    def routes(self) -> list[Route]:
        get = ["GET", "HEAD"]
        return [
            Route(f"{BASE}/files", self.list, methods=get),
            Route(f"{BASE}/files", self.upload, methods=["POST"]),
            Route(f"{BASE}/files/actions/bulkDelete", self.bulk_delete, methods=["POST"]),
            Route(BASE + "/files/{id}", self.get, methods=get),
            Route(BASE + "/files/{id}", self.update, methods=["PUT"]),
            Route(BASE + "/files/{id}", self.delete, methods=["DELETE"]),
            Route(BASE + "/files/{id}/usage", self.usage, methods=get),
            Route(BASE + "/files/{id}/replace", self.replace, methods=["POST"]),
        ]

    async def _file(self, request: Request) -> dict[str, Any]:
        doc = await self.folio.files.get(_id(request))
        if doc is None:
            raise NotFoundError("File not found")
        return doc

    async def _body(self, request: Request) -> dict[str, Any]:
        return await read_json_data(request, self.folio.settings.max_body_bytes)

    async def list(self, request: Request) -> Response:
        user = await self.auth.require(request)
        page = await self.folio.documents.find(
            self.file_type, _list_params(request), principal(user)
        )
        return json_response({"data": page.documents, "meta": page.meta})

    async def get(self, request: Request) -> Response:
        await self.auth.require(request)
        return json_response({"data": await self._file(request)})

    async def usage(self, request: Request) -> Response:
        await self.auth.require(request)
        doc = await self._file(request)
        return json_response({"data": await self.folio.admins.file_usage(int(doc["id"]))})

    async def upload(self, request: Request) -> Response:
        await self.auth.require(request)
        form = await self.uploads.read(request)
        try:
            docs = await self.uploads.create(form.files_named("files"), form.getlist("fileInfo"))
        finally:
            form.discard()
        return json_response({"data": docs}, 201)

    async def replace(self, request: Request) -> Response:
        await self.auth.require(request)
        doc = await self._file(request)
        form = await self.uploads.read(request)
        try:
            uploads = form.files_named("files")
            if len(uploads) != 1:
                raise ValidationError("Send the new file as one `files` part")
            updated = await self.uploads.replace(doc, uploads, form.getlist("fileInfo"))
        finally:
            form.discard()
        return json_response({"data": updated})

    async def update(self, request: Request) -> Response:
        await self.auth.require(request)
        doc = await self._file(request)
        values = file_info(await self._body(request))
        if not values:
            return json_response({"data": doc})
        updated = await self.folio.files.update(str(doc["documentId"]), values)
        return json_response({"data": updated})

    async def delete(self, request: Request) -> Response:
        await self.auth.require(request)
        doc = await delete_file(self.folio, str(_id(request)))
        return json_response({"data": doc})

    async def bulk_delete(self, request: Request) -> Response:
        await self.auth.require(request)
        ids = (await self._body(request)).get("ids")
        if (
            not isinstance(ids, list)
            or len(ids) > MAX_BULK
            or not all(
                (isinstance(i, int) and not isinstance(i, bool) and i > 0)
                or (isinstance(i, str) and i.isdecimal() and len(i) <= MAX_ID_DIGITS)
                for i in ids
            )
        ):
            raise validation_failed(
                [FieldError(["ids"], f"ids must be a list of at most {MAX_BULK} file ids", ids)]
            )
        count = 0
        for file_id in dict.fromkeys(int(i) for i in ids):
            try:
                await delete_file(self.folio, str(file_id))
            except NotFoundError:
                continue
            count += 1
        return json_response({"data": {"count": count}})


# ---------------------------------------------------------------------- OpenAPI

_TAG = "Admin: media library"
_FILE = {"$ref": "#/components/schemas/UploadFile"}
_FILE_ID = {
    "name": "id",
    "in": "path",
    "required": True,
    "description": "The file's id",
    "schema": {"type": "integer"},
}
_POINT = {
    "type": ["object", "null"],
    "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
    "required": ["x", "y"],
}
_MULTIPART = {
    "required": True,
    "content": {
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "properties": {
                    "files": {"type": "array", "items": {"type": "string", "format": "binary"}},
                    "fileInfo": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "per file, a JSON object: name, alternativeText, "
                        "caption, focalPoint",
                    },
                },
                "required": ["files"],
            }
        }
    },
}


def _answer(schema: dict[str, Any], description: str, meta: bool = False) -> dict[str, Any]:
    shown = data_schema(schema, PAGE_META if meta else None)
    return {"description": description, "content": {JSON: {"schema": shown}}}


def _op(
    op_id: str,
    summary: str,
    responses: dict[str, Any],
    *,
    write: bool = False,
    params: list[dict[str, Any]] | None = None,
    body: dict[str, Any] | None = None,
) -> dict[str, Any]:
    op: dict[str, Any] = {
        "summary": summary,
        "operationId": op_id,
        "tags": [_TAG],
        "security": SESSION,
        "parameters": [*(params or []), *([CSRF] if write else [])],
        "responses": {**responses, "401": ERROR_REF, **({"403": ERROR_REF} if write else {})},
    }
    if body is not None:
        op["requestBody"] = body
    return op


_FILES = {"type": "array", "items": _FILE}
_USAGE = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "uid": {"type": "string"},
            "displayName": {"type": "string"},
            "documentId": {"type": "string"},
            "locale": {"type": ["string", "null"]},
            "field": {"type": "string", "description": "the media field (seo.shareImage)"},
            "label": {"type": "string"},
        },
        "required": ["uid", "displayName", "documentId", "locale", "field", "label"],
    },
}

PATHS: dict[str, dict[str, Any]] = {
    f"{BASE}/files": {
        "get": _op(
            "adminUploadFilesList",
            "The media library's files (search, filters, sort, pages)",
            {"200": _answer(_FILES, "Files", meta=True), "400": ERROR_REF},
            params=[
                query_param("page", {"type": "integer", "minimum": 1}, "the page"),
                query_param("pageSize", {"type": "integer", "minimum": 1}, "files per page"),
                query_param("sort", {"type": "string"}, "field:asc|desc (default createdAt:desc)"),
                query_param(
                    "_q", {"type": "string"}, "text in the name, alternative text or caption"
                ),
                {"$ref": "#/components/parameters/filters"},
            ],
        ),
        "post": _op(
            "adminUploadFilesCreate",
            "Upload files",
            {"201": _answer(_FILES, "Stored"), "400": ERROR_REF, "413": ERROR_REF},
            write=True,
            body=_MULTIPART,
        ),
    },
    f"{BASE}/files/actions/bulkDelete": {
        "post": _op(
            "adminUploadFilesBulkDelete",
            "Delete several files",
            {
                "200": _answer(
                    {"type": "object", "properties": {"count": {"type": "integer"}}},
                    "How many were deleted",
                ),
                "400": ERROR_REF,
            },
            write=True,
            body={
                "required": True,
                "content": {
                    JSON: {
                        "schema": {
                            "type": "object",
                            "properties": {"ids": {"type": "array", "items": {"type": "integer"}}},
                            "required": ["ids"],
                        }
                    }
                },
            },
        )
    },
    BASE + "/files/{id}": {
        "get": _op(
            "adminUploadFileGet",
            "One file",
            {"200": _answer(_FILE, "The file"), "404": ERROR_REF},
            params=[_FILE_ID],
        ),
        "put": _op(
            "adminUploadFileUpdate",
            "Change a file's name, alternative text, caption or focal point",
            {"200": _answer(_FILE, "Changed"), "400": ERROR_REF, "404": ERROR_REF},
            write=True,
            params=[_FILE_ID],
            body={
                "required": True,
                "content": {
                    JSON: {
                        "schema": {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string"},
                                "alternativeText": {"type": ["string", "null"]},
                                "caption": {"type": ["string", "null"]},
                                "focalPoint": _POINT,
                            },
                        }
                    }
                },
            },
        ),
        "delete": _op(
            "adminUploadFileDelete",
            "Delete a file (its stored bytes too)",
            {"200": _answer(_FILE, "Deleted"), "404": ERROR_REF},
            write=True,
            params=[_FILE_ID],
        ),
    },
    BASE + "/files/{id}/usage": {
        "get": _op(
            "adminUploadFileUsage",
            "The entries that use a file, by media field",
            {"200": _answer(_USAGE, "Where the file is used"), "404": ERROR_REF},
            params=[_FILE_ID],
        )
    },
    BASE + "/files/{id}/replace": {
        "post": _op(
            "adminUploadFileReplace",
            "New bytes for a file: the same id and address, new size and formats",
            {
                "200": _answer(_FILE, "Replaced"),
                "400": ERROR_REF,
                "404": ERROR_REF,
                "413": ERROR_REF,
            },
            write=True,
            params=[_FILE_ID],
            body=_MULTIPART,
        )
    },
}
