"""Pinned front-end files that Folio serves itself (the GraphQL sandbox, the documentation
page): some stored gzip-compressed, sent as they are to clients that accept gzip; every
one under a Content-Security-Policy that allows only this server."""

from __future__ import annotations

import gzip
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from folio.errors import NotFoundError

SELF_ONLY_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
)
MEDIA = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


class PackedAssets:
    """The files of `directory`: `packed` ones stored as `<name>.gz`, `plain` ones as they
    are; a request names one by its `name` path parameter."""

    def __init__(self, directory: Path, packed: tuple[str, ...], plain: tuple[str, ...]) -> None:
        # name -> (bytes, gzip-compressed)
        self.files: dict[str, tuple[bytes, bool]] = {
            name: ((directory / f"{name}.gz").read_bytes(), True) for name in packed
        }
        self.files.update({name: ((directory / name).read_bytes(), False) for name in plain})

    def response(self, request: Request) -> Response:
        name = request.path_params.get("name", "")
        found = self.files.get(name)
        if found is None:
            raise NotFoundError()
        body, packed = found
        headers = {
            "Content-Security-Policy": SELF_ONLY_CSP,
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


def page_response(html: str) -> Response:
    """A page of such files, under the same policy and never cached."""
    return Response(
        html,
        media_type="text/html; charset=utf-8",
        headers={"Content-Security-Policy": SELF_ONLY_CSP, "Cache-Control": "no-cache"},
    )
