"""The storage layout derived from the models: tables, columns and indexes.

One table per content type with the system columns; one table per component; link tables
for relations (owned by the source row, ordered), for components and dynamic zones, and for
media. This is the single place that names them."""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

from folio.content.sql.admins import admin_tables
from folio.content.sql.outbox import outbox_table
from folio.content.sql.webhooks import webhook_tables
from folio.schema.model import Attribute, ContentType, Registry, Schema, snake_case
from folio.store.dialects.base import DATETIME, FLOAT, Dialect
from folio.store.tables import Column, Index, Table


def _pk(d: Dialect) -> Column:
    return Column("id", "pk", d.identity(), nullable=False)


def _fk(d: Dialect, name: str, target: str) -> Column:
    return Column(name, "fk", d.reference(target), nullable=False)


def _int(name: str) -> Column:
    return Column(name, "int", "INTEGER")


def _position(d: Dialect, name: str) -> Column:
    return Column(name, "float", d.column_type(FLOAT))


def _text(d: Dialect, name: str) -> Column:
    """A short system text (a locale, a document id, a field's name): a key of indexes."""
    return Column(name, "text", d.text_key())


def _timestamp(d: Dialect, name: str) -> Column:
    return Column(name, "datetime", d.column_type(DATETIME))


def _attribute_columns(
    d: Dialect, schema: Schema, attrs: list[Attribute] | None = None
) -> list[Column]:
    cols = []
    for attr in schema.scalar_attributes if attrs is None else attrs:
        assert attr.column is not None
        cols.append(Column(attr.column, attr.type, attr.kind.column_type(attr, d)))
    return cols


def relation_owner(attr: Attribute) -> bool:
    """The side whose link table holds the relation (the other side has `mappedBy`)."""
    return attr.type == "relation" and attr.mapped_by is None


def status_scoped(schema: Schema, attr: Attribute, registry: Registry) -> bool:
    """Whether the links of an owning relation attribute name the target's status: from a
    source without drafts (a type without Draft & Publish, or a component) to a type with
    them, an entry may link the draft or the published version alone (`target_status`;
    NULL links both, as an entry without status does)."""
    if not relation_owner(attr) or attr.target is None:
        return False
    target = registry.content_types.get(attr.target)
    return target is not None and scoped_between(schema, target)


def scoped_between(owner: Schema, owned: Schema) -> bool:
    """`status_scoped` from the two sides of a relation: the owning schema has no drafts,
    the owned one is a type with them."""
    if not isinstance(owned, ContentType) or not owned.draft_and_publish:
        return False
    return not (isinstance(owner, ContentType) and owner.draft_and_publish)


@cache
def link_table_name(schema: Schema, attr: Attribute) -> str:
    return f"{schema.table}_{attr.column or snake_case(attr.name)}_lnk"


@cache
def components_table_name(schema: Schema) -> str:
    return f"{schema.table}_cmps"


# one row per document, locale and status (draft or published)
VERSION_KEY = "document_id, (COALESCE(locale, '')), ((published_at IS NULL))"
FILES_TABLE = "files"
FILES_LINK_TABLE = "files_related_mph"


def build_layout(registry: Registry, d: Dialect) -> list[Table]:
    """The tables of the models and of Folio's own records, for the database of dialect
    `d`. Link tables carry the columns their reads select in the index they are read through
    (covering indexes): a populate or a deep filter then reads index pages only, a
    thousand-row inverse relation in about half the time. The names of these indexes changed
    with their definitions; the old ones are retired."""
    tables: list[Table] = []
    for ct in registry.content_types.values():
        tables.append(_content_table(d, ct))
    for comp in registry.components.values():
        t = Table(comp.table, [_pk(d), *_attribute_columns(d, comp)])
        tables.append(t)
    for schema in [*registry.content_types.values(), *registry.components.values()]:
        if any(a.type in ("component", "dynamiczone") for a in schema.attributes.values()):
            name = components_table_name(schema)
            tables.append(
                Table(
                    name,
                    [
                        _pk(d),
                        _fk(d, "entity_id", schema.table),
                        _int("cmp_id"),
                        _text(d, "component_type"),
                        _text(d, "field"),
                        _position(d, "position"),
                    ],
                    [
                        Index(
                            f"{name}_entity_cov_idx",
                            "entity_id, field, position, cmp_id, component_type",
                        )
                    ],
                    retired=[f"{name}_entity_idx"],
                )
            )
        for attr in schema.attributes.values():
            if relation_owner(attr):
                tables.append(_link_table(d, schema, attr, status_scoped(schema, attr, registry)))
    tables.append(
        Table(
            FILES_LINK_TABLE,
            [
                _pk(d),
                _fk(d, "file_id", FILES_TABLE),
                _int("related_id"),
                _text(d, "related_type"),
                _text(d, "field"),
                _position(d, "position"),
            ],
            [
                Index(
                    f"{FILES_LINK_TABLE}_related_cov_idx",
                    "related_type, related_id, field, position, file_id",
                )
            ],
            retired=[f"{FILES_LINK_TABLE}_related_idx"],
        )
    )
    tables.append(outbox_table(d))
    tables += webhook_tables(d)
    tables += admin_tables(d)
    return tables


