"""Per content type, everything a read needs that can be computed once: select lists, the
JSON key of each selected column with its converter, and the statements for pages, counts
and single documents, cached by query shape."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from folio.caches import BoundedCache, weigh
from folio.content.query import Query
from folio.content.sql.layout import (
    carried_index,
    key_carried,
    scan_index_name,
    sort_indexes,
    version_terms,
)
from folio.content.sql.sort import order_term, sort_column, sort_expr
from folio.content.sql.where import compile_where, own_columns
from folio.schema.kinds import Converter
from folio.schema.model import Attribute, ContentType, Schema
from folio.store.dialects.base import BIGINTEGER, DATETIME, TEXT, Dialect

Row = Sequence[Any]


class Selection:
    """Selected columns and how each becomes a JSON member.

    Rows become documents through two functions compiled once per selection: a dict display
    with the keys and converters written in (about four times faster than `dict(zip(...))`
    plus a conversion pass on a 1,000-row populate)."""

    __slots__ = ("_at", "_documents", "_grouped", "convert", "keys", "sql")

    def __init__(self, sql: str, keys: tuple[str, ...], convert: tuple[tuple[int, Converter], ...]):
        self.sql = sql
        self.keys = keys
        self.convert = convert
        converters = dict(convert)
        names: dict[str, Any] = {}
        members = []
        shifted = []
        for index, key in enumerate(keys):
            value = f"r[{index}]"
            at = f"r[s + {index}]" if index else "r[s]"
            if index in converters:
                names[f"c{index}"] = converters[index]
                value = f"c{index}({value})"
                at = f"c{index}({at})"
            members.append(f"{key!r}: {value}")
            shifted.append(f"{key!r}: {at}")
        display = "{" + ", ".join(members) + "}"
        # rows may carry extra trailing columns: grouped() keys on the last one; at() reads
        # the selection from column `s` on (one table's part of a joined row)
        code = (
            f"def documents(rows):\n    return [{display} for r in rows]\n"
            f"def grouped(rows, out):\n    for r in rows:\n        out[r[-1]].append({display})\n"
            f"def at(r, s):\n    return {{{', '.join(shifted)}}}\n"
        )
        exec(code, names)
        self._at: Callable[[Row, int], dict[str, Any]] = names["at"]
        self._documents: Callable[[Sequence[Row]], list[dict[str, Any]]] = names["documents"]
        self._grouped: Callable[[Sequence[Row], dict[Any, list[dict[str, Any]]]], None] = names[
            "grouped"
        ]

    def documents(self, rows: Sequence[Row]) -> list[dict[str, Any]]:
        return self._documents(rows)

    def at(self, row: Row, start: int) -> dict[str, Any]:
        """The document of the selection's columns in `row` from column `start` on."""
        return self._at(row, start)

    def grouped(self, rows: Sequence[Row]) -> dict[Any, list[dict[str, Any]]]:
        """Documents by the row's last column (the parent key), in row order."""
        out: dict[Any, list[dict[str, Any]]] = defaultdict(list)
        self._grouped(rows, out)
        return out


# pages of each size whose LIMIT and OFFSET are written into the statement's text where the
# dialect wants it (`Dialect.literal_first_limit`): the first ones, the most read
LITERAL_PAGES = 10

SYSTEM_COLUMNS = {
    "createdAt": "created_at",
    "updatedAt": "updated_at",
    "publishedAt": "published_at",
}


def build_selection(
    schema: Schema, fields: list[str] | None, dialect: Dialect, alias: str = "t"
) -> Selection:
    """The select list of a content type (id, documentId, attributes, timestamps, locale)
    or a component (id, attributes); `fields` picks and orders the attributes."""
    d = dialect
    stamp = d.output(DATETIME)  # the system timestamps' converter, if any
    cols: list[str] = []
    keys: list[str] = []
    convert: list[tuple[int, Converter]] = []
    for key, attr, column in _selected(schema, fields, d, alias):
        if attr is not None:
            cols.append(attr.kind.select_expr(column, d))
            fn = attr.kind.output(d)
            if fn is not None:
                convert.append((len(keys), fn))
        elif key in SYSTEM_COLUMNS:
            cols.append(d.select_expr(DATETIME, column))
            if stamp is not None:
                convert.append((len(keys), stamp))
        else:
            cols.append(column)
        keys.append(key)
    return Selection(", ".join(cols), tuple(keys), tuple(convert))


