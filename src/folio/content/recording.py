"""What a write records of itself: the events of the document versions it changed
(`content/events.py`), made inside its transaction from its answer, stored in the outbox
(`content/sql/outbox.py`) as its last statements, and held in the event bus until the
write's outcome is known."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from folio.content.events import Event, EventBus, Gate
from folio.content.sql import outbox
from folio.content.sql.writes import Tail, Writes
from folio.schema.builtins import FILE_UID
from folio.schema.model import ContentType
from folio.schema.values import now_utc
from folio.store.dialects.base import Dialect
from folio.store.program import Program

# the reference's event for a draft replaced by its published version (the admin's discard);
# webhooks ask for it by name (it is not among the events they get by default)
DRAFT_DISCARD = "entry.draft-discard"


class EventRecorder:
    def __init__(self, writes: Writes, dialect: Dialect, bus: EventBus) -> None:
        self.writes = writes
        self.dialect = dialect
        self.bus = bus
        # per type: the attribute names a populate adds to a document (left out of events)
        self._populated: dict[str, frozenset[str]] = {}

    def kind(self, ct: ContentType) -> str | None:
        """Which events a type's writes make: "entry" for the app's content types,
        "media" for files, None for the services' own types (users, roles, API tokens),
        which are never sent."""
        if ct.uid == FILE_UID:
            return "media"
        if ct.uid.startswith("api::"):
            return "entry"
        return None

    def tail(
        self,
        action: str,
        ct: ContentType,
        rec: Recording,
        gate: Gate | None,
        shape: Callable[[Any], Any],
    ) -> Tail | None:
        """The end of a write's transaction: its events recorded in the outbox, then the
        middlewares' pause (`gate`), which gets the answer as `shape` makes it."""
        kind = self.kind(ct)
        if kind is None and gate is None:
            return None

        def run(result: Any, created: bool) -> Program:
            if rec.events:  # an earlier attempt of a write run again
                self.bus.unhold([e.id for e in rec.events])
                rec.events = []
            if kind is not None:
                drafts: list[dict[str, Any]] = []
                if (
                    action in ("create", "update")
                    and ct.draft_and_publish
                    and isinstance(result, dict)
                    and result.get("publishedAt") is not None
                ):
                    # a write that published changed the draft too
                    drafts = yield from self.writes.draft_docs(
                        ct, result["documentId"], result.get("locale") if ct.localized else None
                    )
                events = self.describe("create" if created else action, ct, kind, result, drafts)
                yield from outbox.record(events, self.dialect)
                self.bus.hold([e.id for e in events])
                rec.events = events
            if gate is not None:
                yield gate.pause(shape(result))

        fuse = None
        if action == "create" and kind == "entry" and gate is None:
            fuse = Fusion(self, ct, rec)
        return Tail(run, holds=gate is not None, fuse=fuse)

    def describe(
        self,
        action: str,
        ct: ContentType,
        kind: str,
        result: Any,
        drafts: list[dict[str, Any]],
    ) -> list[Event]:
        """The events of a write of `ct` (`result`: its answer; for deletes and unpublish
        the versions removed; `drafts`: the drafts a publishing write changed)."""
        now = moment()
        if isinstance(result, tuple):  # an unpublish that discarded the draft's changes
            removed, draft = result
            return [
                *(self.event("entry.unpublish", ct, d, now) for d in removed),
                self.event(DRAFT_DISCARD, ct, draft, now),
            ]
        docs: list[dict[str, Any]] = result if isinstance(result, list) else [result]
        if kind == "media":
            return [self.event(f"media.{action}", ct, d, now) for d in docs]
        if action in ("delete", "unpublish", "publish"):
            return [self.event(f"entry.{action}", ct, d, now) for d in docs]
        if action == "discard":
            return [self.event(DRAFT_DISCARD, ct, d, now) for d in docs]
        first = "entry.create" if action == "create" else "entry.update"
        if drafts:
            return [
                *(self.event(first, ct, d, now) for d in drafts),
                *(self.event("entry.publish", ct, d, now) for d in docs),
            ]
        return [self.event(first, ct, d, now) for d in docs]

    def event(self, name: str, ct: ContentType, doc: dict[str, Any], now: str) -> Event:
        populated = self._populated.get(ct.uid)
        if populated is None:
            populated = frozenset(n for n, a in ct.attributes.items() if a.column is None)
            self._populated[ct.uid] = populated
        entry = {k: v for k, v in doc.items() if k not in populated}
        status = None
        if ct.draft_and_publish:
            status = "draft" if doc.get("publishedAt") is None else "published"
        return Event(
            name,
            ct.uid,
            ct.singular,
            doc.get("documentId"),
            doc.get("locale") if ct.localized else None,
            status,
            entry,
            now,
        )


class Fusion:
    """A create's `entry.create` event, written by the statement that writes its one row
    (`Writes._create_with_event`): the event's own columns are bound, the database adds
    the row's document id and its entry; the event as this process's subscribers get it
    is described from the row's answer, as `EventRecorder.tail` describes it."""

    __slots__ = ("ct", "now", "rec", "recorder")

    def __init__(self, recorder: EventRecorder, ct: ContentType, rec: Recording) -> None:
        self.recorder = recorder
        self.ct = ct
        self.rec = rec
        self.now = ""

    def params(self, locale: str | None, draft: bool) -> list[Any]:
        ct = self.ct
        self.now = moment()
        given = {
            "event": "entry.create",
            "uid": ct.uid,
            "model": ct.singular,
            "locale": locale if ct.localized else None,
            "status": ("draft" if draft else "published") if ct.draft_and_publish else None,
            "created_at": self.now,
        }
        return [given[c] for c in outbox.COLUMNS if c in given]

    def reserve(self) -> int:
        return self.recorder.bus.reserve()

    def recorded(self, doc: dict[str, Any], event_id: int) -> None:
        event = self.recorder.event("entry.create", self.ct, doc, self.now)
        event.id = event_id
        self.recorder.bus.hold([event_id])
        self.rec.events = [event]

    def release(self, floor: int) -> None:
        self.recorder.bus.release(floor)


class Recording:
    """The events a write recorded (its last attempt's), for after its commit."""

    __slots__ = ("events",)

    def __init__(self) -> None:
        self.events: list[Event] = []


def same(result: Any) -> Any:
    return result


def moment() -> str:
    """Now, as the events' `createdAt` (ISO 8601, milliseconds, UTC)."""
    now = now_utc()
    return f"{now:%Y-%m-%dT%H:%M:%S}.{now.microsecond // 1000:03d}Z"
