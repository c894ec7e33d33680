"""The boolean kind."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from folio.schema import values as V
from folio.schema.kinds.base import ALL_FAMILIES, Converter, Kind

if TYPE_CHECKING:
    from folio.schema.model import Attribute


class BooleanKind(Kind):
    label = "boolean"
    # ordering operators compare false < true, as the reference answers them
    operator_families = ALL_FAMILIES

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

    def from_db(self, attr: Attribute, value: Any, dialect: str) -> Any:
        return bool(value)

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
