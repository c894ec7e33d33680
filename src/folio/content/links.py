"""Parsing and checking of the non-scalar members of `data`: relation operations
(shorthand, longhand, connect / disconnect / set, positions), components, dynamic zones and
media. Everything here is pure; the storage side is in `content.sql.links`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from folio.content.ids import decimal_id
from folio.errors import ABSENT, FieldError, ValidationError, validation_failed
from folio.schema.model import Attribute, Component, Registry

if TYPE_CHECKING:
    from folio.content.validation import Written

STATUSES = frozenset({"draft", "published"})


@dataclass
class Entry:
    """One related document named in a relation write."""

    document_id: str | None
    numeric_id: int | None = None
    locale: str | None = None
    status: str | None = None
    position: tuple[str, Any] | None = (
        None  # ("before"|"after", documentId) | ("start"|"end", True)
    )


@dataclass
class RelationWrite:
    attr: Attribute
    set: list[Entry] | None = None
    connect: list[Entry] = field(default_factory=list)
    disconnect: list[Entry] = field(default_factory=list)


@dataclass
class ComponentItem:
    """One component of a component write. `id` names one of the written version's
    components to update in place (`written` then holds only the fields sent; the others keep
    their values); None makes a new component. An id that is not a number is kept as given,
    so that the write refuses it as it refuses an id of another version."""

    component: Component
    written: Written
    id: int | Any = None


@dataclass
class ComponentWrite:
    """The new content of a component field, in order: the components it keeps (updated)
    and the new ones; the field's other components are removed."""

    attr: Attribute
    items: list[ComponentItem] = field(default_factory=list)


@dataclass
class MediaWrite:
    """The files of a media field, in order: numeric ids or documentIds (a file is named
    either way)."""

    attr: Attribute
    file_ids: list[int | str] = field(default_factory=list)


LinkWrite = RelationWrite | ComponentWrite | MediaWrite


def is_to_one(attr: Attribute) -> bool:
    """An owning side that keeps one entry (the last connected one)."""
    return not attr.to_many()


