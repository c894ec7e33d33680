"""The ASGI application: loads an app directory (settings, models), opens and syncs the
database on start-up, and routes requests to the REST endpoints with the error envelope."""

from __future__ import annotations

import inspect
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
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from folio.auth.access import AccessControl
from folio.auth.jwt import JwtCodec
from folio.auth.mail import LogMailer, Mailer
from folio.auth.permissions import RoleTable, catalogue
from folio.auth.settings import load_auth_settings
from folio.auth.tokens import TokenService
from folio.auth.users import UserService
from folio.config import Settings, load_settings
from folio.content.service import DocumentService
from folio.errors import FolioError, InternalError, MethodNotAllowedError, NotFoundError
from folio.http.admin import AdminEndpoints
from folio.http.hooks import load_hooks, load_index
from folio.http.pipeline import Pipeline
from folio.http.responses import error_response
from folio.http.rest.content import ContentEndpoints
from folio.http.upload import UploadEndpoints
from folio.http.users import UserEndpoints
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
        self.auth_settings = auth = load_auth_settings(settings)
        self.actions = catalogue(registry)
        self.roles = RoleTable(settings.app_dir, self.actions)
        self.jwt = JwtCodec(auth.jwt_secret, auth.jwt_expires_in)
        self.mailer: Mailer = LogMailer()
        self.users = UserService(self.documents, auth, self.roles, self.jwt, self.mailer)
        self.tokens = TokenService(self.documents, auth.token_salt, self.actions)
        self.access = AccessControl(
            self.roles, self.users, self.tokens, self.jwt, auth.cache_seconds
        )
        self.hooks = load_hooks(settings.app_dir, registry)
        self.pipeline = Pipeline(self, self.access, self.hooks)
        self.index = load_index(settings.app_dir)
        register = getattr(self.index, "register", None)
        if callable(register):
            register(self)
        self.users.mailer = self.mailer
        self.pipeline.compile(self.actions)

    async def start(self, bootstrap: bool = True) -> None:
        await self.db.start()
        changes = await self.db.write(sync_schema(self.db.dialect, build_layout(self.registry)))
        for change in changes:
            log.info("schema: %s", change)
        await self.users.sync_roles()
        hook = getattr(self.index, "bootstrap", None)
        if bootstrap and callable(hook):
            result = hook(self)
            if inspect.isawaitable(result):
                await result

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


class FolioApp(Starlette):
    """The Starlette app, with the generated content routes dispatched before its middleware
    and route table: a content request goes straight to its endpoint (the same endpoint and
    error handling its routes in the table give it), everything else, and an app mounted
    under a root path, through Starlette."""

    content: tuple[Any, Any, set[str]] | None = None  # (root, document, type names)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.content is not None and not scope.get("root_path"):
            path: str = scope["path"]
            if path.startswith("/api/"):
                root, document, names = self.content
                # `/api/articles/` is `/api/articles` (as the reference answers)
                name, slash, document_id = path[5:].rstrip("/").partition("/")
                if name in names and (not slash or (document_id and "/" not in document_id)):
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
        await super().__call__(scope, receive, send)


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
    routes: list[BaseRoute] = [
        *UserEndpoints(folio).routes(),
        *AdminEndpoints(folio).routes(),
        Route("/api/upload", uploads.upload, methods=["POST"]),
        Route("/api/upload/files", uploads.find, methods=["GET", "HEAD"]),
        Route("/api/upload/files/{id}", uploads.find_one, methods=["GET", "HEAD"]),
        Route("/api/upload/files/{id}", uploads.destroy, methods=["DELETE"]),
        Mount("/uploads", StaticFiles(directory=str(uploads.provider.root), check_dir=False)),
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
    app.state.folio = folio
    return app


def create_app(app_dir: Path | str | None = None, database_url: str | None = None) -> Starlette:
    """The ASGI app for an app directory (default: `FOLIO_APP_DIR` or the current one)."""
    directory = app_dir or os.environ.get("FOLIO_APP_DIR") or "."
    return build_asgi(load_app(directory, database_url))
