"""The GraphQL sandbox: an interactive IDE (GraphiQL) served at the endpoint to browsers
(`Accept: text/html`), with its pinned assets under `<endpoint>/sandbox/` (see
sandbox/README.md). Nothing is loaded from elsewhere, and the page and its assets carry a
Content-Security-Policy that allows only this server (set for these paths only)."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from folio.http.assets import PackedAssets, page_response

ASSETS = Path(__file__).parent / "sandbox"
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
        self.files = PackedAssets(ASSETS, PACKED, PLAIN)

    @staticmethod
    def wanted(request: Request) -> bool:
        """A browser asking for the page: a GET for HTML without an operation."""
        return (
            request.method in ("GET", "HEAD")
            and "text/html" in request.headers.get("accept", "")
            and "query" not in request.query_params
        )

    def page_response(self) -> Response:
        return page_response(self.page)

    def asset(self, request: Request) -> Response:
        return self.files.response(request)
