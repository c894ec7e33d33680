"""What one GraphQL operation may cost: the items its answer could hold, estimated before
it runs and refused past `graphql.config.maxCost`, and the bytes of its answer, written in
pieces and refused past `graphql.config.maxResponseBytes` before the rest is written.

The estimate counts every object the answer could hold: a to-one field (a relation, a
media, a component) 1, a list field as many as its page could hold (its `pagination`
argument's `limit` or `pageSize`, literal or variable, capped as the resolvers cap it by
`amountLimit` and `maxLimit`; the default page size without one; a `_connection`'s page
for its `nodes`; the default page size for the lists that take no pagination), each
multiplied by what is selected below it; scalars and introspection count nothing. Every
selection counts where it is written: a field selected twice counts twice, a fragment
counts at each place it is spread.

A document's estimate is worked out once (`Costs`, kept with the parsed document): parts
that depend on variables are evaluated per request, with the coerced variable values."""

from __future__ import annotations

from typing import Any

import orjson
from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLList,
    GraphQLNonNull,
    GraphQLSchema,
    InlineFragmentNode,
    ListValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValueNode,
    VariableNode,
    get_named_type,
    value_from_ast,
)

from folio.content.params import Limits, parse_pagination
from folio.http.graphql.plan import pagination_params

# beyond any limit: estimates stop growing there (a document can multiply its lists far)
CEILING = 10**15


class Paging:
    """A `pagination` argument holding variables: its page size is known per request."""

    __slots__ = ("kind", "value")

    def __init__(self, kind: Any, value: ValueNode) -> None:
        self.kind = kind
        self.value = value


# a bound: a number, the page of the enclosing `_connection` (OUTER), or per request
OUTER = -1
Bound = int | Paging


class Part:
    """The cost of one selection set: `fixed` plus `terms`, each (bound, below, inner): a
    field giving `bound` objects each costing 1 + `below` (evaluated with `inner` as the
    page size its `nodes` take), or, with bound None, a fragment spread (`below`)."""

    __slots__ = ("fixed", "terms")

    def __init__(self) -> None:
        self.fixed = 0
        self.terms: list[tuple[Bound | None, Part, Bound | None]] = []


class Costs:
    """The cost structure of each operation of a validated document."""

    __slots__ = ("_fixed", "limits", "operations")

    def __init__(self, schema: GraphQLSchema, document: DocumentNode, limits: Limits) -> None:
        self.limits = limits
        builder = _Builder(schema, document, limits)
        self.operations: dict[str | None, Part] = {}
        # operations whose cost no variable changes, evaluated once
        self._fixed: dict[str | None, int] = {}
        for definition in document.definitions:
            if not isinstance(definition, OperationDefinitionNode):
                continue
            root = schema.get_root_type(definition.operation)
            if root is None:
                continue
            name = definition.name.value if definition.name else None
            part = builder.part(root, definition.selection_set)
            self.operations[name] = part
            # (fragments use only the variables their operation declares)
            if not definition.variable_definitions:
                self._fixed[name] = self._evaluate(part, None, {}, {})

    def of(self, operation: OperationDefinitionNode, variables: dict[str, Any]) -> int:
        """The operation's estimated cost with these (coerced) variable values."""
        name = operation.name.value if operation.name else None
        fixed = self._fixed.get(name)
        if fixed is not None:
            return fixed
        part = self.operations.get(name)
        return 0 if part is None else self._evaluate(part, None, variables, {})

    def _bound(self, bound: Bound, outer: int | None, variables: dict[str, Any]) -> int:
        if isinstance(bound, Paging):
            return _page_size(bound.value, bound.kind, variables, self.limits)
        if bound == OUTER:
            return outer if outer is not None else self.limits.default
        return bound

    def _evaluate(
        self,
        part: Part,
        outer: int | None,
        variables: dict[str, Any],
        memo: dict[tuple[int, int | None], int],
    ) -> int:
        key = (id(part), outer)
        found = memo.get(key)
        if found is not None:
            return found
        total = part.fixed
        for bound, below, inner in part.terms:
            if bound is None:
                total += self._evaluate(below, outer, variables, memo)
            else:
                count = self._bound(bound, outer, variables)
                page = None if inner is None else self._bound(inner, outer, variables)
                total += count * (1 + self._evaluate(below, page, variables, memo))
            if total >= CEILING:
                total = CEILING
                break
        memo[key] = total
        return total


