"""The steps of writes on one version of a document: inserting a version with its links,
checking unique attributes and what publishing requires, sharing non-localized values
between locales, and publishing (the published version takes the draft's values in place
where it owns the same links and components, else is replaced by a copy of the draft)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from folio.content.sql.layout import sort_indexes, version_terms
from folio.content.sql.links import LinkStore, WriteContext
from folio.content.sql.sharing import share_values, shared_attributes
from folio.content.validation import Written, missing_error, validate_data
from folio.errors import FieldError, validation_failed
from folio.schema.kinds import TIMESTAMP_KIND
from folio.schema.model import Attribute, ContentType, Registry
from folio.schema.values import now_utc
from folio.store.dialects.base import Dialect
from folio.store.program import Program, execute, marks, query

if TYPE_CHECKING:
    from folio.content.sql.reads import Reads


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


class Published:
    """A publication's new version: its row id, its row when the copy answered it (as
    `read_back` selects it), the document's versions in other locales when asked."""

    __slots__ = ("id", "others", "row")

    def __init__(self, row_id: int, row: Any = None) -> None:
        self.id = row_id
        self.row = row
        self.others: list[tuple[int, bool]] = []


class Versions:
    """Shared by the write programs (`Writes`)."""

    registry: Registry
    dialect: Dialect
    quote: Callable[[str], str]
    default_locale: str
    links: LinkStore
    _insert_sql: dict[tuple[str, tuple[str, ...], str], str]
    reads: Reads
    # per content type (and whether they answer the other locales' versions): a
    # publication's two statements (`_publish_whole`)
    _whole_sql: dict[tuple[str, bool], tuple[str, str, int]]
    # per content type: the statement comparing what a draft and its published version
    # own, and how many times it binds the draft's id (None: not compared)
    _same_sql: dict[str, tuple[str, int, str | None, str] | None]

    def _locale_for(self, ct: ContentType, locale: str | None) -> str | None:
        if not ct.localized:
            return None
        return locale or self.default_locale

    def _insert_statement(
        self, ct: ContentType, names: tuple[str, ...], returning: str = ""
    ) -> str:
        """`INSERT INTO` the type's table of the `names` columns, `RETURNING` what is asked
        if anything (made once per type, columns and answer)."""
        key = (ct.uid, names, returning)
        sql = self._insert_sql.get(key)
        if sql is None:
            cols = ", ".join(self.quote(n) for n in names)
            sql = f"INSERT INTO {self.quote(ct.table)} ({cols}) VALUES ({marks(len(names))})"
            if returning:
                sql += f" RETURNING {returning}"
            self._insert_sql[key] = sql
        return sql

    def _insert(self, ct: ContentType, columns: dict[str, Any]) -> Program:
        row_id = yield from self.dialect.insert_id(
            self._insert_statement(ct, tuple(columns)), list(columns.values())
        )
        return int(row_id)

    def _new_row(
        self, ct: ContentType, document_id: str, written: Written, locale: str | None, now: Any
    ) -> dict[str, Any]:
        """The columns of a new version's row: published at once where the type has no
        drafts."""
        return {
            "document_id": document_id,
            **self._db_values(written),
            "created_at": now,
            "updated_at": now,
            "locale": locale,
            "published_at": None if ct.draft_and_publish else now,
        }

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
        if checked and not self.dialect.one_writer:
            # concurrent writers of one value take turns: the lock lasts until the
            # transaction ends, so the second one's check sees the first one's row (taken
            # in one order, so that two writes of several values never wait on each other)
            keys = sorted({_unique_lock(ct, attr, value, locale, draft) for attr, value in checked})
            for key in keys:
                yield from self.dialect.lock(key)
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
        column = str(attr.column)
        if (
            self.dialect.index_hints
            and column in sort_indexes(self.dialect, ct)
            and (attr.localized or not ct.localized)
            and (locale is not None or not ct.localized)
        ):
            # through the column's sort index (the version set, then the column), which
            # finds the value at once: SQLite, which keeps no statistics, otherwise walked
            # the list index of the locale's every row (0.2 ms for 2,000 articles)
            # (the value as a range of one: SQLite would put the value in place of the
            # column in the other terms, and then no longer find the index's expression)
            parts, params = version_terms(ct, draft, locale, self.dialect)
            quoted = self.quote(column)
            parts += [f"(t.{quoted} IS NULL) = 0", f"t.{quoted} >= ?", f"t.{quoted} <= ?"]
            params += [value, value]
            if document_id is not None:
                parts.append("t.document_id <> ?")
                params.append(document_id)
            hint = self.dialect.index_hint(sort_indexes(self.dialect, ct)[column])
            return (
                f"SELECT 1 FROM {self.quote(ct.table)} t{hint} WHERE {' AND '.join(parts)} LIMIT 1",
                params,
            )
        parts = [f"t.{self.quote(column)} = ?"]
        params = [value]
        if document_id is not None:
            parts.append("t.document_id <> ?")
            params.append(document_id)
        if ct.draft_and_publish:
            parts.append(f"t.published_at IS {'' if draft else 'NOT '}NULL")
        if ct.localized and attr.localized:
            parts.append("t.locale = ?")
            params.append(locale)
        return f"SELECT 1 FROM {self.quote(ct.table)} t WHERE {' AND '.join(parts)} LIMIT 1", params

    def _create_version(
        self,
        ct: ContentType,
        document_id: str,
        written: Written,
        data: dict[str, Any] | None,
        locale: str | None,
        draft_only: bool,
        sibling: bool = False,
        answer: list[Published] | None = None,
    ) -> Program:
        """Inserts a new version (a new document, a new locale of one, or the first version of
        a single type) with its links, and publishes it unless `draft_only`. For a new locale
        or single type reached through an update, `data` must also be a valid create. A new
        locale of an existing document (`sibling`) takes the values of its non-localized
        attributes from the other locales. `answer` gets the publication (`Published`) when
        there is one."""
        source_id: int | None = None
        sent = {*written.values, *(w.attr for w in written.links)}
        if data is not None:
            shared: dict[Attribute, Any] = {}
            given: frozenset[str] = frozenset()
            if sibling and ct.localized:
                source_id = yield from self._sharing_source(ct, document_id)
            if source_id is not None:
                shared = yield from self._shared_values(ct, source_id)
                given = frozenset(a.name for a in shared_attributes(ct))
            full = validate_data(
                ct,
                data,
                partial=False,
                registry=self.registry,
                draft=draft_only,
                given=given,
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
        row_id = yield from self._insert(ct, self._new_row(ct, document_id, written, locale, now))
        if written.links:
            ctx = WriteContext(document_id, locale, self.default_locale, d)
            ctx.fresh.add((ct.uid, row_id))
            yield from self.links.apply(ct, row_id, written.links, ctx)
        others: list[tuple[int, bool]] = []
        if source_id is not None:
            # the shared media and components not sent are the other locales' (copies), and
            # the shared values sent become the other locales' too
            taken = [a for a in shared_attributes(ct) if a.column is None and a not in sent]
            yield from share_values(self.links, ct, source_id, [row_id], taken)
            others = yield from self._other_locales(ct, document_id, locale)
            draft = True if ct.draft_and_publish else None
            yield from self._share(ct, row_id, others, draft, sent)
        if ct.draft_and_publish and not draft_only:
            # (a new document has no published version to replace)
            published = yield from self._publish_row(
                ct, document_id, row_id, locale, now, answer=True, first=not sibling
            )
            row_id = published.id
            yield from self._share(ct, row_id, others, False)
            if answer is not None:
                answer.append(published)
        return row_id

    def _sharing_source(self, ct: ContentType, document_id: str) -> Program:
        """The version a new locale of a document (a draft first) takes its shared values
        from: a draft if there is one, in the default locale if there is one, else the
        oldest (None when the document has no version)."""
        order = ["(locale = ?) DESC", "id"]
        params: list[Any] = [document_id, self.default_locale]
        if ct.draft_and_publish:
            order.insert(0, "(published_at IS NULL) DESC")
        rows = yield query(
            f"SELECT id FROM {self.quote(ct.table)} WHERE document_id = ? "
            f"ORDER BY {', '.join(order)} "
            "LIMIT 1",
            params,
        )
        return int(rows[0][0]) if rows else None

    def _shared_values(self, ct: ContentType, row_id: int) -> Program:
        """The values of the shared scalar attributes of one version."""
        attrs = [a for a in shared_attributes(ct) if a.column is not None]
        if not attrs:
            return {}
        cols = ", ".join(self.quote(str(a.column)) for a in attrs)
        rows = yield query(f"SELECT {cols} FROM {self.quote(ct.table)} WHERE id = ?", (row_id,))
        return {
            a: None if v is None else a.kind.from_db(a, v, self.dialect)
            for a, v in zip(attrs, rows[0], strict=True)
        }

    def _check_publishable(self, ct: ContentType, row_id: int) -> Program:
        """A draft may leave required attributes empty; its publication may not."""
        columns = self._required_columns(ct)
        if not columns:
            return
        cols = ", ".join(self.quote(c) for c in columns)
        rows = yield query(f"SELECT {cols} FROM {self.quote(ct.table)} WHERE id = ?", (row_id,))
        self._publishable(ct, list(rows[0]))

    def _required_columns(self, ct: ContentType) -> list[str]:
        """The columns of the required scalar attributes (`_publishable` checks their
        values)."""
        return [str(a.column) for a in ct.scalar_attributes if a.required and a.column is not None]

    def _publishable(self, ct: ContentType, values: list[Any]) -> None:
        """Raises the validation error of the required attributes whose `values` (of
        `_required_columns`, in order) are empty."""
        required = [a for a in ct.scalar_attributes if a.required and a.column is not None]
        errors = [
            missing_error(ct, a, [a.name])
            for a, v in zip(required, values, strict=True)
            if v is None
        ]
        if errors:
            raise validation_failed(errors)

    def _other_locales(
        self,
        ct: ContentType,
        document_id: str,
        locale: str | None,
        attrs: Iterable[Attribute] | None = None,
    ) -> Program:
        """The versions of a document in the locales other than `locale`: (row id, whether
        it is a draft) pairs; none when no shared attribute is concerned (among `attrs`, or
        at all for None), the statement then not run."""
        shared = shared_attributes(ct)
        if not shared or (attrs is not None and not any(a in shared for a in attrs)):
            return []
        rows = yield query(
            f"SELECT id, published_at IS NULL FROM {self.quote(ct.table)} "
            "WHERE document_id = ? AND locale <> ?",
            (document_id, locale),
        )
        return [(int(r[0]), bool(r[1])) for r in rows]

    def _share(
        self,
        ct: ContentType,
        row_id: int,
        others: list[tuple[int, bool]],
        draft: bool | None,
        attrs: Iterable[Attribute] | None = None,
    ) -> Program:
        """Attributes shared by every locale hold one value per status: the values of
        `attrs` (every shared attribute when None) of version `row_id` are copied to the
        document's `others` versions in the same status (`draft`; None for a type without
        drafts)."""
        shared = shared_attributes(ct)
        chosen = shared if attrs is None else [a for a in attrs if a in shared]
        if not chosen:
            return
        targets = [i for i, is_draft in others if draft is None or is_draft == draft]
        yield from share_values(self.links, ct, row_id, targets, chosen)

    def _version_where(
        self, ct: ContentType, document_id: str, locale: str | None, published: bool | None
    ) -> tuple[str, list[Any]]:
        """One document's rows in one locale (of a localized type): its draft (`published`
        False), its published version (True) or either (None). Written in the terms of the
        unique version index, which answers it: SQLite, which keeps no statistics, otherwise
        chose a list index of the locale's every row (for 4,000 articles, 0.28 ms a lookup,
        two in each update of a published article, against 0.01)."""
        where = "document_id = ?"
        params: list[Any] = [document_id]
        if ct.localized:
            where += " AND COALESCE(locale, '') = ?"
            params.append(locale or "")
        if published is not None:
            where += f" AND {self.dialect.version_flag(self.quote(ct.table), not published)}"
        return where, params

    def _lock_document(self, ct: ContentType, document_id: str) -> Program:
        """PostgreSQL: writes to one document take turns (a transaction-scoped advisory
        lock), so that concurrent updates, publishes and deletes of it neither deadlock on
        its rows and links nor act on rows another one just replaced."""
        if not self.dialect.one_writer:
            yield from self.dialect.lock(_lock_key(f"document\0{ct.table}\0{document_id}"))

    def _single_document(self, ct: ContentType) -> Program:
        """The documentId of a single type's document, or None."""
        rows = yield query(f"SELECT document_id FROM {self.quote(ct.table)} ORDER BY id LIMIT 1")
        return str(rows[0][0]) if rows else None

    def _publish_row(
        self,
        ct: ContentType,
        document_id: str,
        draft_id: int,
        locale: str | None,
        now: Any,
        others: bool = False,
        answer: bool = False,
        first: bool = False,
    ) -> Program:
        """Replaces the published version with a copy of the draft (its updatedAt the
        draft's), or gives it the draft's values in place where it owns the same links and
        components (`_publish_in_place`); the published version's id, with the document's
        `others` versions (the other locales', as `_other_locales` gives them) when asked,
        and its row (as `read_back` selects it) when `answer` and the statement gave it at
        once. `first`: there is no published version yet (a new document's)."""
        where, params = self._version_where(ct, document_id, locale, True)
        if not first:
            kept = yield from self._publish_in_place(ct, where, params, draft_id, now, answer)
            if kept is not None:
                if others:
                    kept.others = yield from self._other_locales(ct, document_id, locale)
                return kept if answer else kept.id
        if self.links.whole_copy(ct):
            published = yield from self._publish_whole(
                ct,
                where,
                params,
                draft_id,
                now,
                (document_id, locale) if others else None,
                first and not others,
            )
            return published if answer else published.id
        result = yield from self._publish_copy(ct, where, params, draft_id, now, first, answer)
        if others:
            result.others = yield from self._other_locales(ct, document_id, locale)
        return result if answer else result.id

    def _publish_in_place(
        self,
        ct: ContentType,
        where: str,
        params: list[Any],
        draft_id: int,
        now: Any,
        answer: bool,
    ) -> Program:
        """Where the published version owns the same relations, media links and components
        as the draft (`LinkStore.same_owned`: an update that changed only the draft's own
        values, then published), it takes the draft's values in place and keeps its row and
        all it owns, instead of being deleted with its links and components and copied
        anew with them. Its Published, or None where they differ or there is no published
        version."""
        if ct.uid in self._same_sql:
            plan = self._same_sql[ct.uid]
        else:
            plan = self._same_sql[ct.uid] = self._in_place_plan(ct, where)
        if plan is None:
            return None
        check, bound, update, order = plan
        if update is None:
            # (one statement: the comparison, and the UPDATE where it holds)
            rows = yield query(check, [*([draft_id] * bound), *params, now, draft_id])
            if not rows or not int(rows[0][1]):
                return None
            return Published(int(rows[0][0]), rows[0][2:])
        rows = yield query(check, [*([draft_id] * bound), *params])
        if not rows or not int(rows[0][1]):
            return None
        published_id = int(rows[0][0])
        given = {"s": [draft_id], "g": [now], "t": [published_id]}
        values = [v for key in order for v in given[key]]
        if answer and self.dialect.update_returning:
            sel = self.reads.reader(ct).selection(None, self.quote(ct.table))
            got = yield query(f"{update} RETURNING {sel.sql}", values)
            return Published(published_id, got[0])
        yield execute(update, values)
        return Published(published_id)

    def _in_place_plan(
        self, ct: ContentType, where: str
    ) -> tuple[str, int, str | None, str] | None:
        """`_publish_in_place`'s statements: the comparison (the published version's id and
        1 where it may be kept), how many times it binds the draft's id, the UPDATE and
        the order of its parameters (`Dialect.copy_row`). Where writes run in WITH, the
        comparison and the UPDATE are one statement, which answers the kept row after
        the id and the flag (the UPDATE then None). None where not compared."""
        t = self.quote(ct.table)
        same = self.links.same_owned(ct, f"{t}.id")
        if same is None:
            return None
        text, bound = same
        check = f"SELECT id, CASE WHEN {text} THEN 1 ELSE 0 END AS same FROM {t} WHERE {where}"
        columns = [a.column for a in ct.scalar_attributes if a.column is not None]
        copied = [*columns, "updated_at"]
        d = self.dialect
        if d.writable_ctes and d.update_returning:
            sel = self.reads.reader(ct).selection(None, t)
            update, _ = d.copy_row(
                ct.table, copied, ["published_at"], "= (SELECT id FROM c WHERE same = 1)"
            )
            both = (
                f"WITH c AS ({check}), u AS ({update} RETURNING {sel.sql}) "
                "SELECT c.id, c.same, u.* FROM c LEFT JOIN u ON true"
            )
            return both, bound, None, ""
        update, order = d.copy_row(ct.table, copied, ["published_at"])
        return check, bound, update, order

    def _publish_copy(
        self,
        ct: ContentType,
        where: str,
        params: list[Any],
        draft_id: int,
        now: Any,
        first: bool = False,
        answer: bool = False,
    ) -> Program:
        """`_publish_row` statement by statement: its Published (with the new row where
        `answer` and the INSERT can answer it)."""
        old_ids: list[int] = []
        owned = None
        if not first:
            old_ids, owned = yield from self.links.rows_and_components(ct, where, params)
        if old_ids:
            yield from self.links.delete_owned(ct, old_ids, components=owned)
            yield execute(f"DELETE FROM {self.quote(ct.table)} WHERE {where}", params)
        names = self._published_columns(ct)
        # the published version was last changed when its draft was (as the reference:
        # a draft changed after its publication is then the one updated later)
        insert = (
            f"INSERT INTO {self.quote(ct.table)} ({names}, updated_at, published_at) "
            f"SELECT {names}, updated_at, ? FROM {self.quote(ct.table)} WHERE id = ?"
        )
        if answer and self.dialect.returning:
            sel = self.reads.reader(ct).selection(None, self.quote(ct.table))
            rows = yield query(f"{insert} RETURNING {sel.sql}", [now, draft_id])
            result = Published(int(rows[0][0]), rows[0])
        else:
            new_id = yield from self.dialect.insert_id(insert, [now, draft_id])
            result = Published(int(new_id))
        yield from self.links.copy(ct, draft_id, result.id)
        return result

    def _published_columns(self, ct: ContentType) -> str:
        """The columns a published version takes from its draft as they are."""
        cols = [
            "document_id",
            *[a.column for a in ct.scalar_attributes if a.column is not None],
            "created_at",
            "locale",
        ]
        return ", ".join(self.quote(c) for c in cols)

    def _publish_whole(
        self,
        ct: ContentType,
        where: str,
        params: list[Any],
        draft_id: int,
        now: Any,
        others_of: tuple[str, str | None] | None,
        first: bool = False,
    ) -> Program:
        """`_publish_row` in two statements, whatever the number of links and components:
        one deletes the published version with what it owns (and answers the document's
        versions in other locales, for `others_of` (documentId, locale) where the type
        shares attributes between locales), one copies the draft with its relations, media
        links and components (`LinkStore.whole_copy`) and answers the new row."""
        sharing = others_of is not None and bool(shared_attributes(ct))
        key = (ct.uid, sharing)
        sqls = self._whole_sql.get(key)
        if sqls is None:
            t = self.quote(ct.table)
            parts = self.links.delete_version_ctes(ct, "old")
            drop = f"WITH old AS (DELETE FROM {t} WHERE {where} RETURNING id)"
            drop += "".join(f", {p}" for p in parts)
            if sharing:
                # (the deleted version is in this locale: not among these)
                drop += f" SELECT id, published_at IS NULL FROM {t} "
                drop += "WHERE document_id = ? AND locale <> ?"
            else:
                drop += " SELECT count(*) FROM old"
            names = self._published_columns(ct)
            parts = self.links.copy_version_ctes(ct, "new", "0")
            sel = self.reads.reader(ct).selection(None, t)
            copy = (
                f"WITH new AS (INSERT INTO {t} ({names}, updated_at, published_at) "
                f"SELECT {names}, updated_at, ? FROM {t} WHERE id = ? RETURNING {sel.sql})"
            )
            copy += "".join(f", {p}" for p in parts) + " SELECT * FROM new"
            sqls = (drop, copy, sum(p.count("?") for p in parts))
            self._whole_sql[key] = sqls
        drop, copy, sources = sqls
        got = []
        if not first:
            got = yield query(drop, [*params, *(others_of if sharing and others_of else ())])
        rows = yield query(copy, [now, draft_id, *([draft_id] * sources)])
        published = Published(int(rows[0][0]), rows[0])
        if sharing:
            published.others = [(int(r[0]), bool(r[1])) for r in got]
        return published
