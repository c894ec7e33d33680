"""The GraphQL sandbox: an interactive IDE (GraphiQL) served at the endpoint to browsers
(`Accept: text/html`), with its pinned assets under `<endpoint>/sandbox/` (see
sandbox/README.md). Nothing is loaded from elsewhere, and the page and its assets carry a
Content-Security-Policy that allows only this server (set for these paths only)."""

from __future__ import annotations

import gzip
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from folio.errors import NotFoundError

ASSETS = Path(__file__).parent / "sandbox"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
)
MEDIA = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
PACKED = (
    "graphiql.min.js",
    "graphiql.min.css",
    "react.production.min.js",
    "react-dom.production.min.js",
)
PLAIN = ("sandbox.js", "sandbox.css")


class Sandbox:
    def __init__(self, endpoint: str) -> None:
        self.assets = f"{endpoint}/sandbox"
        page = (ASSETS / "index.html").read_text()
        self.page = page.replace("{assets}", self.assets).replace("{endpoint}", endpoint)
        # name -> (bytes, gzip-compressed)
        self.files: dict[str, tuple[bytes, bool]] = {
            name: ((ASSETS / f"{name}.gz").read_bytes(), True) for name in PACKED
        }
        self.files.update({name: ((ASSETS / name).read_bytes(), False) for name in PLAIN})

    @staticmethod
    def wanted(request: Request) -> bool:
        """A browser asking for the page: a GET for HTML without an operation."""
        return (
            request.method in ("GET", "HEAD")
            and "text/html" in request.headers.get("accept", "")
            and "query" not in request.query_params
        )

    def page_response(self) -> Response:
        return Response(
            self.page,
            media_type="text/html; charset=utf-8",
            headers={"Content-Security-Policy": CSP, "Cache-Control": "no-cache"},
        )

    def asset(self, request: Request) -> Response:
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
        media = MEDIA[Path(name).suffix]
        return Response(body, media_type=media, headers=headers)
