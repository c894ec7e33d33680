"""The bounds of a GraphQL document and its variables, checked before graphql-core
validates or runs them, so that no small request costs seconds of CPU or the interpreter's
stack: its tokens (the parser stops counting at `maxTokens`), its bracket nesting (a scan of
the text before the recursive parser sees it), its aliases, fragments and directives, the
fields it selects once its fragments are spread (as execution collects them), how many times
one field is selected at one place of the answer (graphql-core compares every pair of them
there), the depth of its operations (`depthLimit`, each fragment walked once per depth) and
the nesting of its variables.

Each check answers graphql-core errors, which the endpoint reports as validation errors
naming the limit (`graphql.config.<key>`) and its value."""

from __future__ import annotations

import re
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    Node,
    OperationDefinitionNode,
    SelectionSetNode,
    Source,
    parse,
)
from graphql.error import GraphQLSyntaxError

from folio.http.graphql.schema import GraphQLSettings
from folio.schema.kinds.json import nesting

# strings, block strings and comments (whose brackets do not nest) and the brackets
_SCAN = re.compile(r'"""(?:\\"""|[^"]|"(?!""))*"""|"(?:[^"\\\n\r]|\\.)*"|#[^\n\r]*|[{}\[\]()]')
_OPEN = frozenset("{[(")
_CLOSE = frozenset("}])")


def too_much(what: str, limit: int, key: str, nodes: Any = None) -> GraphQLError:
    return GraphQLError(f"{what}, more than the maximum of {limit} (graphql.config.{key})", nodes)


def parsed(text: str, settings: GraphQLSettings) -> DocumentNode | GraphQLError:
    """The document, or the error refusing it: too deeply nested, too many tokens (both
    before the parser builds anything of size), or its syntax."""
    nested = nesting_error(text, settings.max_nesting)
    if nested is not None:
        return nested
    try:
        return parse(text, max_tokens=settings.max_tokens)
    except GraphQLSyntaxError as exc:
        if exc.message.startswith("Syntax Error: Document contains more than"):
            return too_much("The query has too many tokens", settings.max_tokens, "maxTokens")
        return exc


def nesting_error(text: str, limit: int) -> GraphQLError | None:
    """Brackets (selections, arguments, lists and objects) nested deeper than `limit`,
    located at the first bracket past it."""
    depth = 0
    for match in _SCAN.finditer(text):
        char = match.group()
        if char in _OPEN:
            depth += 1
            if depth > limit:
                return GraphQLError(
                    too_much("The query is nested too deeply", limit, "maxNesting").message,
                    source=Source(text),
                    positions=[match.start()],
                )
        elif char in _CLOSE:
            depth = max(depth - 1, 0)
    return None


def document_errors(document: DocumentNode, settings: GraphQLSettings) -> list[GraphQLError]:
    """The document's aliases, fragments and directives as written, then the fields it
    selects with fragments spread, each beyond its limit."""
    aliases = directives = fragments = 0
    pending: list[Any] = []
    for definition in document.definitions:
        if isinstance(definition, FragmentDefinitionNode):
            fragments += 1
        directives += len(getattr(definition, "directives", None) or ())
        selection_set = getattr(definition, "selection_set", None)
        if selection_set is not None:
            pending.append(selection_set)
        for variable in getattr(definition, "variable_definitions", None) or ():
            directives += len(variable.directives or ())
    while pending:
        for selection in pending.pop().selections:
            directives += len(selection.directives or ())
            if isinstance(selection, FieldNode) and selection.alias is not None:
                aliases += 1
            sub = getattr(selection, "selection_set", None)
            if sub is not None:
                pending.append(sub)
    errors: list[GraphQLError] = []
    for count, limit, what, key in (
        (fragments, settings.max_fragments, "fragments", "maxFragments"),
        (aliases, settings.max_aliases, "aliases", "maxAliases"),
        (directives, settings.max_directives, "directives", "maxDirectives"),
    ):
        if count > limit:
            errors.append(too_much(f"The query has {count} {what}", limit, key))
    if errors:
        return errors
    return _selection_errors(document, settings)