def entry_members(schema: Schema, dialect: Dialect, alias: str) -> list[tuple[str, str]]:
    """A whole document's members as SQL expressions (key, expression) that build the
    JSON object `build_selection(schema, None, ...)` reads and converts, where the
    database builds it (`Dialect.insert_with_event`)."""
    out = []
    for key, attr, column in _selected(schema, None, dialect, alias):
        if attr is not None:
            out.append((key, attr.kind.member_expr(column, dialect)))
        elif key in SYSTEM_COLUMNS:
            out.append((key, dialect.select_expr(DATETIME, column)))
        else:
            out.append((key, column))
    return out


def _selected(
    schema: Schema, fields: list[str] | None, d: Dialect, alias: str
) -> list[tuple[str, Attribute | None, str]]:
    """The selected members: (key, attribute or None for the system columns, column)."""
    is_type = isinstance(schema, ContentType)
    out: list[tuple[str, Attribute | None, str]] = [("id", None, f"{alias}.id")]
    if is_type:
        out.append(("documentId", None, f"{alias}.document_id"))
    if fields is None:
        names = [a.name for a in schema.scalar_attributes if not a.is_hidden]
        if is_type:
            names += list(SYSTEM_COLUMNS)
            if isinstance(schema, ContentType) and schema.localized:
                names.append("locale")
    else:
        names = list(fields)
    for name in names:
        attr = schema.attributes.get(name)
        if attr is not None:
            if not attr.kind.scalar or attr.is_hidden or attr.column is None:
                continue
            out.append((name, attr, f"{alias}.{d.quote(attr.column)}"))
        elif is_type and name in SYSTEM_COLUMNS:
            out.append((name, None, f"{alias}.{SYSTEM_COLUMNS[name]}"))
        elif is_type and name == "locale":
            out.append((name, None, f"{alias}.locale"))
    return out


@dataclass
class FindPlan:
    """The statements of one find. `counted`: the page rows carry the total as their last
    column. `walk`: SQLite's adaptive form for a sorted, counted page: the count runs
    first; when many rows match, `walk` reads the page by walking the sort index and stops
    after it, otherwise `page` sorts the matching ids."""

    page: str
    page_params: list[Any]
    count: str
    count_params: list[Any]
    counted: bool = False
    walk: str | None = None
    # where the dialect has `snapshots` (PostgreSQL), `counted`: the page's rows end with the
    # total and the text of the database snapshot it holds for (see TypeReader.remember_total);
    # this is the key the total is remembered by
    total_key: Any = None
    # the query's filters add conditions (the page and its count scan what they match)
    filtered: bool = False
    # `snapshots`: the page's rows end with the text of the snapshot they were read in, and
    # its parameters take two more, last: twice a snapshot text under which the page is
    # known (None: none is). Under that snapshot the statement reads nothing (its one-time
    # filter shuts before any scan) and answers one row whose first column is null
    gated: bool = False

    def walks(self, total: int, offset: int, size: int) -> bool:
        # a walk reads about (offset + size) * all / matching index entries and table rows,
        # a sort reads every index entry once: walking wins well before half the rows match
        return total >= 2 * (offset + size)


