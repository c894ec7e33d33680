"""JSON kinds: json and blocks (rich text as blocks), stored as JSON text.

PostgreSQL keeps them in `json` columns, not `jsonb`: a value is read back as the text that
was written (what SQLite does too), so a read passes it through instead of printing it from
jsonb's binary form; that printing cost PostgreSQL about 8 us per row of an 800-character
rich text, 40% of a 25-article page's CPU. Nothing in Folio queries into a stored value
(its filters are null tests and substring matches on the text), which is what jsonb is for."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from folio.schema.kinds.base import Converter, InvalidValue, Kind, ValueDialect

if TYPE_CHECKING:
    from folio.schema.model import Attribute


# the deepest nesting a stored JSON value may have (the serializer's own limit is 254)
MAX_DEPTH = 250


def nesting(value: Any, limit: int) -> int:
    """How deeply `value` nests arrays and objects, counted up to `limit + 1` (iteratively:
    a value nested thousands of levels deep must not exhaust the stack)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                return deepest
        stack.extend((child, depth) for child in children)
    return deepest


def _check_depth(attr: Attribute, value: Any) -> None:
    if nesting(value, MAX_DEPTH) > MAX_DEPTH:
        raise InvalidValue(f"{attr.name} is nested too deeply (at most {MAX_DEPTH} levels)")


class JsonKind(Kind):
    label = "json"
    narrow = False
    sorted_as_text = True
    operator_families = frozenset({"null", "contains"})

    def column_type(self, attr: Attribute, dialect: ValueDialect) -> str:
        return dialect.column_type("json")

    def coerce(self, attr: Attribute, value: Any) -> Any:
        _check_depth(attr, value)
        return value

    def to_db(self, value: Any, dialect: ValueDialect) -> Any:
        if value is None:
            return None
        return orjson.dumps(value).decode()

    def from_db(self, attr: Attribute, value: Any, dialect: ValueDialect) -> Any:
        return orjson.loads(value) if isinstance(value, str) else value

    def filter_param(self, value: Any, dialect: ValueDialect) -> Any:
        return value  # compared with the stored JSON text

    def parse_filter(self, raw: Any) -> Any:
        if not isinstance(raw, str):
            return orjson.dumps(raw).decode()
        return raw

    def select_expr(self, column: str, dialect: ValueDialect) -> str:
        # the stored text, as written
        return dialect.select_expr("json", column)

    def member_expr(self, column: str, dialect: ValueDialect) -> str:
        # the stored JSON itself, not its text as a string
        return dialect.json_member(column)

    def output(self, dialect: ValueDialect) -> Converter | None:
        text = dialect.output("json")
        if text is None:
            return _json_fragment
        return lambda value: _json_fragment(text(value))


def _json_fragment(value: Any) -> Any:
    return None if value is None else orjson.Fragment(value)


BLOCK_TYPES = frozenset({"paragraph", "heading", "quote", "list", "image", "code"})


class BlocksKind(JsonKind):
    label = "blocks"

    def coerce(self, attr: Attribute, value: Any) -> Any:
        if not isinstance(value, list):
            raise InvalidValue(f"{attr.name} must be an array of blocks")
        _check_depth(attr, value)
        for i, block in enumerate(value):
            if not isinstance(block, dict) or block.get("type") not in BLOCK_TYPES:
                raise InvalidValue("Block node is of invalid type", [attr.name, str(i)], block)
            if not isinstance(block.get("children"), list):
                raise InvalidValue(
                    f"{attr.name}[{i}].children is a required field",
                    [attr.name, str(i), "children"],
                    block.get("children"),
                )
        return value
