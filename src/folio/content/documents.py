"""The document API every front-end calls: find, findOne, count, create, update, publish,
delete; and the one door to stored data.

It owns the rules a front-end must not repeat: the status and locale defaults, who may read
drafts, which relations a caller may filter, sort or populate through, the field selection
of write answers, pagination meta and the parsed-query cache (the parsing itself is
`queryparser.py`'s). A front-end translates its syntax into read parameters in the REST
spelling (`filters`, `sort`, `pagination`, `fields`, `populate`, `locale`, `status`) and
formats the answer in its envelope.

Only this service, and the services in `content/` built on it (files: `content/files.py`;
users and API tokens: `content/accounts/`), read and write. Its planner (`_reads`,
`_writes`, in `content/sql/`) is private: front-ends, the CLI and an app's code call the
methods below (tests/unit/test_layers.py refuses any other module that reaches for them).
Besides the principal-facing methods, trusted services use the `*_record(s)` methods
(no parameters to parse, no principal to check) and `write_program` (their own statements).

Every write of content and files records its events in its own transaction (`Tail`,
`content/events.py`, `content/sql/outbox.py`) and hands them to `events` once committed;
the app's middlewares (`use`) wrap the service's calls."""

from __future__ import annotations

from collections.abc import Callable, Collection, Coroutine, Hashable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from folio.auth.principal import OPEN, Principal
from folio.caches import BoundedCache, weigh
from folio.config import Settings
from folio.content.bulk import BulkLoad
from folio.content.events import (
    DocumentContext,
    DocumentMiddleware,
    Event,
    EventBus,
    Gate,
    check_not_in_transaction,
    gated_write,
    run_chain,
)
from folio.content.params import Limits, Locales, parse_locale, parse_status
from folio.content.query import Pagination, Query, ReadLimits
from folio.content.queryparser import QueryParser
from folio.content.recording import DRAFT_DISCARD, EventRecorder, Recording, same
from folio.content.sql import outbox
from folio.content.sql.dump import Dump
from folio.content.sql.load import ReadContext
from folio.content.sql.reads import Reads
from folio.content.sql.writes import Tail, Writes
from folio.content.validation import WriteLimits
from folio.content.visibility import prune_populate
from folio.errors import ForbiddenError, ValidationError
from folio.schema.model import ContentType, Registry, Schema
from folio.store.database import Database
from folio.store.program import Program

# parsed queries kept (per distinct parameters and caller visibility)
QUERY_CACHE = 1024
QUERY_CACHE_BYTES = 32 * 1024 * 1024

T = TypeVar("T")


@dataclass
class Page:
    """A list answer: the documents, the total (-1 when not counted) and the pagination
    it was read with."""

    documents: list[dict[str, Any]]
    total: int
    pagination: Pagination

    @property
    def meta(self) -> dict[str, Any]:
        return {"pagination": self.pagination.meta(self.total)}


