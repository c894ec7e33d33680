"""The admin front-end: the HTTP API under `/admin/api/` that the admin panel uses (accounts
and sessions, the Content Manager, the media library), the older key-protected routes
(`/admin/api-tokens`, `/admin/webhooks`), and the panel itself (`/admin`), whose built
assets live in `app/` (built from the repository's `admin/` folder)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from folio.errors import NotFoundError

if TYPE_CHECKING:
    from folio.app import Folio

ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]


async def _no_route(request: Request) -> Response:
    raise NotFoundError()


def admin_routes(folio: Folio) -> list[BaseRoute]:
    """Every route under `/admin`: the admin API, the key-protected routes, and last the
    panel (every other `/admin` page answers its index)."""
    from folio.http.admin.accounts import AccountEndpoints
    from folio.http.admin.content import content_routes
    from folio.http.admin.media import MediaEndpoints
    from folio.http.admin.session import AdminAuth
    from folio.http.admin.spa import PanelEndpoints
    from folio.http.admin.tokens import AdminEndpoints
    from folio.http.admin.webhooks import WebhookEndpoints

    auth = AdminAuth(folio)
    return [
        *AccountEndpoints(folio, auth).routes(),
        *MediaEndpoints(folio, auth).routes(),
        *content_routes(folio, auth),
        # an unknown admin API path is a 404 envelope, not the panel's page
        Route("/admin/api/{path:path}", _no_route, methods=ALL_METHODS),
        *AdminEndpoints(folio, auth).routes(),
        *WebhookEndpoints(folio, auth).routes(),
        *PanelEndpoints(folio).routes(),
    ]