# the link column telling, on the links of a type with Draft & Publish, whether the source
# row is a draft (1) or a published version (0)
SOURCE_DRAFT = "source_draft"


def source_drafts(schema: Schema) -> bool:
    """Whether the links of an owning relation of `schema` carry `source_draft`: its rows
    are drafts and published versions, each with links of its own."""
    return isinstance(schema, ContentType) and schema.draft_and_publish


def source_draft_expr(d: Dialect, table: str, row: str) -> str:
    """The `source_draft` value of a link of the row whose id is `row` (an SQL term) in
    `table`: 1 for a draft, 0 for a published version."""
    return (
        "(SELECT CASE WHEN published_at IS NULL THEN 1 ELSE 0 END FROM "
        f"{d.quote(table)} WHERE id = {row})"
    )


def _link_table(d: Dialect, schema: Schema, attr: Attribute, scoped: bool) -> Table:
    """A relation's links, each naming a target document (and locale); the links of a
    status-scoped relation name the target's status too, carried in their indexes under
    names of their own (the plain ones are retired when a relation becomes scoped).

    From a type with Draft & Publish, each link says whether its source row is a draft
    (`source_draft`, in the target index before the inverse order): a published read of
    the inverse side (a category's articles) then reads the published versions' links
    only, not the drafts' too, each of which cost a lookup of its row to be dropped
    (a deep populate's 1,300 articles of 15 categories: SQLite 2.0 -> 1.25 ms, PostgreSQL
    4.6 -> 2.5 ms). Links written before the column existed get it at start-up."""
    name = link_table_name(schema, attr)
    status = [_text(d, "target_status")] if scoped else []
    member = ", target_status" if scoped else ""
    drafts = source_drafts(schema)
    draft_col = (
        [
            Column(
                SOURCE_DRAFT,
                "int",
                f"{d.small_int()} NOT NULL DEFAULT 0",
                nullable=False,
                fill=f"UPDATE {d.quote(name)} SET {SOURCE_DRAFT} = 1 WHERE source_id IN "
                f"(SELECT id FROM {d.quote(schema.table)} WHERE published_at IS NULL)",
            )
        ]
        if drafts
        else []
    )
    tag = "st" if scoped else "cov"
    target_tag = "dv" if drafts else tag
    by_draft = f", {SOURCE_DRAFT}" if drafts else ""
    indexes = [
        Index(
            f"{name}_source_{tag}_idx",
            f"source_id, position, target_document_id, target_locale{member}, inv_position",
        ),
        Index(
            f"{name}_target_{target_tag}_idx",
            f"target_document_id, target_locale{member}{by_draft}, inv_position, source_id",
        ),
    ]
    return Table(
        name,
        [
            _pk(d),
            _fk(d, "source_id", schema.table),
            _text(d, "target_document_id"),
            _text(d, "target_locale"),
            *status,
            *draft_col,
            _position(d, "position"),
            _position(d, "inv_position"),
        ],
        indexes,
        retired=[
            f"{name}_source_idx",
            f"{name}_target_idx",
            *(f"{name}_source_{other}_idx" for other in ("st", "cov") if other != tag),
            *(f"{name}_target_{other}_idx" for other in ("st", "cov", "dv") if other != target_tag),
        ],
    )


# at most this many attribute columns in a scan index (each adds to every entry), and in
# sort indexes of their own (each costs every write a little)
SCAN_INDEX_ATTRIBUTES = 16

# the version set a list reads: one locale, drafts or published versions
LIST_KEY = "locale, (published_at IS NULL)"
# the list index where indexes are neither named by reads nor partial
LIST_ORDER = "locale, published_at, id"


def version_terms(
    ct: ContentType, draft: bool, locale: str | None, dialect: Dialect, alias: str = "t"
) -> tuple[list[str], list[Any]]:
    """Conditions choosing one version per document, drafts or published ones in `locale`
    (None: every locale), and their parameters: in the form of the list and sort indexes'
    leading columns (`version_key`), whose entries then come in id (or that column's) order."""
    parts: list[str] = []
    params: list[Any] = []
    if ct.localized and locale is not None:
        parts.append(f"{alias}.locale = ?")
        params.append(locale)
    if ct.draft_and_publish:
        # in the form the database's list indexes answer (Dialect.version_flag)
        parts.append(dialect.version_flag(alias, draft))
    return parts, params


