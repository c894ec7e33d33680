"""Attribute kinds: one class per family of attribute types.

A kind owns, for its attribute types: the column type on each dialect, the coercion and
validation of written values, the parsing of filter values, the filter operators it accepts,
and how stored values become JSON."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, time
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import orjson

from folio.schema import values as V

if TYPE_CHECKING:
    from folio.schema.model import Attribute

Converter = Callable[[Any], Any]

# families of filter operators (the operator table names each operator's family)
ALL_FAMILIES = frozenset({"equal", "order", "set", "contains", "match", "null"})

SHORT_STRINGS = frozenset({"string", "email", "uid"})
EMAIL_RE = re.compile(r"^[^\s@]+@[^\s@]+\.[^\s@]+$")
UID_RE = re.compile(r"^[A-Za-z0-9\-_.~]*$")


class InvalidValue(ValueError):
    """A written value does not fit its attribute; the message is shown to the client.
    `path` and `value` point inside the value when the problem is nested."""

    def __init__(self, message: str, path: list[str] | None = None, value: Any = None) -> None:
        super().__init__(message)
        self.path = path
        self.value = value


def _describe(value: Any) -> str:
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
    narrow = True  # values are small and bounded: numbers, dates, flags, short strings

    def is_narrow(self, attr: Attribute) -> bool:
        """Whether the attribute's values are small enough to sit in a scan index and at the
        front of a row (read by filters and sorts without touching the long values)."""
        return self.narrow

    def column_type(self, attr: Attribute, dialect: str) -> str:
        raise NotImplementedError

    def check_options(self, attr: Attribute) -> list[str]:
        return []

    def type_error(self, attr: Attribute, value: Any) -> InvalidValue:
        return InvalidValue(
            f"{attr.name} must be a `{self.label}` type, but the final value was: "
            f"`{_describe(value)}`."
        )

    def coerce(self, attr: Attribute, value: Any) -> Any:
        """Checks a written (JSON) value and returns its Python form."""
        raise NotImplementedError

    def to_db(self, value: Any, dialect: str) -> Any:
        """Python form -> bound parameter."""
        return value

    def parse_filter(self, raw: Any) -> Any:
        """A filter operand from the query (string or JSON) -> its Python form."""
        raise NotImplementedError

    def filter_param(self, value: Any, dialect: str) -> Any:
        """A parsed filter operand -> bound parameter."""
        return self.to_db(value, dialect)

    def select_expr(self, column: str, dialect: str) -> str:
        return column

    def output(self, dialect: str) -> Converter | None:
        """A function from the selected value to JSON, or None when it is already JSON."""
        return None

    def default_for(self, attr: Attribute) -> Any:
        return self.coerce(attr, attr.default)


class StringKind(Kind):
    label = "string"
    text_native = True

    def is_narrow(self, attr: Attribute) -> bool:
        if attr.type == "enumeration":
            return True
        if attr.type not in SHORT_STRINGS:
            return False  # text, richtext, password: unbounded
        return attr.max_length is None or attr.max_length <= 255

    def column_type(self, attr: Attribute, dialect: str) -> str:
        return "TEXT"

    def check_options(self, attr: Attribute) -> list[str]:
        problems = []
        for key in ("minLength", "maxLength"):
            if key in attr.raw and (
                not isinstance(attr.raw[key], int)
                or isinstance(attr.raw[key], bool)
                or attr.raw[key] < 0
            ):
                problems.append(f"`{key}` must be a non-negative integer")
        if "regex" in attr.raw:
            try:
                re.compile(str(attr.raw["regex"]))
            except re.error as exc:
                problems.append(f"`regex` is not a valid regular expression ({exc})")
        if attr.type == "enumeration":
            enum = attr.raw.get("enum")
            if not isinstance(enum, list) or not enum or not all(isinstance(e, str) for e in enum):
                problems.append("`enum` must be a non-empty list of strings")
        if (
            attr.type == "uid"
            and attr.target_field is not None
            and not isinstance(attr.target_field, str)
        ):
            problems.append("`targetField` must be a string")
        return problems

    def coerce(self, attr: Attribute, value: Any) -> Any:
        if not isinstance(value, str):
            raise self.type_error(attr, value)
        text = value
        if attr.type == "email" and text == "":
            raise InvalidValue(f"{attr.name} cannot be empty")
        limit = attr.max_length
        if limit is None and attr.type in SHORT_STRINGS:
            limit = 255
        if limit is not None and len(text) > limit:
            raise InvalidValue(f"{attr.name} must be at most {limit} characters")
        if (
            attr.min_length is not None
            and len(text) < attr.min_length
            and (attr.required or text != "")
        ):
            raise InvalidValue(f"{attr.name} must be at least {attr.min_length} characters")
        if attr.regex is not None and text != "" and not attr.regex.search(text):
            raise InvalidValue(f'{attr.name} must match the following: "/{attr.regex.pattern}/"')
        if attr.type == "email" and text != "" and not EMAIL_RE.match(text):
            raise InvalidValue(f"{attr.name} must be a valid email")
        if attr.type == "uid" and not UID_RE.match(text):
            raise InvalidValue(f'{attr.name} must match the following: "/^[A-Za-z0-9-_.~]*$/"')
        if attr.type == "enumeration" and text not in attr.enum:
            # the reference lists null among the allowed values of an optional enumeration
            allowed = ", ".join(attr.enum) + ("" if attr.required else ", ")
            raise InvalidValue(f"{attr.name} must be one of the following values: {allowed}")
        return text

    def parse_filter(self, raw: Any) -> Any:
        if isinstance(raw, bool):
            return "true" if raw else "false"
        if isinstance(raw, int | float):
            return str(raw)
        if not isinstance(raw, str):
            raise ValueError("not a string")
        return raw


class IntegerKind(Kind):
    label = "integer"

    def __init__(self, big: bool = False) -> None:
        self.big = big
        self.bounds = V.INT64 if big else V.INT32
        self.label = "biginteger" if big else "integer"

    def column_type(self, attr: Attribute, dialect: str) -> str:
        if dialect == "postgres":
            return "BIGINT" if self.big else "INTEGER"
        return "INTEGER"

    def check_options(self, attr: Attribute) -> list[str]:
        return _check_min_max(attr)

    def coerce(self, attr: Attribute, value: Any) -> Any:
        if self.big:
            try:
                number = V.parse_int(value, self.bounds)
            except ValueError:
                raise InvalidValue(f"{attr.name} must be a valid integer") from None
        else:
            parsed = _parse_number(attr, value)
            if not parsed.is_integer():
                raise InvalidValue(f"{attr.name} must be an integer")
            number = int(parsed)
            if not self.bounds[0] <= number <= self.bounds[1]:
                raise InvalidValue(
                    f"{attr.name} must be between {self.bounds[0]} and {self.bounds[1]}"
                )
        _check_range(attr, number)
        return number

    def parse_filter(self, raw: Any) -> Any:
        try:
            return V.parse_int(raw, self.bounds)
        except ValueError:
            # `10.0`, `1e1`: integral numbers written otherwise
            number = V.parse_float(raw)
            if not number.is_integer():
                raise ValueError("not an integer") from None
            return V.parse_int(int(number), self.bounds)

    def select_expr(self, column: str, dialect: str) -> str:
        if self.big and dialect == "postgres":
            return f"{column}::text"
        return column

    def output(self, dialect: str) -> Converter | None:
        if self.big and dialect == "sqlite":
            return _str_or_none
        return None


def _parse_number(attr: Attribute, value: Any) -> float:
    try:
        return V.parse_float(value)
    except ValueError:
        shown = f" (cast from the value `{_describe(value)}`)" if value is not None else ""
        final = "null" if value is None else "NaN"
        raise InvalidValue(
            f"{attr.name} must be a `number` type, but the final value was: `{final}`{shown}."
        ) from None


def _str_or_none(value: Any) -> Any:
    return None if value is None else str(value)


def _check_min_max(attr: Attribute) -> list[str]:
    problems = []
    for key in ("min", "max"):
        if key in attr.raw and (
            not isinstance(attr.raw[key], int | float) or isinstance(attr.raw[key], bool)
        ):
            problems.append(f"`{key}` must be a number")
    return problems


def _check_range(attr: Attribute, number: float | int | Decimal) -> None:
    if attr.minimum is not None and number < attr.minimum:
        raise InvalidValue(f"{attr.name} must be greater than or equal to {_num(attr.minimum)}")
    if attr.maximum is not None and number > attr.maximum:
        raise InvalidValue(f"{attr.name} must be less than or equal to {_num(attr.maximum)}")


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


class FloatKind(Kind):
    label = "number"

    def __init__(self, decimal: bool = False) -> None:
        self.decimal = decimal

    def column_type(self, attr: Attribute, dialect: str) -> str:
        if dialect == "postgres":
            return "NUMERIC(10, 2)" if self.decimal else "DOUBLE PRECISION"
        return "REAL"

    def check_options(self, attr: Attribute) -> list[str]:
        return _check_min_max(attr)

    def coerce(self, attr: Attribute, value: Any) -> Any:
        number = _parse_number(attr, value)
        _check_range(attr, number)
        if self.decimal and abs(round(number, 2)) >= 1e8:
            raise InvalidValue(f"{attr.name} must have at most 8 digits before the decimal point")
        if self.decimal:
            return round(number, 2)
        return number

    def to_db(self, value: Any, dialect: str) -> Any:
        if self.decimal and dialect == "postgres" and value is not None:
            return Decimal(repr(value))
        return value

    def parse_filter(self, raw: Any) -> Any:
        return V.parse_float(raw)

    def select_expr(self, column: str, dialect: str) -> str:
        if self.decimal and dialect == "postgres":
            return f"{column}::float8"
        return column


class BooleanKind(Kind):
    label = "boolean"
    operator_families = ALL_FAMILIES - {"order"}

    def column_type(self, attr: Attribute, dialect: str) -> str:
        return "BOOLEAN"

    def coerce(self, attr: Attribute, value: Any) -> Any:
        if isinstance(value, bool):
            return value
        if value in (0, 1) and isinstance(value, int):
            return bool(value)
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise self.type_error(attr, value)

    def to_db(self, value: Any, dialect: str) -> Any:
        if dialect == "sqlite" and value is not None:
            return 1 if value else 0
        return value

    def parse_filter(self, raw: Any) -> Any:
        return V.parse_bool(raw)

    def output(self, dialect: str) -> Converter | None:
        return _to_bool if dialect == "sqlite" else None


def _to_bool(value: Any) -> Any:
    return None if value is None else bool(value)


class DateKind(Kind):
    label = "date"

    def column_type(self, attr: Attribute, dialect: str) -> str:
        return "DATE" if dialect == "postgres" else "TEXT"

    def coerce(self, attr: Attribute, value: Any) -> Any:
        try:
            return V.parse_date(value)
        except (ValueError, OverflowError) as exc:
            raise InvalidValue(str(exc)) from None

    def to_db(self, value: Any, dialect: str) -> Any:
        if dialect == "sqlite" and isinstance(value, date):
            return value.isoformat()
        return value

    def parse_filter(self, raw: Any) -> Any:
        return V.parse_date(raw)

    def select_expr(self, column: str, dialect: str) -> str:
        if dialect == "postgres":
            return f"to_char({column}, 'YYYY-MM-DD')"
        return column


class DateTimeKind(Kind):
    label = "datetime"

    def column_type(self, attr: Attribute, dialect: str) -> str:
        return "TIMESTAMPTZ(3)" if dialect == "postgres" else "TEXT"

    def coerce(self, attr: Attribute, value: Any) -> Any:
        try:
            return V.parse_datetime(value)
        except (ValueError, OverflowError) as exc:
            raise InvalidValue(str(exc)) from None

    def to_db(self, value: Any, dialect: str) -> Any:
        if dialect == "sqlite" and isinstance(value, datetime):
            return V.format_datetime(value)
        return value

    def parse_filter(self, raw: Any) -> Any:
        return V.parse_datetime(raw)

    def select_expr(self, column: str, dialect: str) -> str:
        if dialect == "postgres":
            return timestamp_expr(column)
        return column


def timestamp_expr(column: str) -> str:
    return f"to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"


class TimeKind(Kind):
    label = "time"

    def column_type(self, attr: Attribute, dialect: str) -> str:
        return "TIME" if dialect == "postgres" else "TEXT"

    def coerce(self, attr: Attribute, value: Any) -> Any:
        try:
            return V.parse_time(value)
        except ValueError as exc:
            raise InvalidValue(str(exc)) from None

    def to_db(self, value: Any, dialect: str) -> Any:
        if dialect == "sqlite" and isinstance(value, time):
            return V.format_time(value)
        return value

    def parse_filter(self, raw: Any) -> Any:
        return V.parse_time(raw)

    def select_expr(self, column: str, dialect: str) -> str:
        if dialect == "postgres":
            return f"{column}::text"
        return column


class JsonKind(Kind):
    label = "json"
    narrow = False
    operator_families = frozenset({"null", "contains"})

    def column_type(self, attr: Attribute, dialect: str) -> str:
        return "JSONB" if dialect == "postgres" else "TEXT"

    def coerce(self, attr: Attribute, value: Any) -> Any:
        return value

    def to_db(self, value: Any, dialect: str) -> Any:
        if value is None:
            return None
        return orjson.dumps(value).decode()

    def filter_param(self, value: Any, dialect: str) -> Any:
        return value  # compared with the stored JSON text

    def parse_filter(self, raw: Any) -> Any:
        if not isinstance(raw, str):
            return orjson.dumps(raw).decode()
        return raw

    def select_expr(self, column: str, dialect: str) -> str:
        if dialect == "postgres":
            return f"{column}::text"
        return column

    def output(self, dialect: str) -> Converter | None:
        return _json_fragment


def _json_fragment(value: Any) -> Any:
    return None if value is None else orjson.Fragment(value)


BLOCK_TYPES = frozenset({"paragraph", "heading", "quote", "list", "image", "code"})


class BlocksKind(JsonKind):
    label = "blocks"

    def coerce(self, attr: Attribute, value: Any) -> Any:
        if not isinstance(value, list):
            raise InvalidValue(f"{attr.name} must be an array of blocks")
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


class LinkKind(Kind):
    """Relations, media, components and dynamic zones: stored in link tables, not columns."""

    scalar = False
    narrow = False
    operator_families: frozenset[str] = frozenset()
    sortable = False

    def __init__(self, label: str) -> None:
        self.label = label

    def column_type(self, attr: Attribute, dialect: str) -> str:  # pragma: no cover
        raise TypeError("link kinds have no column")


KINDS: dict[str, Kind] = {
    "string": StringKind(),
    "text": StringKind(),
    "richtext": StringKind(),
    "email": StringKind(),
    "password": StringKind(),
    "uid": StringKind(),
    "enumeration": StringKind(),
    "integer": IntegerKind(),
    "biginteger": IntegerKind(big=True),
    "float": FloatKind(),
    "decimal": FloatKind(decimal=True),
    "boolean": BooleanKind(),
    "date": DateKind(),
    "datetime": DateTimeKind(),
    "timestamp": DateTimeKind(),
    "time": TimeKind(),
    "json": JsonKind(),
    "blocks": BlocksKind(),
    "relation": LinkKind("relation"),
    "media": LinkKind("media"),
    "component": LinkKind("component"),
    "dynamiczone": LinkKind("dynamiczone"),
}

# System fields that every content type has, with the kind used to filter and sort them.
ID_KIND = IntegerKind(big=False)
DOCUMENT_ID_KIND = StringKind()
TIMESTAMP_KIND = DateTimeKind()
