"""The webhooks' tables and their statements: the webhooks made through the admin API, each
webhook's place in the outbox (its cursor, with the lease of the process delivering it),
and the record of every delivery attempt.

A webhook's cursor is the id of the last outbox event it is done with (delivered, or given
up after its last attempt), the attempts made so far at the next one, and when that one
may be tried again. A process delivers a webhook's events only while it holds the cursor's
lease (`claim`): an UPDATE that takes rows whose lease has run out, which where writers
run side by side skips the rows another transaction is claiming (`FOR UPDATE SKIP LOCKED`)
and on SQLite is serialized by its one writer. Times of leases and retries are milliseconds
of the database's clock where it has one (PostgreSQL: hosts may disagree on theirs), else
of the host's (`Dialect.now_ms`). Each program is run by the document service
(`read_program`, `write_program`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import orjson

from folio.content.events import Event
from folio.content.sql import outbox
from folio.store.dialects.base import BIGINTEGER, FLOAT, Dialect
from folio.store.program import Program, execute, marks, query
from folio.store.tables import Column, Index, Table

WEBHOOKS = "folio_webhooks"
CURSORS = "folio_webhook_cursors"
DELIVERIES = "folio_webhook_deliveries"

WEBHOOK_COLUMNS = (
    "id",
    "name",
    "url",
    "headers",
    "events",
    "enabled",
    "secret",
    "created_at",
    "updated_at",
)
CURSOR_COLUMNS = (
    "webhook",
    "last_event",
    "active",
    "attempt",
    "next_at",
    "owner",
    "lease_until",
)
DELIVERY_COLUMNS = (
    "webhook",
    "webhook_name",
    "event_id",
    "event",
    "attempt",
    "status",
    "status_code",
    "duration_ms",
    "error",
    "body",
    "redelivery_of",
    "created_at",
)


def webhook_tables(d: Dialect) -> list[Table]:
    text, whole, big, key = "TEXT", "INTEGER", d.column_type(BIGINTEGER), d.text_key()
    webhooks = Table(
        WEBHOOKS,
        [
            Column("id", "pk", d.identity(), nullable=False),
            *(
                Column(n, "text", text)
                for n in ("name", "url", "headers", "events", "secret", "created_at", "updated_at")
            ),
            Column("enabled", "int", whole),
        ],
    )
    cursors = Table(
        CURSORS,
        [
            Column("webhook", "text", f"{key} PRIMARY KEY"),
            Column("last_event", "int", big),
            Column("active", "int", whole),
            Column("attempt", "int", whole),
            Column("next_at", "int", big),
            Column("owner", "text", key),
            Column("lease_until", "int", big),
        ],
    )
    deliveries = Table(
        DELIVERIES,
        [
            Column("id", "pk", d.identity(big=True), nullable=False),
            *(Column(n, "text", key) for n in ("webhook", "webhook_name", "event", "status")),
            Column("event_id", "int", big),
            Column("attempt", "int", whole),
            Column("status_code", "int", whole),
            Column("duration_ms", "float", d.column_type(FLOAT)),
            *(Column(n, "text", text) for n in ("error", "body")),
            Column("created_at", "text", key),
            Column("redelivery_of", "int", big),
        ],
        [
            Index(f"{DELIVERIES}_webhook_idx", "webhook, id"),
            Index(f"{DELIVERIES}_created_idx", "created_at"),
            Index(f"{DELIVERIES}_failed_idx", "id", where="status = 'failed'"),
        ],
    )
    return [webhooks, cursors, deliveries]


class Record(NamedTuple):
    """One delivery attempt, as stored. `status`: "delivered", "retry" (failed, to be
    tried again) or "failed" (failed, no attempt left; its body is kept so that it can be
    sent again once the event is pruned)."""

    webhook: str
    webhook_name: str
    event_id: int | None
    event: str
    attempt: int
    status: str
    status_code: int | None
    duration_ms: float
    error: str | None
    body: str | None
    redelivery_of: int | None
    created_at: str
    id: int = 0


class Claim(NamedTuple):
    """A cursor this process holds the lease of: its webhook, the last event it is done
    with, the attempts made at the next one, and the milliseconds until that one may be
    tried again (0 or less: now)."""

    webhook: str
    last_event: int
    attempt: int
    wait_ms: int


class Cursor(NamedTuple):
    webhook: str
    last_event: int
    active: bool
    owner: str | None
    lease_left_ms: int


class WebhookStatements:
    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect

    # -------------------------------------------------------------- the clock
    def _now(self) -> tuple[str, list[Any]]:
        """The current time in milliseconds as SQL: the database's where it has a clock
        constant within a statement, else the host's (a parameter)."""
        return self.dialect.now_ms()

    def _big(self) -> str:
        return self.dialect.param_cast(BIGINTEGER)

    # -------------------------------------------------------------- webhooks
    def webhooks(self) -> Program:
        rows = yield query(f"SELECT {', '.join(WEBHOOK_COLUMNS)} FROM {WEBHOOKS} ORDER BY id")
        return [_webhook(r) for r in rows]

    def webhook(self, webhook_id: int) -> Program:
        rows = yield query(
            f"SELECT {', '.join(WEBHOOK_COLUMNS)} FROM {WEBHOOKS} WHERE id = ?", [webhook_id]
        )
        return _webhook(rows[0]) if rows else None

    def create(self, values: dict[str, Any], now: str) -> Program:
        """A new webhook, and its cursor after the last recorded event (it is sent what
        is committed from now on); its id."""
        webhook_id = yield from self.dialect.insert_id(
            f"INSERT INTO {WEBHOOKS} (name, url, headers, events, enabled, secret, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [*_webhook_values(values), now, now],
        )
        webhook_id = int(webhook_id)
        yield from self._start_cursor(str(webhook_id), bool(values["enabled"]))
        return webhook_id

    def update(self, webhook_id: int, values: dict[str, Any], now: str, enabling: bool) -> Program:
        """Changes a webhook; `enabling`: it was disabled, and is sent what is committed
        from now on (nothing of what happened while it was off). Whether it exists."""
        count = yield execute(
            f"UPDATE {WEBHOOKS} SET name = ?, url = ?, headers = ?, events = ?, enabled = ?, "
            "secret = ?, updated_at = ? WHERE id = ?",
            [*_webhook_values(values), now, webhook_id],
        )
        if not count:
            return False
        key = str(webhook_id)
        if enabling:
            yield execute(f"DELETE FROM {CURSORS} WHERE webhook = ?", [key])
        yield from self._start_cursor(key, bool(values["enabled"]))
        if not values["enabled"]:
            yield execute(f"UPDATE {CURSORS} SET active = 0 WHERE webhook = ?", [key])
        return True

    def delete(self, webhook_id: int) -> Program:
        count = yield execute(f"DELETE FROM {WEBHOOKS} WHERE id = ?", [webhook_id])
        key = str(webhook_id)
        yield execute(f"DELETE FROM {CURSORS} WHERE webhook = ?", [key])
        yield execute(f"DELETE FROM {DELIVERIES} WHERE webhook = ?", [key])
        return bool(count)

    def _start_cursor(self, key: str, active: bool) -> Program:
        """The cursor of a webhook that has none (else nothing changes): after the last
        recorded event."""
        latest = yield from outbox.latest(self.dialect)
        yield execute(
            self.dialect.upsert(CURSORS, CURSOR_COLUMNS, ("webhook",)),
            [key, latest, 1 if active else 0, 0, 0, None, 0],
        )

    # -------------------------------------------------------------- cursors
    def state(self) -> Program:
        """What the worker looks at each turn: the id of the last recorded event, the
        cursors, and the API's webhooks."""
        latest = yield from outbox.latest(self.dialect)
        now, params = self._now()
        rows = yield query(
            f"SELECT webhook, last_event, active, owner, lease_until - {now} FROM {CURSORS}",
            params,
        )
        cursors = {
            str(r[0]): Cursor(str(r[0]), int(r[1]), bool(r[2]), r[3], int(r[4])) for r in rows
        }
        webhooks = yield from self.webhooks()
        return latest, cursors, webhooks

    def adopt(self, enabled: Sequence[str], disabled: Sequence[str]) -> Program:
        """Cursors for webhooks the worker knows: an enabled one without a cursor, or whose
        cursor was left while it was disabled, starts after the last recorded event; a
        disabled one's cursor is marked so."""
        latest = yield from outbox.latest(self.dialect)
        q = self.dialect.quote
        restart = self.dialect.upsert(
            CURSORS,
            CURSOR_COLUMNS,
            ("webhook",),
            {
                "last_event": f"excluded.{q('last_event')}",
                "active": "1",
                "attempt": "0",
                "next_at": "0",
            },
            where=f"{q(CURSORS)}.{q('active')} = 0",
        )
        for key in enabled:
            yield execute(restart, [key, latest, 1, 0, 0, None, 0])
        if disabled:
            yield execute(
                f"UPDATE {CURSORS} SET active = 0 WHERE active = 1 AND webhook IN "
                f"({marks(len(disabled))})",
                list(disabled),
            )

    def claim(
        self,
        keys: Sequence[str],
        owner: str,
        lease_ms: int,
        latest: int,
        gone: Sequence[str] = (),
    ) -> Program:
        """Takes the leases of the cursors of `keys` that have events to deliver (before
        `latest`) and that no other process holds (its lease ran out, or its holder is one
        of `gone`, processes known to have ended); the claims taken."""
        if not keys:
            return []
        d = self.dialect
        now, p = self._now()
        big = self._big()
        among, among_params = d.one_of("webhook", keys)
        dead, dead_params = d.one_of("owner", gone) if gone else ("", [])
        free = (
            f"active = 1 AND last_event < {big} AND (lease_until < {now} OR owner = ?"
            f"{' OR ' + dead if dead else ''})"
        )
        free_params = [latest, *p, owner, *dead_params]
        answer = f"webhook, last_event, attempt, next_at - {now}"
        take = f"UPDATE {CURSORS} SET owner = ?, lease_until = {now} + {big} WHERE "
        if d.update_returning:
            # the cursors another transaction is claiming are skipped where rows can be
            if d.skip_locked:
                chosen = (
                    f"webhook IN (SELECT webhook FROM {CURSORS} WHERE {among} AND {free} "
                    "FOR UPDATE SKIP LOCKED)"
                )
            else:
                chosen = f"{among} AND {free}"
            rows = yield query(
                f"{take}{chosen} RETURNING {answer}",
                [owner, *p, lease_ms, *among_params, *free_params, *p],
            )
        else:
            # the free cursors read and locked first, then taken
            skip = " SKIP LOCKED" if d.skip_locked else ""
            rows = yield query(
                f"SELECT {answer} FROM {CURSORS} WHERE {among} AND {free} FOR UPDATE{skip}",
                [*p, *among_params, *free_params],
            )
            if rows:
                taken, taken_params = d.one_of("webhook", [r[0] for r in rows])
                yield execute(f"{take}{taken}", [owner, *p, lease_ms, *taken_params])
        return [Claim(str(r[0]), int(r[1]), int(r[2]), int(r[3])) for r in rows]

    def pending(self, after: int, limit: int, names: Sequence[str]) -> Program:
        """(the id of the last recorded event, up to `limit` events named `names` after
        `after` and up to that id)."""
        latest = yield from outbox.latest(self.dialect)
        events: list[Event] = yield from outbox.since(after, limit, self.dialect, names, latest)
        return latest, events

    def settle(
        self,
        key: str,
        owner: str,
        last_event: int,
        attempt: int,
        wait_ms: int,
        lease_ms: int,
        records: Sequence[Record],
    ) -> Program:
        """Records attempts and moves the cursor, with a renewed lease, if this process
        still holds it; whether it does."""
        yield from self.record(records)
        now, p = self._now()
        big = self._big()
        count = yield execute(
            f"UPDATE {CURSORS} SET last_event = {big}, attempt = ?, next_at = {now} + {big}, "
            f"lease_until = {now} + {big} WHERE webhook = ? AND owner = ?",
            [last_event, attempt, *p, wait_ms, *p, lease_ms, key, owner],
        )
        return bool(count)

    def renew(self, key: str, owner: str, lease_ms: int) -> Program:
        now, p = self._now()
        count = yield execute(
            f"UPDATE {CURSORS} SET lease_until = {now} + {self._big()} "
            "WHERE webhook = ? AND owner = ?",
            [*p, lease_ms, key, owner],
        )
        return bool(count)

    def release(self, owner: str, key: str | None = None) -> Program:
        """Gives up the lease of `key`, or of every cursor `owner` holds."""
        sql = f"UPDATE {CURSORS} SET owner = NULL, lease_until = 0 WHERE owner = ?"
        params: list[Any] = [owner]
        if key is not None:
            sql += " AND webhook = ?"
            params.append(key)
        yield execute(sql, params)

    def keep_from(self, keys: Sequence[str]) -> Program:
        """The first event still owed to one of the cursors of `keys`, or None."""
        if not keys:
            return None
        rows = yield query(
            f"SELECT MIN(last_event) FROM {CURSORS} WHERE active = 1 AND webhook IN "
            f"({marks(len(keys))})",
            list(keys),
        )
        return int(rows[0][0]) + 1 if rows and rows[0][0] is not None else None

    # -------------------------------------------------------------- deliveries
    def record(self, records: Sequence[Record]) -> Program:
        """Stores attempts; their ids."""
        ids: list[int] = []
        for start in range(0, len(records), CHUNK):
            chunk = records[start : start + CHUNK]
            row = "(" + marks(len(DELIVERY_COLUMNS)) + ")"
            params: list[Any] = []
            for r in chunk:
                params += list(r[: len(DELIVERY_COLUMNS)])
            new: list[int] = yield from self.dialect.insert_ids(
                f"INSERT INTO {DELIVERIES} ({', '.join(DELIVERY_COLUMNS)}) VALUES "
                f"{', '.join([row] * len(chunk))}",
                params,
                len(chunk),
            )
            ids += new
        return ids

    def deliveries(
        self, webhooks: Sequence[str] | None, failed: bool, limit: int, before: int | None
    ) -> Program:
        """The latest attempts (newest first), of `webhooks` only when given, of failed
        deliveries only (`failed`), with ids below `before`."""
        where: list[str] = []
        params: list[Any] = []
        if webhooks is not None:
            if not webhooks:
                return []
            where.append(f"webhook IN ({marks(len(webhooks))})")
            params += list(webhooks)
        if failed:
            where.append("status = 'failed'")
        if before is not None:
            where.append("id < ?")
            params.append(before)
        sql = f"SELECT id, {', '.join(DELIVERY_COLUMNS)} FROM {DELIVERIES}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = yield query(f"{sql} ORDER BY id DESC LIMIT ?", [*params, limit])
        return [_record(r) for r in rows]

    def delivery(self, delivery_id: int) -> Program:
        rows = yield query(
            f"SELECT id, {', '.join(DELIVERY_COLUMNS)} FROM {DELIVERIES} WHERE id = ?",
            [delivery_id],
        )
        return _record(rows[0]) if rows else None

    def prune(self, before: str) -> Program:
        """Deletes the attempts recorded before `before` (an ISO time); how many went."""
        count = yield execute(f"DELETE FROM {DELIVERIES} WHERE created_at < ?", [before])
        return int(count or 0)