# PostgreSQL: the most bytes the covered columns of a scan index entry may take (an entry
# must stay under about 2,700 bytes; the system columns take about 100)
PG_INCLUDE_BYTES = 2200


def covered(ct: ContentType) -> list[Attribute]:
    """Where indexes carry columns (INCLUDE): the small attributes a scan index carries, in
    declaration order, as many as always fit in an index entry (a string of up to 255 characters may
    take 1,020 bytes)."""
    out, room = [], PG_INCLUDE_BYTES
    for attr in _narrow(ct)[:SCAN_INDEX_ATTRIBUTES]:
        need = attr.kind.index_bytes(attr)
        if need <= room:
            out.append(attr)
            room -= need
    return out


def _list_indexes(d: Dialect, ct: ContentType) -> list[Index]:
    """Where indexes are partial (PostgreSQL): one version set in id order, a partial index per
    status where the type has drafts (a default page walks it and stops after the page), and beside
    it a covering one that carries the system columns and the small attributes that fit (INCLUDE),
    so that filters and sorts over them, and the narrow rows of a populated inverse relation, are
    index-only scans instead of reads of whole rows (a filtered count of 1,600 articles: 1,004 heap
    pages against about 60 index pages)."""
    wheres: list[str | None] = (
        ["published_at IS NOT NULL", "published_at IS NULL"] if ct.draft_and_publish else [None]
    )
    include = ", ".join(
        ["document_id", "published_at", "created_at", "updated_at"]
        + [d.quote(str(a.column)) for a in covered(ct)]
    )
    out = []
    for where in wheres:
        # the narrow one: a plain count or a default page reads the fewest pages (a count
        # of 1,600 published rows: 7 index pages, 0.36 ms, against 45 pages and 0.6 ms)
        digest = _digest(f"locale, id WHERE {where}")
        out.append(Index(f"{ct.table}_scan_{digest}", "locale, id", where=where))
        if d.covering_indexes:
            digest = _digest(f"locale, id INCLUDE {include} WHERE {where}")
            out.append(
                Index(f"{ct.table}_scan_{digest}", "locale, id", where=where, include=include)
            )
    return out


def key_carried(d: Dialect, ct: ContentType) -> list[str]:
    """Where indexes carry columns as key parts (`Dialect.carried_key_bytes`, MySQL): the
    columns the list index carries after its key, the timestamps and then the small
    attributes in order, each while it fits."""
    out: list[str] = []
    room, parts = d.carried_key_bytes, d.carried_key_parts
    candidates: list[tuple[str, int | None]] = [("created_at", None), ("updated_at", None)]
    for attr in _narrow(ct):
        max_chars = getattr(attr.kind, "max_chars", None)
        candidates.append((str(attr.column), max_chars(attr) if max_chars else None))
    for column, chars in candidates:
        need = d.key_part_bytes(chars)
        if parts > 0 and need <= room:
            out.append(column)
            room -= need
            parts -= 1
    return out


def carried_index(d: Dialect, ct: ContentType) -> tuple[str, str] | None:
    """Where indexes carry columns as key parts (MySQL): the name and key of the list index
    that carries them (`key_carried`), if any fit."""
    carried = key_carried(d, ct)
    if not carried:
        return None
    key = ", ".join([LIST_ORDER, *(d.quote(c) for c in carried)])
    return f"{ct.table}_scan_{_digest(key)}", key


def version_key(ct: ContentType) -> list[str]:
    """Where reads name their indexes (SQLite): the columns a list of one version set fixes, as its
    statements write them (a type's reads constrain the locale only where it is localized, the
    published flag only where it has drafts): the leading columns of its scan and sort indexes."""
    key = ["locale"] if ct.localized else []
    if ct.draft_and_publish:
        key.append("(published_at IS NULL)")
    return key


def _narrow(ct: ContentType) -> list[Attribute]:
    return [a for a in ct.scalar_attributes if a.kind.is_narrow(a) and a.column]


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:10]


def _scan_expr(d: Dialect, ct: ContentType) -> str:
    carried = ["document_id", "published_at", "created_at", "updated_at"]
    carried += [d.quote(str(a.column)) for a in _narrow(ct)[:SCAN_INDEX_ATTRIBUTES]]
    return ", ".join([*version_key(ct), "id", *carried])


def narrow_selection(schema: Schema, fields: list[str] | None) -> bool:
    """Whether a selection of `fields` (None: every attribute) holds small columns only."""
    if fields is None:
        return False
    attrs = schema.attributes
    return all(f not in attrs or attrs[f].kind.is_narrow(attrs[f]) for f in fields)


def scan_index_name(d: Dialect, ct: ContentType) -> str:
    """Where reads name their indexes (SQLite): the covering index over the list key, id
    and the small columns."""
    return f"{ct.table}_scan_{_digest(_scan_expr(d, ct))}"


