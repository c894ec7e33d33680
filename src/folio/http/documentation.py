"""The API documentation page: Swagger UI showing `/openapi.json`, served at
`/documentation` with its pinned assets under `/documentation/assets/` (see
docs/README.md). Nothing is loaded from elsewhere, and the page and its assets carry a
Content-Security-Policy that allows only this server."""

from __future__ import annotations

import gzip
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from folio.errors import NotFoundError

ASSETS = Path(__file__).parent / "docs"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
)
MEDIA = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
PACKED = ("swagger-ui-bundle.js", "swagger-ui.css")
PLAIN = ("documentation.js",)
PATH = "/documentation"


class DocumentationPage:
    def __init__(self, spec_url: str) -> None:
        self.assets = f"{PATH}/assets"
        page = (ASSETS / "index.html").read_text()
        self.page = page.replace("{assets}", self.assets).replace("{spec}", spec_url)
        # name -> (bytes, gzip-compressed)
        self.files: dict[str, tuple[bytes, bool]] = {
            name: ((ASSETS / f"{name}.gz").read_bytes(), True) for name in PACKED
        }
        self.files.update({name: ((ASSETS / name).read_bytes(), False) for name in PLAIN})

    async def page_response(self, request: Request) -> Response:
        return Response(
            self.page,
            media_type="text/html; charset=utf-8",
            headers={"Content-Security-Policy": CSP, "Cache-Control": "no-cache"},
        )

    async def asset(self, request: Request) -> Response:
        name = request.path_params.get("name", "")
        found = self.files.get(name)
        if found is None:
            raise NotFoundError()
        body, packed = found
        headers = {
            "Content-Security-Policy": CSP,
            "Cache-Control": "public, max-age=86400",
            "X-Content-Type-Options": "nosniff",
        }
        if packed:
            if "gzip" in request.headers.get("accept-encoding", ""):
                headers["Content-Encoding"] = "gzip"
                headers["Vary"] = "Accept-Encoding"
            else:
                body = gzip.decompress(body)
        return Response(body, media_type=MEDIA[Path(name).suffix], headers=headers)
