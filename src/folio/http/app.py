"""The ASGI application: loads an app directory (settings, models), opens and syncs the
database on start-up, and routes requests to the REST endpoints with the error envelope."""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from folio.auth.access import AccessControl
from folio.config import Settings, load_settings
from folio.content.service import DocumentService
from folio.errors import FolioError, InternalError, MethodNotAllowedError, NotFoundError
from folio.http.responses import error_response
from folio.http.rest.content import ContentEndpoints
from folio.http.upload import UploadEndpoints
from folio.schema.loader import load_registry
from folio.schema.model import Registry
from folio.store.database import Database, open_database
from folio.store.layout import build_layout
from folio.store.sync import sync_schema

log = logging.getLogger("folio")

ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]


class Folio:
    """One served app: its settings, models, database and services."""

    def __init__(self, settings: Settings, registry: Registry, db: Database) -> None:
        self.settings = settings
        self.registry = registry
        self.db = db
        self.documents = DocumentService(registry, db, settings.default_locale)
        self.access = AccessControl()

    async def start(self) -> None:
        await self.db.start()
        changes = await self.db.write(sync_schema(self.db.dialect, build_layout(self.registry)))
        for change in changes:
            log.info("schema: %s", change)

    async def close(self) -> None:
        await self.db.close()


def load_app(app_dir: Path | str, database_url: str | None = None) -> Folio:
    """Reads the app directory; raises ConfigError on a bad model or configuration."""
    settings = load_settings(Path(app_dir))
    if database_url:
        settings.database_url = database_url
    registry = load_registry(settings.app_dir)
    db = open_database(settings.database_url, str(settings.app_dir))
    return Folio(settings, registry, db)


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


async def _unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return error_response(InternalError())


async def _not_found(request: Request) -> Response:
    raise NotFoundError()


def build_asgi(folio: Folio) -> Starlette:
    endpoints = ContentEndpoints(folio)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await folio.start()
        try:
            yield
        finally:
            await folio.close()

    uploads = UploadEndpoints(folio)
    routes = [
        Route("/api/upload", uploads.upload, methods=["POST"]),
        Route("/api/upload/files", uploads.find, methods=["GET", "HEAD"]),
        Route("/api/upload/files/{id}", uploads.find_one, methods=["GET", "HEAD"]),
        Route("/api/upload/files/{id}", uploads.destroy, methods=["DELETE"]),
        Mount("/uploads", StaticFiles(directory=str(uploads.provider.root), check_dir=False)),
        Route("/api/{name}", endpoints.root, methods=ALL_METHODS),
        Route("/api/{name}/{document_id}", endpoints.document, methods=ALL_METHODS),
        Route("/{path:path}", _not_found, methods=ALL_METHODS),
    ]
    handlers: dict[Any, Any] = {
        FolioError: _folio_error,
        HTTPException: _http_error,
        Exception: _unexpected,
    }
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers=handlers)
    app.state.folio = folio
    return app


def create_app(app_dir: Path | str | None = None, database_url: str | None = None) -> Starlette:
    """The ASGI app for an app directory (default: `FOLIO_APP_DIR` or the current one)."""
    directory = app_dir or os.environ.get("FOLIO_APP_DIR") or "."
    return build_asgi(load_app(directory, database_url))
