"""JSON responses encoded with orjson, and the error envelope."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response

from folio.errors import FolioError

JSON_TYPE = "application/json; charset=utf-8"


class JSONResponse(Response):
    media_type = JSON_TYPE

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


def json_response(content: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(content), status_code=status, media_type=JSON_TYPE)


def error_response(error: FolioError) -> Response:
    body = error.to_error()
    try:
        response = json_response({"data": None, "error": body}, error.status)
    except TypeError:
        # details that cannot be encoded (a refused value nested past the encoder's limit):
        # the answer keeps its status, name and message
        response = json_response({"data": None, "error": {**body, "details": {}}}, error.status)
    return with_retry_after(response, error)


def with_retry_after(response: Response, error: FolioError) -> Response:
    """`response` with `Retry-After` when `error` says when to come back (an outage)."""
    retry_after = getattr(error, "retry_after", None)
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return response
