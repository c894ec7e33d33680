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

Every committed write, of any kind, returns through `_committed` once its transaction has
committed (never for a write that failed): that step is where notifications of committed
writes (events, webhooks) attach."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from folio.auth.principal import Principal
from folio.caches import BoundedCache, weigh
from folio.config import Settings
from folio.content.params import Limits, Locales, parse_locale, parse_status
from folio.content.query import Pagination, Query, ReadLimits
from folio.content.queryparser import QueryParser
from folio.content.sql.load import ReadContext
from folio.content.sql.reads import Reads
from folio.content.sql.writes import Writes
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
    async def find(
        self,
        ct: ContentType,
        params: Mapping[str, Any],
        principal: Principal,
        *,
        limits: Limits | None = None,
        key: Hashable | None = None,
    ) -> Page:
        query = self.query(ct, params, principal, limits=limits, key=key)
        self._check_drafts(ct, query, principal)
        docs, total = await self._reads.find(ct, query)
        return Page(docs, total, query.pagination)

    async def count(
        self,
        ct: ContentType,
        params: Mapping[str, Any],
        principal: Principal,
        *,
        key: Hashable | None = None,
    ) -> int:
        query = self.query(ct, params, principal, key=key)
        self._check_drafts(ct, query, principal)
        return await self._reads.count(ct, query)

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
        query = self.query(ct, params, principal, find=False, key=key)
        self._check_drafts(ct, query, principal)
        return await self._reads.find_one(ct, document_id or "", query)

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

        await self._db.read(program())

    # ------------------------------------------------------------------ writes
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
        query = read or self.query(ct, params, principal, find=False)
        raw = params.get("locale")
        locale = parse_locale(
            ct, raw if raw not in (None, "") else data.get("locale"), self.locales
        )
        doc = await self._writes.create(ct, data, locale=locale, status=query.status, read=query)
        return pick(self._committed("create", ct, doc), query)

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
        query = read or self.query(ct, params, principal, find=False)
        if "locale" in data and ct.localized and data["locale"] not in (None, query.locale):
            message = "The locale of an existing document cannot be changed"
            raise ValidationError(
                message,
                {
                    "errors": [
                        {
                            "path": ["locale"],
                            "message": message,
                            "name": "ValidationError",
                            "value": data["locale"],
                        }
                    ]
                },
            )
        doc = await self._writes.update(
            ct,
            document_id,
            data,
            locale=query.locale,
            status=query.status,
            read=query,
        )
        return pick(self._committed("update", ct, doc), query)

    async def publish(
        self,
        ct: ContentType,
        document_id: str | None,
        params: Mapping[str, Any],
        principal: Principal,
    ) -> dict[str, Any]:
        """Publishes the draft of the parameters' locale version (a type without Draft &
        Publish has nothing to publish: a ValidationError)."""
        if not ct.draft_and_publish:
            raise ValidationError(f"{ct.singular} does not have draft and publish")
        query = self.query(ct, params, principal, find=False)
        doc = await self._writes.publish(ct, document_id, locale=query.locale, read=query)
        return pick(self._committed("publish", ct, doc), query)

    async def delete(
        self,
        ct: ContentType,
        document_id: str | None,
        params: Mapping[str, Any],
        principal: Principal,
    ) -> None:
        """Every version of a document, or those of the parameters' `locale` only."""
        locale = None
        if params.get("locale") not in (None, ""):
            locale = parse_locale(ct, params.get("locale"), self.locales)
        await self._writes.delete(ct, document_id, locale=locale)
        self._committed("delete", ct, document_id)

    async def locale_content(self, locale: str) -> dict[str, int]:
        """How many rows (versions) each localized type holds in `locale`."""
        types = [ct for ct in self.registry.content_types.values() if ct.localized]
        return await self._reads.count_locale(types, locale)

    async def delete_locale(self, locale: str) -> dict[str, int]:
        """Deletes every version in `locale` of every localized document, in one
        transaction (what removing a locale with `--force` does)."""
        types = [ct for ct in self.registry.content_types.values() if ct.localized]
        counts = await self._writes.delete_locale(types, locale)
        for ct in types:
            if counts.get(ct.uid):
                self._committed("delete", ct, {"locale": locale, "rows": counts[ct.uid]})
        return counts

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
        doc = await self._writes.create(ct, values, read=read, check=check)
        return self._committed("create", ct, doc)

    async def create_records(
        self,
        ct: ContentType,
        records: list[dict[str, Any]],
        attach: tuple[ContentType, str, str] | None = None,
    ) -> list[dict[str, Any]]:
        """Several documents in one transaction, optionally attached to the media field
        `attach` = (type, documentId or id, field) of an entry in the same transaction."""
        docs = await self._writes.create_many(ct, records, attach)
        for doc in docs:
            self._committed("create", ct, doc)
        if attach is not None:
            self._committed("update", attach[0], attach[1])
        return docs

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
        doc = await self._writes.update(ct, document_id, values, read=read, check=check)
        return self._committed("update", ct, doc)

    async def delete_record(self, ct: ContentType, document_id: str) -> None:
        """Deletes every version of a document."""
        await self._writes.delete(ct, document_id)
        self._committed("delete", ct, document_id)

    async def read_program(self, program: Program) -> Any:
        """Runs a service's own read statements (`content/sql/accounts.py`)."""
        return await self._db.read(program)

    async def write_program(
        self, ct: ContentType, action: str, program: Program | Callable[[], Program]
    ) -> Any:
        """Runs a service's own statements on `ct`'s table (a user's password, a token's
        last use) in one transaction; its result once committed."""
        return self._committed(action, ct, await self._db.write(program))

    def _committed(self, action: str, ct: ContentType, result: T) -> T:
        """The step every committed write of this service returns through, once its
        transaction has committed: `action` (create, update, publish, delete, or a
        service's own) on documents of `ct`; `result` is the write's answer (a document,
        a documentId, the locale and rows a locale's removal took, or what a service's
        program returned), handed back unchanged.
        Notifications of committed writes attach here; nothing listens yet."""
        return result


def pick(doc: dict[str, Any], query: Query) -> dict[str, Any]:
    """A write's answer with the query's `fields` (and its populated fields)."""
    if query.fields is None:
        return doc
    out: dict[str, Any] = {k: doc[k] for k in ("id", "documentId") if k in doc}
    for name in [*query.fields, *(query.populate or ())]:
        if name in doc:
            out[name] = doc[name]
    return out
