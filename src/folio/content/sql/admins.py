"""The admin panel's tables and their statements: administrators (separate from the content
API's users), their sign-in sessions and the panel's settings per content type.

A session row is keyed by the SHA-256 of the session id the browser holds (the id itself
is never stored); its times are epoch seconds of the host. Each method is a program run by
the document service (`read_program`, `write_program` with no content type)."""

from __future__ import annotations

import hashlib
from typing import Any

from folio.schema.model import Registry
from folio.store.dialects.base import BIGINTEGER, Dialect
from folio.store.program import Program, execute, query
from folio.store.tables import Column, Index, Table

USERS = "folio_admin_users"
SESSIONS = "folio_admin_sessions"
SETTINGS = "folio_admin_settings"
# components inside components followed up to their entry, at most this deep
MAX_NESTING = 16

USER_COLUMNS = (
    "id",
    "email",
    "firstname",
    "lastname",
    "is_active",
    "created_at",
    "updated_at",
)
# the lock taken (where writers run side by side) by the creation of the first administrator
FIRST_ADMIN_LOCK = int.from_bytes(
    hashlib.blake2b(b"admin\0first", digest_size=8).digest(), "big", signed=True
)


def _column(name: str, sql: str, type_name: str = "text") -> Column:
    return Column(name, type_name, sql)


def admin_tables(d: Dialect) -> list[Table]:
    key = d.text_key()
    big = d.column_type(BIGINTEGER)
    users = Table(
        USERS,
        [
            Column("id", "pk", d.identity(), nullable=False),
            _column("email", f"{key} NOT NULL"),
            _column("firstname", "TEXT"),
            _column("lastname", "TEXT"),
            _column("password", "TEXT"),
            _column("is_active", "INTEGER", "int"),
            # the SHA-256 of the pending reset code, and when it ends (epoch seconds)
            _column("reset_code", key),
            _column("reset_until", big, "int"),
            _column("created_at", "TEXT"),
            _column("updated_at", "TEXT"),
        ],
        [
            Index(f"{USERS}_email_key", "email", unique=True),
            Index(f"{USERS}_reset_idx", "reset_code"),
        ],
    )
    sessions = Table(
        SESSIONS,
        [
            Column("id", "text", f"{key} PRIMARY KEY", False),
            _column("user_id", "INTEGER NOT NULL", "int"),
            _column("csrf", "TEXT NOT NULL"),
            _column("created_at", f"{big} NOT NULL", "int"),
            _column("seen_at", f"{big} NOT NULL", "int"),
        ],
        [Index(f"{SESSIONS}_user_idx", "user_id")],
    )
    settings = Table(
        SETTINGS, [Column("key", "text", f"{key} PRIMARY KEY", False), _column("value", "TEXT")]
    )
    return [users, sessions, settings]


def _user(row: Any) -> dict[str, Any]:
    return dict(zip(USER_COLUMNS, row, strict=True))


