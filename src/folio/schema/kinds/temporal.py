"""Date and time kinds: date, datetime and timestamp, time.

Where the database keeps them as the API's ISO text (`text_temporals`: SQLite), the kinds
format them before binding and parse them after reading; elsewhere the driver takes and
gives date, datetime and time objects (in the forms the dialect's `bind_*` and
`read_datetime` make), and the dialect's `select_expr` reads them as the API's text."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any

from folio.schema import values as V
from folio.schema.kinds.base import Converter, InvalidValue, Kind, ValueDialect

if TYPE_CHECKING:
    from folio.schema.model import Attribute


class DateKind(Kind):
    label = "date"

    def column_type(self, attr: Attribute, dialect: ValueDialect) -> str:
        return dialect.column_type("date")

    def coerce(self, attr: Attribute, value: Any) -> Any:
        try:
            return V.parse_date(value)
        except (ValueError, OverflowError) as exc:
            raise InvalidValue(str(exc)) from None

    def from_db(self, attr: Attribute, value: Any, dialect: ValueDialect) -> Any:
        return self.coerce(attr, value) if dialect.text_temporals else value

    def to_db(self, value: Any, dialect: ValueDialect) -> Any:
        if isinstance(value, date):
            return value.isoformat() if dialect.text_temporals else dialect.bind_date(value)
        return value

    def parse_filter(self, raw: Any) -> Any:
        return V.parse_date(raw)

    def select_expr(self, column: str, dialect: ValueDialect) -> str:
        return dialect.select_expr("date", column)

    def output(self, dialect: ValueDialect) -> Converter | None:
        return dialect.output("date")


class DateTimeKind(Kind):
    label = "datetime"

    def column_type(self, attr: Attribute, dialect: ValueDialect) -> str:
        return dialect.column_type("datetime")

    def coerce(self, attr: Attribute, value: Any) -> Any:
        try:
            return V.parse_datetime(value)
        except (ValueError, OverflowError) as exc:
            raise InvalidValue(str(exc)) from None

    def from_db(self, attr: Attribute, value: Any, dialect: ValueDialect) -> Any:
        if dialect.text_temporals:
            return self.coerce(attr, value)
        return dialect.read_datetime(value)

    def to_db(self, value: Any, dialect: ValueDialect) -> Any:
        if isinstance(value, datetime):
            if dialect.text_temporals:
                return V.format_datetime(value)
            return dialect.bind_datetime(value)
        return value

    def parse_filter(self, raw: Any) -> Any:
        return V.parse_datetime(raw)

    def select_expr(self, column: str, dialect: ValueDialect) -> str:
        return dialect.select_expr("datetime", column)

    def output(self, dialect: ValueDialect) -> Converter | None:
        return dialect.output("datetime")


class TimeKind(Kind):
    label = "time"

    def column_type(self, attr: Attribute, dialect: ValueDialect) -> str:
        return dialect.column_type("time")

    def coerce(self, attr: Attribute, value: Any) -> Any:
        try:
            return V.parse_time(value)
        except ValueError as exc:
            raise InvalidValue(str(exc)) from None

    def from_db(self, attr: Attribute, value: Any, dialect: ValueDialect) -> Any:
        return self.coerce(attr, value) if dialect.text_temporals else value

    def to_db(self, value: Any, dialect: ValueDialect) -> Any:
        if isinstance(value, time):
            return V.format_time(value) if dialect.text_temporals else dialect.bind_time(value)
        return value

    def parse_filter(self, raw: Any) -> Any:
        return V.parse_time(raw)

    def select_expr(self, column: str, dialect: ValueDialect) -> str:
        return dialect.select_expr("time", column)

    def output(self, dialect: ValueDialect) -> Converter | None:
        return dialect.output("time")
