"""One delivery attempt: the request a webhook's receiver gets for an event (body, headers,
signature) and what came of it (status, duration, error), within the attempt's time.

Headers, the later winning: `server.webhooks.defaultHeaders`, the webhook's own headers,
then `Content-Type: application/json` and the event's name in `X-Strapi-Event` (as the
reference sends them), `X-Folio-Event-Id` (the outbox id: the same event delivered twice
carries the same id, so a receiver can drop the second), and, for a webhook with a secret,
`X-Folio-Timestamp` and `X-Folio-Signature` (signing.py)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from folio import __version__
from folio.webhooks.http import HttpClient, HttpError
from folio.webhooks.model import Webhook
from folio.webhooks.settings import DeliverySettings
from folio.webhooks.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, sign

EVENT_HEADER = "X-Strapi-Event"
EVENT_ID_HEADER = "X-Folio-Event-Id"
USER_AGENT = f"Folio-Webhooks/{__version__}"
# characters of an answer's body kept as the error of a failed attempt
ERROR_CHARS = 500


def body(payload: dict[str, Any]) -> bytes:
    """A delivery's body: the event's payload with `createdAt` the time the delivery
    starts, as the reference sends it (each attempt, and each webhook, its own)."""
    return orjson.dumps({**payload, "createdAt": now_iso()})


def now_iso() -> str:
    moment = datetime.now(UTC)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"


@dataclass
class Outcome:
    """What came of an attempt: the receiver's status (None: no answer), how long it
    took, and what went wrong (None for a 2xx answer)."""

    status_code: int | None
    duration_ms: float
    error: str | None

    @property
    def ok(self) -> bool:
        return self.error is None


class Sender:
    def __init__(self, settings: DeliverySettings) -> None:
        self.settings = settings
        self.client = HttpClient()

    def headers(
        self, hook: Webhook, event: str, event_id: int | None, body: bytes
    ) -> list[tuple[str, str]]:
        merged: dict[str, tuple[str, str]] = {"user-agent": ("User-Agent", USER_AGENT)}
        for source in (self.settings.default_headers, hook.headers):
            for name, value in source.items():
                merged[name.lower()] = (name, value)
        merged["content-type"] = ("Content-Type", "application/json")
        merged[EVENT_HEADER.lower()] = (EVENT_HEADER, event)
        if event_id is not None:
            merged[EVENT_ID_HEADER.lower()] = (EVENT_ID_HEADER, str(event_id))
        if hook.secret:
            now = int(time.time())
            merged[TIMESTAMP_HEADER.lower()] = (TIMESTAMP_HEADER, str(now))
            merged[SIGNATURE_HEADER.lower()] = (SIGNATURE_HEADER, sign(hook.secret, now, body))
        return list(merged.values())

    async def send(self, hook: Webhook, event: str, event_id: int | None, body: bytes) -> Outcome:
        """Posts `body` to the webhook, within the attempt's time."""
        headers = self.headers(hook, event, event_id, body)
        timeout = self.settings.timeout
        started = time.perf_counter()
        try:
            async with asyncio.timeout(timeout):
                answer = await self.client.post(hook.url, headers, body)
        except TimeoutError:
            return Outcome(None, _since(started), f"no answer within {timeout:g} s")
        except HttpError as exc:
            return Outcome(None, _since(started), str(exc))
        except (OSError, ValueError) as exc:  # what the stream layer may raise besides
            return Outcome(None, _since(started), f"{type(exc).__name__}: {exc}")
        duration = _since(started)
        if 200 <= answer.status < 300:
            return Outcome(answer.status, duration, None)
        text = answer.body.decode("utf-8", "replace").strip()[:ERROR_CHARS]
        return Outcome(answer.status, duration, text or f"HTTP {answer.status}")

    async def close(self) -> None:
        await self.client.close()


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
