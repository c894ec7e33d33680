"""The generated REST endpoints of content types:

collection types: GET/POST /api/:plural, GET/PUT/DELETE /api/:plural/:documentId
single types:     GET/PUT/DELETE /api/:singular
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from folio.auth.principal import Principal
from folio.content.validation import require_data
from folio.errors import (
    MethodNotAllowedError,
    NotFoundError,
    PayloadTooLargeError,
    ValidationError,
)
from folio.errors import SyntaxError as SyntaxError_
from folio.http.responses import json_response
from folio.http.rest.jsonvalues import with_json_filters
from folio.http.rest.qs import parse_qs
from folio.http.rest.v4 import V4, wants_v4
from folio.schema.model import ContentType

if TYPE_CHECKING:
    from folio.app import Folio
    from folio.http.pipeline import Pipeline

EMPTY: dict[str, Any] = {}


def query_params(request: Request) -> dict[str, Any]:
    """The parsed query string (a shared empty dict when there is none: do not mutate)."""
    query = request.scope.get("query_string", b"")
    return with_json_filters(parse_qs(query.decode("latin-1"))) if query else EMPTY


class LazyParams(Mapping[str, Any]):
    """The query parameters, parsed when first read: a read whose parsed query is cached
    (per query string) never parses its query string again."""

    __slots__ = ("_parsed", "_request")

    def __init__(self, request: Request) -> None:
        self._request = request
        self._parsed: dict[str, Any] | None = None

    def _params(self) -> dict[str, Any]:
        if self._parsed is None:
            self._parsed = query_params(self._request)
        return self._parsed

    def __getitem__(self, key: str) -> Any:
        return self._params()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._params())

    def __len__(self) -> int:
        return len(self._params())


class UnreadBody(dict[str, Any]):
    """No body (empty), for a body that was not read because its type is not JSON, though
    it looks like JSON: what a write that misses its `data` says to fix."""

    def __init__(self, media_type: str) -> None:
        super().__init__()
        self.media_type = media_type

    def hint(self) -> str:
        sent = f"as {self.media_type}" if self.media_type else "without a Content-Type"
        return f"the body was sent {sent}, not read as JSON: send Content-Type: application/json"


async def _looks_like_json(request: Request) -> bool:
    """Whether the body begins, past white space, with `{` or `[` (at most its first
    chunks are read: the rest is left unread)."""
    seen = 0
    async for chunk in request.stream():
        text = chunk.lstrip()
        if text:
            return text[:1] in (b"{", b"[")
        seen += len(chunk)
        if seen > 4096:
            break
    return False


async def read_json(request: Request, limit: int) -> Any:
    """The JSON body of a request, `{}` when it has none. As the reference, only a JSON
    content type (`application/json`, any `+json` type, with or without parameters) is
    parsed: a body of another type, or without a type, is no body at all (an UnreadBody
    when it looks like JSON, so that an error can say which header to send)."""
    length = request.headers.get("content-length")
    if length is not None and length.isdecimal() and int(length) > limit:
        raise PayloadTooLargeError(f"Request body is larger than {limit} bytes")
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "application/json" and not media_type.endswith("+json"):
        if length != "0" and await _looks_like_json(request):
            return UnreadBody(media_type)
        return {}
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


async def read_json_object(request: Request, limit: int) -> dict[str, Any]:
    """The JSON object of the body, read once: later calls (a rate limiter's, then the
    handler's) get a copy of it; ValidationError when the body is not an object."""
    cached = getattr(request.state, "body", None)
    if cached is not None:
        return dict(cached)
    body = await read_json(request, limit)
    if not isinstance(body, dict):
        raise ValidationError("The request body must be a JSON object")
    request.state.body = body
    return body


async def read_json_data(request: Request, limit: int) -> dict[str, Any]:
    """The object a write sends, in `data` or as the whole body; ValidationError when
    either is not a JSON object."""
    body = await read_json(request, limit)
    if not isinstance(body, dict):
        raise ValidationError("The request body must be a JSON object")
    data = body.get("data", body)
    if not isinstance(data, dict):
        raise ValidationError("The request body must be a JSON object")
    return data


class ContentEndpoints:
    def __init__(self, folio: Folio, pipeline: Pipeline) -> None:
        self.folio = folio
        self.settings = folio.settings
        self.routes = folio.registry.by_route
        self.documents = folio.documents
        self.pipeline = pipeline
        self.v4 = V4(folio.registry)

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

    async def _find(
        self, request: Request, ct: ContentType, _: str | None, principal: Principal
    ) -> Response:
        page = await self.documents.find(
            ct, LazyParams(request), principal, key=_query_string(request)
        )
        docs: Any = page.documents
        if wants_v4(request):
            docs = self.v4.documents(ct, docs)
        return json_response({"data": docs, "meta": page.meta})

    async def _find_one(
        self, request: Request, ct: ContentType, document_id: str | None, principal: Principal
    ) -> Response:
        doc = await self.documents.find_one(
            ct, document_id, LazyParams(request), principal, key=_query_string(request)
        )
        if doc is None:
            raise NotFoundError()
        return self._one(request, ct, doc)

    async def _create(
        self, request: Request, ct: ContentType, _: str | None, principal: Principal
    ) -> Response:
        params = query_params(request)
        # the query is checked before the body is read (its errors come first)
        read = self.documents.query(ct, params, principal, find=False)
        data = write_data(await read_json(request, self.settings.max_body_bytes))
        doc = await self.documents.create(ct, data, params, principal, read=read)
        if not wants_v4(request):
            doc.pop("id", None)  # a create answer shows no id (the v4 shape does)
        return self._one(request, ct, doc, 201)

    async def _update(
        self, request: Request, ct: ContentType, document_id: str | None, principal: Principal
    ) -> Response:
        params = query_params(request)
        read = self.documents.query(ct, params, principal, find=False)
        data = write_data(await read_json(request, self.settings.max_body_bytes))
        doc = await self.documents.update(ct, document_id, data, params, principal, read=read)
        return self._one(request, ct, doc)

    def _one(
        self, request: Request, ct: ContentType, doc: dict[str, Any], status: int = 200
    ) -> Response:
        """A one-document answer, in the v4 shape when the request asks for it."""
        data = self.v4.document(ct, doc) if wants_v4(request) else doc
        return json_response({"data": data, "meta": {}}, status)

    async def _delete(
        self, request: Request, ct: ContentType, document_id: str | None, principal: Principal
    ) -> Response:
        await self.documents.delete(ct, document_id, query_params(request), principal)
        return Response(status_code=204)


def write_data(body: Any) -> dict[str, Any]:
    """The `data` of a write's body; a missing one says how to send the body when it was
    sent as another type than JSON."""
    try:
        return require_data(body)
    except ValidationError as exc:
        if isinstance(body, UnreadBody):
            raise ValidationError(f"{exc.message} ({body.hint()})", exc.details) from None
        raise


def _query_string(request: Request) -> bytes:
    query: bytes = request.scope.get("query_string", b"")
    return query