class AdminStatements:
    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self._select = f"SELECT {', '.join(USER_COLUMNS)} FROM {USERS}"

    # ------------------------------------------------------------------ users
    def count(self) -> Program:
        rows = yield query(f"SELECT COUNT(*) FROM {USERS}")
        return int(rows[0][0])

    def users(self) -> Program:
        rows = yield query(f"{self._select} ORDER BY id")
        return [_user(r) for r in rows]

    def user(self, user_id: int) -> Program:
        rows = yield query(f"{self._select} WHERE id = ?", (user_id,))
        return _user(rows[0]) if rows else None

    def credentials(self, email: str) -> Program:
        """(id, password hash, is active) of the administrator with this address, or None."""
        rows = yield query(f"SELECT id, password, is_active FROM {USERS} WHERE email = ?", (email,))
        return rows[0] if rows else None

    def password(self, user_id: int) -> Program:
        rows = yield query(f"SELECT password FROM {USERS} WHERE id = ?", (user_id,))
        return rows[0][0] if rows else None

    def create(self, values: dict[str, Any], now: str, only_first: bool) -> Program:
        """A new administrator's id; None when `only_first` and one exists already, or when
        the address is taken (-1). On PostgreSQL, whose writers run side by side, the first
        administrator's creation is serialized by a lock (SQLite's one writer runs the
        program whole)."""
        yield from self.dialect.lock(FIRST_ADMIN_LOCK)
        if only_first:
            rows = yield query(f"SELECT 1 FROM {USERS} LIMIT 1")
            if rows:
                return None
        rows = yield query(f"SELECT 1 FROM {USERS} WHERE email = ?", (values["email"],))
        if rows:
            return -1
        user_id = yield from self.dialect.insert_id(
            f"INSERT INTO {USERS} (email, firstname, lastname, password, is_active, created_at, "
            "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                values["email"],
                values["firstname"],
                values.get("lastname"),
                values["password"],
                1,
                now,
                now,
            ),
        )
        return int(user_id)

    def update(self, user_id: int, values: dict[str, Any], now: str) -> Program:
        """Changes an administrator's columns (`values`: column -> value); False when the
        new address is another one's."""
        email = values.get("email")
        if email is not None:
            yield from self.dialect.lock(FIRST_ADMIN_LOCK)
            rows = yield query(
                f"SELECT 1 FROM {USERS} WHERE email = ? AND id <> ?", (email, user_id)
            )
            if rows:
                return False
        sets = ", ".join(f"{name} = ?" for name in values)
        yield execute(
            f"UPDATE {USERS} SET {sets}, updated_at = ? WHERE id = ?",
            (*values.values(), now, user_id),
        )
        return True

    def set_password(self, user_id: int, hashed: str, now: str, keep: str | None) -> Program:
        """A new password; ends the user's sessions but the one whose hashed id is `keep`,
        and any pending reset code."""
        yield execute(
            f"UPDATE {USERS} SET password = ?, reset_code = NULL, reset_until = NULL, "
            "updated_at = ? WHERE id = ?",
            (hashed, now, user_id),
        )
        yield execute(
            f"DELETE FROM {SESSIONS} WHERE user_id = ? AND id <> ?", (user_id, keep or "")
        )

    def set_reset_code(self, email: str, code_hash: str, until: int) -> Program:
        """Stores a reset code for the active administrator with this address; their id,
        or None."""
        rows = yield query(f"SELECT id FROM {USERS} WHERE email = ? AND is_active = 1", (email,))
        if not rows:
            return None
        yield execute(
            f"UPDATE {USERS} SET reset_code = ?, reset_until = ? WHERE id = ?",
            (code_hash, until, rows[0][0]),
        )
        return int(rows[0][0])

    def by_reset_code(self, code_hash: str, now: int) -> Program:
        """The id of the active administrator holding this unexpired reset code, or None."""
        rows = yield query(
            f"SELECT id FROM {USERS} WHERE reset_code = ? AND reset_until > ? AND is_active = 1",
            (code_hash, now),
        )
        return int(rows[0][0]) if rows else None

    # ------------------------------------------------------------------ sessions
    def open_session(self, key: str, user_id: int, csrf: str, now: int) -> Program:
        yield execute(
            f"INSERT INTO {SESSIONS} (id, user_id, csrf, created_at, seen_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (key, user_id, csrf, now, now),
        )

    def session(self, key: str) -> Program:
        """(user id, csrf token, created at, seen at) of a session, and its user's row, or
        None."""
        rows = yield query(
            f"SELECT s.user_id, s.csrf, s.created_at, s.seen_at, "
            f"{', '.join('u.' + c for c in USER_COLUMNS)} FROM {SESSIONS} s "
            f"JOIN {USERS} u ON u.id = s.user_id WHERE s.id = ?",
            (key,),
        )
        if not rows:
            return None
        row = rows[0]
        return (int(row[0]), str(row[1]), int(row[2]), int(row[3]), _user(row[4:]))

    def touch_session(self, key: str, now: int) -> Program:
        yield execute(f"UPDATE {SESSIONS} SET seen_at = ? WHERE id = ?", (now, key))

    def close_session(self, key: str) -> Program:
        yield execute(f"DELETE FROM {SESSIONS} WHERE id = ?", (key,))

    def close_sessions(self, user_id: int) -> Program:
        yield execute(f"DELETE FROM {SESSIONS} WHERE user_id = ?", (user_id,))

    def prune_sessions(self, idle_before: int, created_before: int) -> Program:
        """Deletes the sessions that ended (idle or too old); how many."""
        count = yield execute(
            f"DELETE FROM {SESSIONS} WHERE seen_at < ? OR created_at < ?",
            (idle_before, created_before),
        )
        return count

    # ------------------------------------------------------------------ settings
    def setting(self, key: str) -> Program:
        rows = yield query(
            f"SELECT value FROM {SETTINGS} WHERE {self.dialect.quote('key')} = ?", (key,)
        )
        return str(rows[0][0]) if rows and rows[0][0] is not None else None

    def put_setting(self, key: str, value: str) -> Program:
        yield execute(
            self.dialect.upsert(SETTINGS, ("key", "value"), ("key",), ("value",)), (key, value)
        )


class UsageStatements:
    """Where files are used: each link of a file to a media field, of an entry or of a
    component (followed up through its owners, nested components too, to the entry)."""

    def __init__(self, registry: Registry, dialect: Dialect) -> None:
        # layout.py lists this module's tables: imported here, not at the top
        from folio.content.sql.layout import FILES_LINK_TABLE, components_table_name

        self.quote = dialect.quote
        self.links = dialect.quote(FILES_LINK_TABLE)
        self.types = frozenset(registry.content_types)
        # component uid -> (owner uid, the owner's components table)
        self.owners: dict[str, list[tuple[str, str]]] = {}
        for schema in [*registry.content_types.values(), *registry.components.values()]:
            for attr in schema.attributes.values():
                if attr.type == "component" and attr.component:
                    held: tuple[str, ...] = (attr.component,)
                elif attr.type == "dynamiczone":
                    held = attr.components
                else:
                    continue
                for uid in held:
                    place = (schema.uid, components_table_name(schema))
                    if place not in self.owners.setdefault(uid, []):
                        self.owners[uid].append(place)

    def file_usage(self, file_id: int) -> Program:
        """(type uid, row id, field path) of each entry version file `file_id` is attached
        to: `cover`, or `seo.shareImage` for a media field of the entry's `seo` component."""
        rows = yield query(
            f"SELECT related_type, related_id, field FROM {self.links} "
            "WHERE file_id = ? ORDER BY id",
            (file_id,),
        )
        out: list[tuple[str, int, str]] = []
        for related_type, related_id, field in rows:
            uid, row_id, path = str(related_type), int(related_id), [str(field)]
            for _ in range(MAX_NESTING):
                if uid in self.types:
                    out.append((uid, row_id, ".".join(path)))
                    break
                found = None
                for owner, table in self.owners.get(uid, ()):
                    owned = yield query(
                        f"SELECT entity_id, field FROM {self.quote(table)} "
                        "WHERE cmp_id = ? AND component_type = ? LIMIT 1",
                        (row_id, uid),
                    )
                    if owned:
                        found = (owner, int(owned[0][0]), str(owned[0][1]))
                        break
                if found is None:
                    break
                uid, row_id = found[0], found[1]
                path.insert(0, found[2])
        return out
