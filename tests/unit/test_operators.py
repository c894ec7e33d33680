"""The operator table, one row per operator: how the parser reads an operand and what the
planner writes for it on each dialect, with its bound value and its value on a NULL
field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from folio.content.filters import FilterParser
from folio.content.sql.operators import OPERATORS
from folio.content.sql.where import compile_where, null_value, shape_of
from folio.errors import ValidationError
from folio.schema.loader import load_registry
from folio.store.dialects.postgres import POSTGRES
from folio.store.dialects.sqlite import SQLITE

REGISTRY = load_registry(Path(__file__).parents[1] / "fixtures" / "blog")
ARTICLE = REGISTRY.content_types["api::article.article"]

# (operator, operand, sqlite (sql, params), postgres (sql, params), value on a NULL field)
TITLE = 't."title"'
# an ASCII pattern's case-insensitive match on PostgreSQL (operators.ascii_folds)
FOLD = f'lower(({TITLE}) COLLATE "C")'
ROWS: list[tuple[str, Any, tuple[str, list[Any]], tuple[str, list[Any]], bool | None]] = [
    ("$eq", "a", (f"{TITLE} = ?", ["a"]), (f"{TITLE} = ?", ["a"]), None),
    ("$ne", "a", (f"{TITLE} <> ?", ["a"]), (f"{TITLE} <> ?", ["a"]), None),
    ("$lt", "a", (f"{TITLE} < ?", ["a"]), (f"{TITLE} < ?", ["a"]), None),
    ("$lte", "a", (f"{TITLE} <= ?", ["a"]), (f"{TITLE} <= ?", ["a"]), None),
    ("$gt", "a", (f"{TITLE} > ?", ["a"]), (f"{TITLE} > ?", ["a"]), None),
    ("$gte", "a", (f"{TITLE} >= ?", ["a"]), (f"{TITLE} >= ?", ["a"]), None),
    (
        "$in",
        ["a", "b"],
        (f"{TITLE} IN (?, ?)", ["a", "b"]),
        (f"{TITLE} IN (?, ?)", ["a", "b"]),
        None,
    ),
    ("$in", [], ("1 = 0", []), ("1 = 0", []), False),
    ("$notIn", ["a"], (f"{TITLE} NOT IN (?)", ["a"]), (f"{TITLE} NOT IN (?)", ["a"]), None),
    ("$notIn", [], (f"{TITLE} IS NOT NULL", []), (f"{TITLE} IS NOT NULL", []), None),
    (
        "$between",
        ["a", "c"],
        (f"{TITLE} BETWEEN ? AND ?", ["a", "c"]),
        (f"{TITLE} BETWEEN ? AND ?", ["a", "c"]),
        None,
    ),
    ("$null", "true", (f"{TITLE} IS NULL", []), (f"{TITLE} IS NULL", []), True),
    ("$null", "false", (f"{TITLE} IS NOT NULL", []), (f"{TITLE} IS NOT NULL", []), False),
    ("$notNull", "true", (f"{TITLE} IS NOT NULL", []), (f"{TITLE} IS NOT NULL", []), False),
    ("$notNull", "false", (f"{TITLE} IS NULL", []), (f"{TITLE} IS NULL", []), True),
    ("$eqi", "Ab", (f"{TITLE} LIKE ?", ["Ab"]), (f"{FOLD} LIKE ?", ["ab"]), None),
    (
        "$nei",
        "Ab",
        (f"{TITLE} NOT LIKE ?", ["Ab"]),
        (f"{FOLD} NOT LIKE ?", ["ab"]),
        None,
    ),
    ("$contains", "a*b", (f"{TITLE} GLOB ?", ["*a[*]b*"]), (f"{TITLE} LIKE ?", ["%a*b%"]), None),
    (
        "$notContains",
        "ab",
        (f"{TITLE} NOT GLOB ?", ["*ab*"]),
        (f"{TITLE} NOT LIKE ?", ["%ab%"]),
        None,
    ),
    (
        "$containsi",
        "a_b",
        (f"{TITLE} LIKE ? ESCAPE '\\'", ["%a\\_b%"]),
        (f"{FOLD} LIKE ? ESCAPE '\\'", ["%a\\_b%"]),
        None,
    ),
    (
        "$notContainsi",
        "ab",
        (f"{TITLE} NOT LIKE ?", ["%ab%"]),
        (f"{FOLD} NOT LIKE ?", ["%ab%"]),
        None,
    ),
    ("$startsWith", "ab", (f"{TITLE} GLOB ?", ["ab*"]), (f"{TITLE} LIKE ?", ["ab%"]), None),
    (
        "$startsWithi",
        "a%",
        (f"{TITLE} LIKE ? ESCAPE '\\'", ["a\\%%"]),
        (f"{FOLD} LIKE ? ESCAPE '\\'", ["a\\%%"]),
        None,
    ),
    ("$endsWith", "a?", (f"{TITLE} GLOB ?", ["*a[?]"]), (f"{TITLE} LIKE ?", ["%a?"]), None),
    (
        "$endsWithi",
        "ab",
        (f"{TITLE} LIKE ?", ["%ab"]),
        (f"{FOLD} LIKE ?", ["%ab"]),
        None,
    ),
    # patterns that ASCII case folding does not serve: non-ASCII letters, and `i` and `k`
    # (the lowercase of U+0130 and of the Kelvin sign)
    (
        "$containsi",
        "Été",
        (f"{TITLE} LIKE ?", ["%Été%"]),
        (f"lower({TITLE}) LIKE lower(?)", ["%Été%"]),
        None,
    ),
    (
        "$containsi",
        "Kit",
        (f"{TITLE} LIKE ?", ["%Kit%"]),
        (f"lower({TITLE}) LIKE lower(?)", ["%Kit%"]),
        None,
    ),
]


def test_every_operator_has_a_row() -> None:
    assert {row[0] for row in ROWS} == set(OPERATORS)


@pytest.mark.parametrize(("op", "operand", "sqlite", "postgres", "on_null"), ROWS)
def test_operator(
    op: str,
    operand: Any,
    sqlite: tuple[str, list[Any]],
    postgres: tuple[str, list[Any]],
    on_null: bool | None,
) -> None:
    node = FilterParser(REGISTRY).parse(ARTICLE, {"title": {op: operand}})
    assert node is not None
    assert compile_where(node, SQLITE) == sqlite
    assert compile_where(node, POSTGRES) == postgres
    assert null_value(shape_of(node, "published", False)) is on_null


# values are parsed by the field's kind, then bound in each dialect's form
@pytest.mark.parametrize(
    ("field", "operand", "sqlite", "postgres"),
    [
        ("views", "10", 10, 10),
        ("views", "1e1", 10, 10),
        ("featured", "true", 1, True),
        ("score", "1.5", 1.5, 1.5),
        ("publishDate", "2024-01-02", "2024-01-02", __import__("datetime").date(2024, 1, 2)),
    ],
)
def test_values_are_bound_in_the_dialects_form(
    field: str, operand: str, sqlite: Any, postgres: Any
) -> None:
    node = FilterParser(REGISTRY).parse(ARTICLE, {field: {"$eq": operand}})
    assert compile_where(node, SQLITE)[1] == [sqlite]
    assert compile_where(node, POSTGRES)[1] == [postgres]


def test_text_operators_cast_other_kinds_to_text() -> None:
    node = FilterParser(REGISTRY).parse(ARTICLE, {"views": {"$startsWith": "1"}})
    assert compile_where(node, SQLITE) == ('CAST(t."views" AS TEXT) GLOB ?', ["1*"])
    assert compile_where(node, POSTGRES) == ('CAST(t."views" AS TEXT) LIKE ?', ["1%"])


@pytest.mark.parametrize(
    ("field", "op", "operand", "message"),
    [
        ("featured", "$lt", "maybe", "Invalid value"),
        ("meta", "$startsWith", "a", "Invalid key $startsWith at meta"),
        ("views", "$between", ["1"], "expected two values"),
        ("views", "$eq", "ten", "Invalid value"),
        ("title", "$null", "maybe", "expected true or false"),
        ("title", "$like", "a", "Invalid key $like at title"),
    ],
)
def test_the_parser_refuses_what_the_table_and_kinds_do_not_allow(
    field: str, op: str, operand: Any, message: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        FilterParser(REGISTRY).parse(ARTICLE, {field: {op: operand}})
    assert message in str(caught.value)
