"""Fuzzes a running server's GraphQL endpoint: documents generated from its introspected
schema (hypothesis-graphql: queries and mutations, valid ones and ones with one violation),
then rewritten at random into what clients write: literal arguments moved into variables
(declared, sometimes with a default, sometimes sent with a value of the wrong shape),
aliases, fields selected twice, selections moved into named fragments spread once or twice,
and inline fragments. Every answer must be a non-5xx JSON object in the GraphQL shape.

    .venv/bin/python -m tests.fuzz.graphql URL [--cases 5000] [--seed 7]

Failures are collected, not raised, so that one run reports all it found; the first few are
printed with their documents and variables, and the exit status is 1."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Mapping
from typing import Any

import graphql
import httpx
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis_graphql import Mode, from_schema, nodes

NAMES = st.from_regex(r"\A[_A-Za-z][_0-9A-Za-z]{0,7}\Z")  # an object literal's keys
JSON_LEAVES = st.one_of(
    st.integers(-(2**40), 2**40).map(nodes.Int),
    st.text(max_size=20).map(nodes.String),
    st.booleans().map(lambda b: graphql.BooleanValueNode(value=b)),
    st.just(graphql.NullValueNode()),
)


def _object(pairs: Mapping[str, graphql.ValueNode]) -> graphql.ObjectValueNode:
    return graphql.ObjectValueNode(
        fields=tuple(
            graphql.ObjectFieldNode(name=graphql.NameNode(value=k), value=v)
            for k, v in pairs.items()
        )
    )


def scalar_strategies(schema: graphql.GraphQLSchema) -> dict[str, st.SearchStrategy[Any]]:
    """Literals for the schema's custom scalars: mostly well-formed, sometimes not."""
    junk = st.text(max_size=12).map(nodes.String)
    known: dict[str, st.SearchStrategy[Any]] = {
        "DateTime": st.datetimes().map(lambda d: nodes.String(d.isoformat() + "Z")),
        "Date": st.dates().map(lambda d: nodes.String(d.isoformat())),
        "Time": st.times().map(lambda t: nodes.String(t.isoformat())),
        "Long": st.integers(-(2**70), 2**70).map(nodes.Int),
        "I18NLocaleCode": st.sampled_from(["en", "fr", "de", "xx", ""]).map(nodes.String),
        "JSON": st.one_of(
            JSON_LEAVES,
            st.dictionaries(NAMES, JSON_LEAVES, max_size=3).map(_object),
        ),
    }
    components = sorted(
        name
        for name, t in schema.type_map.items()
        if name.startswith("Component") and isinstance(t, graphql.GraphQLObjectType)
    )
    out: dict[str, st.SearchStrategy[Any]] = {}
    for name, t in schema.type_map.items():
        if not isinstance(t, graphql.GraphQLScalarType) or name in graphql.specified_scalar_types:
            continue
        if name in known:
            # mostly well-formed values: junk is one draw in four
            out[name] = known[name] if name == "JSON" else st.one_of(*[known[name]] * 3, junk)
        elif name.endswith("DynamicZoneInput") and components:
            entry = st.sampled_from(components).map(
                lambda c: _object({"__typename": nodes.String(c)})
            )
            out[name] = st.lists(entry, max_size=3).map(
                lambda items: graphql.ListValueNode(values=tuple(items))
            )
        else:
            out[name] = junk
    return out


def to_json(node: graphql.ValueNode) -> Any:
    """A literal as the JSON value a client would send for it as a variable."""
    if isinstance(node, graphql.IntValueNode):
        return int(node.value)
    if isinstance(node, graphql.FloatValueNode):
        return float(node.value)
    if isinstance(node, (graphql.StringValueNode, graphql.EnumValueNode)):
        return node.value
    if isinstance(node, graphql.BooleanValueNode):
        return node.value
    if isinstance(node, graphql.ListValueNode):
        return [to_json(v) for v in node.values]
    if isinstance(node, graphql.ObjectValueNode):
        return {f.name.value: to_json(f.value) for f in node.fields}
    return None


