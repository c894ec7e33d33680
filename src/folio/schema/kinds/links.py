"""Relations, media, components and dynamic zones: kinds without a column."""

from __future__ import annotations

from typing import TYPE_CHECKING

from folio.schema.kinds.base import Kind, ValueDialect

if TYPE_CHECKING:
    from folio.schema.model import Attribute


class LinkKind(Kind):
    """Relations, media, components and dynamic zones: stored in link tables, not columns."""

    scalar = False
    narrow = False
    operator_families: frozenset[str] = frozenset()
    sortable = False

    def __init__(self, label: str) -> None:
        self.label = label

    def column_type(self, attr: Attribute, dialect: ValueDialect) -> str:  # pragma: no cover
        raise TypeError("link kinds have no column")
