"""One delivery attempt: the request a webhook's receiver gets for an event (body, headers,
signature) and what came of it (status, duration, error), within the attempt's time.

Headers, the later winning (names compared without case): `server.webhooks.defaultHeaders`,
the webhook's own headers, then `Content-Type: application/json` and the event's name in
`X-Strapi-Event` (as the reference sends them), `X-Folio-Event-Id` (the outbox id: the
same event delivered twice carries the same id, so a receiver can drop the second), and,
for a webhook with a secret, `X-Folio-Timestamp` and `X-Folio-Signature` (signing.py).

The fixed part of a webhook's requests is made once (`http.prepare`); an attempt adds its
few lines. An attempt costs some tens of microseconds of the server's time: deliveries
run in the serving process, beside the requests."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

import orjson

from folio import __version__
from folio.webhooks.http import HttpClient, HttpError, Prepared, prepare
from folio.webhooks.model import Webhook
from folio.webhooks.settings import DeliverySettings
from folio.webhooks.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, sign

EVENT_HEADER = "X-Strapi-Event"
EVENT_ID_HEADER = "X-Folio-Event-Id"
USER_AGENT = f"Folio-Webhooks/{__version__}"
# headers an attempt sets itself (a webhook's own of these names are replaced)
OWN = frozenset(
    n.lower()
    for n in ("Content-Type", EVENT_HEADER, EVENT_ID_HEADER, TIMESTAMP_HEADER, SIGNATURE_HEADER)
)
# characters of an answer's body kept as the error of a failed attempt
ERROR_CHARS = 500
# prepared requests kept (one per webhook and version of its URL and headers)
PREPARED = 256


def body(payload: dict[str, Any]) -> bytes:
    """A delivery's body: the event's payload with `createdAt` the time the delivery
    starts, as the reference sends it (each attempt, and each webhook, its own)."""
    return orjson.dumps({**payload, "createdAt": now_iso()})


_second: tuple[int, str] = (0, "")


def now_iso() -> str:
    """Now, as the reference writes times (ISO 8601, milliseconds, UTC)."""
    global _second
    moment = time.time()
    whole = int(moment)
    if whole != _second[0]:
        _second = (whole, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)))
    return f"{_second[1]}.{int((moment - whole) * 1000):03d}Z"


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
        self._prepared: dict[tuple[str, tuple[tuple[str, str], ...]], Prepared] = {}

    def prepared(self, hook: Webhook) -> Prepared:
        key = (hook.url, tuple(hook.headers.items()))
        found = self._prepared.get(key)
        if found is None:
            merged: dict[str, tuple[str, str]] = {"user-agent": ("User-Agent", USER_AGENT)}
            for source in (self.settings.default_headers, hook.headers):
                for name, value in source.items():
                    merged[name.lower()] = (name, value)
            merged["content-type"] = ("Content-Type", "application/json")
            fixed = [pair for name, pair in merged.items() if name not in OWN - {"content-type"}]
            if len(self._prepared) >= PREPARED:
                self._prepared.clear()
            found = self._prepared[key] = prepare(hook.url, fixed)
        return found

    def extra(self, hook: Webhook, event: str, event_id: int | None, data: bytes) -> bytes:
        """The header lines of one attempt."""
        lines = f"{EVENT_HEADER}: {event}\r\n"
        if event_id is not None:
            lines += f"{EVENT_ID_HEADER}: {event_id}\r\n"
        if hook.secret:
            now = int(time.time())
            lines += f"{TIMESTAMP_HEADER}: {now}\r\n"
            lines += f"{SIGNATURE_HEADER}: {sign(hook.secret, now, data)}\r\n"
        return lines.encode()

    async def send(self, hook: Webhook, event: str, event_id: int | None, data: bytes) -> Outcome:
        """Posts `data` to the webhook, within the attempt's time."""
        timeout = self.settings.timeout
        started = time.perf_counter()
        task = asyncio.current_task()
        assert task is not None
        expired = False

        def expire() -> None:
            nonlocal expired
            expired = True
            task.cancel()

        # a timer that cancels this task (lighter than asyncio.timeout, per attempt)
        timer = asyncio.get_running_loop().call_later(timeout, expire)
        try:
            prepared = self.prepared(hook)
            answer = await self.client.send(prepared, self.extra(hook, event, event_id, data), data)
        except asyncio.CancelledError:
            if not expired:
                raise
            task.uncancel()
            return Outcome(None, _since(started), f"no answer within {timeout:g} s")
        except HttpError as exc:
            return Outcome(None, _since(started), str(exc))
        except (OSError, ValueError) as exc:  # what the stream layer may raise besides
            return Outcome(None, _since(started), f"{type(exc).__name__}: {exc}")
        finally:
            timer.cancel()
        duration = _since(started)
        if 200 <= answer.status < 300:
            return Outcome(answer.status, duration, None)
        text = answer.body.decode("utf-8", "replace").strip()[:ERROR_CHARS]
        return Outcome(answer.status, duration, text or f"HTTP {answer.status}")

    async def close(self) -> None:
        await self.client.close()


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