def _sort_expr(d: Dialect, ct: ContentType, column: str) -> str:
    """The key of a column's sort index: the version set, then the column in the terms
    `Dialect.order_term` writes for it ascending, less the direction (`(c IS NULL), c`
    on SQLite, where NULLs sort first by default), so that ORDER BY writes the index's
    terms and SQLite walks it."""
    quoted = d.quote(column)
    return ", ".join([*version_key(ct), f"({quoted} IS NULL)", quoted])


@cache
def sort_indexes(d: Dialect, ct: ContentType) -> dict[str, str]:
    """Where reads name their indexes (SQLite): column -> name of the index that walks one version
    set in that column's order (the timestamps and the small attributes other than booleans). A
    sorted, filtered page whose filter matches many rows walks it and stops after the page."""
    columns = ["created_at", "updated_at", "published_at"]
    columns += [str(a.column) for a in _narrow(ct)[:SCAN_INDEX_ATTRIBUTES] if a.type != "boolean"]
    return {c: f"{ct.table}_sort_{_digest(_sort_expr(d, ct, c))}" for c in columns}


@cache
def lookup_indexes(d: Dialect, ct: ContentType) -> dict[str, str]:
    """Where the layout makes them (`Dialect.lookup_indexes`, PostgreSQL): column -> name of a
    plain index over that column, for each small attribute other than booleans of a type
    without locales or drafts (tags, categories, authors: the targets that relation filters
    name by a value, `filters[tags][name][$in]`, found through it instead of a scan of every
    row; such a filter also reads the whole set at once, see `where._intersected`)."""
    if not d.lookup_indexes or version_key(ct):
        return {}
    columns = [str(a.column) for a in _narrow(ct)[:SCAN_INDEX_ATTRIBUTES] if a.type != "boolean"]
    return {c: f"{ct.table}_find_{_digest(d.quote(c))}" for c in columns}


def _content_table(d: Dialect, ct: ContentType) -> Table:
    """System columns first, then the attributes with small values, then the long ones
    (text, rich text, blocks, JSON): a filter or a sort on a small column then reads the front
    of the record and never follows a long value's overflow pages."""
    scalars = ct.scalar_attributes
    narrow = [a for a in scalars if a.kind.is_narrow(a)]
    wide = [a for a in scalars if not a.kind.is_narrow(a)]
    t = Table(
        ct.table,
        [
            _pk(d),
            Column("document_id", "text", f"{d.text_key()} NOT NULL", nullable=False),
            _text(d, "locale"),
            _timestamp(d, "published_at"),
            _timestamp(d, "created_at"),
            _timestamp(d, "updated_at"),
            *_attribute_columns(d, ct, narrow),
            *_attribute_columns(d, ct, wide),
        ],
    )
    # The list index orders one version set (locale, published flag) by id: a default page
    # is an index walk that stops after one page. On SQLite it also carries the small
    # columns, so that filters, sorts and counts over them and narrow selections (a
    # populated inverse relation asking for a few fields) read the index alone instead of
    # one table page per row. PostgreSQL keeps it narrow (its index entries are bounded in
    # size and an index-only scan depends on the visibility map), and its planner chooses
    # between walking and sorting from statistics; SQLite's reads name their index.
    t.indexes = [Index(f"{ct.table}_version_uq", VERSION_KEY, unique=True)]
    if d.index_hints:
        t.indexes.append(Index(scan_index_name(d, ct), _scan_expr(d, ct)))
    elif d.partial_indexes:
        t.indexes += _list_indexes(d, ct)
    else:
        # one version set in id order, the status a range of the key (a plain count or a
        # default page reads it in the fewest pages); beside it, MySQL's second one carries
        # the small columns that fit after the key, as SQLite's does (a filtered count of
        # 1,600 articles reads that index alone: 3,207 pages and 3.9 ms of the server's CPU
        # when every row was looked up in the table)
        t.indexes.append(Index(f"{ct.table}_scan_{_digest(LIST_ORDER)}", LIST_ORDER))
        carried = carried_index(d, ct)
        if carried is not None:
            t.indexes.append(Index(*carried))
    t.indexes.append(Index(f"{ct.table}_document_idx", "document_id"))
    if d.index_hints:
        t.indexes += [
            Index(name, _sort_expr(d, ct, column)) for column, name in sort_indexes(d, ct).items()
        ]
    t.indexes += [Index(name, d.quote(column)) for column, name in lookup_indexes(d, ct).items()]
    t.families = (f"{ct.table}_scan_", f"{ct.table}_sort_", f"{ct.table}_find_")
    t.retired = [f"{ct.table}_list_idx"]  # without id: replaced by the scan index
    return t
