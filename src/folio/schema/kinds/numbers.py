"""Number kinds: integer, biginteger, float and decimal."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from folio.schema import values as V
from folio.schema.kinds.base import Converter, InvalidValue, Kind, ValueDialect, describe

if TYPE_CHECKING:
    from folio.schema.model import Attribute


class IntegerKind(Kind):
    label = "integer"

    def __init__(self, big: bool = False) -> None:
        self.big = big
        self.bounds = V.INT64 if big else V.INT32
        self.label = "biginteger" if big else "integer"
        self.family = self.label

    def column_type(self, attr: Attribute, dialect: ValueDialect) -> str:
        return dialect.column_type(self.family)

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

    def select_expr(self, column: str, dialect: ValueDialect) -> str:
        # a big integer is written to JSON as a string
        return dialect.select_expr(self.family, column)

    def output(self, dialect: ValueDialect) -> Converter | None:
        return dialect.output(self.family)


def _parse_number(attr: Attribute, value: Any) -> float:
    try:
        return V.parse_float(value)
    except ValueError:
        shown = f" (cast from the value `{describe(value)}`)" if value is not None else ""
        final = "null" if value is None else "NaN"
        raise InvalidValue(
            f"{attr.name} must be a `number` type, but the final value was: `{final}`{shown}."
        ) from None


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
        self.family = "decimal" if decimal else "float"

    def widget(self, attr: Attribute) -> str:
        return "decimal" if self.decimal else "float"

    def column_type(self, attr: Attribute, dialect: ValueDialect) -> str:
        return dialect.column_type(self.family)

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

    def to_db(self, value: Any, dialect: ValueDialect) -> Any:
        if self.decimal and value is not None:
            return dialect.bind_decimal(value)
        return value

    def parse_filter(self, raw: Any) -> Any:
        return V.parse_float(raw)

    def select_expr(self, column: str, dialect: ValueDialect) -> str:
        # a decimal is written to JSON as a number
        return dialect.select_expr(self.family, column)

    def output(self, dialect: ValueDialect) -> Converter | None:
        return dialect.output(self.family)