def _entry(value: Any, path: list[str | int], errors: list[FieldError]) -> Entry | None:
    if isinstance(value, str) and value:
        return Entry(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return Entry(None, numeric_id=value)
    if isinstance(value, dict):
        doc = value.get("documentId")
        num = value.get("id")
        entry: Entry
        if isinstance(doc, str) and doc:
            entry = Entry(doc)
        elif isinstance(num, int) and not isinstance(num, bool):
            entry = Entry(None, numeric_id=num)
        elif isinstance(num, str) and num:
            entry = Entry(num)
        else:
            errors.append(FieldError(path, "A relation entry needs a documentId", value))
            return None
        locale = value.get("locale")
        if locale is not None:
            if not isinstance(locale, str):
                errors.append(FieldError([*path, "locale"], "locale must be a string", locale))
            entry.locale = locale
        status = value.get("status")
        if status is not None:
            if not isinstance(status, str) or status not in STATUSES:
                errors.append(
                    FieldError([*path, "status"], "status must be one of draft, published", status)
                )
            entry.status = status
        position = value.get("position")
        if position is not None:
            entry.position = _position(position, [*path, "position"], errors)
        return entry
    errors.append(
        FieldError(
            path, "A relation entry must be a documentId or an object with a documentId", value
        )
    )
    return None


def _position(
    value: Any, path: list[str | int], errors: list[FieldError]
) -> tuple[str, Any] | None:
    if not isinstance(value, dict) or len(value) != 1:
        errors.append(
            FieldError(path, "position must have exactly one of before, after, start, end", value)
        )
        return None
    key, target = next(iter(value.items()))
    if key in ("before", "after") and isinstance(target, str) and target:
        return (key, target)
    if key in ("start", "end") and target is True:
        return (key, True)
    errors.append(
        FieldError(
            path,
            "position must have exactly one of before: <documentId>, "
            "after: <documentId>, start: true, end: true",
            value,
        )
    )
    return None


def _entries(value: Any, path: list[str | int], errors: list[FieldError]) -> list[Entry]:
    items = value if isinstance(value, list) else [value]
    out = []
    for i, item in enumerate(items):
        entry = _entry(item, [*path, i] if isinstance(value, list) else path, errors)
        if entry is not None:
            out.append(entry)
    return out


OPERATIONS = ("connect", "disconnect", "set")
ENTRY_KEYS = frozenset({"documentId", "id", "locale", "status", "position"})


def _unknown_operation(value: dict[str, Any]) -> str | None:
    """The first key of a relation object that is neither an operation nor, when the
    object has no operation, a key of a longhand entry (`{"add": [...]}` names no
    document: it is a misspelt operation, not an entry)."""
    if any(k in value for k in OPERATIONS):
        return next((k for k in value if k not in OPERATIONS), None)
    if "documentId" in value or "id" in value:
        return None
    return next((k for k in value if k not in ENTRY_KEYS), None)


def parse_relation(
    attr: Attribute, value: Any, errors: list[FieldError], invalid_keys: list[str] | None = None
) -> RelationWrite:
    """`invalid_keys` receives the unknown keys of an operation object (reported as an
    invalid key of the attribute, before any other problem); without it they are field
    errors."""
    write = RelationWrite(attr)
    path: list[str | int] = [attr.name]
    if value is None:
        write.set = []
        return write
    unknown = _unknown_operation(value) if isinstance(value, dict) else None
    if unknown is not None:
        if invalid_keys is not None:
            invalid_keys.append(unknown)
        else:
            errors.append(FieldError([*path, unknown], f"Invalid key {unknown}", value[unknown]))
        return write
    if isinstance(value, dict) and any(k in value for k in OPERATIONS):
        if "set" in value and ("connect" in value or "disconnect" in value):
            errors.append(
                FieldError(path, "set cannot be combined with connect or disconnect", value)
            )
        if "set" in value:
            write.set = (
                [] if value["set"] is None else _entries(value["set"], [*path, "set"], errors)
            )
        if value.get("connect") is not None:
            write.connect = _entries(value["connect"], [*path, "connect"], errors)
        if value.get("disconnect") is not None:
            write.disconnect = _entries(value["disconnect"], [*path, "disconnect"], errors)
        seen: set[tuple[str | int | None, str | None]] = set()
        for entry in write.connect:
            key = entry.document_id if entry.document_id is not None else entry.numeric_id
            key_l = (key, entry.locale)
            if key_l in seen:
                errors.append(
                    FieldError(
                        [*path, "connect"],
                        f"The relation with id {key} is already connected. You cannot connect "
                        "the same relation twice.",
                        key,
                    )
                )
            seen.add(key_l)
    else:
        write.set = _entries(value, path, errors)
    if write.set is not None and is_to_one(attr) and len(write.set) > 1:
        write.set = write.set[-1:]
    return write


def parse_media(attr: Attribute, value: Any, errors: list[FieldError]) -> MediaWrite:
    write = MediaWrite(attr)
    if value is None:
        return write
    if isinstance(value, dict) and any(k in value for k in ("connect", "disconnect", "set")):
        if "connect" in value or "disconnect" in value:
            errors.append(
                FieldError(
                    [attr.name],
                    f"{attr.name}: connect and disconnect are "
                    "not supported on media fields; give the file ids",
                    value,
                )
            )
            return write
        value = value["set"]
    items = value if isinstance(value, list) else [value]
    if not attr.multiple and isinstance(value, list) and len(value) > 1:
        errors.append(FieldError([attr.name], f"{attr.name} takes a single file", value))
        return write
    for i, item in enumerate(items):
        file_id = _file_id(item)
        if file_id is None:
            errors.append(
                FieldError(
                    [attr.name, i] if isinstance(value, list) else [attr.name],
                    "A media entry must be a file id or documentId",
                    item,
                )
            )
            continue
        write.file_ids.append(file_id)
    return write


def _file_id(item: Any) -> int | str | None:
    """A file's numeric id or documentId, given alone or as `{id}` / `{documentId}`."""
    if isinstance(item, dict):
        doc = item.get("documentId")
        item = doc if isinstance(doc, str) and doc else item.get("id")
    if isinstance(item, str) and item.isdecimal():
        return decimal_id(item)
    if isinstance(item, str) and item:
        return item
    if isinstance(item, int) and not isinstance(item, bool):
        return item
    return None


def parse_components(
    registry: Registry, attr: Attribute, value: Any, errors: list[FieldError], validate: Any
) -> ComponentWrite:
    """`validate(schema, data, path, errors, partial)` checks one component's data
    (recursively); a component named by its `id` is checked as a partial update."""
    write = ComponentWrite(attr)
    path: list[str | int] = [attr.name]
    if attr.type == "dynamiczone":
        if value is None:
            return write
        if not isinstance(value, list):
            errors.append(FieldError(path, f"{attr.name} must be an array of components", value))
            return write
        for i, item in enumerate(value):
            uid = item.get("__component") if isinstance(item, dict) else None
            if not isinstance(uid, str):
                errors.append(
                    FieldError([*path, i, "__component"], "__component is a required field", ABSENT)
                )
                continue
            if uid not in attr.components:
                errors.append(
                    FieldError(
                        [*path, i, "__component"],
                        f"{uid} is not one of the components allowed in {attr.name}: "
                        f"{', '.join(attr.components)}",
                        uid,
                    )
                )
                continue
            comp = registry.components[uid]
            data = {k: v for k, v in item.items() if k not in ("__component", "id")}
            cmp_id = _component_id(item)
            written = validate(comp, data, [*path, i], errors, cmp_id is not None)
            if written is not None:
                write.items.append(ComponentItem(comp, written, cmp_id))
        _count(attr, len(value), errors)
        return write
    comp = registry.components[str(attr.component)]
    if attr.repeatable:
        if value is None:
            return write
        if not isinstance(value, list):
            errors.append(FieldError(path, f"{attr.name} must be an array", value))
            return write
        items = value
        _count(attr, len(items), errors)
    else:
        if value is None:
            if attr.required:
                errors.append(FieldError(path, f"{attr.name} must be defined.", None))
            return write
        if not isinstance(value, dict):
            errors.append(FieldError(path, f"{attr.name} must be an object", value))
            return write
        items = [value]
    for i, item in enumerate(items):
        where = [*path, i] if attr.repeatable else path
        if not isinstance(item, dict):
            errors.append(FieldError(where, "A component must be an object", item))
            continue
        data = {k: v for k, v in item.items() if k != "id"}
        cmp_id = _component_id(item)
        written = validate(comp, data, where, errors, cmp_id is not None)
        if written is not None:
            write.items.append(ComponentItem(comp, written, cmp_id))
    return write


def _component_id(item: dict[str, Any]) -> int | Any:
    """The `id` a component value names (a number, also written as a string of digits), or
    None for a new component."""
    value = item.get("id")
    if isinstance(value, str) and value.isdecimal():
        return decimal_id(value)
    return value


def _count(attr: Attribute, n: int, errors: list[FieldError]) -> None:
    low, high = attr.raw.get("min"), attr.raw.get("max")
    if isinstance(low, int) and n < low:
        errors.append(FieldError([attr.name], f"{attr.name} must have at least {low} items", n))
    if isinstance(high, int) and n > high:
        errors.append(FieldError([attr.name], f"{attr.name} must have at most {high} items", n))


def raise_errors(errors: list[FieldError]) -> None:
    if errors:
        raise validation_failed(errors)


def relation_error(document_id: Any, locale: str | None) -> ValidationError:
    """A relation names a documentId that has no version in the locale it is looked for
    in: `locale "null"` when the target is not localized, as the reference says it."""
    shown = "null" if locale is None else locale
    return ValidationError(f'Document with id "{document_id}", locale "{shown}" not found')


def missing_ids_error(target_uid: str, count: int) -> ValidationError:
    """A relation names numeric ids that no row of the target has, worded as the
    reference words it (it counts them by target type)."""
    message = f"{count} relation(s) of type {target_uid} associated with this entity do not exist"
    return validation_failed([FieldError([], message, ABSENT)])
