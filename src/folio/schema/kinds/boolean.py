"""The boolean kind."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from folio.schema import values as V
from folio.schema.kinds.base import ALL_FAMILIES, Converter, Kind, ValueDialect

if TYPE_CHECKING:
    from folio.schema.model import Attribute


class BooleanKind(Kind):
    label = "boolean"
    # ordering operators compare false < true, as the reference answers them
    operator_families = ALL_FAMILIES

    def column_type(self, attr: Attribute, dialect: ValueDialect) -> str:
        return dialect.column_type("boolean")

    def coerce(self, attr: Attribute, value: Any) -> Any:
        if isinstance(value, bool):
            return value
        if value in (0, 1) and isinstance(value, int):
            return bool(value)
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise self.type_error(attr, value)

    def from_db(self, attr: Attribute, value: Any, dialect: ValueDialect) -> Any:
        return bool(value)

    def to_db(self, value: Any, dialect: ValueDialect) -> Any:
        if not dialect.native_booleans and value is not None:
            return 1 if value else 0
        return value

    def parse_filter(self, raw: Any) -> Any:
        return V.parse_bool(raw)

    def output(self, dialect: ValueDialect) -> Converter | None:
        return dialect.output("boolean")
