"""The webhook service: the webhooks of config/webhooks.json (read-only) and of the admin
API (stored in the database, so that every process and host sees the same), the record of
delivery attempts, test deliveries and redeliveries, and the delivery worker's start and
stop. The admin API and the CLI call it; it reads and writes through the document service.
"""

from __future__ import annotations

import asyncio
import ipaddress
import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import orjson

from folio.config import Settings, environment
from folio.content.documents import DocumentService
from folio.content.events import Event
from folio.content.sql.webhooks import Record, WebhookStatements
from folio.errors import ForbiddenError, NotFoundError, ValidationError
from folio.webhooks import settings as loading
from folio.webhooks.model import (
    Webhook,
    enabled_problem,
    events_problem,
    headers_problem,
    name_problem,
    ordered_events,
    secret_problem,
    unknown_event,
    url_problem,
)
from folio.webhooks.sender import Outcome, Sender, now_iso
from folio.webhooks.sender import body as delivery_body

TEST_EVENT = "trigger-test"
# the events whose entry is sent populated, as the reference sends them
POPULATED = frozenset({"entry.create", "entry.update", "entry.publish"})
# fields of the API's body that a create and an update give
REQUIRED = ("name", "url", "headers", "events")
# fields of the API's body, with their checks
FIELDS = {
    "name": name_problem,
    "url": url_problem,
    "headers": headers_problem,
    "events": events_problem,
    "isEnabled": enabled_problem,
    "secret": secret_problem,
}
# fields a client may send back as it got them (ignored)
ECHOED = frozenset({"id", "source", "signed", "createdAt", "updatedAt"})
# delivery records a list shows at most
MAX_LIST = 1000


