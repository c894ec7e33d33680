"""JSON responses encoded with orjson, and the error envelope."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import orjson
from starlette.responses import Response

from folio.errors import FolioError, RateLimitError

if TYPE_CHECKING:
    from folio.auth.ratelimit import Verdict

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


async def limited_answer(verdict: Verdict, answer: Callable[[], Awaitable[Response]]) -> Response:
    """The answer of a request a rate limiter counted: 429 past the limit, else `answer()`
    (a FolioError it raises as its envelope); either way with the window's X-RateLimit
    headers."""
    if not verdict.allowed:
        response = error_response(RateLimitError())
    else:
        try:
            response = await answer()
        except FolioError as exc:
            response = error_response(exc)
    response.headers.update(verdict.headers())
    return response
