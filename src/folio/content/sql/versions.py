"""The steps of writes on one version of a document: inserting a version with its links,
checking unique attributes and what publishing requires, sharing non-localized values
between locales, and publishing (the published version replaced by a copy of the draft)."""

from __future__ import annotations

import hashlib
from typing import Any

from folio.content.sql.links import LinkStore, WriteContext
from folio.content.validation import Written, missing_error, validate_data
from folio.errors import FieldError, validation_failed
from folio.schema.kinds import TIMESTAMP_KIND
from folio.schema.model import Attribute, ContentType, Registry
from folio.schema.values import now_utc
from folio.store.program import Program, execute, query


def _unique_lock(
    ct: ContentType, attr: Attribute, value: Any, locale: str | None, draft: bool
) -> int:
    """A 64-bit advisory lock key for one unique value in one version set."""
    scope = locale if ct.localized and attr.localized else ""
    return _lock_key(f"{ct.table}\0{attr.column}\0{scope}\0{draft}\0{value!r}")


def _lock_key(text: str) -> int:
    """A 64-bit PostgreSQL advisory lock key for a text."""
    return int.from_bytes(
        hashlib.blake2b(text.encode(), digest_size=8).digest(), "big", signed=True
    )


class Versions:
    """Shared by the write programs (`Writes`)."""

    registry: Registry
    dialect: str
    default_locale: str
    links: LinkStore
    _insert_sql: dict[tuple[str, tuple[str, ...]], str]

    def _locale_for(self, ct: ContentType, locale: str | None) -> str | None:
        if not ct.localized:
            return None
        return locale or self.default_locale

    def _insert(self, ct: ContentType, columns: dict[str, Any]) -> Program:
        names = tuple(columns)
        key = (ct.uid, names)
        sql = self._insert_sql.get(key)
        if sql is None:
            cols = ", ".join(f'"{n}"' for n in names)
            marks = ", ".join("?" * len(names))
            sql = f'INSERT INTO "{ct.table}" ({cols}) VALUES ({marks}) RETURNING id'
            self._insert_sql[key] = sql
        rows = yield query(sql, list(columns.values()))
        return int(rows[0][0])

    def _db_values(self, written: Written) -> dict[str, Any]:
        d = self.dialect
        return {
            attr.column: attr.kind.to_db(value, d)
            for attr, value in written.values.items()
            if attr.column is not None
        }

    def _check_unique(
        self,
        ct: ContentType,
        written: Written,
        document_id: str | None,
        locale: str | None,
        draft: bool,
    ) -> Program:
        errors: list[FieldError] = []
        checked = [
            (attr, value)
            for attr, value in written.values.items()
            if (attr.unique or attr.type == "uid") and value is not None
        ]
        if checked and self.dialect == "postgres":
            # concurrent writers of one value take turns: the lock lasts until the
            # transaction ends, so the second one's check sees the first one's row (taken
            # in one order, so that two writes of several values never wait on each other)
            keys = sorted({_unique_lock(ct, attr, value, locale, draft) for attr, value in checked})
            for key in keys:
                yield query("SELECT pg_advisory_xact_lock(?)", (key,))
        for attr, value in checked:
            sql, params = self._unique_sql(
                ct, attr, attr.kind.to_db(value, self.dialect), document_id, locale, draft
            )
            rows = yield query(sql, params)
            if rows:
                errors.append(FieldError([attr.name], "This attribute must be unique", value))
        if errors:
            raise validation_failed(errors)

    def _unique_sql(
        self,
        ct: ContentType,
        attr: Attribute,
        value: Any,
        document_id: str | None,
        locale: str | None,
        draft: bool,
    ) -> tuple[str, list[Any]]:
        parts = [f't."{attr.column}" = ?']
        params: list[Any] = [value]
        if document_id is not None:
            parts.append("t.document_id <> ?")
            params.append(document_id)
        if ct.draft_and_publish:
            parts.append(f"t.published_at IS {'' if draft else 'NOT '}NULL")
        if ct.localized and attr.localized:
            parts.append("t.locale = ?")
            params.append(locale)
        return f'SELECT 1 FROM "{ct.table}" t WHERE {" AND ".join(parts)} LIMIT 1', params

    def _create_version(
        self,
        ct: ContentType,
        document_id: str,
        written: Written,
        data: dict[str, Any] | None,
        locale: str | None,
        draft_only: bool,
        sibling: bool = False,
    ) -> Program:
        """Inserts a new version (a new document, a new locale of one, or the first version of
        a single type) with its links, and publishes it unless `draft_only`. For a new locale
        or single type reached through an update, `data` must also be a valid create. A new
        locale of an existing document (`sibling`) takes the values of its non-localized
        attributes from the other locales."""
        if data is not None:
            shared: dict[Attribute, Any] = {}
            if sibling and ct.localized:
                shared = yield from self._shared_values(ct, document_id)
            full = validate_data(
                ct,
                data,
                partial=False,
                registry=self.registry,
                draft=draft_only,
                given=frozenset(a.name for a in shared),
            )
            for attr, value in shared.items():
                full.values.setdefault(attr, value)
            full.values.update(written.values)
            written = full
        d = self.dialect
        yield from self._check_unique(ct, written, document_id, locale, ct.draft_and_publish)
        if ct.draft_and_publish and not draft_only:
            yield from self._check_unique(ct, written, document_id, locale, False)
        now = TIMESTAMP_KIND.to_db(now_utc(), d)
        base = {
            "document_id": document_id,
            **self._db_values(written),
            "created_at": now,
            "updated_at": now,
            "locale": locale,
        }
        published_at = None if ct.draft_and_publish else now
        row_id = yield from self._insert(ct, {**base, "published_at": published_at})
        if written.links:
            ctx = WriteContext(document_id, locale, self.default_locale, d)
            yield from self.links.apply(ct, row_id, written.links, ctx)
        if ct.draft_and_publish and not draft_only:
            row_id = yield from self._publish_row(ct, document_id, row_id, locale, now)
        return row_id

    def _shared_values(self, ct: ContentType, document_id: str) -> Program:
        """The non-localized attribute values of a document, read from any of its rows."""
        attrs = [a for a in ct.scalar_attributes if not a.localized and a.column is not None]
        if not attrs:
            return {}
        cols = ", ".join(f'"{a.column}"' for a in attrs)
        rows = yield query(
            f'SELECT {cols} FROM "{ct.table}" WHERE document_id = ? ORDER BY id LIMIT 1',
            (document_id,),
        )
        if not rows:
            return {}
        return {
            a: None if v is None else a.kind.from_db(a, v, self.dialect)
            for a, v in zip(attrs, rows[0], strict=True)
        }

    def _check_publishable(self, ct: ContentType, row_id: int) -> Program:
        """A draft may leave required attributes empty; its publication may not."""
        required = [a for a in ct.scalar_attributes if a.required and a.column is not None]
        if not required:
            return
        cols = ", ".join(f'"{a.column}"' for a in required)
        rows = yield query(f'SELECT {cols} FROM "{ct.table}" WHERE id = ?', (row_id,))
        errors = [
            missing_error(ct, a, [a.name])
            for a, v in zip(required, rows[0], strict=True)
            if v is None
        ]
        if errors:
            raise validation_failed(errors)

    def _sync_shared(
        self, ct: ContentType, written: Written, document_id: str, row_id: int
    ) -> Program:
        """Non-localized attributes hold one value for every locale version."""
        if not ct.localized:
            return
        shared = {
            attr.column: attr.kind.to_db(value, self.dialect)
            for attr, value in written.values.items()
            if not attr.localized and attr.column is not None
        }
        if not shared:
            return
        sets = ", ".join(f'"{c}" = ?' for c in shared)
        yield execute(
            f'UPDATE "{ct.table}" SET {sets} WHERE document_id = ? AND id <> ?',
            [*shared.values(), document_id, row_id],
        )

    def _version_where(
        self, ct: ContentType, document_id: str, locale: str | None, published: bool | None
    ) -> tuple[str, list[Any]]:
        """One document's rows in one locale (of a localized type): its draft (`published`
        False), its published version (True) or either (None)."""
        where = "document_id = ?"
        params: list[Any] = [document_id]
        if ct.localized:
            where += " AND locale = ?"
            params.append(locale)
        if published is not None:
            where += f" AND published_at IS {'NOT ' if published else ''}NULL"
        return where, params

    def _lock_document(self, ct: ContentType, document_id: str) -> Program:
        """PostgreSQL: writes to one document take turns (a transaction-scoped advisory
        lock), so that concurrent updates, publishes and deletes of it neither deadlock on
        its rows and links nor act on rows another one just replaced."""
        if self.dialect == "postgres":
            key = _lock_key(f"document\0{ct.table}\0{document_id}")
            yield query("SELECT pg_advisory_xact_lock(?)", (key,))

    def _single_document(self, ct: ContentType) -> Program:
        """The documentId of a single type's document, or None."""
        rows = yield query(f'SELECT document_id FROM "{ct.table}" ORDER BY id LIMIT 1')
        return str(rows[0][0]) if rows else None

    def _publish_row(
        self, ct: ContentType, document_id: str, draft_id: int, locale: str | None, now: Any
    ) -> Program:
        """Replaces the published version with a copy of the draft."""
        where, params = self._version_where(ct, document_id, locale, True)
        old = yield query(f'SELECT id FROM "{ct.table}" WHERE {where}', params)
        old_ids = [int(r[0]) for r in old]
        if old_ids:
            yield from self.links.delete_owned(ct, old_ids)
            yield execute(f'DELETE FROM "{ct.table}" WHERE {where}', params)
        cols = [
            "document_id",
            *[a.column for a in ct.scalar_attributes if a.column is not None],
            "created_at",
            "locale",
        ]
        names = ", ".join(f'"{c}"' for c in cols)
        rows = yield query(
            f'INSERT INTO "{ct.table}" ({names}, updated_at, published_at) '
            f'SELECT {names}, ?, ? FROM "{ct.table}" WHERE id = ? RETURNING id',
            [now, now, draft_id],
        )
        new_id = int(rows[0][0])
        yield from self.links.copy(ct, draft_id, new_id)
        return new_id
