"""Date and time kinds: date, datetime and timestamp, time."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any

from folio.schema import values as V
from folio.schema.kinds.base import InvalidValue, Kind

if TYPE_CHECKING:
    from folio.schema.model import Attribute


class DateKind(Kind):
    label = "date"

    def column_type(self, attr: Attribute, dialect: str) -> str:
        return "DATE" if dialect == "postgres" else "TEXT"

    def coerce(self, attr: Attribute, value: Any) -> Any:
        try:
            return V.parse_date(value)
        except (ValueError, OverflowError) as exc:
            raise InvalidValue(str(exc)) from None

    def from_db(self, attr: Attribute, value: Any, dialect: str) -> Any:
        # SQLite keeps the ISO text
        return self.coerce(attr, value) if dialect == "sqlite" else value

    def to_db(self, value: Any, dialect: str) -> Any:
        if dialect == "sqlite" and isinstance(value, date):
            return value.isoformat()
        return value

    def parse_filter(self, raw: Any) -> Any:
        return V.parse_date(raw)

    def select_expr(self, column: str, dialect: str) -> str:
        if dialect == "postgres":
            # ISO text under the session's DateStyle (store.postgres sets ISO): to_char's
            # general formatter cost about four times as much
            return f"{column}::text"
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

    def from_db(self, attr: Attribute, value: Any, dialect: str) -> Any:
        # SQLite keeps the ISO text
        return self.coerce(attr, value) if dialect == "sqlite" else value

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
    """A PostgreSQL timestamp as the API writes it (`2024-01-02T03:04:05.678Z`). Formatted
    by the database: its plain text completed here cost the server more than to_char costs
    the database (a nested populate of 1,400 articles: 25.4 ms of both in all, either way)."""
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

    def from_db(self, attr: Attribute, value: Any, dialect: str) -> Any:
        # SQLite keeps the ISO text
        return self.coerce(attr, value) if dialect == "sqlite" else value

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