class Rewriter:
    """Rewrites one generated operation in place, drawing every choice from `rng`."""

    def __init__(self, schema: graphql.GraphQLSchema, rng: random.Random) -> None:
        self.schema = schema
        self.rng = rng
        self.variables: dict[str, Any] = {}
        self.definitions: list[graphql.VariableDefinitionNode] = []
        self.fragments: list[graphql.FragmentDefinitionNode] = []
        self.aliases = 0

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def argument(
        self, arg: graphql.ArgumentNode, definition: graphql.GraphQLArgument | None
    ) -> graphql.ArgumentNode:
        if definition is None or not self.chance(0.5):
            return arg
        name = f"v{len(self.definitions)}"
        type_node = graphql.parse_type(str(definition.type))
        default = None
        if self.chance(0.15) and not isinstance(type_node, graphql.NonNullTypeNode):
            default = arg.value  # declared with the literal as its default, no value sent
        elif self.chance(0.05):
            self.variables[name] = self.rng.choice([[], {}, "x", 1, 1.5, True, [[None]], {"a": []}])
        else:
            self.variables[name] = to_json(arg.value)
        self.definitions.append(
            graphql.VariableDefinitionNode(
                variable=graphql.VariableNode(name=graphql.NameNode(value=name)),
                type=type_node,
                default_value=default,
                directives=(),
            )
        )
        return graphql.ArgumentNode(
            name=arg.name, value=graphql.VariableNode(name=graphql.NameNode(value=name))
        )

    def selections(
        self,
        selection_set: graphql.SelectionSetNode | None,
        parent: graphql.GraphQLNamedType | None,
    ) -> graphql.SelectionSetNode | None:
        if selection_set is None:
            return None
        out: list[graphql.SelectionNode] = []
        for node in selection_set.selections:
            if isinstance(node, graphql.FieldNode):
                out.extend(self.field(node, parent))
            elif isinstance(node, graphql.InlineFragmentNode):
                condition = node.type_condition
                inner = self.schema.get_type(condition.name.value) if condition else parent
                out.append(
                    graphql.InlineFragmentNode(
                        type_condition=condition,
                        directives=node.directives,
                        selection_set=self.selections(node.selection_set, inner),
                    )
                )
            else:
                out.append(node)
        if parent is not None and out and self.chance(0.25):
            return self.fragment(out, parent)
        return graphql.SelectionSetNode(selections=tuple(out))

    def fragment(
        self, selections: list[graphql.SelectionNode], parent: graphql.GraphQLNamedType
    ) -> graphql.SelectionSetNode:
        """The selections moved into a named fragment (spread once or twice) or wrapped in
        an inline fragment on the parent type."""
        condition = graphql.NamedTypeNode(name=graphql.NameNode(value=parent.name))
        inner = graphql.SelectionSetNode(selections=tuple(selections))
        if self.chance(0.3):
            node: graphql.SelectionNode = graphql.InlineFragmentNode(
                type_condition=condition, directives=(), selection_set=inner
            )
            return graphql.SelectionSetNode(selections=(node,))
        name = f"F{len(self.fragments)}"
        self.fragments.append(
            graphql.FragmentDefinitionNode(
                name=graphql.NameNode(value=name),
                type_condition=condition,
                directives=(),
                selection_set=inner,
            )
        )
        spread = graphql.FragmentSpreadNode(name=graphql.NameNode(value=name), directives=())
        return graphql.SelectionSetNode(selections=(spread,) * (2 if self.chance(0.3) else 1))

    def alias(self) -> graphql.NameNode:
        self.aliases += 1
        return graphql.NameNode(value=f"a{self.aliases}")

    def field(
        self, node: graphql.FieldNode, parent: graphql.GraphQLNamedType | None
    ) -> list[graphql.FieldNode]:
        fields = getattr(parent, "fields", None) or {}
        definition = fields.get(node.name.value)
        args = tuple(
            self.argument(a, definition.args.get(a.name.value) if definition else None)
            for a in node.arguments
        )
        child = graphql.get_named_type(definition.type) if definition else None
        rewritten = graphql.FieldNode(
            alias=self.alias() if node.alias is None and self.chance(0.2) else node.alias,
            name=node.name,
            arguments=args,
            directives=node.directives,
            selection_set=self.selections(node.selection_set, child),
        )
        if self.chance(0.1):  # the same field again, under the same name: must merge
            return [rewritten, rewritten]
        return [rewritten]

    def document(self, document: graphql.DocumentNode) -> graphql.DocumentNode:
        out: list[graphql.DefinitionNode] = []
        for definition in document.definitions:
            if not isinstance(definition, graphql.OperationDefinitionNode):
                out.append(definition)
                continue
            root = self.schema.get_root_type(definition.operation)
            selection_set = self.selections(definition.selection_set, root)
            assert selection_set is not None
            out.append(
                graphql.OperationDefinitionNode(
                    operation=definition.operation,
                    name=definition.name
                    or (graphql.NameNode(value="Fuzz") if self.chance(0.5) else None),
                    variable_definitions=tuple(self.definitions),
                    directives=definition.directives,
                    selection_set=selection_set,
                )
            )
        return graphql.DocumentNode(definitions=tuple(out + self.fragments))


