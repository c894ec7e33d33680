"""The neutral description of a read: which versions (status, locale), which documents
(a filter tree), in which order, which page, which fields and which related entries.

Everything here is in the model's terms (attributes, field paths, operators and parsed
values); nothing names a table or a dialect. `documents.QueryParser` makes it from a
front-end's read parameters; the planner (`content.sql`) turns it into statements."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from folio.content.sql.operators import Operator
from folio.errors import ValidationError
from folio.schema.kinds import DOCUMENT_ID_KIND, ID_KIND, TIMESTAMP_KIND, Kind, StringKind
from folio.schema.model import Attribute, ContentType, Schema

LOCALE_KIND = StringKind()


@dataclass(frozen=True)
class FieldRef:
    """A filterable, sortable field of a schema: an attribute or a system field, with the
    column the model stores it in."""

    name: str
    column: str
    kind: Kind


SYSTEM_FIELDS = {
    "id": FieldRef("id", "id", ID_KIND),
    "documentId": FieldRef("documentId", "document_id", DOCUMENT_ID_KIND),
    "createdAt": FieldRef("createdAt", "created_at", TIMESTAMP_KIND),
    "updatedAt": FieldRef("updatedAt", "updated_at", TIMESTAMP_KIND),
    "publishedAt": FieldRef("publishedAt", "published_at", TIMESTAMP_KIND),
    "locale": FieldRef("locale", "locale", LOCALE_KIND),
}


def field_ref(schema: Schema, name: str) -> FieldRef | None:
    """The scalar field `name` of a content type or component, or None."""
    attr = schema.attributes.get(name)
    if attr is not None:
        if not attr.kind.scalar or attr.is_hidden or attr.column is None:
            return None
        return FieldRef(name, attr.column, attr.kind)
    if isinstance(schema, ContentType):
        if name == "locale" and not schema.localized:
            return None
        return SYSTEM_FIELDS.get(name)
    return SYSTEM_FIELDS.get(name) if name == "id" else None


# one hop of a path: a relation or component attribute of a schema, and the schema it
# reaches
Step = tuple[Schema, Attribute, Schema]


@dataclass(frozen=True)
class SortKey:
    """Sort on `field`, reached from the document through `steps` (none for its own
    fields; `category.parent.name` has two): the first related entry's value."""

    field: FieldRef
    desc: bool = False
    steps: tuple[Step, ...] = ()


class Cond:
    """`field op value`; `value` is the parsed operand (a list for list and pair
    operators, a boolean for `$null` / `$notNull`)."""

    __slots__ = ("field", "op", "value")

    def __init__(self, field: FieldRef, op: Operator, value: Any) -> None:
        self.field = field
        self.op = op
        self.value = value


class Group:
    __slots__ = ("children", "op")

    def __init__(self, op: str, children: list[Node]) -> None:
        self.op = op  # "AND" | "OR"
        self.children = children


class Not:
    __slots__ = ("child",)

    def __init__(self, child: Node) -> None:
        self.child = child


class Rel:
    """Documents having a related entry (through a relation of either side, or a
    component field `attr` of `schema`) that matches `child`."""

    __slots__ = ("attr", "child", "schema", "target")

    def __init__(self, schema: Schema, attr: Attribute, target: Schema, child: Node) -> None:
        self.schema = schema
        self.attr = attr
        self.target = target
        self.child = child


# publication filters: which documents' versions a read keeps, by the versions they have
PUBLICATION_FILTERS = frozenset(
    {
        "never_published",
        "has_published_version",
        "modified",
        "unmodified",
        "never_published_document",
        "has_published_version_document",
        "published_without_draft",
        "published_with_draft",
    }
)


class Versions:
    """Versions of documents of a Draft & Publish type by the other versions of the same
    document: `never_published` / `has_published_version` (in the version's locale, or in
    any with the `_document` forms), `modified` / `unmodified` (the draft differs from the
    published version, or not), `published_with(out)_draft`."""

    __slots__ = ("ct", "kind")

    def __init__(self, ct: ContentType, kind: str) -> None:
        self.ct = ct
        self.kind = kind


