"""The generated REST endpoints of content types:

collection types: GET/POST /api/:plural, GET/PUT/DELETE /api/:plural/:documentId
single types:     GET/PUT/DELETE /api/:singular
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from folio.auth.access import Principal
from folio.content.spec import QuerySpec
from folio.content.validation import require_data
from folio.errors import (
    ForbiddenError,
    MethodNotAllowedError,
    NotFoundError,
    PayloadTooLargeError,
    ValidationError,
)
from folio.errors import SyntaxError as SyntaxError_
from folio.http.responses import json_response
from folio.http.rest.params import page_meta, parse_find, parse_locale, parse_read
from folio.http.rest.qs import parse_qs
from folio.schema.model import ContentType

if TYPE_CHECKING:
    from folio.http.app import Folio

EMPTY: dict[str, Any] = {}
# parsed read specs kept (per distinct query string and caller visibility)
SPEC_CACHE = 1024


def query_params(request: Request) -> dict[str, Any]:
    """The parsed query string (a shared empty dict when there is none: do not mutate)."""
    query = request.scope.get("query_string", b"")
    return parse_qs(query.decode("latin-1")) if query else EMPTY


async def read_json(request: Request, limit: int) -> Any:
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        raise PayloadTooLargeError(f"Request body is larger than {limit} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise PayloadTooLargeError(f"Request body is larger than {limit} bytes")
    if not body.strip():
        return {}
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise SyntaxError_(f"Invalid JSON in the request body: {exc}") from None


def _body_locale(ct: ContentType, data: dict[str, Any], params: dict[str, Any]) -> Any:
    """`locale` from the query, else from `data` (the spec honours both)."""
    if params.get("locale") not in (None, ""):
        return params.get("locale")
    return data.get("locale")


class ContentEndpoints:
    def __init__(self, folio: Folio) -> None:
        self.folio = folio
        self.settings = folio.settings
        self.routes = folio.registry.by_route
        self.registry = folio.registry
        self.dialect = folio.db.dialect
        self.pipeline = folio.pipeline
        self._specs: dict[tuple[Any, ...], QuerySpec] = {}

    def _type(self, request: Request) -> ContentType:
        ct = self.routes.get(request.path_params["name"])
        if ct is None:
            raise NotFoundError()
        return ct

    def _run(
        self,
        request: Request,
        ct: ContentType,
        action: str,
        handler: Callable[[Request, ContentType, str | None, Principal], Awaitable[Response]],
        document_id: str | None = None,
    ) -> Awaitable[Response]:
        async def call(req: Request, principal: Principal) -> Response:
            return await handler(req, ct, document_id, principal)

        return self.pipeline.run(request, f"{ct.uid}.{action}", call)

    async def root(self, request: Request) -> Response:
        """/api/:name — a collection type by its plural, a single type by its singular."""
        ct = self._type(request)
        method = request.method
        if ct.is_single:
            if ct.singular != request.path_params["name"]:
                raise NotFoundError()
            if method in ("GET", "HEAD"):
                return await self._run(request, ct, "find", self._find_one)
            if method == "PUT":
                return await self._run(request, ct, "update", self._update)
            if method == "DELETE":
                return await self._run(request, ct, "delete", self._delete)
            raise MethodNotAllowedError()
        if ct.plural != request.path_params["name"]:
            raise NotFoundError()
        if method in ("GET", "HEAD"):
            return await self._run(request, ct, "find", self._find)
        if method == "POST":
            return await self._run(request, ct, "create", self._create)
        raise MethodNotAllowedError()

    async def document(self, request: Request) -> Response:
        """/api/:plural/:documentId"""
        ct = self._type(request)
        if ct.is_single or ct.plural != request.path_params["name"]:
            raise NotFoundError()
        document_id = request.path_params["document_id"]
        method = request.method
        if method in ("GET", "HEAD"):
            return await self._run(request, ct, "findOne", self._find_one, document_id)
        if method == "PUT":
            return await self._run(request, ct, "update", self._update, document_id)
        if method == "DELETE":
            return await self._run(request, ct, "delete", self._delete, document_id)
        raise MethodNotAllowedError()

    def _spec(
        self,
        parse: Callable[..., QuerySpec],
        ct: ContentType,
        params: dict[str, Any],
        principal: Principal,
    ) -> QuerySpec:
        """The query's spec; relations the caller may not `find` are left out."""
        return parse(ct, params, self.settings, self.dialect, self.registry, principal.can_find)

    def _read_spec(
        self,
        parse: Callable[..., QuerySpec],
        request: Request,
        ct: ContentType,
        principal: Principal,
    ) -> QuerySpec:
        """The spec of a read, parsed once per query string and caller's visibility: the
        same list and document URLs come back again and again. Specs are read-only."""
        key = (
            parse,
            ct.uid,
            request.scope.get("query_string", b""),
            principal.scope,
            principal.permissions,
        )
        spec = self._specs.get(key)
        if spec is None:
            spec = self._spec(parse, ct, query_params(request), principal)
            if len(self._specs) >= SPEC_CACHE:
                self._specs.clear()
            self._specs[key] = spec
        return spec

    def _check_drafts(self, ct: ContentType, spec: QuerySpec, principal: Principal) -> None:
        if (
            spec.status == "draft"
            and ct.draft_and_publish
            and not principal.can_read_drafts(ct.uid)
        ):
            raise ForbiddenError()

    async def _find(
        self, request: Request, ct: ContentType, _: str | None, principal: Principal
    ) -> Response:
        spec = self._read_spec(parse_find, request, ct, principal)
        self._check_drafts(ct, spec, principal)
        docs, total = await self.folio.documents.find(ct, spec)
        return json_response({"data": docs, "meta": page_meta(spec.pagination, total)})

    async def _find_one(
        self, request: Request, ct: ContentType, document_id: str | None, principal: Principal
    ) -> Response:
        spec = self._read_spec(parse_read, request, ct, principal)
        self._check_drafts(ct, spec, principal)
        doc = await self.folio.documents.find_one(ct, document_id or "", spec)
        if doc is None:
            raise NotFoundError()
        return json_response({"data": doc, "meta": {}})

    async def _create(
        self, request: Request, ct: ContentType, _: str | None, principal: Principal
    ) -> Response:
        params = query_params(request)
        spec = self._spec(parse_read, ct, params, principal)
        data = require_data(await read_json(request, self.settings.max_body_bytes))
        locale = parse_locale(ct, _body_locale(ct, data, params), self.settings)
        doc = await self.folio.documents.create(
            ct, data, locale=locale, status=spec.status, populate=spec.populate
        )
        doc.pop("id", None)
        return json_response({"data": _pick(doc, spec), "meta": {}}, 201)

    async def _update(
        self, request: Request, ct: ContentType, document_id: str | None, principal: Principal
    ) -> Response:
        params = query_params(request)
        spec = self._spec(parse_read, ct, params, principal)
        data = require_data(await read_json(request, self.settings.max_body_bytes))
        if "locale" in data and ct.localized and data["locale"] not in (None, spec.locale):
            raise ValidationError(
                "The locale of an existing document cannot be changed",
                {
                    "errors": [
                        {
                            "path": ["locale"],
                            "message": "The locale of an existing document cannot be changed",
                            "name": "ValidationError",
                            "value": data["locale"],
                        }
                    ]
                },
            )
        doc = await self.folio.documents.update(
            ct,
            document_id,
            data,
            locale=spec.locale,
            status=spec.status,
            populate=spec.populate,
        )
        return json_response({"data": _pick(doc, spec), "meta": {}})

    async def _delete(
        self, request: Request, ct: ContentType, document_id: str | None, principal: Principal
    ) -> Response:
        params = query_params(request)
        locale = None
        if params.get("locale") not in (None, ""):
            locale = parse_locale(ct, params.get("locale"), self.settings)
        await self.folio.documents.delete(ct, document_id, locale=locale)
        return Response(status_code=204)


def _pick(doc: dict[str, Any], spec: QuerySpec) -> dict[str, Any]:
    """A write's answer with the query's `fields` (and its populated fields)."""
    if spec.fields is None:
        return doc
    out: dict[str, Any] = {k: doc[k] for k in ("id", "documentId") if k in doc}
    for name in [*spec.fields, *(spec.populate or ())]:
        if name in doc:
            out[name] = doc[name]
    return out
