"""The OpenAPI description of the realtime feed's event streams (folio.http.events):
`GET /api/events` and `GET /api/<name>/events` per content type, answered
`text/event-stream`, each event described by a schema (`StreamFrame`, its data a
`StreamEvent`, `StreamReady` or `StreamReset`), and the ways to resume (`Last-Event-ID`,
`lastEventId`)."""

from __future__ import annotations

from typing import Any

from folio.content.events import EVENT_NAMES
from folio.content.recording import DRAFT_DISCARD
from folio.http.events import MAX_ID_DIGITS, SEGMENT
from folio.schema.model import Registry

ERROR_REF = {"$ref": "#/components/responses/Error"}
TAG = "Realtime"

DESCRIPTION = (
    "Server-Sent Events, one per committed change, in commit order: `id:` the event's id "
    "in the outbox, `event:` its name (entry.create, entry.update, entry.delete, "
    "entry.publish, entry.unpublish, entry.draft-discard; media.create, media.update, "
    "media.delete), `data:` a "
    "StreamEvent as JSON. The stream starts with `retry:`, then the events after "
    "`Last-Event-ID` when one is given, then `event: ready` (its id: where the stream is). "
    "A comment line (`: keep-alive`) comes while nothing else does. An id older than the "
    "oldest event kept is answered `event: reset` (data: lastEventId, oldestEventId, "
    "resumeFrom): fetch the state again. Draft versions only for callers that may read "
    "drafts."
)


def _resume_parameters() -> list[dict[str, Any]]:
    return [
        {
            "name": "Last-Event-ID",
            "in": "header",
            "description": "Resume after this event id (what EventSource sends when it "
            "reconnects); wins over lastEventId",
            "schema": {"type": "string", "pattern": f"^[0-9]{{1,{MAX_ID_DIGITS}}}$"},
        },
        {
            "name": "lastEventId",
            "in": "query",
            "description": "Resume after this event id (for clients that cannot set headers)",
            "schema": {"type": "integer", "minimum": 0, "maximum": 10**MAX_ID_DIGITS - 1},
        },
    ]


def _operation(operation_id: str, summary: str, errors: list[str]) -> dict[str, Any]:
    return {
        "summary": summary,
        "description": DESCRIPTION,
        "operationId": operation_id,
        "tags": [TAG],
        "parameters": _resume_parameters(),
        "responses": {
            "200": {
                "description": "The event stream",
                "content": {"text/event-stream": {"schema": _ref("StreamFrame")}},
            },
            **{status: ERROR_REF for status in errors},
        },
    }


def event_stream_paths(registry: Registry, pascal: Any) -> dict[str, Any]:
    """The paths of the streams; `pascal(ct)`: a type's name in operation ids."""
    paths: dict[str, Any] = {}
    if SEGMENT not in registry.by_route:
        paths[f"/api/{SEGMENT}"] = {
            "get": _operation(
                "streamEvents",
                "Stream the changes of every type the caller may find",
                ["400", "401", "503"],
            )
        }
    for ct in registry.content_types.values():
        if not ct.uid.startswith("api::"):
            continue
        name = ct.singular if ct.is_single else ct.plural
        paths[f"/api/{name}/{SEGMENT}"] = {
            "get": _operation(
                f"stream{pascal(ct)}Events",
                f"Stream the changes of {ct.display_name}",
                ["400", "401", "403", "503"],
            )
        }
    return paths


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def stream_schemas() -> dict[str, Any]:
    """`StreamFrame`: one event of a stream as a client parses it (OpenAPI 3.1 has no
    schema per event; tools read a text/event-stream schema as one: as OpenAPI 3.2's
    generic schema of the media type, its data a string holding JSON); `StreamEvent`: the
    data of a change; `StreamReady`, `StreamReset`: the data of `ready` and `reset`."""
    nullable_text = {"type": ["string", "null"]}
    return {
        "StreamFrame": {
            "type": "object",
            "properties": {
                "event": {
                    "type": "string",
                    "enum": ["ready", "reset", *EVENT_NAMES, DRAFT_DISCARD],
                },
                "data": {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": {
                        "oneOf": [_ref("StreamEvent"), _ref("StreamReady"), _ref("StreamReset")]
                    },
                },
                "id": {"type": "string", "pattern": "^[0-9]+$"},
                "retry": {"type": "integer", "minimum": 0},
            },
            "required": ["event", "data", "id"],
        },
        "StreamEvent": {
            "type": "object",
            "description": "A committed change",
            "properties": {
                "event": {"type": "string", "enum": [*EVENT_NAMES, DRAFT_DISCARD]},
                "createdAt": {"type": "string", "format": "date-time"},
                "model": {"type": "string", "example": "article"},
                "uid": {"type": "string", "example": "api::article.article"},
                "documentId": nullable_text,
                "locale": nullable_text,
                "status": {"type": ["string", "null"], "enum": ["draft", "published", None]},
                "entry": {
                    "type": "object",
                    "description": "The version as the content API shows it, without populate",
                },
            },
            "required": [
                "event",
                "createdAt",
                "model",
                "uid",
                "documentId",
                "locale",
                "status",
                "entry",
            ],
        },
        "StreamReady": {
            "type": "object",
            "description": "Sent once the stream is live: everything up to lastEventId was sent",
            "properties": {"lastEventId": {"type": "integer", "minimum": 0}},
            "required": ["lastEventId"],
            "additionalProperties": False,
        },
        "StreamReset": {
            "type": "object",
            "description": "The events after lastEventId cannot all be sent (older than "
            "oldestEventId, or never recorded: oldestEventId null): the stream goes on from "
            "resumeFrom; fetch the state again",
            "properties": {
                "lastEventId": {"type": "integer", "minimum": 0},
                "oldestEventId": {"type": ["integer", "null"]},
                "resumeFrom": {"type": "integer", "minimum": 0},
            },
            "required": ["lastEventId", "oldestEventId", "resumeFrom"],
            "additionalProperties": False,
        },
    }
