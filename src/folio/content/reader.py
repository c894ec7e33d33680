"""Per content type, everything a read needs that can be computed once: select lists, the
JSON key of each selected column with its converter, and the statements for pages, counts
and single documents, cached by query shape."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from folio.content.spec import QuerySpec
from folio.content.where import compile_where
from folio.schema.kinds import Converter, timestamp_expr
from folio.schema.model import ContentType

Row = Sequence[Any]


class Selection:
    """Selected columns and how each becomes a JSON member."""

    __slots__ = ("convert", "keys", "sql")

    def __init__(self, sql: str, keys: tuple[str, ...], convert: tuple[tuple[int, Converter], ...]):
        self.sql = sql
        self.keys = keys
        self.convert = convert

    def documents(self, rows: Sequence[Row]) -> list[dict[str, Any]]:
        keys, convert = self.keys, self.convert
        docs = [dict(zip(keys, row, strict=True)) for row in rows]
        if convert:
            for doc, row in zip(docs, rows, strict=True):
                for index, fn in convert:
                    doc[keys[index]] = fn(row[index])
        return docs


class TypeReader:
    def __init__(self, ct: ContentType, dialect: str) -> None:
        self.ct = ct
        self.dialect = dialect
        self._selections: dict[tuple[str, ...] | None, Selection] = {}
        self._statements: dict[Any, str] = {}
        self.visible = [a for a in ct.scalar_attributes if not a.is_hidden]

    def selection(self, fields: list[str] | None, alias: str = "t") -> Selection:
        key = tuple(fields) if fields is not None else None
        found = self._selections.get(key)
        if found is not None:
            return found
        d = self.dialect
        ts: Callable[[str], str] = timestamp_expr if d == "postgres" else (lambda c: c)
        cols: list[str] = [f"{alias}.id", f"{alias}.document_id"]
        keys: list[str] = ["id", "documentId"]
        convert: list[tuple[int, Converter]] = []
        system = {
            "createdAt": "created_at",
            "updatedAt": "updated_at",
            "publishedAt": "published_at",
        }
        if fields is None:
            names = [a.name for a in self.visible] + list(system)
            if self.ct.localized:
                names.append("locale")
        else:
            names = list(fields)
        for name in names:
            attr = self.ct.attributes.get(name)
            if attr is not None:
                assert attr.column is not None
                cols.append(attr.kind.select_expr(f'{alias}."{attr.column}"', d))
                fn = attr.kind.output(d)
                if fn is not None:
                    convert.append((len(keys), fn))
            elif name in system:
                cols.append(ts(f"{alias}.{system[name]}"))
            elif name == "locale":
                cols.append(f"{alias}.locale")
            else:
                continue
            keys.append(name)
        sel = Selection(", ".join(cols), tuple(keys), tuple(convert))
        self._selections[key] = sel
        return sel

    def version_where(
        self, status: str, locale: str | None, alias: str = "t"
    ) -> tuple[list[str], list[Any]]:
        """Conditions choosing one version per document: status and locale."""
        parts: list[str] = []
        params: list[Any] = []
        if self.ct.draft_and_publish:
            parts.append(f"{alias}.published_at IS {'NOT ' if status == 'published' else ''}NULL")
        if self.ct.localized:
            parts.append(f"{alias}.locale = ?")
            params.append(locale)
        return parts, params

    def find_statements(self, spec: QuerySpec) -> tuple[str, list[Any], str, list[Any]]:
        """(page SQL, params, count SQL, params) for a find."""
        parts, params = self.version_where(spec.status, spec.locale)
        where_text, where_params = compile_where(spec.filters, self.dialect)
        if where_text:
            parts.append(where_text)
            params.extend(where_params)
        where = " AND ".join(parts)
        order = tuple((ref.column, desc) for ref, desc in spec.sort)
        key = ("find", tuple(spec.fields) if spec.fields is not None else None, where, order)
        page_sql = self._statements.get(key)
        if page_sql is None:
            sel = self.selection(spec.fields)
            page_sql = (
                f'SELECT {sel.sql} FROM "{self.ct.table}" t'
                + (f" WHERE {where}" if where else "")
                + f" ORDER BY {self._order(order)} LIMIT ? OFFSET ?"
            )
            self._statements[key] = page_sql
        count_key = ("count", where)
        count_sql = self._statements.get(count_key)
        if count_sql is None:
            count_sql = f'SELECT COUNT(*) FROM "{self.ct.table}" t' + (
                f" WHERE {where}" if where else ""
            )
            self._statements[count_key] = count_sql
        page = spec.pagination
        return page_sql, [*params, page.size, page.offset], count_sql, params

    def _order(self, order: tuple[tuple[str, bool], ...]) -> str:
        items = []
        for column, desc in order:
            direction = "DESC" if desc else "ASC"
            if self.dialect == "sqlite":
                # match PostgreSQL: NULLs sort as the largest values
                direction += " NULLS FIRST" if desc else " NULLS LAST"
            items.append(f't."{column}" {direction}')
        if not any(column == "id" for column, _ in order):
            items.append("t.id ASC")
        return ", ".join(items)

    def one_statement(
        self, fields: list[str] | None, status: str, locale: str | None
    ) -> tuple[str, list[Any]]:
        parts, params = self.version_where(status, locale)
        key = ("one", tuple(fields) if fields is not None else None, status, bool(locale))
        sql = self._statements.get(key)
        if sql is None:
            sel = self.selection(fields)
            where = " AND ".join(["t.document_id = ?", *parts])
            sql = f'SELECT {sel.sql} FROM "{self.ct.table}" t WHERE {where} LIMIT 1'
            self._statements[key] = sql
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
                f'SELECT {sel.sql} FROM "{self.ct.table}" t'
                + (" WHERE " + " AND ".join(parts) if parts else "")
                + " ORDER BY t.id LIMIT 1"
            )
            self._statements[key] = sql
        return sql, params