# attempts per INSERT (12 parameters each: under both databases' limits)
CHUNK = 500


def _webhook_values(values: dict[str, Any]) -> list[Any]:
    return [
        values["name"],
        values["url"],
        orjson.dumps(values["headers"]).decode(),
        orjson.dumps(values["events"]).decode(),
        1 if values["enabled"] else 0,
        values.get("secret"),
    ]


def _webhook(row: Sequence[Any]) -> dict[str, Any]:
    return {
        "id": int(row[0]),
        "name": row[1],
        "url": row[2],
        "headers": orjson.loads(row[3]) if row[3] else {},
        "events": orjson.loads(row[4]) if row[4] else [],
        "enabled": bool(row[5]),
        "secret": row[6],
        "created_at": row[7],
        "updated_at": row[8],
    }


def _record(row: Sequence[Any]) -> Record:
    return Record(
        webhook=row[1],
        webhook_name=row[2],
        event_id=int(row[3]) if row[3] is not None else None,
        event=row[4],
        attempt=int(row[5] or 0),
        status=row[6],
        status_code=int(row[7]) if row[7] is not None else None,
        duration_ms=float(row[8] or 0),
        error=row[9],
        body=row[10],
        redelivery_of=int(row[11]) if row[11] is not None else None,
        created_at=row[12],
        id=int(row[0]),
    )
