"""The statements of the users and API-token services that are not document reads or
writes: sign-in lookups, one-time codes, password and usage updates, name clashes, role
counts. Each method is a program (run with the database's `read` or `write`)."""

from __future__ import annotations

import hashlib
from typing import Any

from folio.content.sql.joins import link_join
from folio.content.sql.layout import link_table_name
from folio.schema.builtins import ROLE_UID, TOKEN_UID, USER_UID
from folio.schema.model import Registry
from folio.store.dialects.base import Dialect
from folio.store.program import Program, execute, query


def _identity_lock(value: str) -> int:
    """The 64-bit advisory lock key of a user's name or address (either column: one value
    may not be one user's name and another's address)."""
    digest = hashlib.blake2b(f"users\0identity\0{value}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class UserStatements:
    def __init__(self, registry: Registry, dialect: Dialect) -> None:
        self.dialect = dialect
        self.quote = dialect.quote
        self.users = users = registry.content_types[USER_UID]
        roles = registry.content_types[ROLE_UID]
        # the tables' names, quoted
        self.table = dialect.quote(users.table)
        role = users.attributes["role"]
        self.role_link = dialect.quote(link_table_name(users, role))
        join = link_join(dialect, users, role, roles, "l", "r")
        # a user without a role still signs in (and is refused by the permission check)
        self._auth = (
            f"SELECT u.id, u.blocked, u.confirmed, r.type FROM {self.quote(users.table)} u "
            f"LEFT JOIN {join.link} ON {' AND '.join(join.correlated('u'))} "
            f"LEFT JOIN {join.target} ON {join.on} WHERE u.id = ?"
        )
        self._credentials = (
            f"SELECT u.id, u.password, u.blocked, u.confirmed FROM {self.quote(users.table)} u "
            "WHERE u.provider = 'local' AND (u.email = ? OR u.username = ?) ORDER BY u.id LIMIT 1"
        )
        self.roles_table = dialect.quote(roles.table)

    def auth(self, user_id: int) -> Program:
        """(id, blocked, confirmed, role type) of a user, or None."""
        rows = yield query(self._auth, (user_id,))
        return rows[0] if rows else None

    def credentials(self, identifier: str) -> Program:
        """(id, password hash, blocked, confirmed) of the local user with this email (any
        case) or username, or None."""
        rows = yield query(self._credentials, (identifier.lower(), identifier))
        return rows[0] if rows else None

    def role_ids(self) -> Program:
        """Role type -> role documentId."""
        rows = yield query(f"SELECT type, document_id FROM {self.roles_table}")
        return {str(r[0]): str(r[1]) for r in rows}

    def role_counts(self) -> Program:
        """Users per role documentId."""
        rows = yield query(
            f"SELECT target_document_id, COUNT(*) FROM {self.role_link} GROUP BY target_document_id"
        )
        return {str(r[0]): int(r[1]) for r in rows}

    def ids(self) -> Program:
        rows = yield query(f"SELECT id FROM {self.table} ORDER BY id")
        return [int(r[0]) for r in rows]

    def clashes(self, email: str | None, username: str | None, user_id: int | None) -> Program:
        """Other users whose email or username is the given address or name, in either
        column (as the reference; an address compared without case, as sign-in finds it):
        rows of (email matched, username matched)."""
        name = username.lower() if username is not None else None
        rows = yield query(
            f"SELECT email = ?, username = ? FROM {self.table} "
            "WHERE (email = ? OR lower(username) = ? OR username = ? OR email = ?) "
            "AND id <> ?",
            (email, username, email, email, username, name, user_id or 0),
        )
        return rows

    def claim(self, email: str | None, username: str | None, user_id: int | None) -> Program:
        """The clashes of a user write, run first in its transaction: on PostgreSQL, whose
        writers run side by side, each value (case folded) is locked until the transaction
        ends, in one order, so that two writes of one value take turns and the second one
        sees the first one's row (SQLite's one writer runs a write's program whole)."""
        if not self.dialect.one_writer:
            values = {v.lower() for v in (email, username) if v is not None}
            for key in sorted(_identity_lock(v) for v in values):
                yield from self.dialect.lock(key)
        rows = yield from self.clashes(email, username, user_id)
        return rows

    def set_reset_code(self, email: str, code: str) -> Program:
        """Stores a password-reset code for the unblocked user with this email; whether
        there was one."""
        rows = yield query(f"SELECT id FROM {self.table} WHERE email = ? AND NOT blocked", (email,))
        if rows:
            yield execute(
                f"UPDATE {self.table} SET reset_password_token = ? WHERE id = ?",
                (code, rows[0][0]),
            )
        return bool(rows)

    def by_reset_code(self, code: str) -> Program:
        """(id, stored code) of the user holding this reset code, or None."""
        rows = yield query(
            f"SELECT id, reset_password_token FROM {self.table} WHERE reset_password_token = ?",
            (code,),
        )
        return rows[0] if rows else None

    def confirm(self, token: str) -> Program:
        """Confirms the user holding this confirmation token; their id, or None."""
        rows = yield query(f"SELECT id FROM {self.table} WHERE confirmation_token = ?", (token,))
        if not rows:
            return None
        yield execute(
            f"UPDATE {self.table} SET confirmed = ?, confirmation_token = NULL WHERE id = ?",
            (True, rows[0][0]),
        )
        return int(rows[0][0])

    def set_confirmation(self, email: str, token: str) -> Program:
        """Stores a new confirmation token for the unconfirmed, unblocked user with this
        email; whether there was one."""
        rows = yield query(
            f"SELECT id, confirmed, blocked FROM {self.table} WHERE email = ?", (email,)
        )
        if not rows or rows[0][1] or rows[0][2]:
            return False
        yield execute(
            f"UPDATE {self.table} SET confirmation_token = ? WHERE id = ?",
            (token, rows[0][0]),
        )
        return True

    def password(self, user_id: int) -> Program:
        rows = yield query(f"SELECT password FROM {self.table} WHERE id = ?", (user_id,))
        return rows[0][0] if rows else None

    def set_password(self, user_id: int, hashed: str, clear_reset: bool) -> Program:
        extra = ", reset_password_token = NULL" if clear_reset else ""
        yield execute(
            f"UPDATE {self.table} SET password = ?{extra} WHERE id = ?",
            (hashed, user_id),
        )


class TokenStatements:
    def __init__(self, registry: Registry, dialect: Dialect) -> None:
        ct = registry.content_types[TOKEN_UID]
        self.table = dialect.quote(ct.table)  # quoted
        expr = ct.attributes["expiresAt"].kind.select_expr
        self._lookup = (
            f"SELECT t.id, t.name, t.type, t.permissions, {expr('t.expires_at', dialect)}, "
            f"{expr('t.last_used_at', dialect)}, t.access_key FROM {self.table} t "
            "WHERE t.access_key = ?"
        )

    def lookup(self, digest: str) -> Program:
        """(id, name, type, permissions, expires at, last used at, stored digest) of the
        token with this key digest, or None."""
        rows = yield query(self._lookup, (digest,))
        return rows[0] if rows else None

    def name_taken(self, name: str, token_id: int | None) -> Program:
        rows = yield query(
            f"SELECT id FROM {self.table} WHERE name = ? AND id <> ?",
            (name, token_id or 0),
        )
        return bool(rows)

    def touch(self, token_id: int, at: Any) -> Program:
        yield execute(f"UPDATE {self.table} SET last_used_at = ? WHERE id = ?", (at, token_id))
