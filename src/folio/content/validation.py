"""Validation of written documents against the model: types, required, lengths, ranges,
patterns, enumerations, emails and uid formats, and the shape of relation, component, dynamic
zone and media members. Every problem is collected with its path, so one request reports all
of them in one `ValidationError`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from folio.auth.passwords import HashedPassword, hash_password
from folio.content.links import (
    ComponentWrite,
    LinkWrite,
    RelationWrite,
    parse_components,
    parse_media,
    parse_relation,
)
from folio.errors import ABSENT, FieldError, ValidationError, invalid_body_key, validation_failed
from folio.schema.kinds import InvalidValue
from folio.schema.model import Attribute, ContentType, Registry, Schema

# Members of `data` that are not attributes but are handled by the endpoint.
ACCEPTED_INPUT = frozenset({"locale", "publishedAt"})
# how a number kind words a value it cannot read
NAN_CAST = "but the final value was: `NaN`"


def require_data(body: Any) -> dict[str, Any]:
    """The `data` member of a write body."""
    if not isinstance(body, dict) or "data" not in body:
        raise ValidationError('Missing "data" payload in the request body')
    data = body["data"]
    if not isinstance(data, dict):
        raise ValidationError('Missing "data" payload in the request body')
    return data


class Written:
    """The outcome of validating `data`: column values, and link writes."""

    def __init__(self) -> None:
        self.values: dict[Attribute, Any] = {}
        self.links: list[LinkWrite] = []


def _validate(
    registry: Registry | None,
    schema: Schema,
    data: dict[str, Any],
    partial: bool,
    prefix: list[str | int],
    errors: list[FieldError],
    invalid_keys: list[tuple[str, str | None]],
    draft: bool = False,
    given: frozenset[str] = frozenset(),
) -> Written:
    out = Written()
    for key, value in data.items():
        attr = schema.attributes.get(key)
        if attr is None:
            if key in ACCEPTED_INPUT and not prefix:
                continue
            # reported alone, as the reference does, at the attribute path it sits in
            invalid_keys.append((key, _dotted(prefix)))
            continue
        if not attr.kind.scalar:
            if registry is None:
                errors.append(FieldError([*prefix, key], f"Invalid key {key}", value))
                continue
            out.links.append(_link(registry, attr, value, prefix, errors, invalid_keys, draft))
            continue
        if value is None:
            if attr.required and not draft:
                message = str(attr.kind.type_error(attr, None))
                errors.append(FieldError([*prefix, key], message, value))
            else:
                out.values[attr] = None
            continue
        try:
            coerced = attr.kind.coerce(attr, value)
        except InvalidValue as exc:
            path: list[str | int] = [*prefix, *(exc.path or [key])]
            shown = exc.value if exc.path else value
            if NAN_CAST in str(exc):
                # the reference reports the cast value, NaN, which JSON writes as null
                shown = None
            errors.append(FieldError(path, str(exc), shown))
            continue
        if attr.type == "password" and not isinstance(value, HashedPassword):
            coerced = hash_password(coerced)
        out.values[attr] = coerced
    if not partial:
        linked = {w.attr for w in out.links}
        for attr in schema.attributes.values():
            if attr in out.values or attr in linked or attr.name in data or attr.name in given:
                continue
            if attr.kind.scalar and attr.has_default and attr.default is not None:
                out.values[attr] = attr.kind.default_for(attr)
            elif attr.required and not draft and attr.type != "relation":
                errors.append(missing_error(schema, attr, [*prefix, attr.name]))
    return out


def missing_error(schema: Schema, attr: Attribute, path: list[str | int]) -> FieldError:
    """A required attribute that is absent. The reference words it as a null value for
    types with Draft & Publish, and as `must be defined.` for the others."""
    if isinstance(schema, ContentType) and schema.draft_and_publish and attr.kind.scalar:
        return FieldError(path, str(attr.kind.type_error(attr, None)), None)
    return FieldError(path, f"{attr.name} must be defined.", ABSENT)


def _dotted(prefix: list[str | int]) -> str | None:
    """`seo`, `links`, `blocks.file`: the attribute names of a path, without list indexes
    (None at the top level)."""
    names = [p for p in prefix if isinstance(p, str)]
    return ".".join(names) if names else None


def _shown_path(path: list[str | int]) -> str:
    """`links[0].label`: a path as the reference writes it at the start of a message."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _name_nested(errors: list[FieldError]) -> None:
    """A problem inside a component is worded with its whole path, as the reference
    words it (`seo.metaTitle must be ...`, `links[0].label must be ...`)."""
    for err in errors:
        last = err.path[-1] if err.path else None
        if len(err.path) > 1 and isinstance(last, str) and err.message.startswith(f"{last} "):
            err.message = _shown_path(err.path) + err.message[len(last) :]


