"""Compiles filter trees to SQL WHERE text. The text depends only on the tree's shape (fields,
operators, list lengths) and is cached per shape; values always go as bound parameters."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from folio.content.spec import Cond, FieldRef, Group, Node, Rel
from folio.store.layout import target_join

Shape = tuple[Any, ...]

_SIMPLE = {"$eq": "=", "$ne": "<>", "$lt": "<", "$lte": "<=", "$gt": ">", "$gte": ">="}
_PATTERN_OPS = {
    # op: (sqlite operator, postgres operator, prefix wildcard, suffix wildcard, negated)
    "$contains": ("GLOB", "LIKE", True, True, False),
    "$notContains": ("GLOB", "LIKE", True, True, True),
    "$containsi": ("LIKE", "ILIKE", True, True, False),
    "$notContainsi": ("LIKE", "ILIKE", True, True, True),
    "$startsWith": ("GLOB", "LIKE", False, True, False),
    "$startsWithi": ("LIKE", "ILIKE", False, True, False),
    "$endsWith": ("GLOB", "LIKE", True, False, False),
    "$endsWithi": ("LIKE", "ILIKE", True, False, False),
    "$eqi": ("LIKE", "ILIKE", False, False, False),
    "$nei": ("LIKE", "ILIKE", False, False, True),
}


def shape_of(node: Node) -> Shape:
    if isinstance(node, Cond):
        n = len(node.value) if node.op in ("$in", "$notIn") else 0
        flag: bool | None = None
        if node.op in ("$null", "$notNull"):
            flag = bool(node.value)
        elif node.op in _PATTERN_OPS:
            # whether the LIKE pattern needs its escape character (SQLite's LIKE runs
            # measurably faster without an ESCAPE clause)
            flag = any(ch in _LIKE_SPECIAL for ch in str(node.value))
        return ("c", node.field, node.op, n, flag)
    if isinstance(node, Group):
        return ("g", node.op, tuple(shape_of(c) for c in node.children))
    if isinstance(node, Rel):
        return (
            "r",
            node.kind,
            node.link,
            node.target,
            node.target_dnp,
            node.target_localized,
            node.outer_localized,
            node.locale is not None,
            node.status,
            shape_of(node.child),
        )
    return ("n", shape_of(node.child))


def params_of(node: Node, shape: Shape, dialect: str, out: list[Any]) -> None:
    """The bound values of `node`, in the order `where_sql(shape)` places them (`shape` is
    `shape_of(node)`, walked alongside)."""
    if isinstance(node, Cond):
        op = node.op
        if op in ("$null", "$notNull"):
            return
        if op in ("$in", "$notIn", "$between"):
            out.extend(node.value)
            return
        pattern = _PATTERN_OPS.get(op)
        if pattern is not None:
            out.append(_pattern(str(node.value), dialect, pattern))
            return
        out.append(node.value)
    elif isinstance(node, Group):
        for child, child_shape in zip(node.children, shape[2], strict=True):
            params_of(child, child_shape, dialect, out)
    elif isinstance(node, Rel):
        own: list[Any] = []
        if node.kind == "component":
            own.append(node.field)
        elif node.kind == "inverse" and node.target_localized and node.locale is not None:
            own.append(node.locale)
        out.extend(own)
        params_of(node.child, shape[-1], dialect, out)
        if null_value(shape[-1]) is True:
            out.extend(own)  # the documents without any target
    else:
        params_of(node.child, shape[1], dialect, out)


_LIKE_SPECIAL = frozenset("\\%_")


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _escape_glob(text: str) -> str:
    return "".join(f"[{ch}]" if ch in "*?[" else ch for ch in text)


def _pattern(text: str, dialect: str, spec: tuple[str, str, bool, bool, bool]) -> str:
    sqlite_op, _, prefix, suffix, _ = spec
    if dialect == "sqlite" and sqlite_op == "GLOB":
        body, wild = _escape_glob(text), "*"
    else:
        body, wild = _escape_like(text), "%"
    return (wild if prefix else "") + body + (wild if suffix else "")


def _column(alias: str, ref: FieldRef, dialect: str, textual: bool) -> str:
    col = f'{alias}."{ref.column}"'
    if textual and not ref.kind.text_native:
        return f"CAST({col} AS TEXT)"
    return col


@lru_cache(maxsize=4096)
def where_sql(shape: Shape, dialect: str, alias: str) -> str:
    tag = shape[0]
    if tag == "g":
        joiner = f" {shape[1]} "
        return "(" + joiner.join(where_sql(s, dialect, alias) for s in shape[2]) + ")"
    if tag == "r":
        return _related_sql(shape, dialect, alias)
    if tag == "n":
        # plain SQL NOT: a row whose field is NULL matches neither a condition nor its
        # negation, as the reference answers
        return f"NOT ({where_sql(shape[1], dialect, alias)})"
    _, ref, op, n, flag = shape
    if op in ("$null", "$notNull"):
        is_null = _tests_null(op, flag)
        return f"{_column(alias, ref, dialect, False)} IS {'' if is_null else 'NOT '}NULL"
    if op in _SIMPLE:
        return f"{_column(alias, ref, dialect, False)} {_SIMPLE[op]} ?"
    if op in ("$in", "$notIn"):
        col = _column(alias, ref, dialect, False)
        if n == 0:
            return "1 = 0" if op == "$in" else f"{col} IS NOT NULL"
        marks = ", ".join("?" * n)
        return f"{col} {'IN' if op == '$in' else 'NOT IN'} ({marks})"
    if op == "$between":
        return f"{_column(alias, ref, dialect, False)} BETWEEN ? AND ?"
    sqlite_op, pg_op, _, _, negated = _PATTERN_OPS[op]
    col = _column(alias, ref, dialect, True)
    sql_op = sqlite_op if dialect == "sqlite" else pg_op
    escape = " ESCAPE '\\'" if sql_op in ("LIKE", "ILIKE") and flag else ""
    return f"{col} {'NOT ' if negated else ''}{sql_op} ?{escape}"


def _related_sql(shape: Shape, dialect: str, alias: str) -> str:
    """A semi-join written as an uncorrelated `IN (subquery)`: both databases evaluate it
    once per statement instead of once per row."""
    (
        _,
        kind,
        link,
        target,
        target_dnp,
        target_localized,
        outer_localized,
        has_locale,
        status,
        child,
    ) = shape
    inner = alias + "x"
    lnk = alias + "l"
    conds: list[str] = []
    if kind == "component":
        frm = f'"{link}" {lnk} JOIN "{target}" {inner} ON {inner}.id = {lnk}.cmp_id'
        conds.append(f"{lnk}.field = ?")
        head, picked = f"{alias}.id", f"{lnk}.entity_id"
    elif kind == "owner":
        on = target_join(lnk, inner, target_localized)
        frm = f'"{link}" {lnk} JOIN "{target}" {inner} ON {on}'
        head, picked = f"{alias}.id", f"{lnk}.source_id"
    else:
        frm = f'"{link}" {lnk} JOIN "{target}" {inner} ON {inner}.id = {lnk}.source_id'
        if outer_localized:
            head = f"({alias}.document_id, {alias}.locale)"
            picked = f"{lnk}.target_document_id, {lnk}.target_locale"
        else:
            head, picked = f"{alias}.document_id", f"{lnk}.target_document_id"
            conds.append(f"{lnk}.target_locale IS NULL")
        if target_localized and has_locale:
            conds.append(f"{inner}.locale = ?")
    if kind != "component" and target_dnp:
        conds.append(f"{inner}.published_at IS {'NOT ' if status == 'published' else ''}NULL")
    matching = " AND ".join([*conds, where_sql(child, dialect, inner)])
    matched = f"{head} IN (SELECT {picked} FROM {frm} WHERE {matching})"
    if null_value(child) is not True:
        return matched
    # a condition that holds on a missing target (`$null`) also holds for documents that
    # have none (the reference joins relations with LEFT JOIN)
    where = f" WHERE {' AND '.join(conds)}" if conds else ""
    return f"({matched} OR {head} NOT IN (SELECT {picked} FROM {frm}{where}))"


def _tests_null(op: str, flag: bool) -> bool:
    """Whether `$null: flag` / `$notNull: flag` asks for `IS NULL` (else `IS NOT NULL`)."""
    return flag if op == "$null" else not flag


def null_value(shape: Shape) -> bool | None:
    """The value of a condition on a missing row (every field NULL), in SQL's three-valued
    logic: True, False or None (unknown)."""
    tag = shape[0]
    if tag == "c":
        _, _, op, n, flag = shape
        if op in ("$null", "$notNull"):
            return _tests_null(op, flag)
        return False if op == "$in" and n == 0 else None
    if tag == "g":
        values = [null_value(s) for s in shape[2]]
        if shape[1] == "AND":
            if False in values:
                return False
            return True if all(v is True for v in values) else None
        if True in values:
            return True
        return False if all(v is False for v in values) else None
    if tag == "n":
        value = null_value(shape[1])
        return None if value is None else not value
    return null_value(shape[-1])  # a nested relation: missing as well


def compile_where(node: Node | None, dialect: str, alias: str = "t") -> tuple[str, list[Any]]:
    if node is None:
        return "", []
    params: list[Any] = []
    shape = shape_of(node)
    params_of(node, shape, dialect, params)
    return where_sql(shape, dialect, alias), params
