"""The in-memory model of an app: attributes, content types, components and their registry.

Everything here is computed once at start-up; request handling only reads it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from folio.schema.kinds import Kind

RELATION_KINDS = frozenset(
    {
        "oneToOne",
        "oneToMany",
        "manyToOne",
        "manyToMany",
        "oneWay",
        "manyWay",
        "morphToOne",
        "morphToMany",
        "morphOne",
        "morphMany",
    }
)

TO_MANY = frozenset({"oneToMany", "manyToMany", "manyWay", "morphMany", "morphToMany"})


def snake_case(name: str) -> str:
    """`bigCount` -> `big_count`, `status2` -> `status2`, `rich-text` -> `rich_text`."""
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", s)
    return re.sub(r"[^0-9a-zA-Z_]", "_", s).lower()


@dataclass(eq=False)
class Attribute:
    """One attribute of a content type or component."""

    name: str
    type: str
    kind: Kind
    raw: dict[str, Any]
    column: str | None = None
    required: bool = False
    unique: bool = False
    private: bool = False
    default: Any = None
    has_default: bool = False
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    regex: re.Pattern[str] | None = None
    enum: tuple[str, ...] = ()
    target_field: str | None = None
    localized: bool = True
    # relations
    relation: str | None = None
    target: str | None = None
    inversed_by: str | None = None
    mapped_by: str | None = None
    # components / dynamic zones / media
    component: str | None = None
    components: tuple[str, ...] = ()
    repeatable: bool = False
    multiple: bool = False
    allowed_types: tuple[str, ...] = ()

    @property
    def is_scalar(self) -> bool:
        return self.kind.scalar

    def to_many(self, owner: Attribute | None = None) -> bool:
        """Whether a relation holds a list: by its own kind, or, on the inverse side, also
        when the owning side (`owner`, the target's attribute named by `mappedBy`) is
        many-to-something."""
        if self.relation in TO_MANY:
            return True
        return owner is not None and owner.relation in ("manyToOne", "manyToMany")

    @property
    def is_hidden(self) -> bool:
        """Never serialized: private attributes and passwords."""
        return self.private or self.type == "password"


@dataclass(eq=False)
class Schema:
    """Shared by content types and components: a table of attributes."""

    uid: str
    table: str
    file: str
    display_name: str
    attributes: dict[str, Attribute] = field(default_factory=dict)

    @property
    def scalar_attributes(self) -> list[Attribute]:
        return [a for a in self.attributes.values() if a.kind.scalar]


@dataclass(eq=False)
class ContentType(Schema):
    kind: str = "collectionType"
    singular: str = ""
    plural: str = ""
    draft_and_publish: bool = False
    localized: bool = False
    api: str = ""
    registry: Registry | None = None  # set once the registry is built

    @property
    def is_single(self) -> bool:
        return self.kind == "singleType"


@dataclass(eq=False)
class Component(Schema):
    category: str = ""


@dataclass
class Registry:
    """All models of an app, by uid and by route name."""

    content_types: dict[str, ContentType] = field(default_factory=dict)
    components: dict[str, Component] = field(default_factory=dict)
    by_route: dict[str, ContentType] = field(default_factory=dict)

    def schema(self, uid: str) -> Schema:
        if uid in self.content_types:
            return self.content_types[uid]
        return self.components[uid]
