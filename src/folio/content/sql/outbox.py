"""The outbox: the events of committed writes, in commit order, in a table of their own.

A write records its events as the last statements of its own transaction, so an event is
stored exactly when its change is committed. A reader that has seen id N never finds a new
event below N: SQLite has one writer; on PostgreSQL and MySQL writes commit side by side,
and readers go no further than what no running write can precede any more
(`Dialect.commit_horizon`: on PostgreSQL each write holds a mark below its ids while it
runs; on MySQL each holds a shared lock that a reader's exclusive one waits for). On
PostgreSQL the recording statement also notifies the channel `folio_events` (delivered at
commit). Readers page through it by id (`since`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from folio.content.events import Event
from folio.store.dialects.base import Dialect
from folio.store.program import Program, execute, query
from folio.store.tables import Column, Index, Table

OUTBOX_TABLE = "folio_events"
CHANNEL = "folio_events"
# the lock key that orders the recording writes (where writers run side by side)
OUTBOX_LOCK = 0x466F6C696F4576  # "FolioEv"

COLUMNS = ("event", "uid", "model", "document_id", "locale", "status", "entry", "created_at")


def outbox_table(d: Dialect) -> Table:
    key = d.text_key()
    return Table(
        OUTBOX_TABLE,
        [
            Column("id", "pk", d.identity(big=True), nullable=False),
            *(Column(name, "text", key if name == "created_at" else "TEXT") for name in COLUMNS),
        ],
        [Index(f"{OUTBOX_TABLE}_created_idx", "created_at")],
    )


def record(events: Sequence[Event], dialect: Dialect) -> Program:
    """Stores `events` (in this order) and sets their ids; the write's last statements."""
    for start in range(0, len(events), CHUNK):
        yield from _record(events[start : start + CHUNK], dialect)


# events per statement (8 parameters each: under both databases' limits)
CHUNK = 1000


def _record(events: Sequence[Event], dialect: Dialect) -> Program:
    """The rows, after the lock that orders ids as commits (where writers run side by
    side) and the notification of the listeners (`Dialect.record_rows`)."""
    params: list[Any] = []
    for e in events:
        params += [
            e.event,
            e.uid,
            e.model,
            e.document_id,
            e.locale,
            e.status,
            orjson.dumps(e.entry).decode(),
            e.created_at,
        ]
    ids = yield from dialect.record_rows(
        OUTBOX_TABLE, COLUMNS, params, len(events), lock=OUTBOX_LOCK, channel=CHANNEL
    )
    # ids are given in the order the rows were inserted
    for event, got in zip(events, ids, strict=True):
        event.id = got


def _event(row: Sequence[Any]) -> Event:
    return Event(
        event=row[1],
        uid=row[2],
        model=row[3] or "",
        document_id=row[4],
        locale=row[5],
        status=row[6],
        entry=orjson.loads(row[7]) if row[7] else {},
        created_at=row[8] or "",
        id=int(row[0]),
    )


def since(
    after: int,
    limit: int,
    dialect: Dialect,
    names: Sequence[str] | None = None,
    upto: int | None = None,
) -> Program:
    """Up to `limit` events with ids above `after`, in order, that no running write can
    precede any more; `names`: only these events; `upto`: and none above it (`latest`)."""
    if names is not None and not names:
        return []
    if upto is None:
        upto = yield from dialect.commit_horizon(OUTBOX_TABLE)
    sql = f"SELECT id, {', '.join(COLUMNS)} FROM {OUTBOX_TABLE} WHERE id > ?"
    params: list[Any] = [after]
    if upto is not None:
        sql += " AND id <= ?"
        params.append(upto)
    if names is not None:
        sql += f" AND event IN ({', '.join('?' * len(names))})"
        params += list(names)
    rows = yield query(f"{sql} ORDER BY id LIMIT ?", [*params, limit])
    return [_event(r) for r in rows]


def one(event_id: int) -> Program:
    """The event with id `event_id`, or None (pruned)."""
    rows = yield query(
        f"SELECT id, {', '.join(COLUMNS)} FROM {OUTBOX_TABLE} WHERE id = ?", [event_id]
    )
    return _event(rows[0]) if rows else None


def latest(dialect: Dialect) -> Program:
    """The id of the last recorded event (0 when there is none): where writes commit side
    by side, the last below which none is still running (events after it are still to
    come)."""
    upto = yield from dialect.commit_horizon(OUTBOX_TABLE)
    if upto is not None:
        return int(upto)
    rows = yield query(f"SELECT MAX(id) FROM {OUTBOX_TABLE}")
    return int(rows[0][0] or 0) if rows else 0


def prune(before: str, keep_from: int | None) -> Program:
    """Deletes events created before `before` (an ISO time), except those with ids from
    `keep_from` on (still owed to a webhook); returns how many went."""
    sql = f"DELETE FROM {OUTBOX_TABLE} WHERE created_at < ?"
    params: list[Any] = [before]
    if keep_from is not None:
        sql += " AND id < ?"
        params.append(keep_from)
    count = yield execute(sql, params)
    return int(count or 0)
