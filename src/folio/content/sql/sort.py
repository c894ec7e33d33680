"""ORDER BY terms: a document's own field, or the first related entry's field at the end
of a path of relations and components (`category.parent.name`, `seo.metaTitle`) as a
correlated subquery reading related rows in the read's status."""

from __future__ import annotations

from functools import lru_cache

from folio.content.query import SortKey
from folio.content.sql.joins import link_join, published
from folio.schema.model import ContentType
from folio.store.dialects.base import Dialect


@lru_cache(maxsize=1024)
def sort_column(key: SortKey, status: str, d: Dialect) -> str:
    """The sort key's value over the row `t`: a column name of the row, or a parenthesized
    expression (a related field's subquery, the text of a JSON field)."""
    if not key.steps:
        if key.field.kind.sorted_as_text:
            return f"({_value(key, 't', d)})"
        return key.field.column
    return _path_expr(key, 0, "t", status, d)


def _value(key: SortKey, alias: str, d: Dialect) -> str:
    """The sorted field's value on the row `alias` (a JSON field's as text: PostgreSQL's
    json has no order)."""
    column = f"{alias}.{d.quote(key.field.column)}"
    return d.text_cast(column) if key.field.kind.sorted_as_text else column


def _path_expr(key: SortKey, depth: int, alias: str, status: str, d: Dialect) -> str:
    if depth == len(key.steps):
        return _value(key, alias, d)
    schema, attr, target = key.steps[depth]
    x, link = f"x{depth}", f"l{depth}"
    join = link_join(d, schema, attr, target, link, x)
    inner = _path_expr(key, depth + 1, x, status, d)
    conds = join.correlated(alias)
    # a component's field name is written into the text: this subquery also sits in
    # ORDER BY terms whose parameters are bound elsewhere
    params = iter(join.params)
    conds += [c.replace("?", d.literal(next(params))) if "?" in c else c for c in join.conds]
    if isinstance(target, ContentType) and target.draft_and_publish:
        conds.append(published(x, status))
    conds += join.versions(status)
    where = " AND ".join(conds)
    return f"(SELECT {inner} FROM {join.frm} WHERE {where} ORDER BY {join.order} LIMIT 1)"


def sort_expr(column: str, d: Dialect) -> str:
    """A sort key over the table alias `t`: a column, or an expression (a related field)."""
    return column if column.startswith("(") else f"t.{d.quote(column)}"


def order_term(ref: str, desc: bool, d: Dialect, column: str) -> str:
    """One ORDER BY term for the sort key `column` (written `ref` in the statement), with
    NULLs largest on every database (`Dialect.order_term`); `id` is never NULL."""
    if column == "id":
        return f"{ref} {'DESC' if desc else 'ASC'}"
    return d.order_term(ref, desc, column.startswith("("))
