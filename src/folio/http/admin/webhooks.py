"""The admin HTTP API for webhooks (`/admin/webhooks`), with the admin key of
`/admin/api-tokens` or the admin panel's session (http/admin/tokens.py). Shapes and
validation as the reference's admin API: `{data: ...}`, webhooks as `{id, name, url,
headers, events, isEnabled}` (plus `source`, "config" or "api", and `signed`); a webhook of
config/webhooks.json is listed and can be tested, but changing or deleting it is refused
(403: change the file).

    GET    /admin/webhooks                          list
    POST   /admin/webhooks                          create {name, url, headers, events,
                                                    isEnabled?, secret?} -> 201, with the
                                                    secret shown this once (made when not
                                                    given)
    GET    /admin/webhooks/:id                      one webhook
    PUT    /admin/webhooks/:id                      change: {name, url, headers, events}
                                                    again, isEnabled? and secret? (kept
                                                    when left out)
    DELETE /admin/webhooks/:id                      delete -> the deleted webhook
    POST   /admin/webhooks/batch-delete             {ids: [...]} -> the ids
    POST   /admin/webhooks/:id/trigger              a test delivery now -> {statusCode,
                                                    message?}
    GET    /admin/webhooks/:id/deliveries           delivery attempts, newest first
                                                    (?status=failed, ?limit=N, ?before=ID)
    POST   /admin/webhooks/:id/deliveries/:delivery/redeliver
                                                    the delivery's event sent again now,
                                                    once -> the attempt"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from folio.errors import FolioError, ValidationError
from folio.http.admin.session import AdminAuth
from folio.http.admin.tokens import AdminEndpoints
from folio.http.responses import json_response
from folio.http.rest.content import read_json
from folio.webhooks.service import shown_record

if TYPE_CHECKING:
    from folio.app import Folio

BASE = "/admin/webhooks"


class WebhookEndpoints(AdminEndpoints):
    def __init__(self, folio: Folio, auth: AdminAuth) -> None:
        super().__init__(folio, auth)
        self.webhooks = folio.webhooks

    def routes(self) -> list[Route]:
        return [
            Route(BASE, self.list_webhooks, methods=["GET", "HEAD"]),
            Route(BASE, self.create_webhook, methods=["POST"]),
            Route(f"{BASE}/batch-delete", self.delete_many, methods=["POST"]),
            Route(BASE + "/{id}", self.get_webhook, methods=["GET", "HEAD"]),
            Route(BASE + "/{id}", self.update_webhook, methods=["PUT"]),
            Route(BASE + "/{id}", self.delete_webhook, methods=["DELETE"]),
            Route(BASE + "/{id}/trigger", self.trigger, methods=["POST"]),
            Route(BASE + "/{id}/deliveries", self.deliveries, methods=["GET", "HEAD"]),
            Route(BASE + "/{id}/deliveries/{delivery}/redeliver", self.redeliver, methods=["POST"]),
        ]

    async def list_webhooks(self, request: Request) -> Response:
        await self._check(request)
        return json_response({"data": [h.shown() for h in await self.webhooks.all()]})

    async def create_webhook(self, request: Request) -> Response:
        await self._check(request)
        made = await self.webhooks.create(await self._body(request))
        return json_response({"data": made}, 201)

    async def get_webhook(self, request: Request) -> Response:
        await self._check(request)
        hook = await self.webhooks.get(request.path_params["id"])
        return json_response({"data": hook.shown()})

    async def update_webhook(self, request: Request) -> Response:
        await self._check(request)
        hook = await self.webhooks.update(request.path_params["id"], await self._body(request))
        return json_response({"data": hook.shown()})

    async def delete_webhook(self, request: Request) -> Response:
        await self._check(request)
        hook = await self.webhooks.delete(request.path_params["id"])
        return json_response({"data": hook.shown()})

    async def delete_many(self, request: Request) -> Response:
        """The reference's batch delete: the webhooks of `ids` that exist are deleted."""
        await self._check(request)
        body = await read_json(request, self.folio.settings.max_body_bytes)
        ids = body.get("ids") if isinstance(body, dict) else None
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str | int) for i in ids):
            raise BadRequestError("ids must be an array of id")
        for webhook_id in ids:
            hook = await self.webhooks.find_by_id(str(webhook_id))
            if hook is not None:
                await self.webhooks.delete(hook.key)
        return json_response({"data": ids})

    async def trigger(self, request: Request) -> Response:
        await self._check(request)
        return json_response({"data": await self.webhooks.trigger(request.path_params["id"])})

    async def deliveries(self, request: Request) -> Response:
        await self._check(request)
        hook = await self.webhooks.get(request.path_params["id"])
        params = request.query_params
        status = params.get("status")
        if status not in (None, "failed"):
            raise ValidationError("status must be failed (or left out for every attempt)")
        limit = _whole(params.get("limit"), "limit", 100)
        before = _whole(params.get("before"), "before", None)
        records = await self.webhooks.deliveries(
            hook, failed=status == "failed", limit=limit, before=before
        )
        return json_response({"data": [shown_record(r) for r in records]})

    async def redeliver(self, request: Request) -> Response:
        await self._check(request)
        hook = await self.webhooks.get(request.path_params["id"])
        raw = request.path_params["delivery"]
        delivery = int(raw) if raw.isdecimal() and len(raw) < 19 else -1
        record = await self.webhooks.redeliver(delivery, hook)
        return json_response({"data": shown_record(record)}, 201)


class BadRequestError(FolioError):
    """The reference's answer to a batch delete without ids."""

    status = 400
    name = "BadRequestError"


def _whole(raw: str | None, name: str, default: Any) -> Any:
    if raw is None:
        return default
    if not raw.isdecimal() or not 1 <= int(raw) <= 10**15:
        raise ValidationError(f"{name} must be a whole number of at least 1")
    return int(raw)
