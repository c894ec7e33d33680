"""The API documentation page: Swagger UI showing `/openapi.json`, served at
`/documentation` with its pinned assets under `/documentation/assets/` (see
docs/README.md). Nothing is loaded from elsewhere (see `http.assets`)."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from folio.http.assets import PackedAssets, page_response

ASSETS = Path(__file__).parent / "docs"
PATH = "/documentation"


class DocumentationPage:
    def __init__(self, spec_url: str) -> None:
        page = (ASSETS / "index.html").read_text()
        self.page = page.replace("{assets}", f"{PATH}/assets").replace("{spec}", spec_url)
        self.files = PackedAssets(
            ASSETS, ("swagger-ui-bundle.js", "swagger-ui.css"), ("documentation.js",)
        )

    async def page_response(self, request: Request) -> Response:
        return page_response(self.page)

    async def asset(self, request: Request) -> Response:
        return self.files.response(request)
