"""Writes of documents over the storage model, each one program run in one transaction:
create (a new document or a new locale version), update (partial, of one locale version;
publishing copies the draft), delete (every version or one locale's), and the uploads'
several-files create with its media link. Values are validated here against the model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from folio.content.ids import new_document_id
from folio.content.links import MediaWrite
from folio.content.query import Query
from folio.content.sql.layout import FILES_LINK_TABLE
from folio.content.sql.links import LinkStore, WriteContext
from folio.content.sql.load import ReadContext
from folio.content.sql.outbox import CHANNEL, COLUMNS, OUTBOX_TABLE
from folio.content.sql.reads import Reads
from folio.content.sql.select import Selection, entry_members
from folio.content.sql.versions import Published, Versions
from folio.content.validation import WriteLimits, Written, check_size, validate_data
from folio.errors import NotFoundError
from folio.schema.kinds import TIMESTAMP_KIND
from folio.schema.model import ContentType
from folio.schema.values import now_utc
from folio.store.program import Program, execute, query

# the statements `_create_with_event` keeps (one per type and set of columns written)
FUSED_STATEMENTS = 512


class Fuse(Protocol):
    """A create's one event, recorded by the statement that writes its row where the
    database can (`Dialect.insert_with_event`)."""

    def params(self, locale: str | None, draft: bool) -> list[Any]:
        """The event's columns (`outbox.COLUMNS`) but its document id and entry."""
        ...

    def reserve(self) -> int: ...

    def recorded(self, doc: dict[str, Any], event_id: int) -> None:
        """The row's answer and its event's id, once the statement has committed."""
        ...

    def release(self, floor: int) -> None: ...


class Tail:
    """What a write runs last in its transaction, given its answer: `run(answer, created)`
    (`created`: an update made a new version) records the write's events. `holds`: it may
    wait there (a middleware's pause), so the write never runs on the event loop's thread.
    A delete's answer, for its tail, is the versions it removed, as they were. `fuse`: a
    create of one row may record its event in its own statement instead."""

    __slots__ = ("fuse", "holds", "run")

    def __init__(
        self, run: Callable[[Any, bool], Program], holds: bool = False, fuse: Fuse | None = None
    ) -> None:
        self.run = run
        self.holds = holds
        self.fuse = fuse


def _light(light: bool, tail: Tail | None) -> bool:
    return light and (tail is None or not tail.holds)


