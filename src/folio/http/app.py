"""The HTTP front-end: the ASGI application serving one app (folio.app) — the REST
endpoints, the upload routes and their files, each action run through the pipeline
(authorization, policies, middlewares), errors in the reference's envelope. The app's
database is opened and synced in the server's lifespan."""

from __future__ import annotations

import gc
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from folio.app import Folio, load_app
from folio.auth.principal import Principal
from folio.config import environment
from folio.errors import (
    ConfigError,
    FolioError,
    InternalError,
    MethodNotAllowedError,
    NotFoundError,
    ServiceUnavailableError,
)
from folio.http.admin import admin_routes
from folio.http.documentation import PATH as DOCS_PATH
from folio.http.documentation import DocumentationPage
from folio.http.edges import CorsSettings, Edges
from folio.http.events import EventStreams
from folio.http.graphql.endpoint import GraphQLEndpoint
from folio.http.openapi import OpenApiBuilder
from folio.http.pipeline import Pipeline
from folio.http.requestlog import RequestLog
from folio.http.responses import error_response, json_response
from folio.http.rest.content import ContentEndpoints
from folio.http.security import security_headers
from folio.http.upload import UploadEndpoints
from folio.http.users import UserEndpoints
from folio.logformat import configure_logging

log = logging.getLogger("folio")

ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]


async def _folio_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, FolioError)
    return error_response(exc)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        return error_response(MethodNotAllowedError())
    if exc.status_code == 404:
        return error_response(NotFoundError())
    error = FolioError(str(exc.detail))
    error.status = exc.status_code
    error.name = "HttpError"
    return error_response(error)


# the status the request log shows for a request whose client left (or whose body stopped
# coming, answered 408 by the server's protocol) before its answer: nginx's "client closed
# request"; the client never sees it
CLIENT_CLOSED = 499


async def _unexpected(request: Request, exc: Exception) -> Response:
    if isinstance(exc, ClientDisconnect):
        return Response(status_code=CLIENT_CLOSED)
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return error_response(InternalError())


async def _not_found(request: Request) -> Response:
    raise NotFoundError()


async def _health(request: Request) -> Response:
    """The server is up (204, as the reference answers)."""
    return Response(status_code=204)


def _ready(folio: Folio) -> Any:
    """`GET /_health/ready` (and HEAD), for a load balancer: 204 when the server takes
    requests and its database answers a statement; 503 `ServiceUnavailableError` with
    `Retry-After` while the database does not, and from the moment the server is told to
    stop (SIGTERM) while it finishes what it serves, so that the balancer sends nothing
    more. No credentials; one pooled statement."""

    async def ready(request: Request) -> Response:
        if getattr(request.app, "draining", False):
            error = ServiceUnavailableError("The server is shutting down")
            error.retry_after = 5
            raise error
        await folio.ready()
        return Response(status_code=204)

    return ready


def _locales(folio: Folio) -> Any:
    """`GET /api/i18n/locales`: the configured locales, as the reference lists them."""

    async def handler(request: Request, principal: Principal) -> Response:
        return json_response(folio.settings.locale_records())

    return handler


class FolioApp(Starlette):
    """The Starlette app, with the generated content routes dispatched before its middleware
    and route table: a content request goes straight to its endpoint (the same endpoint and
    error handling its routes in the table give it), everything else, and an app mounted
    under a root path, through Starlette."""

    content: tuple[Any, Any, set[str]] | None = None  # (root, document, type names)
    edges: Edges | None = None  # CORS and request ids, on every answer
    requests: RequestLog | None = None  # a log line per request
    unavailable: ServiceUnavailableError | None = None  # develop: why the app did not start
    # told to stop (SIGTERM): readiness answers 503 and each answer closes its connection
    draining = False

    def drain(self) -> None:
        """The server stops (called by it, through the lifespan's state, `DRAIN`): the
        balancer is told by readiness, and clients on kept-alive connections by
        `Connection: close`, to go elsewhere while the requests under way finish."""
        self.draining = True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.draining:
            send = _closing(send)
        if scope["type"] == "http" and self.requests is not None:
            send = self.requests.wrap(scope, send)
        if scope["type"] == "http" and self.unavailable is not None:
            await error_response(self.unavailable)(scope, receive, send)
            return
        if scope["type"] == "http" and self.edges is not None:
            wrapped = await self.edges.handle(scope, send)
            if wrapped is None:
                return  # a CORS preflight, answered
            send = wrapped
        if scope["type"] == "http" and self.content is not None and not scope.get("root_path"):
            path: str = scope["path"]
            if path.startswith("/api/"):
                root, document, names = self.content
                # `/api/articles/` is `/api/articles` (as the reference answers)
                name, slash, document_id = path[5:].rstrip("/").partition("/")
                # `/api/<name>/events` is the type's event stream (folio.http.events)
                if name in names and (
                    not slash
                    or (document_id and "/" not in document_id and document_id != "events")
                ):
                    scope["app"] = self
                    params = {"name": name, "document_id": document_id} if slash else {"name": name}
                    scope["path_params"] = params
                    request = Request(scope, receive, send)
                    try:
                        response = await (document if slash else root)(request)
                    except FolioError as exc:
                        response = error_response(exc)
                    except HTTPException as exc:
                        response = await _http_error(request, exc)
                    except Exception as exc:
                        response = await _unexpected(request, exc)
                    await response(scope, receive, send)
                    return
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        answered = False

        async def sending(message: Any) -> None:
            nonlocal answered
            if message["type"] == "http.response.body" and not message.get("more_body"):
                answered = True
            await send(message)

        try:
            await super().__call__(scope, receive, sending)
        except Exception:
            # Starlette answers an unexpected error with the 500 envelope and then raises
            # it again, and the server closes the connection; once the answer is complete
            # (it was logged), the connection stays usable
            if not answered:
                raise


