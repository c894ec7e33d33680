"""What a caller may reach through relations: filtering or sorting through a relation to a
type the caller may not `find` is an invalid key (the reference's answer), at any depth;
populating one leaves it out of the answer. Media, components and dynamic zones are not
permission-checked (as in the reference)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from folio.content.query import Populate
from folio.errors import invalid_key
from folio.schema.model import Registry, Schema

Visible = Callable[[str], bool]


def check_visible(
    schema: Schema, raw: Any, visible: Visible, registry: Registry, path: list[str], param: str
) -> None:
    """Refuses `raw` (filters, or sort paths as nested keys) when it goes through a relation
    whose target `visible` refuses."""
    if isinstance(raw, list):
        for item in raw:
            check_visible(schema, item, visible, registry, path, param)
        return
    if not isinstance(raw, dict):
        return
    for key, value in raw.items():
        if key.startswith("$"):
            if key in ("$and", "$or", "$not"):
                check_visible(schema, value, visible, registry, path, param)
            continue
        attr = schema.attributes.get(key)
        if attr is None:
            continue
        if attr.type == "relation":
            if not visible(str(attr.target)):
                raise invalid_key(key, ".".join([*path, key]), param)
            target = registry.content_types.get(str(attr.target))
            if target is not None:
                check_visible(target, value, visible, registry, [*path, key], param)
        elif attr.type == "component" and attr.component in registry.components:
            comp = registry.components[str(attr.component)]
            check_visible(comp, value, visible, registry, [*path, key], param)


def sort_paths(raw: Any) -> dict[str, Any]:
    """Sort entries as a nested dict of field paths (`a.b:desc` -> {a: {b: {}}})."""
    out: dict[str, Any] = {}
    items = raw if isinstance(raw, list) else [raw]
    for item in items:
        texts: list[str] = []
        if isinstance(item, str):
            texts = [t.split(":")[0] for t in item.split(",")]
        elif isinstance(item, dict):
            for key, value in item.items():
                node = out.setdefault(key, {})
                if isinstance(value, dict):
                    node.update(sort_paths(value))
            continue
        for text in texts:
            node = out
            for part in text.strip().split("."):
                node = node.setdefault(part, {})
    return out


def prune_populate(entries: dict[str, Populate], visible: Visible) -> dict[str, Populate]:
    """The populate tree without the relations whose target type the reader may not
    `find` (left out of the response, as the reference does)."""
    out: dict[str, Populate] = {}
    for name, entry in entries.items():
        attr = entry.attr
        if attr.type == "relation" and not visible(str(attr.target)):
            continue
        if entry.children:
            entry.children = prune_populate(entry.children, visible)
        if entry.on:
            entry.on = {uid: prune_populate(sub, visible) for uid, sub in entry.on.items()}
        out[name] = entry
    return out
