"""The generated GraphQL schema against the reference's, dumped by introspection from the
reference app (whose models are tests/fixtures/blog): every type, field, argument, default
and description equal, apart from the differences listed here with their reason."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from graphql import (
    GraphQLInputObjectType,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLUnionType,
    build_schema,
    print_type,
)

from folio.app import load_app
from folio.http.graphql.endpoint import GraphQLEndpoint

FIXTURES = Path(__file__).parent.parent / "fixtures"

# Review workflows are an admin-panel feature of the reference that Folio does not have.
REVIEW_WORKFLOWS = {
    "ReviewWorkflowsWorkflow",
    "ReviewWorkflowsWorkflowFiltersInput",
    "ReviewWorkflowsWorkflowInput",
    "ReviewWorkflowsWorkflowEntityResponseCollection",
    "ReviewWorkflowsWorkflowStage",
    "ReviewWorkflowsWorkflowStageFiltersInput",
    "ReviewWorkflowsWorkflowStageInput",
    "ReviewWorkflowsWorkflowStageEntityResponseCollection",
    "ReviewWorkflowsWorkflowStageRelationResponseCollection",
}
# Folio declares a role's permissions in config/permissions.json (in version control), not
# as records: there is no permission type, and roles have no `permissions` relation.
PERMISSION_RECORDS = {
    "UsersPermissionsPermission",
    "UsersPermissionsPermissionFiltersInput",
    "UsersPermissionsPermissionRelationResponseCollection",
}
ABSENT_TYPES = REVIEW_WORKFLOWS | PERMISSION_RECORDS
ABSENT_FIELDS = {
    "UsersPermissionsRole": {"permissions", "permissions_connection"},
    "UsersPermissionsRoleInput": {"permissions"},
    "UsersPermissionsRoleFiltersInput": {"permissions"},
    "Query": {
        "reviewWorkflowsWorkflow",
        "reviewWorkflowsWorkflows",
        "reviewWorkflowsWorkflows_connection",
        "reviewWorkflowsWorkflowStage",
        "reviewWorkflowsWorkflowStages",
        "reviewWorkflowsWorkflowStages_connection",
    },
    "Mutation": {
        f"{op}ReviewWorkflowsWorkflow{stage}"
        for op in ("create", "update", "delete")
        for stage in ("", "Stage")
    },
}


@pytest.fixture(scope="module")
def schemas(tmp_path_factory: pytest.TempPathFactory) -> tuple[GraphQLSchema, GraphQLSchema]:
    app_dir = tmp_path_factory.mktemp("schema") / "app"
    shutil.copytree(FIXTURES / "blog", app_dir)
    folio = load_app(app_dir, f"sqlite:///{app_dir / 'data.db'}")
    ours = GraphQLEndpoint(folio).schema
    reference = build_schema((FIXTURES / "reference" / "graphql-schema.graphql").read_text())
    return ours, reference


def _without(kind: object, absent: set[str]) -> str:
    """A type printed without the fields Folio knowingly lacks."""
    if isinstance(kind, GraphQLObjectType):
        fields = {k: v for k, v in kind.fields.items() if k not in absent}
        return print_type(GraphQLObjectType(kind.name, fields, description=kind.description))
    if isinstance(kind, GraphQLInputObjectType):
        fields = {k: v for k, v in kind.fields.items() if k not in absent}
        return print_type(GraphQLInputObjectType(kind.name, fields, description=kind.description))
    return print_type(kind)  # type: ignore[arg-type]


def test_same_types(schemas: tuple[GraphQLSchema, GraphQLSchema]) -> None:
    ours, reference = schemas
    theirs = {n for n in reference.type_map if not n.startswith("__")}
    mine = {n for n in ours.type_map if not n.startswith("__")}
    assert theirs - mine == ABSENT_TYPES
    assert mine - theirs == set()


def test_every_type_printed_the_same(schemas: tuple[GraphQLSchema, GraphQLSchema]) -> None:
    ours, reference = schemas
    differ = []
    for name, kind in reference.type_map.items():
        if name.startswith("__") or name in ABSENT_TYPES or isinstance(kind, GraphQLUnionType):
            continue
        expected = _without(kind, ABSENT_FIELDS.get(name, set()))
        got = print_type(ours.type_map[name])
        if got != expected:
            differ.append(f"{name}:\n--- reference\n{expected}\n--- folio\n{got}")
    assert not differ, "\n\n".join(differ)


def test_unions_have_the_same_members(schemas: tuple[GraphQLSchema, GraphQLSchema]) -> None:
    ours, reference = schemas
    unions = [k for k in reference.type_map.values() if isinstance(k, GraphQLUnionType)]
    assert {u.name for u in unions} == {
        "GenericMorph",
        "ArticleBlocksDynamicZone",
        "AboutBlocksDynamicZone",
    }
    for union in unions:
        mine = ours.type_map[union.name]
        assert isinstance(mine, GraphQLUnionType)
        expected = [t.name for t in union.types if t.name not in ABSENT_TYPES]
        if union.name == "GenericMorph":  # an unordered list of every type
            assert sorted(t.name for t in mine.types) == sorted(expected)
        else:  # a dynamic zone's components, in the model's order, then Error
            assert [t.name for t in mine.types] == expected


def test_the_reference_lists_what_folio_lacks(
    schemas: tuple[GraphQLSchema, GraphQLSchema],
) -> None:
    """Every listed difference is real: the reference has each absent field."""
    _, reference = schemas
    for name, fields in ABSENT_FIELDS.items():
        kind = reference.type_map[name]
        assert isinstance(kind, GraphQLObjectType | GraphQLInputObjectType)
        assert fields <= set(kind.fields), name
