"""Filter trees from nested operator dictionaries (`{"title": {"$eq": "x"}}`, the REST
spelling; other front-ends translate theirs into it), checked against the model: unknown
fields, unknown operators and values that do not fit the field's type are
`ValidationError`s naming the offending key. Operators come from the operator table.

A tree is bounded as it is read (`ReadLimits`: its conditions, operand values and nesting),
before any SQL is built: SQLite refuses a statement of a thousand conditions ("Expression
tree is too large") or ten nested relations ("parser stack overflow"), PostgreSQL one of
more than 32,767 parameters, so that the same filter would answer differently on each; a
bound well above real use answers a 400 on both instead."""

from __future__ import annotations

from typing import Any

from folio.content.query import (
    RELATION_LEVELS,
    SYSTEM_FIELDS,
    Cond,
    FieldRef,
    Group,
    Node,
    Not,
    ReadLimits,
    Rel,
    field_ref,
    too_much,
)
from folio.content.sql.operators import FLAG, LIST, NULL_OPS, ONE, OPERATORS, PAIR, Operator
from folio.errors import ValidationError, invalid_key, invalid_value
from folio.schema.model import Attribute, ContentType, Registry, Schema
from folio.schema.values import parse_bool

# relation-like names the reference knows but does not filter on
UNFILTERABLE = ("createdBy", "updatedBy", "localizations")


class _Tally:
    """What a filter tree read so far holds: conditions (each counted once more for every
    relation it is inside) and operand values; and the relations the one being read is in."""

    __slots__ = ("conditions", "relations", "values")

    def __init__(self) -> None:
        self.conditions = 0
        self.values = 0
        self.relations = 0