class _Builder:
    def __init__(self, schema: GraphQLSchema, document: DocumentNode, limits: Limits) -> None:
        self.schema = schema
        self.limits = limits
        self.fragments = {
            d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
        }
        self._parts: dict[str, Part] = {}
        self._building: set[str] = set()

    def part(self, kind: Any, selection_set: SelectionSetNode) -> Part:
        part = Part()
        self._collect(kind, selection_set, part)
        # what no variable and no enclosing page changes is added up now
        terms, part.terms = part.terms, []
        for bound, below, inner in terms:
            if below.terms or isinstance(bound, Paging) or bound == OUTER:
                part.terms.append((bound, below, inner))
            elif bound is None:
                part.fixed += below.fixed
            else:
                part.fixed += bound * (1 + below.fixed)
            part.fixed = min(part.fixed, CEILING)
        return part

    def _collect(self, kind: Any, selection_set: SelectionSetNode, part: Part) -> None:
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                self._field(kind, selection, part)
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                inner = self.schema.get_type(condition.name.value) if condition else kind
                self._collect(inner or kind, selection.selection_set, part)
            elif isinstance(selection, FragmentSpreadNode):
                below = self._fragment(selection.name.value)
                if below is not None:
                    part.terms.append((None, below, None))

    def _fragment(self, name: str) -> Part | None:
        found = self._parts.get(name)
        if found is not None:
            return found
        fragment = self.fragments.get(name)
        if fragment is None or name in self._building:
            return None  # (a cycle: refused by validation)
        self._building.add(name)
        kind = self.schema.get_type(fragment.type_condition.name.value)
        found = self.part(kind, fragment.selection_set) if kind is not None else Part()
        self._building.discard(name)
        self._parts[name] = found
        return found

    def _field(self, kind: Any, node: FieldNode, part: Part) -> None:
        name = node.name.value
        fields = getattr(kind, "fields", None)
        if node.selection_set is None or name.startswith("__") or not fields:
            return
        field = fields.get(name)
        if field is None:
            return
        returned = field.type
        if isinstance(returned, GraphQLNonNull):
            returned = returned.of_type
        many = isinstance(returned, GraphQLList)
        below = self.part(get_named_type(returned), node.selection_set)
        paging = self._paging(field, node) if "pagination" in field.args else None
        if many:
            part.terms.append((paging if paging is not None else OUTER, below, None))
        else:
            # a `_connection` passes its page size to its `nodes`
            part.terms.append((1, below, paging))

    def _paging(self, field: Any, node: FieldNode) -> Bound:
        kind = field.args["pagination"].type
        for argument in node.arguments:
            if argument.name.value == "pagination":
                if _holds_variables(argument.value):
                    return Paging(kind, argument.value)
                return _page_size(argument.value, kind, {}, self.limits)
        return _page_size(None, kind, {}, self.limits)


def _page_size(
    value: ValueNode | None, kind: Any, variables: dict[str, Any], limits: Limits
) -> int:
    """The page size a `pagination` argument asks for, as the resolvers cap it (the
    default for a value they refuse: the field answers an error and no items)."""
    raw = value_from_ast(value, kind, variables) if value is not None else None
    try:
        return parse_pagination(pagination_params(raw or None), limits).size
    except Exception:
        return limits.default


def _holds_variables(value: ValueNode) -> bool:
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, VariableNode):
            return True
        if isinstance(node, ListValueNode):
            pending.extend(node.values)
        elif isinstance(node, ObjectValueNode):
            pending.extend(f.value for f in node.fields)
    return False


# ---------------------------------------------------------------------- the answer
# items of a list written at once
BATCH = 16


class _TooLarge(Exception):
    pass


class _Writer:
    """JSON written in pieces, refused as soon as their sum passes `limit`."""

    __slots__ = ("limit", "pieces", "size")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.pieces: list[bytes] = []
        self.size = 0

    def add(self, piece: bytes) -> None:
        self.size += len(piece)
        if self.size > self.limit:
            raise _TooLarge
        self.pieces.append(piece)

    def value(self, value: Any, depth: int) -> None:
        """A value: an object down to `depth` levels key by key, a list some items at a
        time, anything else (below those) whole."""
        if isinstance(value, dict) and value and depth > 0:
            first = True
            for key, item in value.items():
                self.add((b'{"' if first else b',"') + key.encode() + b'":')
                first = False
                self.value(item, depth - 1)
            self.add(b"}")
        elif isinstance(value, list) and len(value) > BATCH:
            self.add(b"[")
            for start in range(0, len(value), BATCH):
                if start:
                    self.add(b",")
                self.add(orjson.dumps(value[start : start + BATCH])[1:-1])
            self.add(b"]")
        else:
            self.add(orjson.dumps(value))


def bounded_json(body: dict[str, Any], limit: int) -> bytes | None:
    """`body` as JSON, or None past `limit` bytes: written in pieces (each root field, a
    connection's members, lists some items at a time), so that a refused answer is never
    built whole. (Response keys are GraphQL names: nothing in them to escape.)"""
    writer = _Writer(limit)
    try:
        writer.value(body, 3)  # the response, `data`, a root field's object
    except _TooLarge:
        return None
    return b"".join(writer.pieces)
