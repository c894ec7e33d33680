"""The base of attribute kinds: a kind owns, for its attribute types, the column type (of
its value family, which the database's dialect names through `ValueDialect`), the coercion
and validation of written values, the parsing of filter values, the families of filter
operators it accepts, and how stored values become JSON. One module per family of kinds;
`folio.schema.kinds` lists them by attribute type."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any, Protocol

import orjson

if TYPE_CHECKING:
    from folio.schema.model import Attribute

Converter = Callable[[Any], Any]


class ValueDialect(Protocol):
    """What a kind asks of the database it stores values in: column types and the forms
    of values, by value family ("boolean", "integer", "biginteger", "float", "decimal",
    "date", "datetime", "time", "json", "text", "string"). The store's dialects
    (`folio.store.dialects.base.Dialect`) implement it; the schema layer names only this."""

    @property
    def native_booleans(self) -> bool:
        """Booleans are bound and read as bool (else as 1 / 0)."""

    @property
    def text_temporals(self) -> bool:
        """Dates, times and timestamps are kept as the API's ISO text (the kinds format
        them before binding and parse them after reading)."""

    def column_type(self, family: str, length: int | None = None) -> str: ...

    def select_expr(self, family: str, column: str) -> str: ...

    def json_member(self, column: str) -> str: ...

    def output(self, family: str) -> Converter | None: ...

    def bind_datetime(self, value: datetime) -> Any: ...

    def bind_date(self, value: date) -> Any: ...

    def bind_time(self, value: time) -> Any: ...

    def bind_decimal(self, value: float) -> Any: ...

    def read_datetime(self, value: Any) -> Any: ...


# families of filter operators (the operator table names each operator's family)
ALL_FAMILIES = frozenset({"equal", "order", "set", "contains", "match", "null"})


class InvalidValue(ValueError):
    """A written value does not fit its attribute; the message is shown to the client.
    `path` and `value` point inside the value when the problem is nested."""

    def __init__(self, message: str, path: list[str] | None = None, value: Any = None) -> None:
        super().__init__(message)
        self.path = path
        self.value = value


def describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict | list):
        return orjson.dumps(value).decode()
    return str(value)


class Kind:
    """Base of every kind; scalar kinds have a column."""

    scalar = True
    label = "value"
    operator_families: frozenset[str] = ALL_FAMILIES
    sortable = True
    text_native = False  # text operators apply to the column without a cast
    sorted_as_text = False  # sorts by its stored text (PostgreSQL's json has no order)
    narrow = True  # values are small and bounded: numbers, dates, flags, short strings

    def is_narrow(self, attr: Attribute) -> bool:
        """Whether the attribute's values are small enough to sit in a scan index and at the
        front of a row (read by filters and sorts without touching the long values)."""
        return self.narrow

    def index_bytes(self, attr: Attribute) -> int:
        """The most bytes a narrow value can take in an index entry (PostgreSQL's index
        entries are bounded: covering indexes only carry what always fits)."""
        return 24

    def column_type(self, attr: Attribute, dialect: ValueDialect) -> str:
        raise NotImplementedError

    def check_options(self, attr: Attribute) -> list[str]:
        return []

    def type_error(self, attr: Attribute, value: Any) -> InvalidValue:
        return InvalidValue(
            f"{attr.name} must be a `{self.label}` type, but the final value was: "
            f"`{describe(value)}`."
        )

    def coerce(self, attr: Attribute, value: Any) -> Any:
        """Checks a written (JSON) value and returns its Python form."""
        raise NotImplementedError

    def to_db(self, value: Any, dialect: ValueDialect) -> Any:
        """Python form -> bound parameter."""
        return value

    def parse_filter(self, raw: Any) -> Any:
        """A filter operand from the query (string or JSON) -> its Python form."""
        raise NotImplementedError

    def from_db(self, attr: Attribute, value: Any, dialect: ValueDialect) -> Any:
        """A stored (non-NULL) value back to the Python form that `to_db` accepts."""
        return value

    def filter_param(self, value: Any, dialect: ValueDialect) -> Any:
        """A parsed filter operand -> bound parameter."""
        return self.to_db(value, dialect)

    def select_expr(self, column: str, dialect: ValueDialect) -> str:
        return column

    def member_expr(self, column: str, dialect: ValueDialect) -> str:
        """The value as a member of a JSON object the database builds (an event's entry
        written with its row, `Dialect.insert_with_event`): where the kind has no `output`
        converter, the selected value is already its JSON form."""
        return self.select_expr(column, dialect)

    def output(self, dialect: ValueDialect) -> Converter | None:
        """A function from the selected value to JSON, or None when it is already JSON."""
        return None

    def default_for(self, attr: Attribute) -> Any:
        return self.coerce(attr, attr.default)

    def widget(self, attr: Attribute) -> str:
        """The name of the admin panel's widget that edits the attribute's values."""
        return self.label