Node = Cond | Group | Not | Rel | Versions


@dataclass(frozen=True)
class ReadLimits:
    """How much one read may ask for and answer, past which it is refused with a 400 before
    any statement is built (each a key of api.json `rest`, named in the refusal): a filter
    tree's conditions, operand values (`$in` lists included) and nesting (`$and`, `$or`
    and `$not` one level each, a relation `RELATION_LEVELS`; a sort path's relations count
    the same), the sort keys, the nesting of `populate`, and the entries populated fields
    hold in one answer, at every level."""

    filter_conditions: int = 400
    filter_values: int = 10_000
    filter_depth: int = 20
    sort_fields: int = 100
    populate_depth: int = 20
    populated_entries: int = 20_000

    @classmethod
    def configured(cls, keys: Mapping[str, int]) -> ReadLimits:
        """The limits set by their api.json `rest` keys (the others at their defaults)."""
        return cls(**{name: keys[key] for name, key in LIMIT_KEYS.items() if key in keys})


# the levels of filter nesting a relation (or component) counts for, in a filter tree or a
# sort path: SQLite reads each as a nested statement, which takes its parser about ten
# times the stack a `$and` or `$or` takes (its stack held 9 relations, 44 `$not`s, 87
# `$or`s); at 4, a tree within the default depth takes at most half of it
RELATION_LEVELS = 4

# the api.json `rest` key of each of `ReadLimits`' fields
LIMIT_KEYS = {
    "filter_conditions": "maxFilterConditions",
    "filter_values": "maxFilterValues",
    "filter_depth": "maxFilterDepth",
    "sort_fields": "maxSortFields",
    "populate_depth": "maxPopulateDepth",
    "populated_entries": "maxPopulatedEntries",
}


def too_much(field: str, limit: int, what: str, param: str) -> ValidationError:
    """The refusal of a read past one of `ReadLimits`: the message names the limit and its
    key."""
    key = f"api.rest.{LIMIT_KEYS[field]}"
    return ValidationError(
        f"{what}: at most {limit} ({key})",
        {"limit": limit, "setting": key, "source": "query", "param": param},
    )


@dataclass
class Pagination:
    mode: str = "page"  # "page" | "offset"
    page: int = 1
    page_size: int = 25
    start: int = 0
    limit: int = 25
    with_count: bool = True

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.page_size if self.mode == "page" else self.start

    @property
    def size(self) -> int:
        return self.page_size if self.mode == "page" else self.limit

    def meta(self, total: int) -> dict[str, Any]:
        """The pagination members of a list answer, in the request's mode."""
        if self.mode == "offset":
            meta: dict[str, Any] = {"start": self.start, "limit": self.limit}
            if self.with_count:
                meta["total"] = total
            return meta
        meta = {"page": self.page, "pageSize": self.page_size}
        if self.with_count:
            meta["pageCount"] = math.ceil(total / self.page_size) if self.page_size else 0
            meta["total"] = total
        return meta


@dataclass
class Populate:
    """One populated field: a relation, component, dynamic zone, media field or the
    document's `localizations`, with what to read of its entries."""

    attr: Attribute
    fields: list[str] | None = None
    filters: Node | None = None
    sort: list[SortKey] = field(default_factory=list)
    children: dict[str, Populate] = field(default_factory=dict)
    on: dict[str, dict[str, Populate]] = field(default_factory=dict)
    on_fields: dict[str, list[str] | None] = field(default_factory=dict)
    # a dynamic zone populated with `on`: only the components named there
    only_on: bool = False
    # `count=true`: a relation or component answers {"count": n} instead of its entries
    count: bool = False
    # `pagination`: a relation's entries from `start`, at most `limit` per document
    start: int = 0
    limit: int | None = None


@dataclass
class Query:
    """A read. `locale` None reads every locale of a localized type."""

    filters: Node | None = None
    sort: list[SortKey] = field(default_factory=list)
    pagination: Pagination = field(default_factory=Pagination)
    fields: list[str] | None = None  # attribute names; None means all
    locale: str | None = None
    status: str = "published"
    populate: dict[str, Populate] = field(default_factory=dict)
