"""The feed's wire format (Server-Sent Events, as a browser's EventSource parses them), and
who may see which event.

An event is encoded once, whoever receives it: its frame is the same bytes for every
subscriber allowed to see it (the entry is already as the content API shows it, private
fields never), so fanning it out to a thousand streams copies nothing.

    id: 42
    event: entry.update
    data: {"event":"entry.update","createdAt":"...","model":"article","uid":"api::...",
           "documentId":"...","locale":"en","status":"draft","entry":{...}}

orjson escapes line breaks inside strings, so `data` is always one line. A heartbeat is a
comment line alone (`: keep-alive`), without the blank line that would end an event:
EventSource ignores it either way, and clients that report an empty event at every blank
line (httpx-sse, once an id was seen) see nothing."""

from __future__ import annotations

from typing import Any

import orjson

from folio.auth.principal import Principal
from folio.content.events import Event

HEARTBEAT = b": keep-alive\n"


class Frame:
    """One event, encoded; `uid` and `status` say who may see it."""

    __slots__ = ("data", "id", "status", "uid")

    def __init__(self, event: Event) -> None:
        self.id = event.id
        self.uid = event.uid
        self.status = event.status
        body = {
            "event": event.event,
            "createdAt": event.created_at,
            "model": event.model,
            "uid": event.uid,
            "documentId": event.document_id,
            "locale": event.locale,
            "status": event.status,
            "entry": event.entry,
        }
        self.data = message(event.event, body, event.id)


def message(name: str, body: Any, event_id: int | None = None, retry: int | None = None) -> bytes:
    """An SSE event block: `retry:`, `id:`, `event:` and one `data:` line, then the blank
    line that dispatches it."""
    head = b""
    if retry is not None:
        head += b"retry: %d\n" % retry
    if event_id is not None:
        head += b"id: %d\n" % event_id
    return head + b"event: " + name.encode() + b"\ndata: " + orjson.dumps(body) + b"\n\n"


class Viewer:
    """What one subscriber may see: events of the types its principal may find (`only`:
    of that type alone), versions that are drafts only if it may read drafts, files only if
    it may find files. Answers are kept per (type, status): a subscriber asks a few
    questions, each once."""

    __slots__ = ("_seen", "only", "principal")

    def __init__(self, principal: Principal, only: str | None = None) -> None:
        self.principal = principal
        self.only = only
        self._seen: dict[tuple[str, str | None], bool] = {}

    def sees(self, uid: str, status: str | None) -> bool:
        key = (uid, status)
        found = self._seen.get(key)
        if found is None:
            found = self._decide(uid, status)
            self._seen[key] = found
        return found

    def _decide(self, uid: str, status: str | None) -> bool:
        if self.only is not None and uid != self.only:
            return False
        # `can_find` maps files to the upload feature's find
        if not self.principal.can_find(uid):
            return False
        return status != "draft" or self.principal.can_read_drafts(uid)