def _selection_errors(document: DocumentNode, settings: GraphQLSettings) -> list[GraphQLError]:
    """Walks each operation as execution collects it: the fields of one place of the
    answer gathered from their selection sets, inline fragments and spread fragments (each
    once per place), then the places below. Stops at the first limit passed, and below
    `maxNesting` levels (only a fragment cycle, refused by validation, goes that deep)."""
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    places: list[tuple[list[SelectionSetNode], int]] = [
        ([d.selection_set], 0)
        for d in document.definitions
        if isinstance(d, OperationDefinitionNode)
    ]
    total = 0
    while places:
        sets, depth = places.pop()
        fields: dict[str, list[FieldNode]] = {}
        spread: set[str] = set()
        while sets:
            for selection in sets.pop().selections:
                if isinstance(selection, FieldNode):
                    key = (selection.alias or selection.name).value
                    fields.setdefault(key, []).append(selection)
                elif isinstance(selection, InlineFragmentNode):
                    sets.append(selection.selection_set)
                elif isinstance(selection, FragmentSpreadNode):
                    name = selection.name.value
                    fragment = fragments.get(name)
                    if fragment is not None and name not in spread:
                        spread.add(name)
                        sets.append(fragment.selection_set)
        for key, nodes in fields.items():
            total += len(nodes)
            if total > settings.max_fields:
                return [
                    too_much(
                        "The query selects too many fields (fragments counted where they "
                        "are spread)",
                        settings.max_fields,
                        "maxFields",
                    )
                ]
            if len(nodes) > settings.max_repeats:
                return [
                    too_much(
                        f"'{key}' is selected {len(nodes)} times at one place",
                        settings.max_repeats,
                        "maxRepeats",
                        nodes[settings.max_repeats],
                    )
                ]
            if depth < settings.max_nesting:
                below = [n.selection_set for n in nodes if n.selection_set is not None]
                if below:
                    places.append((below, depth + 1))
    return []


def depth_errors(document: DocumentNode, limit: int) -> list[GraphQLError]:
    """Operations nested deeper than `limit` (root fields are depth 0; introspection
    fields do not count), one error per selection beyond it. A selection set (a
    fragment's among them) is walked once per operation and depth, so fragments spread
    many times, or in a cycle, cost no more than their text."""
    errors: list[GraphQLError] = []
    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            name = definition.name.value if definition.name else ""
            _Depth(document, limit, name, errors).walk(definition.selection_set, 0)
    return errors


class _Depth:
    def __init__(
        self, document: DocumentNode, limit: int, name: str, errors: list[GraphQLError]
    ) -> None:
        self.fragments = {
            d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
        }
        self.limit = limit
        self.name = name
        self.errors = errors
        self.walked: set[tuple[int, int]] = set()

    def walk(self, selection_set: SelectionSetNode, depth: int) -> None:
        key = (id(selection_set), depth)
        if key in self.walked:
            return
        self.walked.add(key)
        for node in selection_set.selections:
            if depth > self.limit:
                message = f"'{self.name}' exceeds maximum operation depth of {self.limit}"
                self.errors.append(GraphQLError(message, [node]))
            elif isinstance(node, FieldNode):
                if node.selection_set is not None and not node.name.value.startswith("__"):
                    self.walk(node.selection_set, depth + 1)
            elif isinstance(node, FragmentSpreadNode):
                fragment = self.fragments.get(node.name.value)
                if fragment is not None:
                    self.walk(fragment.selection_set, depth)
            elif isinstance(node, InlineFragmentNode):
                self.walk(node.selection_set, depth)


def introspection_errors(document: DocumentNode) -> list[GraphQLError]:
    """`__schema` and `__type` anywhere in the document (`__typename` is allowed)."""
    errors: list[GraphQLError] = []
    pending: list[Node] = list(reversed(document.definitions))
    while pending:
        node = pending.pop()
        if isinstance(node, FieldNode) and node.name.value in ("__schema", "__type"):
            errors.append(
                GraphQLError(
                    "GraphQL introspection is not allowed, but the query contained __schema "
                    "or __type. Enable it with graphql.config.engineServer.introspection",
                    [node],
                )
            )
            continue
        selection_set = getattr(node, "selection_set", None)
        if selection_set is not None:
            pending.extend(reversed(selection_set.selections))
    return errors


def variables_error(variables: dict[str, Any], limit: int) -> str | None:
    """Variables whose objects and lists nest deeper than `limit` (values that deep could
    only reach the recursive coercion and encoding of values)."""
    if nesting(variables, limit) > limit:
        return (
            "Variables are nested too deeply, more than the maximum of "
            f"{limit} (graphql.config.maxNesting)"
        )
    return None


_SUGGESTION = re.compile(r" ?Did you mean [^?]*\?")


def without_suggestions(message: str) -> str:
    """A message without graphql-core's "Did you mean ...?" (names of the schema that
    production hides with introspection)."""
    return _SUGGESTION.sub("", message)
