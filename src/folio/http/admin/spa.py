"""The admin panel's web app, served from the package: its built files are in `app/` next
to this module (or the folder named by `FOLIO_ADMIN_ASSETS`), made by `npm run build` in
the repository's `admin/` folder.

    GET /admin, /admin/<page>     index.html (no-cache), under a strict content security
                                  policy: every script and style comes from this server
    GET /admin/assets/<name>      a built file, named by its content's hash: cached for a
                                  year (immutable), gzip-compressed when the client takes it
                                  (compressed once, kept in memory)

Every page of the panel is the same index.html: the app's router reads the address. When
the build is missing, `/admin` answers 503 with a page saying how to build it."""

from __future__ import annotations

import gzip
import mimetypes
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from folio.errors import NotFoundError

if TYPE_CHECKING:
    from folio.app import Folio

BUILT = Path(__file__).parent / "app"


def page_policy(origins: tuple[str, ...] = ()) -> str:
    """The pages' Content-Security-Policy; `origins`: where the upload provider's files are
    (an object store's or its CDN's), allowed for images and media only."""
    others = "".join(f" {origin}" for origin in origins)
    return (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        f"img-src 'self' data: blob:{others}; media-src 'self' blob:{others}; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    )


CSP = page_policy()
ASSET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")
COMPRESSIBLE = (".js", ".mjs", ".css", ".map", ".json", ".svg", ".txt", ".html", ".wasm")
TYPES = {".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8"}
MISSING_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Admin panel not built</title></head>
<body><main>
<h1>The admin panel is not built</h1>
<p>This Folio was installed without the admin panel's built files ({where}).</p>
<p>Build them from the repository: <code>cd admin &amp;&amp; npm ci &amp;&amp; npm run build</code>
(or run <code>scripts/setup</code>), then restart the server.</p>
</main></body></html>
"""


def assets_folder() -> Path:
    """Where the built panel is: `FOLIO_ADMIN_ASSETS`, else the package's `app/`."""
    given = os.environ.get("FOLIO_ADMIN_ASSETS")
    return Path(given) if given else BUILT


@dataclass(frozen=True)
class Asset:
    body: bytes
    gzipped: bytes | None
    media_type: str


def _page_headers(policy: str = CSP) -> dict[str, str]:
    return {
        "Content-Security-Policy": policy,
        "Cache-Control": "no-cache",
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
        "Referrer-Policy": "same-origin",
    }


class PanelEndpoints:
    def __init__(self, folio: Folio, folder: Path | None = None) -> None:
        self.folio = folio
        self.folder = folder or assets_folder()
        self._index: bytes | None = None
        self._assets: dict[str, Asset] = {}
        self._headers = _page_headers(page_policy(folio.storage.origins()))

    def routes(self) -> list[BaseRoute]:
        get = ["GET", "HEAD"]
        return [
            Route("/admin/assets/{name:path}", self.asset, methods=get),
            Route("/admin", self.page, methods=get),
            Route("/admin/{path:path}", self.page, methods=get),
        ]

    def _read_index(self) -> bytes | None:
        if self._index is None:
            try:
                self._index = (self.folder / "index.html").read_bytes()
            except OSError:
                return None  # looked for again at the next request (a build may come)
        return self._index

    async def page(self, request: Request) -> Response:
        path = request.path_params.get("path", "")
        # the routes kept by others under /admin (an unknown one is theirs to refuse)
        first = path.split("/", 1)[0]
        if first in ("api", "assets") or first.startswith(("api-tokens", "webhooks")):
            raise NotFoundError()
        index = self._read_index()
        if index is None:
            body = MISSING_PAGE.format(where=self.folder).encode()
            headers = {**self._headers, "Cache-Control": "no-store", "Retry-After": "60"}
            return Response(body, 503, headers, media_type="text/html; charset=utf-8")
        return Response(index, 200, self._headers, media_type="text/html; charset=utf-8")

    def _load(self, name: str) -> Asset | None:
        found = self._assets.get(name)
        if found is not None:
            return found
        if not ASSET_NAME.match(name):
            return None
        path = self.folder / "assets" / name
        try:
            body = path.read_bytes()
        except OSError:
            return None
        suffix = path.suffix.lower()
        media_type = (
            TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
        )
        gzipped = None
        if suffix in COMPRESSIBLE and len(body) > 256:
            packed = gzip.compress(body, 9, mtime=0)
            gzipped = packed if len(packed) < len(body) else None
        asset = Asset(body, gzipped, media_type)
        self._assets[name] = asset
        return asset

    async def asset(self, request: Request) -> Response:
        asset = self._load(request.path_params["name"])
        if asset is None:
            raise NotFoundError()
        headers = {
            "Cache-Control": "public, max-age=31536000, immutable",
            # a file of its own: the server's security headers then add only what is missing
            "Content-Security-Policy": "default-src 'none'",
            "X-Content-Type-Options": "nosniff",
            "Vary": "Accept-Encoding",
        }
        body = asset.body
        if asset.gzipped is not None and _accepts_gzip(request.headers.get("accept-encoding", "")):
            body = asset.gzipped
            headers["Content-Encoding"] = "gzip"
        return Response(body, 200, headers, media_type=asset.media_type)


def _accepts_gzip(header: str) -> bool:
    for part in header.lower().split(","):
        name, _, params = part.strip().partition(";")
        if name.strip() in ("gzip", "*"):
            q = params.strip()
            return not (q.startswith("q=") and q[2:].strip() in ("0", "0.0", "0.00", "0.000"))
    return False