def _link(
    registry: Registry,
    attr: Attribute,
    value: Any,
    prefix: list[str | int],
    errors: list[FieldError],
    invalid_keys: list[tuple[str, str | None]],
    draft: bool,
) -> LinkWrite:
    start = len(errors)
    keys_start = len(invalid_keys)
    write: LinkWrite
    if attr.type == "relation":
        unknown: list[str] = []
        write = parse_relation(attr, value, errors, unknown)
        if unknown:
            # `{"tags": {"add": [...]}}`: an invalid key at the attribute's path
            invalid_keys.extend((key, attr.name) for key in unknown)
    elif attr.type == "media":
        write = parse_media(attr, value, errors)
    else:

        def nested(
            schema: Schema,
            data: dict[str, Any],
            path: list[str | int],
            errs: list[FieldError],
            partial: bool,
        ) -> Written:
            return _validate(registry, schema, data, partial, path, errs, invalid_keys, draft)

        write = parse_components(registry, attr, value, errors, nested)
    for err in errors[start:]:
        err.path = [*prefix, *err.path]
    # the paths found inside are relative to this attribute's container
    outer = _dotted(prefix)
    if outer is not None:
        for i in range(keys_start, len(invalid_keys)):
            key, path = invalid_keys[i]
            invalid_keys[i] = (key, outer if path is None else f"{outer}.{path}")
    return write


@dataclass
class WriteLimits:
    """What one write may hold: components (nested ones included, dynamic-zone entries
    too) and relation entries (set, connect and disconnect, in components too). A create
    of tens of thousands of components held the database for seconds."""

    components: int = 1000
    relation_entries: int = 1000


# a write with at most this many components and relation entries is light (a few
# statements)
LIGHT_WRITE = 20


def check_size(written: Written, limits: WriteLimits) -> bool:
    """Refuses a write past the limits, before anything is written. Returns whether the
    write is light."""
    components = entries = 0
    stack = [written]
    while stack:
        current = stack.pop()
        for write in current.links:
            if isinstance(write, ComponentWrite):
                components += len(write.items)
                stack.extend(item.written for item in write.items)
            elif isinstance(write, RelationWrite):
                entries += len(write.set or []) + len(write.connect) + len(write.disconnect)
    problems = []
    if components > limits.components:
        problems.append(
            f"a write may hold at most {limits.components} components (this one: {components})"
        )
    if entries > limits.relation_entries:
        problems.append(
            f"a write may hold at most {limits.relation_entries} relation entries "
            f"(this one: {entries})"
        )
    if problems:
        message = "The write is too large: " + "; ".join(problems)
        raise ValidationError(message, {"errors": [{"path": [], "message": message}]})
    return components + entries <= LIGHT_WRITE


def validate_data(
    schema: Schema,
    data: dict[str, Any],
    *,
    partial: bool,
    registry: Registry | None = None,
    draft: bool = False,
    given: frozenset[str] = frozenset(),
) -> Written:
    """Checks `data` for a create (`partial=False`) or an update (`partial=True`); a draft
    may leave required attributes empty (they are checked when it is published)."""
    errors: list[FieldError] = []
    invalid_keys: list[tuple[str, str | None]] = []
    out = _validate(registry, schema, data, partial, [], errors, invalid_keys, draft, given)
    if invalid_keys:
        # as the reference: an unknown key is reported alone, before any other problem
        raise invalid_body_key(*invalid_keys[0])
    if errors:
        _name_nested(errors)
        order = {name: i for i, name in enumerate(schema.attributes)}
        errors.sort(key=lambda e: order.get(str(e.path[0]) if e.path else "", len(order)))
        raise validation_failed(errors)
    return out