class Writes(Versions):
    def __init__(self, reads: Reads) -> None:
        self.reads = reads
        self.registry = reads.registry
        self.db = reads.db
        self.dialect = reads.dialect
        self.quote = reads.dialect.quote
        self.default_locale = reads.default_locale
        self._insert_sql: dict[tuple[str, tuple[str, ...], str], str] = {}
        self._whole_sql: dict[tuple[str, bool], tuple[str, str, int]] = {}
        self._same_sql: dict[str, tuple[str, int, str | None, str] | None] = {}
        # per type and columns written: a create's statement with its event, None where
        # the database cannot write them together (`_create_with_event`)
        self._fused_sql: dict[tuple[str, tuple[str, ...]], str | None] = {}
        # a publishing update's draft, as its UPDATE answered it, while its events are
        # described (`draft_docs`)
        self._known_drafts: list[dict[str, Any]] | None = None
        self.links = LinkStore(reads.registry, reads.dialect)
        self.write_limits = WriteLimits()

    async def create(
        self,
        ct: ContentType,
        data: dict[str, Any],
        *,
        locale: str | None = None,
        status: str = "published",
        read: Query | None = None,
        check: Callable[[], Program] | None = None,
        tail: Tail | None = None,
    ) -> dict[str, Any]:
        """A new document. `check`: a program run first in the write's transaction, for a
        rule across rows that `unique` cannot say (what it raises fails the write)."""
        draft_only = ct.draft_and_publish and status == "draft"
        written = validate_data(ct, data, partial=False, registry=self.registry, draft=draft_only)
        light = check_size(written, self.write_limits)
        locale = self._locale_for(ct, locale)
        ctx = _answer("draft" if draft_only else "published", locale or self.default_locale, read)
        populate = read.populate if read is not None else None
        if not populate and check is None and self._lone_row(ct, written, draft_only):
            columns, sel = self._lone_columns(ct, written, locale)
            if tail is not None and tail.fuse is not None and self.dialect.events_with_rows:
                fused = await self._create_with_event(
                    ct, columns, sel, locale, draft_only, tail.fuse
                )
                if fused is not None:
                    return fused
            sql = self._insert_statement(ct, tuple(columns), sel.sql)
            stmt = query(sql, list(columns.values()))
            if tail is None:
                # the statement is the whole write: its own transaction
                return sel.documents(await self.db.write_one(stmt))[0]

            def lone() -> Program:
                rows = yield stmt
                doc = sel.documents(rows)[0]
                yield from tail.run(doc, True)
                return doc

            return dict(await self.db.write(lone, light=_light(light, tail)))

        def program() -> Program:
            if check is not None:
                yield from check()
            published: list[Published] = []
            row_id = yield from self._create_version(
                ct, new_document_id(), written, None, locale, draft_only, answer=published
            )
            if published:
                doc = yield from self._answer_row(ct, published[0], populate, ctx)
            else:
                doc = yield from self.reads.read_back(ct, row_id, populate, ctx)
            if tail is not None:
                yield from tail.run(doc, True)
            return doc

        return dict(await self.db.write(program, light=_light(light, tail)))

    def _lone_row(self, ct: ContentType, written: Written, draft_only: bool) -> bool:
        """Whether a new document is one row and nothing else: no relation, component or
        media to write, no unique value to check first, no published copy to make; and
        the database answers the row its INSERT wrote (RETURNING)."""
        return (
            self.dialect.returning
            and not written.links
            and not (ct.draft_and_publish and not draft_only)
            and not any(
                (attr.unique or attr.type == "uid") and value is not None
                for attr, value in written.values.items()
            )
        )

    async def _create_with_event(
        self,
        ct: ContentType,
        columns: dict[str, Any],
        sel: Selection,
        locale: str | None,
        draft: bool,
        fuse: Fuse,
    ) -> dict[str, Any] | None:
        """A new document of one row (`_lone_columns`) and its event in one statement,
        committed on its own; None where the database cannot (the caller writes them in a
        transaction)."""
        key = (ct.uid, tuple(columns))
        if key in self._fused_sql:
            sql = self._fused_sql[key]
        else:
            sql = self.dialect.insert_with_event(
                self._insert_statement(ct, key[1]),
                sel.sql,
                entry_members(ct, self.dialect, self.quote(ct.table)),
                OUTBOX_TABLE,
                COLUMNS,
                CHANNEL,
            )
            if len(self._fused_sql) < FUSED_STATEMENTS:
                self._fused_sql[key] = sql
        if sql is None:
            return None
        stmt = query(sql, [*columns.values(), *fuse.params(locale, draft)])
        floor = fuse.reserve()
        try:
            row = (await self.db.write_one(stmt))[0]
            # the row's columns come first; then its event's entry and id
            doc = sel.documents([row])[0]
            fuse.recorded(doc, int(row[-1]))
        finally:
            fuse.release(floor)
        return doc

    def _lone_columns(
        self, ct: ContentType, written: Written, locale: str | None
    ) -> tuple[dict[str, Any], Selection]:
        """A new document of one row: its columns, and the selection its INSERT answers
        the row with, as a read-back would read it."""
        now = TIMESTAMP_KIND.to_db(now_utc(), self.dialect)
        columns = self._new_row(ct, new_document_id(), written, locale, now)
        return columns, self.reads.reader(ct).selection(None, self.quote(ct.table))

    async def create_many(
        self,
        ct: ContentType,
        records: list[dict[str, Any]],
        attach: tuple[ContentType, str, str] | None = None,
        tail: Tail | None = None,
    ) -> list[dict[str, Any]]:
        """Creates several documents in one transaction (the upload of several files),
        optionally linking them to a media field of an entry in the same transaction."""
        written = [validate_data(ct, r, partial=False, registry=self.registry) for r in records]
        locale = self._locale_for(ct, None)
        ctx = ReadContext("published", locale or self.default_locale)

        def program() -> Program:
            docs = []
            for w in written:
                row_id = yield from self._create_version(
                    ct, new_document_id(), w, None, locale, False
                )
                doc = yield from self.reads.read_back(ct, row_id, None, ctx)
                docs.append(doc)
            if attach is not None:
                target, ref_id, field = attach
                yield from self._attach(target, ref_id, field, [int(d["id"]) for d in docs])
            if tail is not None:
                yield from tail.run(docs, True)
            return docs

        return list(await self.db.write(program))

    def _attach(self, ct: ContentType, ref_id: str, field: str, file_ids: list[int]) -> Program:
        attr = ct.attributes[field]
        if attr.type == "media":
            if ref_id.isdecimal():
                rows = yield query(
                    f"SELECT document_id FROM {self.quote(ct.table)} WHERE id = ?", (int(ref_id),)
                )
                if not rows:
                    raise NotFoundError()
                doc_id = rows[0][0]
            else:
                doc_id = ref_id
            rows = yield query(
                f"SELECT id FROM {self.quote(ct.table)} WHERE document_id = ?", (doc_id,)
            )
            if not rows:
                raise NotFoundError()
            for (row_id,) in rows:
                current: list[int] = []
                if attr.multiple:
                    got = yield query(
                        f"SELECT file_id FROM {self.quote(FILES_LINK_TABLE)} "
                        "WHERE related_type = ? AND related_id = ? AND field = ? ORDER BY position",
                        (ct.uid, row_id, field),
                    )
                    current = [int(r[0]) for r in got]
                ids: list[int | str] = [*current, *file_ids] if attr.multiple else [*file_ids[-1:]]
                yield from self.links.apply(
                    ct,
                    int(row_id),
                    [MediaWrite(attr, ids)],
                    WriteContext(doc_id, None, self.default_locale, self.dialect),
                )

    async def update(
        self,
        ct: ContentType,
        document_id: str | None,
        data: dict[str, Any],
        *,
        locale: str | None = None,
        status: str = "published",
        read: Query | None = None,
        check: Callable[[], Program] | None = None,
        tail: Tail | None = None,
    ) -> dict[str, Any]:
        """Partial update of one locale version; for single types (document_id None) the
        document is created when absent. `check`: as for `create`."""
        draft_only = ct.draft_and_publish and status == "draft"
        publishing = ct.draft_and_publish and not draft_only
        written = validate_data(ct, data, partial=True, registry=self.registry, draft=draft_only)
        # an update that publishes copies the whole document: light only as a draft edit
        light = check_size(written, self.write_limits) and not publishing
        locale = self._locale_for(ct, locale)
        d = self.dialect
        read_ctx = _answer(
            "draft" if draft_only else "published", locale or self.default_locale, read
        )
        populate = read.populate if read is not None else None

        def program() -> Program:
            if check is not None:
                yield from check()
            doc_id = document_id
            if doc_id is None:
                doc_id = yield from self._single_document(ct)
                if doc_id is None:
                    row_id = yield from self._create_version(
                        ct, new_document_id(), written, data, locale, draft_only
                    )
                    created = yield from self.reads.read_back(ct, row_id, populate, read_ctx)
                    if tail is not None:
                        yield from tail.run(created, True)
                    return created
            yield from self._lock_document(ct, doc_id)
            # the draft, where the type has drafts (the version every write starts from)
            where, params = self._version_where(
                ct, doc_id, locale, False if ct.draft_and_publish else None
            )
            now = TIMESTAMP_KIND.to_db(now_utc(), d)
            values = {**self._db_values(written), "updated_at": now}
            sets = ", ".join(f"{self.quote(c)} = ?" for c in values)
            required: list[Any] | None = None
            draft_docs: list[dict[str, Any]] | None = None
            if d.update_returning:
                # the draft updated where it is found, answering its id (and what its
                # publication requires) in the same statement; with its whole row where the
                # write's events describe the draft of a publication
                wanted = self._required_columns(ct) if publishing else []
                sel = None
                answer = ["id"]
                if publishing and tail is not None:
                    sel = self.reads.reader(ct).selection(None, self.quote(ct.table))
                    answer = [sel.sql]
                rows = yield query(
                    f"UPDATE {self.quote(ct.table)} SET {sets} WHERE {where} "
                    f"RETURNING {', '.join([*answer, *(self.quote(c) for c in wanted)])}",
                    [*values.values(), *params],
                )
                if rows:
                    required = list(rows[0][len(rows[0]) - len(wanted) :])
                    if sel is not None:
                        draft_docs = sel.documents(rows)
            else:
                # (with what its publication requires: the values this update sets, else
                # those read)
                wanted = self._required_columns(ct) if publishing else []
                rows = yield query(
                    f"SELECT {', '.join(['id', *(self.quote(c) for c in wanted)])} "
                    f"FROM {self.quote(ct.table)} WHERE {where}",
                    params,
                )
                if rows and wanted:
                    read = dict(zip(wanted, rows[0][1:], strict=True))
                    required = [values[c] if c in values else read[c] for c in wanted]
            if not rows:
                exists = yield query(
                    f"SELECT 1 FROM {self.quote(ct.table)} t WHERE t.document_id = ? LIMIT 1",
                    (doc_id,),
                )
                if not exists:
                    raise NotFoundError()
                row_id = yield from self._create_version(
                    ct, doc_id, written, data, locale, draft_only, sibling=True
                )
                created = yield from self.reads.read_back(ct, row_id, populate, read_ctx)
                if tail is not None:
                    yield from tail.run(created, True)
                return created
            row_id = int(draft_docs[0]["id"]) if draft_docs else int(rows[0][0])
            # (the check reads other documents' rows only: the draft's new values, when
            # already written, are not among them)
            yield from self._check_unique(ct, written, doc_id, locale, ct.draft_and_publish)
            if publishing:
                yield from self._check_unique(ct, written, doc_id, locale, False)
            if not d.update_returning:
                yield execute(
                    f"UPDATE {self.quote(ct.table)} SET {sets} WHERE id = ?",
                    [*values.values(), row_id],
                )
            if written.links:
                ctx = WriteContext(doc_id, locale, self.default_locale, d)
                yield from self.links.apply(ct, row_id, written.links, ctx)
            # the shared values sent become the other locales' drafts' too (the published
            # versions' when this one is published)
            sent = [*written.values, *(w.attr for w in written.links)]
            if not publishing:
                others = yield from self._other_locales(ct, doc_id, locale, sent)
                yield from self._share(
                    ct, row_id, others, True if ct.draft_and_publish else None, sent
                )
                doc = yield from self.reads.read_back(ct, row_id, populate, read_ctx)
                if tail is not None:
                    yield from tail.run(doc, False)
                return doc
            if required is None:
                yield from self._check_publishable(ct, row_id)
            else:
                self._publishable(ct, required)
            published = yield from self._publish_row(
                ct, doc_id, row_id, locale, now, others=True, answer=True
            )
            # (the draft's shared values go to the other drafts after the publication, which
            # does not change them)
            yield from self._share(ct, row_id, published.others, True, sent)
            yield from self._share(ct, published.id, published.others, False)
            doc = yield from self._answer_row(ct, published, populate, read_ctx)
            if tail is not None:
                self._known_drafts = draft_docs
                try:
                    yield from tail.run(doc, False)
                finally:
                    self._known_drafts = None
            return doc

        return dict(await self.db.write(program, light=_light(light, tail)))

    async def publish(
        self,
        ct: ContentType,
        document_id: str | None,
        *,
        locale: str | None = None,
        read: Query | None = None,
        tail: Tail | None = None,
    ) -> dict[str, Any]:
        """Publishes the draft of one locale version as it stands (replacing the published
        version), for a single type its document's; the published version answers."""
        locale = self._locale_for(ct, locale)
        ctx = _answer("published", locale or self.default_locale, read)
        populate = read.populate if read is not None else None

        def program() -> Program:
            doc_id, draft_id = yield from self._locked_version(ct, document_id, locale, False)
            yield from self._check_publishable(ct, draft_id)
            now = TIMESTAMP_KIND.to_db(now_utc(), self.dialect)
            published = yield from self._publish_row(
                ct, doc_id, draft_id, locale, now, others=True, answer=True
            )
            yield from self._share(ct, published.id, published.others, False)
            doc = yield from self._answer_row(ct, published, populate, ctx)
            if tail is not None:
                yield from tail.run(doc, False)
            return doc

        return dict(await self.db.write(program))

    async def unpublish(
        self,
        ct: ContentType,
        document_id: str | None,
        *,
        locale: str | None = None,
        read: Query | None = None,
        tail: Tail | None = None,
        discard_draft: bool = False,
    ) -> dict[str, Any]:
        """Removes the published version of one locale version (its draft stays, and
        answers); its tail gets the removed published version. `discard_draft`: the draft
        is first replaced by a copy of the published version (the tail then gets the pair
        (removed published versions, new draft))."""
        locale = self._locale_for(ct, locale)
        ctx = _answer("draft", locale or self.default_locale, read)
        populate = read.populate if read is not None else None

        def program() -> Program:
            doc_id, draft_id = yield from self._locked_version(ct, document_id, locale, False)
            where, params = self._version_where(ct, doc_id, locale, True)
            published = yield from self.version_docs(ct, where, params)
            if not published:
                raise NotFoundError()
            if discard_draft:
                draft_id = yield from self._replace_draft(
                    ct, doc_id, locale, int(published[0]["id"])
                )
            yield from self.links.delete_owned(ct, [int(d["id"]) for d in published])
            yield execute(f"DELETE FROM {self.quote(ct.table)} WHERE {where}", params)
            doc = yield from self.reads.read_back(ct, draft_id, populate, ctx)
            if tail is not None:
                yield from tail.run((published, doc) if discard_draft else published, False)
            return doc

        return dict(await self.db.write(program))

    async def discard(
        self,
        ct: ContentType,
        document_id: str | None,
        *,
        locale: str | None = None,
        read: Query | None = None,
        tail: Tail | None = None,
    ) -> dict[str, Any]:
        """Replaces the draft of one locale version with a copy of its published version
        (its times kept: the draft is then unchanged since publication); the new draft
        answers. NotFoundError without a published version."""
        locale = self._locale_for(ct, locale)
        ctx = _answer("draft", locale or self.default_locale, read)
        populate = read.populate if read is not None else None

        def program() -> Program:
            doc_id, published_id = yield from self._locked_version(ct, document_id, locale, True)
            draft_id = yield from self._replace_draft(ct, doc_id, locale, published_id)
            doc = yield from self.reads.read_back(ct, draft_id, populate, ctx)
            if tail is not None:
                yield from tail.run(doc, False)
            return doc

        return dict(await self.db.write(program))

    def _replace_draft(
        self, ct: ContentType, doc_id: str, locale: str | None, published_id: int
    ) -> Program:
        """The draft of one locale version replaced by a copy of its published version (row
        `published_id`), the other locales' drafts given its shared values; the new draft's
        row id."""
        where, params = self._version_where(ct, doc_id, locale, False)
        drafts = yield query(f"SELECT id FROM {self.quote(ct.table)} WHERE {where}", params)
        if drafts:
            yield from self.links.delete_owned(ct, [int(r[0]) for r in drafts])
            yield execute(f"DELETE FROM {self.quote(ct.table)} WHERE {where}", params)
        cols = [
            "document_id",
            *[a.column for a in ct.scalar_attributes if a.column is not None],
            "created_at",
            "updated_at",
            "locale",
        ]
        names = ", ".join(self.quote(c) for c in cols)
        draft_id = yield from self.dialect.insert_id(
            f"INSERT INTO {self.quote(ct.table)} ({names}, published_at) "
            f"SELECT {names}, NULL FROM {self.quote(ct.table)} WHERE id = ?",
            [published_id],
        )
        yield from self.links.copy(ct, published_id, draft_id)
        others = yield from self._other_locales(ct, doc_id, locale)
        yield from self._share(ct, draft_id, others, True)
        return draft_id

    def _locked_version(
        self, ct: ContentType, document_id: str | None, locale: str | None, published: bool
    ) -> Program:
        """(documentId, row id) of one locale version's draft or published version, its
        document locked (a single type's document when `document_id` is None);
        NotFoundError without that version."""
        doc_id = document_id
        if doc_id is None:
            doc_id = yield from self._single_document(ct)
            if doc_id is None:
                raise NotFoundError()
        yield from self._lock_document(ct, doc_id)
        where, params = self._version_where(ct, doc_id, locale, published)
        rows = yield query(f"SELECT id FROM {self.quote(ct.table)} WHERE {where}", params)
        if not rows:
            raise NotFoundError()
        return doc_id, int(rows[0][0])

    def _answer_row(
        self,
        ct: ContentType,
        published: Published,
        populate: dict[str, Any] | None,
        ctx: ReadContext,
    ) -> Program:
        """A publication's answer: the new version's row, read back unless its copy
        answered it already."""
        if published.row is None:
            doc = yield from self.reads.read_back(ct, published.id, populate, ctx)
            return doc
        sel = self.reads.reader(ct).selection(None, self.quote(ct.table))
        docs = sel.documents([published.row])
        if populate:
            yield from self.reads.populator.load(ct, docs, populate, ctx)
        return docs[0]

    def draft_docs(self, ct: ContentType, document_id: str, locale: str | None) -> Program:
        """The draft versions of a document (of `locale`'s version when given); those a
        publication's update answered already when it asks (its events')."""
        known = self._known_drafts
        if known is not None:
            self._known_drafts = None
            if all(d["documentId"] == document_id for d in known) and (
                locale is None or all(d.get("locale") == locale for d in known)
            ):
                return known
        where, params = self._version_where(ct, document_id, locale, False)
        docs = yield from self.version_docs(ct, where, params)
        return docs

    def version_docs(self, ct: ContentType, where: str, params: list[Any]) -> Program:
        """The versions (rows) `where` selects, as documents without populate, in row
        order."""
        table = self.quote(ct.table)
        sel = self.reads.reader(ct).selection(None, table)
        rows = yield query(
            f"SELECT {sel.sql} FROM {table} WHERE {where} ORDER BY {table}.id", params
        )
        return sel.documents(rows)

    async def delete(
        self,
        ct: ContentType,
        document_id: str | None,
        *,
        locale: str | None = None,
        tail: Tail | None = None,
    ) -> None:
        """Deletes every version of a document, or only the versions of one locale."""

        def program() -> Program:
            yield from self._delete(ct, document_id, locale, missing_ok=False, tail=tail)

        await self.db.write(program)

    async def delete_locale(
        self,
        types: list[ContentType],
        locale: str,
        tail_for: Callable[[ContentType], Tail] | None = None,
    ) -> dict[str, int]:
        """Deletes every version in `locale` of every document of the localized `types`,
        in one transaction; returns how many rows each type lost. `tail_for(type)`: the
        tail run with the versions of that type removed (when there were some)."""

        def program() -> Program:
            counts: dict[str, int] = {}
            for ct in types:
                if ct.localized:
                    counts[ct.uid] = yield from self._delete(
                        ct, None, locale, missing_ok=True, tail=tail_for(ct) if tail_for else None
                    )
            return counts

        result: dict[str, int] = await self.db.write(program)
        return result

    def _delete(
        self,
        ct: ContentType,
        document_id: str | None,
        locale: str | None,
        missing_ok: bool,
        tail: Tail | None = None,
    ) -> Program:
        where, params = "1 = 1", []
        if document_id is not None:
            yield from self._lock_document(ct, document_id)
            where, params = "document_id = ?", [document_id]
        if locale is not None and ct.localized:
            # the version index's terms (see _version_where)
            where += " AND COALESCE(locale, '') = ?"
            params.append(locale)
        if tail is not None:
            doomed = yield from self.version_docs(ct, where, params)
            rows = [(d["id"], d["documentId"]) for d in doomed]
        else:
            rows = yield query(
                f"SELECT id, document_id FROM {self.quote(ct.table)} WHERE {where}", params
            )
        if not rows:
            if missing_ok:
                return 0
            raise NotFoundError()
        yield from self.links.delete_owned(ct, [int(r[0]) for r in rows])
        yield execute(f"DELETE FROM {self.quote(ct.table)} WHERE {where}", params)
        for doc_id in sorted({r[1] for r in rows}):
            left = yield query(
                f"SELECT 1 FROM {self.quote(ct.table)} WHERE document_id = ? LIMIT 1", (doc_id,)
            )
            yield from self.links.detach(ct, doc_id, None if not left else locale)
        if tail is not None:
            yield from tail.run(doomed, False)
        return len(rows)


def _answer(status: str, locale: str | None, read: Query | None) -> ReadContext:
    """How a write's answer is read: the version written, populated as `read` asks, its
    populate filters in the status and locale the query asked for."""
    if read is None:
        return ReadContext(status, locale)
    return ReadContext(status, locale, read.locale, read.status)