class DocumentService:
    def __init__(self, registry: Registry, db: Database, settings: Settings) -> None:
        self.registry = registry
        self._db = db
        self.dialect = db.dialect
        self.default_locale = settings.default_locale
        self.locales = Locales(settings.default_locale, frozenset(settings.locale_codes))
        self.limits = Limits(
            settings.rest_default_limit, settings.rest_max_limit, settings.rest_with_count
        )
        self._reads = Reads(registry, db, settings.default_locale)
        self._writes = Writes(self._reads)
        self._writes.write_limits = WriteLimits(
            settings.max_components, settings.max_relation_entries
        )
        read_limits = ReadLimits.configured(settings.rest_read_limits)
        self._reads.populator.max_entries = read_limits.populated_entries
        self.parser = QueryParser(registry, self.locales, self.limits, read_limits)
        self._queries: BoundedCache[Query] = BoundedCache(QUERY_CACHE, QUERY_CACHE_BYTES)
        # after-commit subscribers (`app.events.on`) and the services that read events
        self.events = EventBus()
        self._middlewares: list[DocumentMiddleware] = []
        self._recorder = EventRecorder(self._writes, db.dialect, self.events)

    def use(self, middleware: DocumentMiddleware) -> DocumentMiddleware:
        """Adds a middleware around the service's calls (the first added runs outermost):
        `async def middleware(ctx, next)` sees `ctx.action`, `ctx.uid`, `ctx.params`, may
        change the parameters or raise to refuse, and returns what `await next()` answered
        (or something else). For a write, its code after `next()` runs inside the write's
        transaction: raising there rolls the write back."""
        self._middlewares.append(middleware)
        return middleware

    # ------------------------------------------------------------------ queries
    def query(
        self,
        ct: ContentType,
        params: Mapping[str, Any],
        principal: Principal,
        *,
        find: bool = True,
        limits: Limits | None = None,
        key: Hashable | None = None,
    ) -> Query:
        """The read `params` ask for, as `principal` may run it; parsed once per `key` (the
        front-end's spelling of the same parameters, e.g. a query string) and caller
        visibility. Queries are read-only once made."""
        if key is None:
            return self.parser.parse(ct, params, principal, find, limits)
        cache_key = (find, ct.uid, key, principal.scope, principal.permissions, limits)
        found = self._queries.get(cache_key)
        if found is None:
            found = self.parser.parse(ct, params, principal, find, limits)
            # a parsed query takes several times its text
            self._queries.put(cache_key, found, weigh(key) * 6)
        return found

    def _check_drafts(self, ct: ContentType, query: Query, principal: Principal) -> None:
        """Drafts are read by the principals that may read them (see `Principal`)."""
        if (
            query.status == "draft"
            and ct.draft_and_publish
            and not principal.can_read_drafts(ct.uid)
        ):
            raise ForbiddenError()

    # ------------------------------------------------------------------ reads
    async def _read(
        self,
        action: str,
        ct: ContentType,
        params: Mapping[str, Any],
        principal: Principal,
        key: Hashable | None,
        run: Callable[[Mapping[str, Any], Hashable | None], Coroutine[Any, Any, T]],
        extra: Mapping[str, Any] | None = None,
    ) -> T:
        """`run(params, key)`, wrapped by the app's middlewares when it has some (their
        `ctx.params` holds `extra` too). Parameters a middleware changed are parsed anew,
        not taken from the cache under the front-end's key."""
        if not self._middlewares:
            return await run(params, key)
        given = {**params, **(extra or {})}
        ctx = DocumentContext(action, ct.uid, ct, dict(given), principal)

        async def inner(c: DocumentContext) -> T:
            return await run(c.params, key if c.params == given else None)

        answer: T = await run_chain(self._middlewares, ctx, inner)
        return answer

    async def find(
        self,
        ct: ContentType,
        params: Mapping[str, Any],
        principal: Principal,
        *,
        limits: Limits | None = None,
        key: Hashable | None = None,
    ) -> Page:
        async def run(p: Mapping[str, Any], k: Hashable | None) -> Page:
            query = self.query(ct, p, principal, limits=limits, key=k)
            self._check_drafts(ct, query, principal)
            docs, total = await self._reads.find(ct, query)
            return Page(docs, total, query.pagination)

        return await self._read("findMany", ct, params, principal, key, run)

    async def count(
        self,
        ct: ContentType,
        params: Mapping[str, Any],
        principal: Principal,
        *,
        key: Hashable | None = None,
    ) -> int:
        async def run(p: Mapping[str, Any], k: Hashable | None) -> int:
            query = self.query(ct, p, principal, key=k)
            self._check_drafts(ct, query, principal)
            return await self._reads.count(ct, query)

        return await self._read("count", ct, params, principal, key, run)

    async def find_one(
        self,
        ct: ContentType,
        document_id: str | None,
        params: Mapping[str, Any],
        principal: Principal,
        *,
        key: Hashable | None = None,
    ) -> dict[str, Any] | None:
        """One version of a document (the document of a single type: `document_id`
        None), or None."""

        async def run(p: Mapping[str, Any], k: Hashable | None) -> dict[str, Any] | None:
            doc_id = document_id
            if "documentId" in p:  # a middleware's parameters
                doc_id = p["documentId"]
                p = {name: value for name, value in p.items() if name != "documentId"}
            query = self.query(ct, p, principal, find=False, key=k)
            self._check_drafts(ct, query, principal)
            return await self._reads.find_one(ct, doc_id or "", query)

        extra = {"documentId": document_id}
        return await self._read("findOne", ct, params, principal, key, run, extra)

    async def populate(
        self,
        schema: Schema,
        docs: list[dict[str, Any]],
        populate: Mapping[str, Any],
        principal: Principal,
        *,
        status: str = "published",
        locale: str | None = None,
    ) -> None:
        """Loads populated fields (the `populate` parameter) into documents read before,
        in batches, as a read in `status` and `locale` would (a front-end reading one field
        of a page apart from the page)."""
        entries = prune_populate(
            self.parser._populate.parse(schema, populate, []), principal.can_find
        )
        if not docs or not entries:
            return
        ctx = ReadContext(
            parse_status(schema, status) if isinstance(schema, ContentType) else status,
            locale or self.default_locale,
            locale,
        )

        def program() -> Program:
            yield from self._reads.populator.load(schema, docs, entries, ctx)

        if not self._middlewares:
            await self._db.read(program())
            return
        # the middlewares see the documents filled in place (`next()` answers them), as the
        # answers of the other reads: e.g. the file URLs a private bucket signs
        given = {"populate": populate, "status": status, "locale": locale}
        call = DocumentContext("populate", schema.uid, schema, given, principal)

        async def inner(c: DocumentContext) -> list[dict[str, Any]]:
            await self._db.read(program())
            return docs

        await run_chain(self._middlewares, call, inner)

    # ------------------------------------------------------------------ writes
    async def _call(
        self,
        action: str,
        ct: ContentType,
        params: dict[str, Any],
        principal: Principal | None,
        write: Callable[[dict[str, Any], Gate | None], Coroutine[Any, Any, Any]],
    ) -> Any:
        """A write, wrapped by the app's middlewares when it has some."""
        check_not_in_transaction()
        if not self._middlewares:
            return await write(params, None)
        ctx = DocumentContext(action, ct.uid, ct, params, principal)
        return await gated_write(self._middlewares, ctx, lambda c, gate: write(c.params, gate))

    async def create(
        self,
        ct: ContentType,
        data: dict[str, Any],
        params: Mapping[str, Any],
        principal: Principal,
        *,
        read: Query | None = None,
    ) -> dict[str, Any]:
        """A new document in the locale of the parameters, else of `data` (both are
        honoured), published unless `status=draft`. `read`: the parameters' query when the
        front-end has checked them already."""

        async def write(p: dict[str, Any], gate: Gate | None) -> dict[str, Any]:
            given = {k: v for k, v in p.items() if k != "data"}
            body = p.get("data", data)
            query = read if read is not None and given == params else None
            query = query or self.query(ct, given, principal, find=False)
            raw = given.get("locale")
            locale = parse_locale(
                ct, raw if raw not in (None, "") else body.get("locale"), self.locales
            )
            rec = Recording()
            tail = self._recorder.tail("create", ct, rec, gate, lambda d: pick(d, query))
            try:
                doc = await self._writes.create(
                    ct, body, locale=locale, status=query.status, read=query, tail=tail
                )
            except BaseException:
                self._dropped(rec)
                raise
            return pick(self._committed(rec, doc), query)

        answer: dict[str, Any] = await self._call(
            "create", ct, {**params, "data": data}, principal, write
        )
        return answer

    async def update(
        self,
        ct: ContentType,
        document_id: str | None,
        data: dict[str, Any],
        params: Mapping[str, Any],
        principal: Principal,
        *,
        read: Query | None = None,
    ) -> dict[str, Any]:
        """A partial update of the parameters' locale version (created when the document
        has none in that locale; a single type's document when absent)."""

        async def write(p: dict[str, Any], gate: Gate | None) -> dict[str, Any]:
            given = {k: v for k, v in p.items() if k not in ("data", "documentId")}
            body = p.get("data", data)
            doc_id = p.get("documentId", document_id)
            query = read if read is not None and given == params else None
            query = query or self.query(ct, given, principal, find=False)
            if "locale" in body and ct.localized and body["locale"] not in (None, query.locale):
                raise _locale_change(body["locale"])
            rec = Recording()
            tail = self._recorder.tail("update", ct, rec, gate, lambda d: pick(d, query))
            try:
                doc = await self._writes.update(
                    ct,
                    doc_id,
                    body,
                    locale=query.locale,
                    status=query.status,
                    read=query,
                    tail=tail,
                )
            except BaseException:
                self._dropped(rec)
                raise
            return pick(self._committed(rec, doc), query)

        answer: dict[str, Any] = await self._call(
            "update", ct, {**params, "documentId": document_id, "data": data}, principal, write
        )
        return answer

    async def publish(
        self,
        ct: ContentType,
        document_id: str | None,
        params: Mapping[str, Any],
        principal: Principal,
    ) -> dict[str, Any]:
        """Publishes the draft of the parameters' locale version (a type without Draft &
        Publish has nothing to publish: a ValidationError)."""
        return await self._versions("publish", ct, document_id, params, principal)

    async def unpublish(
        self,
        ct: ContentType,
        document_id: str | None,
        params: Mapping[str, Any],
        principal: Principal,
        *,
        discard_draft: bool = False,
    ) -> dict[str, Any]:
        """Removes the published version of the parameters' locale version; its draft
        stays, and answers (a type without Draft & Publish: a ValidationError).
        `discard_draft`: the draft is first replaced by the published version, in the same
        transaction (events entry.unpublish then entry.draft-discard)."""
        return await self._versions(
            "unpublish", ct, document_id, params, principal, discard_draft=discard_draft
        )

    async def discard(
        self,
        ct: ContentType,
        document_id: str | None,
        params: Mapping[str, Any],
        principal: Principal,
    ) -> dict[str, Any]:
        """Replaces the draft of the parameters' locale version with its published version
        (what the admin's "discard changes" does; event `entry.draft-discard`); the new
        draft answers. A version never published: NotFoundError."""
        return await self._versions("discard", ct, document_id, params, principal)

    async def _versions(
        self,
        action: str,
        ct: ContentType,
        document_id: str | None,
        params: Mapping[str, Any],
        principal: Principal,
        *,
        discard_draft: bool = False,
    ) -> dict[str, Any]:
        if not ct.draft_and_publish:
            raise ValidationError(f"{ct.singular} does not have draft and publish")

        async def write(p: dict[str, Any], gate: Gate | None) -> dict[str, Any]:
            given = {k: v for k, v in p.items() if k != "documentId"}
            doc_id = p.get("documentId", document_id)
            query = self.query(ct, given, principal, find=False)
            rec = Recording()
            tail = self._recorder.tail(action, ct, rec, gate, lambda d: pick(d, query))
            try:
                if action == "publish":
                    doc = await self._writes.publish(
                        ct, doc_id, locale=query.locale, read=query, tail=tail
                    )
                elif action == "discard":
                    doc = await self._writes.discard(
                        ct, doc_id, locale=query.locale, read=query, tail=tail
                    )
                else:
                    doc = await self._writes.unpublish(
                        ct,
                        doc_id,
                        locale=query.locale,
                        read=query,
                        tail=tail,
                        discard_draft=discard_draft,
                    )
            except BaseException:
                self._dropped(rec)
                raise
            return pick(self._committed(rec, doc), query)

        answer: dict[str, Any] = await self._call(
            action, ct, {**params, "documentId": document_id}, principal, write
        )
        return answer

    async def delete(
        self,
        ct: ContentType,
        document_id: str | None,
        params: Mapping[str, Any],
        principal: Principal,
    ) -> None:
        """Every version of a document, or those of the parameters' `locale` only."""

        async def write(p: dict[str, Any], gate: Gate | None) -> None:
            locale = None
            if p.get("locale") not in (None, ""):
                locale = parse_locale(ct, p.get("locale"), self.locales)
            rec = Recording()
            tail = self._recorder.tail("delete", ct, rec, gate, lambda d: None)
            try:
                await self._writes.delete(
                    ct, p.get("documentId", document_id), locale=locale, tail=tail
                )
            except BaseException:
                self._dropped(rec)
                raise
            self._committed(rec, None)

        await self._call("delete", ct, {**params, "documentId": document_id}, principal, write)

    async def locale_content(self, locale: str) -> dict[str, int]:
        """How many rows (versions) each localized type holds in `locale`."""
        types = [ct for ct in self.registry.content_types.values() if ct.localized]
        return await self._reads.count_locale(types, locale)

    async def delete_locale(self, locale: str) -> dict[str, int]:
        """Deletes every version in `locale` of every localized document, in one
        transaction (what removing a locale with `--force` does)."""
        check_not_in_transaction()
        types = [ct for ct in self.registry.content_types.values() if ct.localized]
        rec = Recording()

        def tail_for(ct: ContentType) -> Tail:
            def run(doomed: Any, created: bool) -> Program:
                events = self._recorder.describe("delete", ct, "entry", doomed, [])
                yield from outbox.record(events, self.dialect)
                self.events.hold([e.id for e in events])
                rec.events += events

            return Tail(run)

        try:
            counts = await self._writes.delete_locale(types, locale, tail_for)
        except BaseException:
            self._dropped(rec)
            raise
        self._committed(rec, None)
        return counts

    # ------------------------------------------------------------------ events
    def _committed(self, rec: Recording, result: T) -> T:
        """The step every committed write of content or files returns through: its
        events go to the subscribers."""
        if rec.events:
            self.events.committed(rec.events)
        return result

    def _dropped(self, rec: Recording) -> None:
        """A write that failed: the ids its events took in the outbox are given up."""
        if rec.events:
            self.events.drop([e.id for e in rec.events])
            rec.events = []

    async def event_entry(self, event: Event) -> dict[str, Any]:
        """The entry a webhook sends for `event`, as the reference sends it: for a
        create, update, publish or draft discard, the version re-read now with its
        relations (their own fields), media, components and dynamic zones (with theirs);
        for other events, or when the version is gone (replaced or deleted since) or, a
        published one, published again since (its publishedAt moved: publishing keeps the
        row where only its own values changed), the entry the event recorded (the version
        as it was, without populate)."""
        ct = self.registry.content_types.get(event.uid)
        row_id = event.entry.get("id")
        if (
            ct is None
            or event.event not in ("entry.create", "entry.update", "entry.publish", DRAFT_DISCARD)
            or not isinstance(row_id, int)
        ):
            return event.entry
        params: dict[str, Any] = {"populate": self._entry_populate(ct)}
        if event.status == "draft":
            params["status"] = "draft"
        if event.locale:
            params["locale"] = event.locale
        query = self.query(
            ct, params, OPEN, find=False, key=("event-entry", event.status, event.locale)
        )
        found = await self._reads.find_by_id(ct, row_id, query)
        if found is None or (
            event.status != "draft"
            and ct.draft_and_publish
            and found.get("publishedAt") != event.entry.get("publishedAt")
        ):
            return event.entry
        return found

    def _entry_populate(self, schema: Schema) -> dict[str, Any]:
        """Relations one level, media, and components and zones with their own (the
        populate of a webhook's entry)."""
        spec: dict[str, Any] = {}
        for name, attr in schema.attributes.items():
            if attr.type in ("relation", "media"):
                spec[name] = "true"
            elif attr.type == "component" and attr.component:
                inner = self._entry_populate(self.registry.components[attr.component])
                spec[name] = {"populate": inner} if inner else "true"
            elif attr.type == "dynamiczone":
                on: dict[str, Any] = {}
                for uid in attr.components:
                    inner = self._entry_populate(self.registry.components[uid])
                    on[uid] = {"populate": inner} if inner else {}
                spec[name] = {"on": on}
        return spec

    async def events_since(
        self, after: int, limit: int, names: list[str] | None = None
    ) -> list[Event]:
        """Committed events with ids above `after`, in commit order (the outbox)."""
        found: list[Event] = await self._db.read(outbox.since(after, limit, self.dialect, names))
        return found

    async def event(self, event_id: int) -> Event | None:
        found: Event | None = await self._db.read(outbox.one(event_id))
        return found

    async def last_event_id(self) -> int:
        latest: int = await self._db.read(outbox.latest(self.dialect))
        return latest

    async def prune_events(self, before: str, keep_from: int | None) -> int:
        """Deletes events recorded before `before` (an ISO time) but those from id
        `keep_from` on."""
        count: int = await self._db.write(outbox.prune(before, keep_from))
        return count

    # ------------------------------------------------------------------ services' records
    # What the services built on this one (files, users, API tokens) read and write: rows
    # addressed by their numeric id, queries they make themselves, values they have checked.
    async def find_records(self, ct: ContentType, query: Query) -> tuple[list[dict[str, Any]], int]:
        """The documents `query` (made by `query()` or by the service) reads, and the total
        (-1 when not counted); no draft rule applied."""
        return await self._reads.find(ct, query)

    async def find_record(
        self, ct: ContentType, row_id: int, query: Query | None = None
    ) -> dict[str, Any] | None:
        """The version stored in row `row_id`, or None."""
        return await self._reads.find_by_id(ct, row_id, query or Query())

    async def document_id_of(self, ct: ContentType, row_id: int) -> str | None:
        """The documentId of the version in row `row_id`, or None."""
        return await self._reads.document_id_of(ct, row_id)

    async def file_links(self, file_id: int) -> list[tuple[str, int]]:
        """The (type uid, row id) of the versions file `file_id` is attached to."""
        return await self._reads.file_links(file_id)

    async def create_record(
        self,
        ct: ContentType,
        values: dict[str, Any],
        *,
        read: Query | None = None,
        check: Callable[[], Program] | None = None,
    ) -> dict[str, Any]:
        """A new (published) document from `values`. `check`: a program run first in the
        write's transaction (what it raises fails the write)."""
        check_not_in_transaction()
        rec = Recording()
        try:
            tail = self._recorder.tail("create", ct, rec, None, same)
            doc = await self._writes.create(ct, values, read=read, check=check, tail=tail)
        except BaseException:
            self._dropped(rec)
            raise
        return self._committed(rec, doc)

    async def create_records(
        self,
        ct: ContentType,
        records: list[dict[str, Any]],
        attach: tuple[ContentType, str, str] | None = None,
    ) -> list[dict[str, Any]]:
        """Several documents in one transaction, optionally attached to the media field
        `attach` = (type, documentId or id, field) of an entry in the same transaction."""
        check_not_in_transaction()
        rec = Recording()
        try:
            tail = self._recorder.tail("create", ct, rec, None, same)
            docs = await self._writes.create_many(ct, records, attach, tail=tail)
        except BaseException:
            self._dropped(rec)
            raise
        return self._committed(rec, docs)

    async def update_record(
        self,
        ct: ContentType,
        document_id: str,
        values: dict[str, Any],
        *,
        read: Query | None = None,
        check: Callable[[], Program] | None = None,
    ) -> dict[str, Any]:
        """A partial update of a document (of its published version); `check`: as for
        `create_record`."""
        check_not_in_transaction()
        rec = Recording()
        try:
            tail = self._recorder.tail("update", ct, rec, None, same)
            doc = await self._writes.update(
                ct, document_id, values, read=read, check=check, tail=tail
            )
        except BaseException:
            self._dropped(rec)
            raise
        return self._committed(rec, doc)

    async def delete_record(self, ct: ContentType, document_id: str) -> None:
        """Deletes every version of a document."""
        check_not_in_transaction()
        rec = Recording()
        try:
            tail = self._recorder.tail("delete", ct, rec, None, same)
            await self._writes.delete(ct, document_id, tail=tail)
        except BaseException:
            self._dropped(rec)
            raise
        self._committed(rec, None)

    async def bulk_load(
        self,
        work: Callable[[BulkLoad], Iterator[Any]],
        *,
        replace: bool = False,
        types: Collection[str] | None = None,
    ) -> Any:
        """Runs a bulk load (`content/bulk.py`: an archive's import) in ONE transaction:
        `work(load)` describes rows and yields now and then, when full batches are
        written. Refused (NotEmpty) when content of `types` (uids; None: the app's types,
        files and users) is stored, unless `replace`, which deletes it first. No events:
        a load is not a series of document writes (no webhooks, no feed); reads see it
        once committed, as any write's."""
        check_not_in_transaction()
        load = BulkLoad(self.registry, self.dialect, self.default_locale, types)
        result = await self._db.write(load.program(work, replace))
        # through the one step of committed writes, with no event to hand on
        return self._committed(Recording(), result)

    async def read_program(self, program: Program) -> Any:
        """Runs a service's own read statements (`content/sql/accounts.py`)."""
        return await self._db.read(program)

    async def write_program(
        self, ct: ContentType | None, action: str, program: Program | Callable[[], Program]
    ) -> Any:
        """Runs a service's own statements on `ct`'s table (a user's password, a token's
        last use) in one transaction: writes of the services' own types, which make no
        events (`_kind`). `ct` None: tables of a service that hold no content (webhooks,
        their deliveries)."""
        check_not_in_transaction()
        if ct is not None and self._recorder.kind(ct) is not None:
            raise ValueError(f"{ct.uid}: its writes go through the document service's methods")
        return await self._db.write(program)

    def dump(self) -> Dump:
        """Bulk reads of every stored row, component and link, by id pages (an export's
        reads: every version, private attributes included, links resolved to rows)."""
        return Dump(self.registry, self._db)


def _locale_change(value: Any) -> ValidationError:
    message = "The locale of an existing document cannot be changed"
    return ValidationError(
        message,
        {
            "errors": [
                {"path": ["locale"], "message": message, "name": "ValidationError", "value": value}
            ]
        },
    )


def pick(doc: dict[str, Any], query: Query) -> dict[str, Any]:
    """A write's answer with the query's `fields` (and its populated fields)."""
    if query.fields is None:
        return doc
    out: dict[str, Any] = {k: doc[k] for k in ("id", "documentId") if k in doc}
    for name in [*query.fields, *(query.populate or ())]:
        if name in doc:
            out[name] = doc[name]
    return out