class WebhookService:
    def __init__(self, documents: DocumentService, settings: Settings) -> None:
        self.documents = documents
        self.settings, self.configured = loading.load(settings)
        self.sql = WebhookStatements(documents.dialect)
        self.sender = Sender(self.settings)
        # the delivery worker of a serving process (start_worker)
        self.worker: Any = None
        # called after a webhook of the admin API is made, changed or deleted (the app
        # tells the other processes and hosts, whose workers then `reload`)
        self.on_change: list[Callable[[], None]] = []

    # ------------------------------------------------------------------ the webhooks
    async def stored(self) -> list[Webhook]:
        """The webhooks of the admin API."""
        rows = await self.documents.read_program(self.sql.webhooks())
        return [_from_row(r) for r in rows]

    def merge(self, rows: list[dict[str, Any]]) -> list[Webhook]:
        """The configured webhooks and the API's (rows read by the worker)."""
        return [*self.configured, *(_from_row(r) for r in rows)]

    async def all(self) -> list[Webhook]:
        return [*self.configured, *await self.stored()]

    async def get(self, webhook_id: str) -> Webhook:
        for hook in self.configured:
            if hook.key == webhook_id:
                return hook
        row = None
        if webhook_id.isdecimal() and len(webhook_id) < 12:
            row = await self.documents.read_program(self.sql.webhook(int(webhook_id)))
        if row is None:
            raise NotFoundError("webhook.notFound")
        return _from_row(row)

    async def find_by_id(self, webhook_id: str) -> Webhook | None:
        try:
            return await self.get(webhook_id)
        except NotFoundError:
            return None

    async def find(self, name_or_id: str) -> Webhook | None:
        """A webhook by its name or id (the CLI's argument)."""
        hooks = await self.all()
        for hook in hooks:
            if hook.name == name_or_id:
                return hook
        for hook in hooks:
            if hook.key == name_or_id:
                return hook
        return None

    async def create(self, data: dict[str, Any]) -> dict[str, Any]:
        """A new webhook from the admin API's body; answered with its secret, shown this
        once (made when the body gives none)."""
        values = _checked(data, None)
        await _check_reachable(values["url"])
        await self._check_name(values["name"], None)
        if "secret" not in data:
            values["secret"] = secrets.token_hex(32)
        program = self.sql.create(values, _now())
        webhook_id = await self.documents.write_program(None, "webhooks.create", program)
        hook = await self.get(str(webhook_id))
        await self._changed()
        return {**hook.shown(), "secret": values["secret"]}

    async def update(self, webhook_id: str, data: dict[str, Any]) -> Webhook:
        _checked(data, None)  # before the lookup, as the reference
        current = await self.get(webhook_id)
        self._writable(current)
        values = _checked(data, current)
        await _check_reachable(values["url"])
        if values["name"] != current.name:
            await self._check_name(values["name"], current.key)
        enabling = values["enabled"] and not current.enabled
        program = self.sql.update(int(current.key), values, _now(), enabling)
        if not await self.documents.write_program(None, "webhooks.update", program):
            raise NotFoundError("webhook.notFound")
        await self._changed()
        return await self.get(webhook_id)

    async def delete(self, webhook_id: str) -> Webhook:
        current = await self.get(webhook_id)
        self._writable(current)
        program = self.sql.delete(int(current.key))
        if not await self.documents.write_program(None, "webhooks.delete", program):
            raise NotFoundError("webhook.notFound")
        await self._changed()
        return current

    def _writable(self, hook: Webhook) -> None:
        if hook.from_config:
            raise ForbiddenError(
                f"Webhook {hook.name!r} is defined in config/webhooks.json and cannot be "
                "changed through the admin API: change the file"
            )

    async def _check_name(self, name: str, key: str | None) -> None:
        for hook in await self.all():
            if hook.name == name and hook.key != key:
                message = f"name: a webhook named {name!r} exists already"
                _raise([(["name"], message, name)])

    async def _changed(self) -> None:
        if self.worker is not None:
            await self.worker.changed()
        for listener in self.on_change:
            listener()

    async def reload(self) -> None:
        """The webhooks changed in another process: this process's worker reads them again
        (and polls for their events from then on, if there are any now)."""
        worker = self.worker
        if worker is not None and not worker.stopping:
            await worker.tick()

    # ------------------------------------------------------------------ deliveries
    async def deliveries(
        self,
        webhook: Webhook | None = None,
        *,
        failed: bool = False,
        limit: int = 100,
        before: int | None = None,
    ) -> list[Record]:
        """The latest delivery attempts, newest first (of one webhook when given)."""
        keys = [webhook.key] if webhook is not None else None
        program = self.sql.deliveries(keys, failed, min(max(limit, 1), MAX_LIST), before)
        found: list[Record] = await self.documents.read_program(program)
        return found

    async def delivery(self, delivery_id: int) -> Record | None:
        found: Record | None = await self.documents.read_program(self.sql.delivery(delivery_id))
        return found

    async def payload(self, event: Event) -> dict[str, Any]:
        """An event's body as the reference sends it: for a create, update or publish,
        the entry with its relations (their own fields), media, components and zones as
        they are now, and the event's own values of its fields (the version may have
        changed since); other events carry the entry as recorded."""
        payload = event.payload()
        if event.event in POPULATED:
            found = await self.documents.event_entry(event)
            if found is not event.entry:
                payload["entry"] = {**found, **event.entry}
        return payload

    async def trigger(self, webhook_id: str) -> dict[str, Any]:
        """Sends the test event (`trigger-test`, as the reference) now, whether the
        webhook is enabled or not; answers as the reference: the status and, when it is
        not a success, the answer's text or the error."""
        hook = await self.get(webhook_id)
        body = delivery_body({"event": TEST_EVENT})
        outcome = await self.sender.send(hook, TEST_EVENT, None, body)
        await self._record(hook, None, TEST_EVENT, body, outcome, None)
        answer: dict[str, Any] = {"statusCode": outcome.status_code or 500}
        if not outcome.ok:
            answer["message"] = outcome.error
        return answer

    async def redeliver(self, delivery_id: int, webhook: Webhook | None = None) -> Record:
        """Sends a recorded delivery's event again, now, once (whatever became of it),
        to its webhook as it is now; the new attempt's record."""
        found = await self.delivery(delivery_id)
        if found is None or (webhook is not None and found.webhook != webhook.key):
            raise NotFoundError("Delivery not found")
        hook = await self.get(found.webhook)
        body: bytes | None = None
        if found.event_id is not None:
            event = await self.documents.event(found.event_id)
            if event is not None:
                body = delivery_body(await self.payload(event))
        elif found.event == TEST_EVENT:
            body = delivery_body({"event": TEST_EVENT})
        if body is None and found.body is not None:
            body = delivery_body(orjson.loads(found.body))
        if body is None:
            raise NotFoundError(
                f"The event of delivery {delivery_id} is no longer kept (pruned after "
                f"{self.settings.retention_days:g} days)"
            )
        outcome = await self.sender.send(hook, found.event, found.event_id, body)
        return await self._record(hook, found.event_id, found.event, body, outcome, found.id)

    async def _record(
        self,
        hook: Webhook,
        event_id: int | None,
        event: str,
        body: bytes,
        outcome: Outcome,
        redelivery_of: int | None,
    ) -> Record:
        record = attempt_record(hook, event_id, event, 1, outcome, body, False, redelivery_of)
        [made] = await self.documents.write_program(
            None, "webhooks.record", self.sql.record([record])
        )
        return record._replace(id=made)

    async def prune(self, keep: list[str], before: str | None = None) -> tuple[int, int]:
        """Deletes the events and delivery records older than the retention (or recorded
        before `before`, an ISO time), but the events still owed to the enabled webhooks
        of `keep`; (events, records) deleted."""
        if before is None:
            before = _iso(datetime.now(UTC) - timedelta(days=self.settings.retention_days))
        keep_from = await self.documents.read_program(self.sql.keep_from(keep))
        events = await self.documents.prune_events(before, keep_from)
        records = await self.documents.write_program(None, "webhooks.prune", self.sql.prune(before))
        return events, int(records)

    # ------------------------------------------------------------------ the worker
    async def start_worker(self) -> None:
        """Starts this process's delivery worker (a serving process)."""
        from folio.webhooks.delivery import DeliveryWorker

        if self.worker is None:
            self.worker = DeliveryWorker(self)
            await self.worker.start()

    async def close(self) -> None:
        if self.worker is not None:
            worker, self.worker = self.worker, None
            await worker.stop()
        await self.sender.close()