class TypeReader:
    def __init__(self, ct: ContentType, dialect: Dialect, memo: bool = True) -> None:
        """`memo`: the read memo is on (where the dialect's totals need it)."""
        self.ct = ct
        self.dialect = dialect
        # unfiltered pages' totals remembered (`Dialect.remembered_totals`)
        self.remembers = dialect.remembered_totals and (memo or not dialect.totals_need_memo)
        # per field list and query shape (chosen by clients: bounded)
        self._selections: BoundedCache[Selection] = BoundedCache(256, 4 * 1024 * 1024)
        self._statements: BoundedCache[Any] = BoundedCache(1024, 8 * 1024 * 1024)
        self.visible = [a for a in ct.scalar_attributes if not a.is_hidden]
        # where reads name their indexes (SQLite): the scan index, and the sort indexes
        hints = dialect.index_hints
        self._scan = dialect.index_hint(scan_index_name(dialect, ct)) if hints else ""
        self._sort_indexes = sort_indexes(dialect, ct) if hints else {}
        # where the list index that carries small columns must be named (MySQL): it, and
        # the columns it carries
        carried = carried_index(dialect, ct)
        self._carried_hint = dialect.carried_hint(carried[0]) if carried else ""
        self._carried = set(key_carried(dialect, ct)) if carried else set()
        # `remembers`: (count statement, parameters) -> (snapshot, total) of the last count
        self._totals: BoundedCache[tuple[str, int]] = BoundedCache(1024, 1024 * 1024)

    def remember_total(self, plan: FindPlan, rows: Sequence[Row]) -> int:
        """The total a counted page carries; where totals are remembered, kept with the
        token of the committed state it was counted under. The next page of the same list
        hands both back: while the token is unchanged, its answer is the total it was given
        instead of a count over every matching entry (a quarter of a 25-row page's cost on
        1,600 articles on PostgreSQL, two thirds on MariaDB), and otherwise it counts.
        PostgreSQL's token is its snapshot, which any transaction that writes moves, in any
        process or host; MySQL's is the sum of the counters Folio's writes move, so that
        there the totals are remembered only where the read memo trusts it too."""
        if plan.total_key is None:
            # a gated page's rows end with the snapshot, after the total
            return int(rows[0][-2] if plan.gated else rows[0][-1])
        total, snapshot = int(rows[0][-2]), str(rows[0][-1])
        self._totals.put(plan.total_key, (snapshot, total), weigh(plan.total_key, snapshot))
        return total

    def selection(self, fields: list[str] | None, alias: str = "t") -> Selection:
        key = (tuple(fields) if fields is not None else None, alias)
        found = self._selections.get(key)
        if found is None:
            found = build_selection(self.ct, fields, self.dialect, alias)
            # its SQL text and the compiled row converters
            self._selections.put(key, found, weigh(key) + 8 * len(found.sql) + 2000)
        return found

    def version_where(
        self, status: str, locale: str | None, alias: str = "t"
    ) -> tuple[list[str], list[Any]]:
        """Conditions choosing one version per document (`version_terms`): a default page
        is an index walk that stops after one page. A None locale: every locale
        (`locale=*`)."""
        return version_terms(self.ct, status != "published", locale, self.dialect, alias)

    def find_statements(
        self, read: Query, filter_locale: str | None = None, gated: bool = False
    ) -> FindPlan:
        """The statements of a list read; related rows its filters reach are read in its
        status and, where they have locales, in `filter_locale`. `gated`: PostgreSQL's
        page carries its snapshot and skips its work under a snapshot given (FindPlan)."""
        d = self.dialect
        order = tuple((sort_column(key, read.status, d), key.desc) for key in read.sort)
        parts, params = self.version_where(read.status, read.locale)
        where_text, where_params = compile_where(
            read.filters, self.dialect, "t", read.status, filter_locale
        )
        if where_text:
            parts.append(where_text)
            params.extend(where_params)
        where = " AND ".join(parts)
        # filtered lists scan: count them in the same pass as the page, or first (where
        # pages carry their counts, `Dialect.counted_pages`, unfiltered ones too unless their
        # totals are remembered)
        with_count = read.pagination.with_count
        counted = with_count and (bool(where_text) or (d.counted_pages and not self.remembers))
        fixed = read.locale is not None or not self.ct.localized
        page = read.pagination
        # PostgreSQL plans a prepared statement anew at each run while its LIMIT and OFFSET
        # are parameters (its generic plan cannot be priced): the first pages' are written
        # in (`LITERAL_PAGES` of them per page size, so the statements stay few), and after
        # five runs each keeps one plan
        first: tuple[int, int] | None = None
        if (
            d.literal_first_limit
            and page.offset % page.size == 0
            and page.offset // page.size < LITERAL_PAGES
        ):
            first = (page.size, page.offset)
        carried = False
        if self._carried_hint and read.filters is not None:
            columns = own_columns(read.filters)
            carried = columns is not None and columns <= self._carried
        key = (
            "find",
            tuple(read.fields) if read.fields is not None else None,
            where,
            order,
            counted,
            with_count,
            fixed,
            first,
            gated,
            carried,
        )
        plan = self._statements.get(key)
        if plan is None:
            plan = self._plan(
                read.fields, where, order, counted, fixed, with_count, first, gated, carried
            )
            self._statements.put(key, plan, weigh(key, *[p for p in plan if isinstance(p, str)]))
        page_sql, count_sql, walk_sql, in_page, twice, remembers = plan
        bounds = [] if first is not None else [page.size, page.offset]
        page_params = [*params, *(params if twice else ()), *bounds]
        total_key = None
        if remembers:
            total_key = (count_sql, tuple(params))
            known = self._totals.get(total_key)
            page_params[:0] = known if known is not None else (None, 0)
        return FindPlan(
            page_sql,
            page_params,
            count_sql,
            params,
            counted=in_page,
            walk=walk_sql,
            total_key=total_key,
            filtered=bool(where_text),
            gated=gated and d.snapshots,
        )

    def _plan(
        self,
        fields: list[str] | None,
        where: str,
        order: tuple[tuple[str, bool], ...],
        counted: bool,
        fixed: bool,
        with_count: bool = False,
        first: tuple[int, int] | None = None,
        gated: bool = False,
        carried: bool = False,
    ) -> tuple[str, str, str | None, bool, bool, bool]:
        """(page, count, walk or None, whether the page carries the count, whether the
        page's parameters repeat the conditions' before its own, whether they start with a
        remembered snapshot and total)."""
        d = self.dialect
        simple = not order or order == (("id", False),)
        if first is None:
            bounds = "LIMIT ? OFFSET ?"
        else:
            bounds = f"LIMIT {int(first[0])}" + (f" OFFSET {int(first[1])}" if first[1] else "")
        sel = self.selection(fields)
        table = d.quote(self.ct.table)
        # with its version set fixed, SQLite reads the scan index or a sort index by name:
        # its planner would otherwise walk a sort index for any page sorted on its column
        scan = f"{table} t{self._scan if fixed else ''}"
        if carried:
            # the filter reads only columns the carrying list index holds (MySQL)
            scan = f"{table} t{self._carried_hint}"
        filtered = f" WHERE {where}" if where else ""
        ordering = self._order(order)
        count = f"SELECT COUNT(*) FROM {scan}{filtered}"
        sorted_ids = (
            f"SELECT {sel.sql} FROM {table} t WHERE t.id IN (SELECT t.id FROM {scan}{filtered} "
            f"ORDER BY {ordering} LIMIT ? OFFSET ?) ORDER BY {ordering}"
        )
        walk_index = self._sort_indexes.get(order[0][0]) if order and fixed else None
        if counted and walk_index is not None:
            walk = (
                f"SELECT {sel.sql} FROM {table} t{d.index_hint(walk_index)}{filtered} "
                f"ORDER BY {ordering} LIMIT ? OFFSET ?"
            )
            return sorted_ids, count, walk, False, False, False
        if counted and d.materialized_cte:
            # the matching ids and sort keys, kept once: the page and the count both read
            # them (SQLite's window count buffers and sorts every matching row whole, about
            # twice the cost on a 1,000-row match)
            keys = ", ".join(f"{sort_expr(c, d)} AS k{i}" for i, (c, _) in enumerate(order))
            m_order = self._order(order, lambda i, column: f"m.k{i}", "m.id")
            page = (
                f"WITH m AS MATERIALIZED (SELECT t.id{', ' if keys else ''}{keys} "
                f"FROM {scan}{filtered}) SELECT {sel.sql}, (SELECT COUNT(*) FROM m) "
                f"FROM {table} t WHERE t.id IN (SELECT m.id FROM m ORDER BY {m_order} "
                f"LIMIT ? OFFSET ?) ORDER BY {ordering}"
            )
            return page, count, None, True, False, False
        snapshot = d.snapshot_expr() if d.snapshots else ""
        token = d.snapshot_expr() if self.remembers else ""
        text = d.param_cast(TEXT)
        # the gate: no work under the snapshot given (FindPlan.gated)
        gate = d.distinct(snapshot, text) if gated and snapshot else ""

        def marked(page: str, extras: int) -> str:
            """A gated page, or under the snapshot given (its parameter again), one row
            of nulls but that snapshot: the page is as it was."""
            if not gate:
                return page
            nulls = ", ".join(["NULL"] * (len(sel.keys) + extras - 1))
            return (
                f"({page}) UNION ALL SELECT {nulls}, {snapshot} "
                f"WHERE {d.distinct(snapshot, text, negated=True)}"
            )

        # the rows joined to a page's ids in the order of its derived table's sort keys
        # (`Dialect.derived_sort_keys`), where they are columns
        keys, joined_order = "", ordering
        if d.derived_sort_keys and not simple and not any(c.startswith("(") for c, _ in order):
            keys = "".join(f", {sort_expr(c, d)} AS k{i}" for i, (c, _) in enumerate(order))
            joined_order = self._order(order, lambda i, column: f"w.k{i}", "w.id")

        if counted:
            page = (
                f"SELECT {sel.sql}, w.total{', ' + snapshot if gate else ''} FROM {table} t "
                f"JOIN (SELECT t.id, COUNT(*) OVER () AS total{keys} FROM {scan}{filtered} "
                f"ORDER BY {ordering} {bounds}) w ON w.id = t.id"
                f"{' WHERE ' + gate if gate else ''} ORDER BY {joined_order}"
            )
            return marked(page, 2), count, None, True, False, False

        def deferred_page(extra: str) -> str:
            """Where pages are deferred joins (PostgreSQL): a first page in id order walks the
            list index and stops after it; any other (a later page, another order) finds its ids
            first, from the list index alone where it carries the sort columns, then reads those
            rows only: an index scan reads the row of every entry it skips or sorts too (page 40
            of 64: 1.8 -> 0.49 ms)"""
            if simple and first is not None and not first[1]:
                gated_where = filtered
                if gate:
                    gated_where += f" AND {gate}" if filtered else f" WHERE {gate}"
                return (
                    f"SELECT {sel.sql}{extra} FROM {scan}{gated_where} ORDER BY {ordering} {bounds}"
                )
            return (
                f"SELECT {sel.sql}{extra} FROM {table} t JOIN (SELECT t.id{keys} FROM "
                f"{scan}{filtered} ORDER BY {ordering} {bounds}) w ON w.id = t.id"
                f"{' WHERE ' + gate if gate else ''} ORDER BY {joined_order}"
            )

        if token and with_count:
            # the count rides along as a column computed once (PostgreSQL's init plan),
            # one statement and one round trip instead of two; and only when the database
            # has changed since the total handed back was counted (remember_total)
            page = deferred_page(
                f", CASE WHEN {token} = {text} THEN {d.param_cast(BIGINTEGER)} ELSE "
                f"(SELECT COUNT(*) FROM {scan}{filtered}) END, {token}"
            )
            return marked(page, 2), count, None, True, True, True
        if d.deferred_pages:
            page = deferred_page(f", {snapshot}" if gate else "")
            return marked(page, 1), count, None, False, False, False
        if simple:
            page = f"SELECT {sel.sql} FROM {scan}{filtered} ORDER BY {ordering} {bounds}"
            return page, count, None, False, False, False
        # sort ids and sort keys only, then fetch the page's rows: SQLite's sorter would
        # otherwise carry every matching row whole
        return sorted_ids, count, None, False, False, False

    def _order(
        self,
        order: tuple[tuple[str, bool], ...],
        target: Callable[[int, str], str] | None = None,
        id_ref: str = "t.id",
    ) -> str:
        items = []
        for i, (column, desc) in enumerate(order):
            ref = target(i, column) if target is not None else sort_expr(column, self.dialect)
            items.append(order_term(ref, desc, self.dialect, column))
        if not any(column == "id" for column, _ in order):
            items.append(f"{id_ref} ASC")
        return ", ".join(items)

    def one_statement(
        self, fields: list[str] | None, status: str, locale: str | None
    ) -> tuple[str, list[Any]]:
        """One version of a document, looked up by the whole version key (document,
        locale, published flag) so that the unique version index answers it."""
        draft = self.ct.draft_and_publish and status != "published"
        params: list[Any] = [locale if self.ct.localized and locale is not None else ""]
        key = ("one", tuple(fields) if fields is not None else None, draft)
        sql = self._statements.get(key)
        if sql is None:
            sel = self.selection(fields)
            where = (
                f"t.document_id = ? AND COALESCE(t.locale, '') = ? AND "
                f"{self.dialect.version_flag('t', draft)}"
            )
            sql = (
                f"SELECT {sel.sql} FROM {self.dialect.quote(self.ct.table)} t WHERE {where} LIMIT 1"
            )
            self._statements.put(key, sql, weigh(key, sql))
        return sql, params

    def single_statement(
        self, fields: list[str] | None, status: str, locale: str | None
    ) -> tuple[str, list[Any]]:
        """The one document of a single type."""
        parts, params = self.version_where(status, locale)
        key = ("single", tuple(fields) if fields is not None else None, status, bool(locale))
        sql = self._statements.get(key)
        if sql is None:
            sel = self.selection(fields)
            sql = (
                f"SELECT {sel.sql} FROM {self.dialect.quote(self.ct.table)} t"
                + (" WHERE " + " AND ".join(parts) if parts else "")
                + " ORDER BY t.id LIMIT 1"
            )
            self._statements.put(key, sql, weigh(key, sql))
        return sql, params