# the key of the lifespan's state where the server finds the function that starts the app's
# drain (an ASGI server's way to reach the app it runs; folio.cli.server calls it)
DRAIN = "folio.drain"


def _closing(send: Send) -> Send:
    """`send` with `Connection: close` on the answer (uvicorn then closes the connection
    once the answer is complete)."""

    async def sending(message: Any) -> None:
        if message["type"] == "http.response.start":
            headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"]
            headers.append((b"connection", b"close"))
            message["headers"] = headers
        await send(message)

    return sending


# young collections: at most one per this many new container objects (Python's default,
# 700, ran one every few requests of a page)
GC_YOUNG_THRESHOLD = 10_000


def _settle_heap() -> None:
    """Once the app has started: what start-up made (modules, models, schemas, compiled
    statements) is moved out of the collector's sight (gc.freeze), so that a full
    collection walks only what came after. Under a write load, full collections walked
    the whole heap and held the loop 17-24 ms each (creates' p99 17 ms against a p50 of
    2.8); young collections run less often. Shutdown unfreezes, so an app loaded and
    closed in a longer process leaves nothing behind for good."""
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(GC_YOUNG_THRESHOLD, young), middle, old)


def build_asgi(folio: Folio) -> Starlette:
    # every action of the endpoints runs through it
    pipeline = Pipeline(folio)
    endpoints = ContentEndpoints(folio, pipeline)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        try:
            await folio.start()
        except ConfigError as exc:
            if os.environ.get("FOLIO_DEVELOP") != "1":
                raise
            # `folio develop`: a refused schema change (or another start-up problem) is
            # answered until a file changes and the app is loaded again
            log.error("the app cannot start until this is fixed: %s", exc)
            assert isinstance(app, FolioApp)
            app.unavailable = ServiceUnavailableError(str(exc))
            yield {}
            return
        # listening first: what the worker reads next cannot change unheard
        await folio.broadcast.start()
        await folio.webhooks.start_worker()
        _settle_heap()
        assert isinstance(app, FolioApp)
        try:
            yield {DRAIN: app.drain}
        finally:
            gc.unfreeze()
            await folio.close()

    uploads = UploadEndpoints(folio, pipeline)
    graphql = GraphQLEndpoint(folio)
    routes: list[BaseRoute] = [
        Route("/_health", _health, methods=["GET", "HEAD"]),
        Route("/_health/ready", _ready(folio), methods=["GET", "HEAD"]),
        *_documentation(folio, graphql.path if graphql.schema else None),
        Route(
            "/api/i18n/locales",
            pipeline.endpoint("plugin::i18n.locales.listLocales", _locales(folio)),
            methods=["GET", "HEAD"],
        ),
        # no route when there is nothing to serve (`shadowCRUD: false`, no extension)
        *(
            [
                Route(graphql.path, graphql.handle, methods=ALL_METHODS),
                Route(graphql.path + "/sandbox/{name}", graphql.asset, methods=["GET", "HEAD"]),
            ]
            if graphql.schema
            else []
        ),
        *UserEndpoints(folio, pipeline).routes(),
        *admin_routes(folio),
        Route("/api/upload", uploads.upload, methods=["POST"]),
        Route("/api/upload/files", uploads.find, methods=["GET", "HEAD"]),
        Route("/api/upload/files/{id}", uploads.find_one, methods=["GET", "HEAD"]),
        Route("/api/upload/files/{id}", uploads.destroy, methods=["DELETE"]),
        *_storage_mount(folio),
        *EventStreams(folio, pipeline, endpoints.root).routes(),
        Route("/api/{name}", endpoints.root, methods=ALL_METHODS),
        Route("/api/{name}/{document_id}", endpoints.document, methods=ALL_METHODS),
        Route("/{path:path}", _not_found, methods=ALL_METHODS),
    ]
    # content types dispatched ahead of the table (FolioApp), but never a path segment
    # that another route serves
    taken = {
        r.path.split("/")[2]
        for r in routes
        if isinstance(r, Route) and r.path.startswith("/api/") and not r.path.startswith("/api/{")
    }
    names = {name for name in folio.registry.by_route if name not in taken}
    handlers: dict[Any, Any] = {
        FolioError: _folio_error,
        HTTPException: _http_error,
        Exception: _unexpected,
    }
    app = FolioApp(routes=routes, lifespan=lifespan, exception_handlers=handlers)
    app.content = (endpoints.root, endpoints.document, names)
    middlewares = folio.settings.raw.get("middlewares", {})
    app.edges = Edges(CorsSettings.read(middlewares), security_headers(middlewares))
    app.requests = _request_log()
    app.state.folio = folio
    return app