def attempt_record(
    hook: Webhook,
    event_id: int | None,
    event: str,
    attempt: int,
    outcome: Outcome,
    body: bytes,
    retry: bool,
    redelivery_of: int | None = None,
) -> Record:
    """The record of an attempt; a failure with no retry left keeps its body."""
    status = "delivered" if outcome.ok else "retry" if retry else "failed"
    return Record(
        webhook=hook.key,
        webhook_name=hook.name,
        event_id=event_id,
        event=event,
        attempt=attempt,
        status=status,
        status_code=outcome.status_code,
        duration_ms=outcome.duration_ms,
        error=outcome.error,
        body=body.decode() if status == "failed" else None,
        redelivery_of=redelivery_of,
        created_at=_now(),
    )


def shown_record(record: Record) -> dict[str, Any]:
    """A delivery attempt as the admin API shows it."""
    return {
        "id": record.id,
        "webhook": record.webhook,
        "webhookName": record.webhook_name,
        "eventId": record.event_id,
        "event": record.event,
        "attempt": record.attempt,
        "status": record.status,
        "statusCode": record.status_code,
        "durationMs": record.duration_ms,
        "error": record.error,
        "redeliveryOf": record.redelivery_of,
        "createdAt": record.created_at,
    }


def _from_row(row: dict[str, Any]) -> Webhook:
    return Webhook(
        key=str(row["id"]),
        name=row["name"],
        url=row["url"],
        headers=dict(row["headers"]),
        events=tuple(row["events"]),
        enabled=row["enabled"],
        secret=row["secret"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def _checked(data: dict[str, Any], current: Webhook | None) -> dict[str, Any]:
    """The stored values of a create (`current` None) or of an update (which, as the
    reference's, gives name, url, headers and events again; isEnabled and secret are
    kept when left out); a ValidationError naming every problem, as the reference words
    them."""
    problems: list[tuple[list[str], str, Any]] = []
    for key in REQUIRED:
        if key not in data:
            problems.append(([key], f"{key} is a required field", _ABSENT))
    for key, value in data.items():
        if key in FIELDS:
            problem = FIELDS[key](value)
            if problem:
                problems.append(([key], f"{key} {problem}", value))
    unknown = [k for k in data if k not in FIELDS and k not in ECHOED]
    if unknown:
        message = f"this field has unspecified keys: {', '.join(unknown)}"
        problems.append(([], message, data))
    _raise(problems)
    event = unknown_event(data["events"])
    if event is not None:
        raise ValidationError(f"Webhook event {event} is not supported")
    enabled = current.enabled if current is not None else True
    return {
        "name": data["name"].strip(),
        "url": data["url"],
        "headers": data["headers"],
        "events": list(ordered_events(data["events"])),
        "enabled": data.get("isEnabled", enabled),
        "secret": data.get("secret", current.secret if current is not None else None),
    }


def _raise(problems: list[tuple[list[str], str, Any]]) -> None:
    if problems:
        message = problems[0][1] if len(problems) == 1 else f"{len(problems)} errors occurred"
        raise ValidationError(message, _details(problems))


_ABSENT = object()


def _details(problems: list[tuple[list[str], str, Any]]) -> dict[str, Any]:
    errors = []
    for path, message, value in problems:
        error = {"path": path, "message": message, "name": "ValidationError"}
        if value is not _ABSENT:
            error["value"] = value
        errors.append(error)
    return {"errors": errors}


UNREACHABLE = "Url is not supported because it isn't reachable over the public internet"


async def _check_reachable(url: str) -> None:
    """In production, as the reference, the admin API takes no URL of a loopback,
    private or link-local address, or of a name resolving to one (a name that does not
    resolve is taken); config/webhooks.json may name any."""
    if environment() != "production":
        return
    host = urlsplit(url).hostname or ""
    try:
        addresses = [ipaddress.ip_address(host)]
    except ValueError:
        try:
            async with asyncio.timeout(5):
                found = await asyncio.get_running_loop().getaddrinfo(host, None)
        except (OSError, TimeoutError, UnicodeError):
            return
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found]
    for address in addresses:
        if address.is_private or address.is_loopback or address.is_link_local:
            _raise([(["url"], UNREACHABLE, url)])
        if address.is_unspecified or address.is_multicast or address.is_reserved:
            _raise([(["url"], UNREACHABLE, url)])


def _iso(moment: datetime) -> str:
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"


def _now() -> str:
    return now_iso()
