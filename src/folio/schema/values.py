"""Parsing and formatting of scalar values shared by input validation and query filters.

Every parser raises `ValueError` with a short reason; callers turn it into a
`ValidationError` naming the attribute or the query parameter."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal, InvalidOperation
from typing import Any

_INT_RE = re.compile(r"^[+-]?\d+$")
_FLOAT_RE = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_TIME_RE = re.compile(r"^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$")
_DATETIME_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?"
    r"\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$"
)
INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)

DATE_MESSAGE = "Invalid format, expected yyyy-MM-dd"
TIME_MESSAGE = "Invalid time format, expected HH:mm:ss.SSS"
DATETIME_MESSAGE = "Invalid format, expected a timestamp or an ISO date"
TRUE_STRINGS = frozenset({"true", "t", "1"})
FALSE_STRINGS = frozenset({"false", "f", "0"})


def parse_int(value: Any, bounds: tuple[int, int] = INT64) -> int:
    if isinstance(value, bool):
        raise ValueError("not an integer")
    if isinstance(value, int):
        result = value
    elif isinstance(value, float):
        if not value.is_integer():
            raise ValueError("not an integer")
        result = int(value)
    elif isinstance(value, str) and _INT_RE.match(value.strip()):
        result = int(value.strip())
    else:
        raise ValueError("not an integer")
    if not bounds[0] <= result <= bounds[1]:
        raise ValueError("out of range")
    return result


def parse_float(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError("not a number")
    if isinstance(value, int | float):
        result = float(value)
    elif isinstance(value, str) and _FLOAT_RE.match(value.strip()):
        result = float(value.strip())
    else:
        raise ValueError("not a number")
    if result != result or result in (float("inf"), float("-inf")):
        raise ValueError("not a finite number")
    return result


def parse_decimal(value: Any) -> Decimal:
    if isinstance(value, bool):
        raise ValueError("not a number")
    if isinstance(value, int | float):
        text = repr(value)
    elif isinstance(value, str) and _FLOAT_RE.match(value.strip()):
        text = value.strip()
    else:
        raise ValueError("not a number")
    try:
        result = Decimal(text)
    except InvalidOperation as exc:
        raise ValueError("not a number") from exc
    if not result.is_finite():
        raise ValueError("not a finite number")
    return result


def parse_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        low = value.strip().lower()
        if low in TRUE_STRINGS:
            return True
        if low in FALSE_STRINGS:
            return False
    raise ValueError("not a boolean")


def parse_date(value: Any) -> date:
    if not isinstance(value, str):
        raise ValueError(DATE_MESSAGE)
    text = value.strip()
    m = _DATE_RE.match(text)
    if m:
        year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if not (1 <= month <= 12 and 1 <= day <= 31):
            raise ValueError(DATE_MESSAGE)
        try:
            return date(year, month, day)
        except ValueError:
            raise ValueError("Invalid date") from None
    try:
        # a full timestamp is accepted and reduced to its (UTC) date
        return parse_datetime(text).date()
    except ValueError:
        raise ValueError(DATE_MESSAGE) from None


def _fraction_us(fraction: str | None) -> int:
    if not fraction:
        return 0
    return int((fraction + "000000")[:6])


def parse_time(value: Any) -> time:
    if not isinstance(value, str):
        raise ValueError(TIME_MESSAGE)
    m = _TIME_RE.match(value.strip())
    if not m:
        raise ValueError(TIME_MESSAGE)
    try:
        return time(int(m.group(1)), int(m.group(2)), int(m.group(3)), _fraction_us(m.group(4)))
    except ValueError:
        raise ValueError(TIME_MESSAGE) from None


def parse_datetime(value: Any) -> datetime:
    """ISO 8601 date or timestamp (naive means UTC), or epoch milliseconds; always aware UTC."""
    if isinstance(value, bool):
        raise ValueError(DATETIME_MESSAGE)
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(value / 1000, tz=UTC)
        except (OverflowError, OSError, ValueError) as exc:
            raise ValueError(DATETIME_MESSAGE) from exc
    if not isinstance(value, str):
        raise ValueError(DATETIME_MESSAGE)
    m = _DATETIME_RE.match(value.strip())
    if not m:
        raise ValueError(DATETIME_MESSAGE)
    year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    hour = int(m.group(4) or 0)
    minute = int(m.group(5) or 0)
    second = int(m.group(6) or 0)
    tz_text = m.group(8)
    tz: timezone = UTC
    if tz_text and tz_text not in ("Z", "z"):
        sign = -1 if tz_text[0] == "-" else 1
        digits = tz_text[1:].replace(":", "")
        offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
        tz = timezone(sign * offset)
    micro = _fraction_us(m.group(7)) // 1000 * 1000
    try:
        dt = datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)
        return dt.astimezone(UTC)
    except (ValueError, OverflowError):
        raise ValueError(DATETIME_MESSAGE) from None


def format_datetime(value: datetime) -> str:
    """The canonical text form, as stored in SQLite and returned by the API."""
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def format_time(value: time) -> str:
    """As PostgreSQL prints a time: fractional seconds only when present."""
    text = value.strftime("%H:%M:%S")
    if value.microsecond:
        text += "." + f"{value.microsecond:06d}".rstrip("0")
    return text


def now_utc() -> datetime:
    moment = datetime.now(UTC)
    return moment.replace(microsecond=(moment.microsecond // 1000) * 1000)