def _documentation(folio: Folio, graphql_path: str | None) -> list[BaseRoute]:
    """`GET /openapi.json` and the page that shows it (`/documentation`): on outside
    production, or as `plugins.documentation.enabled` says. The document is made on the
    first request and kept."""
    plugins = folio.settings.raw.get("plugins", {})
    config = plugins.get("documentation") if isinstance(plugins, dict) else None
    enabled = environment() != "production"
    if isinstance(config, dict) and isinstance(config.get("enabled"), bool):
        enabled = config["enabled"]
    if not enabled:
        return []
    made: list[bytes] = []

    async def document(request: Request) -> Response:
        if not made:
            codes = [loc.code for loc in folio.settings.locales]
            realtime = folio.feed.settings.enabled
            built = OpenApiBuilder(folio.registry, codes, graphql_path, realtime).build()
            made.append(orjson.dumps(built))
        return Response(made[0], media_type="application/json")

    page = DocumentationPage("/openapi.json")
    return [
        Route("/openapi.json", document, methods=["GET", "HEAD"]),
        Route(DOCS_PATH, page.page_response, methods=["GET", "HEAD"]),
        Route(DOCS_PATH + "/assets/{name}", page.asset, methods=["GET", "HEAD"]),
    ]


def _storage_mount(folio: Folio) -> list[BaseRoute]:
    """The stored uploads, when the provider's URLs point back at this server."""
    mount = folio.storage.static_mount()
    if mount is None:
        return []
    files = StaticFiles(directory=str(mount.directory), check_dir=False)
    return [Mount(mount.path, UploadedFiles(files))]


# types a browser would run or render as a document: served as downloads
ACTIVE_TYPES = (
    b"text/html",
    b"application/xhtml+xml",
    b"image/svg+xml",
    b"text/xml",
    b"application/xml",
    b"text/javascript",
    b"application/javascript",
    b"application/x-shockwave-flash",
    b"application/pdf",
)
# an uploaded file opened by itself runs nothing and reaches nothing
UPLOAD_CSP = (
    b"default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox"
)


class UploadedFiles:
    """Stored uploads, served so that none can act as a page of this site: a sandboxing
    content security policy on every file (`X-Content-Type-Options: nosniff` comes with
    the security headers), and `Content-Disposition: attachment` for HTML, SVG, XML,
    scripts and the like."""

    def __init__(self, files: StaticFiles) -> None:
        self.files = files

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                kind = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                headers.append((b"content-security-policy", UPLOAD_CSP))
                headers.append((b"x-content-type-options", b"nosniff"))
                if kind.split(b";")[0].strip().lower() in ACTIVE_TYPES:
                    headers.append((b"content-disposition", b"attachment"))
                message["headers"] = headers
            await send(message)

        await self.files(scope, receive, sending)


def _request_log() -> RequestLog | None:
    """The request log the command line asked for (a server process started by `folio
    serve` or `folio develop`), at the info level and below."""
    if os.environ.get("FOLIO_REQUEST_LOG") != "1":
        return None
    if os.environ.get("FOLIO_LOG_LEVEL", "info") not in ("info", "debug", "trace"):
        return None
    return RequestLog(os.environ.get("FOLIO_LOG_FORMAT", "plain"))


def create_app(app_dir: Path | str | None = None, database_url: str | None = None) -> Starlette:
    """The ASGI app for an app directory (default: `FOLIO_APP_DIR` or the current one)."""
    level = os.environ.get("FOLIO_LOG_LEVEL")
    if level:
        configure_logging(level, os.environ.get("FOLIO_LOG_FORMAT", "plain"))
    directory = app_dir or os.environ.get("FOLIO_APP_DIR") or "."
    if os.environ.get("FOLIO_DEVELOP") != "1":
        return build_asgi(load_app(directory, database_url))
    try:
        return build_asgi(load_app(directory, database_url))
    except ConfigError as exc:
        # `folio develop`: the server stays up and says what is wrong until a file changes
        # and the app is loaded again
        log.error("the app cannot start until this is fixed: %s", exc)
        return _unavailable(str(exc))


def _unavailable(problem: str) -> Starlette:
    """An app that answers every request 503 with the start-up problem (the file and what
    is wrong with it)."""
    error = ServiceUnavailableError(problem)

    async def answer(request: Request) -> Response:
        return error_response(error)

    methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
    return Starlette(routes=[Route("/{path:path}", answer, methods=methods)])
