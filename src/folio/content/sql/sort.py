"""ORDER BY terms: a document's own field, or the first related entry's field at the end
of a path of relations and components (`category.parent.name`, `seo.metaTitle`) as a
correlated subquery reading related rows in the read's status."""

from __future__ import annotations

from functools import lru_cache

from folio.content.query import SortKey
from folio.content.sql.joins import link_join, published
from folio.content.sql.layout import null_ordered
from folio.schema.model import ContentType


@lru_cache(maxsize=1024)
def sort_column(key: SortKey, status: str) -> str:
    """The sort key's value over the row `t`: a column name of the row, or a parenthesized
    expression (a related field's subquery, the text of a JSON field)."""
    if not key.steps:
        if key.field.kind.sorted_as_text:
            return f"({_value(key, 't')})"
        return key.field.column
    return _path_expr(key, 0, "t", status)


def _value(key: SortKey, alias: str) -> str:
    """The sorted field's value on the row `alias` (a JSON field's as text: PostgreSQL's
    json has no order)."""
    column = f'{alias}."{key.field.column}"'
    return f"CAST({column} AS TEXT)" if key.field.kind.sorted_as_text else column


def _path_expr(key: SortKey, depth: int, alias: str, status: str) -> str:
    if depth == len(key.steps):
        return _value(key, alias)
    schema, attr, target = key.steps[depth]
    x, link = f"x{depth}", f"l{depth}"
    join = link_join(schema, attr, target, link, x)
    inner = _path_expr(key, depth + 1, x, status)
    conds = join.correlated(alias)
    # a component's field name is written into the text: this subquery also sits in
    # ORDER BY terms whose parameters are bound elsewhere
    params = iter(join.params)
    conds += [c.replace("?", _literal(next(params))) if "?" in c else c for c in join.conds]
    if isinstance(target, ContentType) and target.draft_and_publish:
        conds.append(published(x, status))
    conds += join.versions(status)
    where = " AND ".join(conds)
    return f"(SELECT {inner} FROM {join.frm} WHERE {where} ORDER BY {join.order} LIMIT 1)"


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def sort_expr(column: str) -> str:
    """A sort key over the table alias `t`: a column, or an expression (a related field)."""
    return column if column.startswith("(") else f't."{column}"'


def order_term(ref: str, desc: bool, dialect: str, column: str) -> str:
    """One ORDER BY term for the sort key `column` (written `ref` in the statement), with
    PostgreSQL's NULL order (NULLs largest) on both databases. On SQLite a column is sorted
    by `(c IS NULL), c`, the key of its sort index; a related field's subquery says NULLS
    FIRST / LAST; `id` is never NULL."""
    direction = "DESC" if desc else "ASC"
    if dialect != "sqlite" or column == "id":
        return f"{ref} {direction}"
    if column.startswith("("):
        return f"{ref} {direction} " + ("NULLS FIRST" if desc else "NULLS LAST")
    return ", ".join(f"{part} {direction}" for part in null_ordered(ref))