def shape_problem(r: httpx.Response) -> str | None:
    """What is wrong with an answer, or None."""
    if r.status_code >= 500:
        return f"status {r.status_code}"
    try:
        body = r.json()
    except ValueError:
        return f"not JSON ({r.headers.get('content-type')}): {r.text[:120]!r}"
    if not isinstance(body, dict) or not body.keys() & {"data", "errors"}:
        return f"not a GraphQL answer: {str(body)[:120]}"
    if body.keys() - {"data", "errors", "extensions"}:
        return f"unexpected keys {sorted(body.keys())}"
    data, errors = body.get("data"), body.get("errors")
    if data is not None and not isinstance(data, dict):
        return "data is not an object"
    if errors is not None and not (
        isinstance(errors, list)
        and errors
        and all(isinstance(e, dict) and isinstance(e.get("message"), str) for e in errors)
    ):
        return f"malformed errors: {str(errors)[:120]}"
    if data is None and not errors:
        return "neither data nor errors"
    return None


def introspect(client: httpx.Client, url: str) -> graphql.GraphQLSchema:
    r = client.post(url, json={"query": graphql.get_introspection_query()})
    r.raise_for_status()
    return graphql.build_client_schema(r.json()["data"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url")
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    client = httpx.Client(timeout=60)
    schema = introspect(client, args.url)
    scalars = scalar_strategies(schema)
    valid = from_schema(schema, custom_scalars=scalars, print_ast=lambda d: d)
    invalid = from_schema(schema, custom_scalars=scalars, print_ast=lambda d: d, mode=Mode.NEGATIVE)
    documents = st.one_of(valid, valid, invalid)  # two valid documents for one invalid
    failures: list[tuple[str, str, dict[str, Any]]] = []
    statuses: dict[int, int] = {}
    sent = 0

    @seed(args.seed)
    @settings(
        max_examples=args.cases,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(document=documents, choices=st.integers(0, 2**32 - 1))
    def case(document: graphql.DocumentNode, choices: int) -> None:
        nonlocal sent
        rewriter = Rewriter(schema, random.Random(choices))
        text = graphql.print_ast(rewriter.document(document))
        body = {"query": text, "variables": rewriter.variables}
        try:
            r = client.post(args.url, json=body)
        except httpx.HTTPError as e:
            failures.append((f"no answer: {type(e).__name__}", text, rewriter.variables))
            return
        sent += 1
        statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
        problem = shape_problem(r)
        if problem:
            failures.append((f"{problem}: {r.text[:300]}", text, rewriter.variables))

    started = time.monotonic()
    case()
    took = time.monotonic() - started
    counts = ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items()))
    print(f"graphql fuzz: {sent} documents in {took:.0f}s ({counts}); {len(failures)} failed")
    for why, text, variables in failures[:10]:
        print(f"--- {why}\n{text}\nvariables: {json.dumps(variables)[:2000]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
