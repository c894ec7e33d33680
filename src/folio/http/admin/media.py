"""The admin API's media library (`/admin/api/upload/...`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.routing import Route

if TYPE_CHECKING:
    from folio.app import Folio
    from folio.http.admin.session import AdminAuth


class MediaEndpoints:
    def __init__(self, folio: Folio, auth: AdminAuth) -> None:
        self.folio = folio
        self.auth = auth

    def routes(self) -> list[Route]:
        return []