class FilterParser:
    def __init__(
        self,
        registry: Registry,
        param: str = "filters",
        source: str = "query",
        limits: ReadLimits | None = None,
    ) -> None:
        self.registry = registry
        self.param = param
        self.source = source
        self.limits = limits or ReadLimits()
        # the tree being read: one at a time, each read whole by `parse`
        self._tally = _Tally()

    def invalid_key(self, key: str, path: list[str]) -> ValidationError:
        return invalid_key(key, _field_path(path), self.param, self.source)

    def invalid_value(self, path: list[str], value: Any, reason: str) -> ValidationError:
        return invalid_value(self.param, path, value, reason, self.source)

    def parse(self, schema: Schema, raw: Any) -> Node | None:
        """The filter tree of `raw` over `schema`, or None when it filters nothing."""
        self._tally = _Tally()
        return self._parse(schema, raw, [], 0)

    def _deeper(self, depth: int, levels: int = 1) -> int:
        """The nesting below `depth` of a group or negation (a relation: `levels`), refused
        past the limit before it is read (a client's nesting never reaches the
        interpreter's own recursion limit either)."""
        if depth + levels > self.limits.filter_depth:
            raise too_much(
                "filter_depth",
                self.limits.filter_depth,
                f"The {self.param} are nested too deeply ($and, $or and $not count one "
                f"level each, a relation {RELATION_LEVELS})",
                self.param,
            )
        return depth + levels

    def _count(self, values: int) -> None:
        """One more condition, of `values` operand values. Inside relations it counts once
        more for each: SQLite counts the conditions of a nested statement again at every
        level up (its expression tree of at most 1,000 held 997 conditions in a row, 496
        inside a relation, 328 inside two)."""
        tally = self._tally
        tally.conditions += 1 + tally.relations
        tally.values += values
        limits = self.limits
        if tally.conditions > limits.filter_conditions:
            raise too_much(
                "filter_conditions",
                limits.filter_conditions,
                f"Too many conditions in {self.param} (inside relations, a condition counts "
                "once more for each)",
                self.param,
            )
        if tally.values > limits.filter_values:
            raise too_much(
                "filter_values",
                limits.filter_values,
                f"Too many values in {self.param}",
                self.param,
            )

    def _parse(self, schema: Schema, raw: Any, path: list[str], depth: int) -> Node | None:
        if raw is None or raw == "":
            return None
        if isinstance(raw, list):
            # a list is a group of its members (`$and`), nested as deep as one
            inner = self._deeper(depth)
            kept = [c for item in raw if (c := self._parse(schema, item, path, inner)) is not None]
            return Group("AND", kept) if kept else None
        if not isinstance(raw, dict):
            if not path:
                raise ValidationError("The filters parameter must be an object or an array")
            raise self.invalid_value(path, raw, "expected an object of filters")
        nodes: list[Node] = []
        for key, value in raw.items():
            if key in ("$and", "$or"):
                group = self.group(schema, key, value, path, depth)
                if group is not None:
                    nodes.append(group)
            elif key == "$not":
                child = self._parse(schema, value, [*path, key], self._deeper(depth))
                if child is not None:
                    nodes.append(Not(child))
            else:
                attr = schema.attributes.get(key)
                if attr is not None and not attr.kind.scalar:
                    rel = self.related(schema, attr, value, [*path, key], depth)
                    if rel is not None:
                        nodes.append(rel)
                    continue
                ref = field_ref(schema, key)
                if ref is None:
                    if (attr is not None and not attr.is_hidden) or key in UNFILTERABLE:
                        raise invalid_key(
                            key, ".".join([*_names(path), key]), self.param, self.source
                        )
                    raise self.invalid_key(key, path)
                nodes.append(self.field_filter(ref, value, [*path, key], depth))
        if not nodes:
            return None
        return nodes[0] if len(nodes) == 1 else Group("AND", nodes)

    def group(self, schema: Schema, op: str, raw: Any, path: list[str], depth: int) -> Node | None:
        """`$and` / `$or`: a list of filter objects (or one object, or an object with index
        keys as `qs` writes long arrays); empty members are dropped. Only documents and
        related entries have groups: an operator in a field's place is an invalid key."""
        if isinstance(raw, list):
            items = raw
        elif isinstance(raw, dict) and raw and all(k.isdecimal() for k in raw):
            items = list(raw.values())
        else:
            items = [raw]
        children = []
        depth = self._deeper(depth)
        for i, item in enumerate(items):
            at = [*path, op, str(i)]
            if not isinstance(item, dict):
                raise self.invalid_value(at, item, "expected an object of filters")
            child = self._parse(schema, item, at, depth)
            if child is not None:
                children.append(child)
        return Group("AND" if op == "$and" else "OR", children) if children else None

    def related(
        self, schema: Schema, attr: Attribute, raw: Any, path: list[str], depth: int
    ) -> Node | None:
        if attr.type in ("media", "dynamiczone"):
            raise ValidationError(
                f"Filtering on {attr.type} attributes is not supported ({attr.name})",
                {
                    "key": attr.name,
                    "path": ".".join(_names(path)),
                    "source": self.source,
                    "param": self.param,
                },
            )
        if not isinstance(raw, dict):
            raise self.invalid_value(
                path, raw, "expected an object of filters on the related fields"
            )
        target = related_schema(self.registry, attr)
        if target is None or (
            attr.mapped_by is not None
            and isinstance(target, ContentType)
            and attr.mapped_by not in target.attributes
        ):
            raise self.invalid_key(attr.name, path[:-1])
        depth = self._deeper(depth, RELATION_LEVELS)
        self._tally.relations += 1
        try:
            return self._related(schema, attr, target, raw, path, depth)
        finally:
            self._tally.relations -= 1

    def _related(
        self,
        schema: Schema,
        attr: Attribute,
        target: Schema,
        raw: dict[str, Any],
        path: list[str],
        depth: int,
    ) -> Node | None:
        presence = {k: v for k, v in raw.items() if k in NULL_OPS}
        rest = {k: v for k, v in raw.items() if k not in NULL_OPS}
        nodes: list[Node] = []
        for op, value in presence.items():
            # `filters[category][$null]=true`: documents without (or with) a related entry
            try:
                wanted = parse_bool(value)
            except ValueError:
                raise self.invalid_value([*path, op], value, "expected true or false") from None
            self._count(0)
            any_entry = Cond(SYSTEM_FIELDS["id"], OPERATORS["$notNull"], True)
            exists = Rel(schema, attr, target, any_entry)
            nodes.append(Not(exists) if wanted == (op == "$null") else exists)
        if rest or not presence:
            child = self._parse(target, rest, path, depth)
            if child is not None:
                nodes.append(Rel(schema, attr, target, child))
        if not nodes:
            return None
        return nodes[0] if len(nodes) == 1 else Group("AND", nodes)

    def field_filter(self, ref: FieldRef, raw: Any, path: list[str], depth: int) -> Node:
        if not isinstance(raw, dict):
            # `filters[title]=x` means $eq, `filters[title][0]=x` means $in
            op = "$in" if isinstance(raw, list) else "$eq"
            return self.condition(ref, OPERATORS[op], raw, [*path, op])
        nodes: list[Node] = []
        for name, value in raw.items():
            operator = OPERATORS.get(name)
            if name == "$not":
                nodes.append(Not(self.field_filter(ref, value, [*path, name], self._deeper(depth))))
            elif operator is not None and operator.family in ref.kind.operator_families:
                nodes.append(self.condition(ref, operator, value, [*path, name]))
            else:
                raise self.invalid_key(name, path)
        if not nodes:
            raise self.invalid_value(path, raw, "expected an operator")
        return nodes[0] if len(nodes) == 1 else Group("AND", nodes)

    def condition(self, ref: FieldRef, op: Operator, raw: Any, path: list[str]) -> Cond:
        kind = ref.kind
        if op.arity == FLAG:
            self._count(0)
            try:
                return Cond(ref, op, parse_bool(raw))
            except ValueError:
                raise self.invalid_value(path, raw, "expected true or false") from None
        if op.arity in (LIST, PAIR):
            items = raw if isinstance(raw, list) else [raw]
            if op.arity == PAIR and len(items) != 2:
                raise self.invalid_value(path, raw, "expected two values")
            self._count(len(items))
            nested = len(items) > 1 or isinstance(raw, list)
            values = [
                self.operand(ref, item, [*path, str(i)] if nested else path)
                for i, item in enumerate(items)
            ]
            return Cond(ref, op, values)
        assert op.arity == ONE
        if isinstance(raw, list) and op.name in ("$eq", "$ne"):
            listed = OPERATORS["$in" if op.name == "$eq" else "$notIn"]
            return self.condition(ref, listed, raw, path)
        if raw is None and op.name in ("$eq", "$ne"):
            self._count(0)
            return Cond(ref, OPERATORS["$null" if op.name == "$eq" else "$notNull"], True)
        if isinstance(raw, list | dict):
            raise self.invalid_value(path, raw, "expected a single value")
        self._count(1)
        if op.textual and not kind.text_native:
            return Cond(ref, op, str(raw).lower() if isinstance(raw, bool) else str(raw))
        return Cond(ref, op, self.operand(ref, raw, path))

    def operand(self, ref: FieldRef, raw: Any, path: list[str]) -> Any:
        if isinstance(raw, list | dict):
            raise self.invalid_value(path, raw, "expected a single value")
        try:
            return ref.kind.parse_filter(raw)
        except (ValueError, OverflowError) as exc:
            reason = str(exc) or f"not a valid {ref.kind.label}"
            raise self.invalid_value(path, raw, reason) from None


def related_schema(registry: Registry, attr: Attribute) -> Schema | None:
    """The schema of a relation's target or a component field's component."""
    if attr.type == "component":
        return registry.components.get(str(attr.component))
    if attr.type == "relation":
        return registry.content_types.get(str(attr.target))
    return None


def _names(path: list[str]) -> list[str]:
    return [p for p in path if not p.startswith("$") and not p.isdecimal()]


def _field_path(path: list[str]) -> str | None:
    """The path of the enclosing field (logical groups and indexes left out)."""
    return ".".join(_names(path)) or None
