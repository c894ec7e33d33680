"""The GraphQL extension service: what an app changes in its generated GraphQL schema, from
`register(app)` (`app.graphql.extension`, also `app.plugin("graphql").service("extension")`
as the reference app looks it up).

    ext = app.graphql.extension
    ext.shadowCRUD("api::article.article").field("body").disableOutput()
    ext.shadowCRUD("api::tag.tag").disableMutations()
    ext.use({"typeDefs": "extend type Query { hello: String }",
             "resolvers": {"Query": {"hello": lambda parent, args, context, info: "hi"}},
             "resolversConfig": {"Query.hello": {"auth": False}}})

This module only records the settings and extensions; the GraphQL front-end
(`folio.http.graphql`) reads them when it builds the schema."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from folio.errors import ConfigError

# the actions of a content type's generated queries and mutations
ACTIONS = ("find", "findOne", "create", "update", "delete")
QUERY_ACTIONS = frozenset({"find", "findOne"})
EXTENSION_KEYS = frozenset({"typeDefs", "types", "plugins", "resolvers", "resolversConfig"})


class FieldSettings:
    """One attribute's place in the schema: as an output field, in the input type and in
    the filters input."""

    def __init__(self) -> None:
        self.output = True
        self.input = True
        self.filters = True

    def disable(self) -> FieldSettings:
        self.output = self.input = self.filters = False
        return self

    def disableOutput(self) -> FieldSettings:
        self.output = False
        return self

    def disableInput(self) -> FieldSettings:
        self.input = False
        return self

    def disableFilters(self) -> FieldSettings:
        self.filters = False
        return self

    def isEnabled(self) -> bool:
        return self.output or self.input or self.filters

    def isDisabled(self) -> bool:
        return not self.isEnabled()

    def hasInputEnabled(self) -> bool:
        return self.input

    def hasOutputEnabled(self) -> bool:
        return self.output

    def hasFiltersEnabled(self) -> bool:
        return self.filters


class TypeSettings:
    """A content type's place in the generated schema."""

    def __init__(self, uid: str) -> None:
        self.uid = uid
        self.enabled = True
        self.disabled_actions: set[str] = set()
        self.fields: dict[str, FieldSettings] = {}

    def disable(self) -> TypeSettings:
        self.enabled = False
        return self

    def disableQueries(self) -> TypeSettings:
        return self.disableActions(QUERY_ACTIONS)

    def disableMutations(self) -> TypeSettings:
        return self.disableActions(a for a in ACTIONS if a not in QUERY_ACTIONS)

    def disableAction(self, action: str) -> TypeSettings:
        if action not in ACTIONS:
            raise ConfigError(
                f"graphql: unknown action {action!r} of {self.uid} (one of {', '.join(ACTIONS)})"
            )
        self.disabled_actions.add(action)
        return self

    def disableActions(self, actions: Iterable[str]) -> TypeSettings:
        for action in actions:
            self.disableAction(action)
        return self

    def field(self, name: str) -> FieldSettings:
        return self.fields.setdefault(name, FieldSettings())

    def isEnabled(self) -> bool:
        return self.enabled

    def isDisabled(self) -> bool:
        return not self.enabled

    def areQueriesEnabled(self) -> bool:
        return self.enabled and not self.disabled_actions >= QUERY_ACTIONS

    def areQueriesDisabled(self) -> bool:
        return not self.areQueriesEnabled()

    def areMutationsEnabled(self) -> bool:
        return self.enabled and not set(ACTIONS) - QUERY_ACTIONS <= self.disabled_actions

    def areMutationsDisabled(self) -> bool:
        return not self.areMutationsEnabled()

    def isActionEnabled(self, action: str) -> bool:
        return self.enabled and action not in self.disabled_actions

    def isActionDisabled(self, action: str) -> bool:
        return not self.isActionEnabled(action)

    # the front-end's questions
    def output(self, name: str) -> bool:
        found = self.fields.get(name)
        return found is None or found.output

    def input(self, name: str) -> bool:
        found = self.fields.get(name)
        return found is None or found.input

    def filters(self, name: str) -> bool:
        found = self.fields.get(name)
        return found is None or found.filters


Extension = dict[str, Any] | Callable[..., dict[str, Any]]


class ExtensionService:
    def __init__(self) -> None:
        self.types: dict[str, TypeSettings] = {}
        # (name for messages, extension) in the order of `use`
        self.extensions: list[tuple[str, Extension]] = []

    def shadowCRUD(self, uid: str) -> TypeSettings:
        return self.types.setdefault(uid, TypeSettings(uid))

    shadow_crud = shadowCRUD

    def use(self, extension: Extension) -> ExtensionService:
        """Adds an extension: a dict with `typeDefs`, `types`, `plugins`, `resolvers` and
        `resolversConfig`, or a function given the schema helpers that returns one."""
        if not isinstance(extension, dict) and not callable(extension):
            raise ConfigError("graphql: an extension is a dict or a function returning one")
        if isinstance(extension, dict):
            unknown = set(extension) - EXTENSION_KEYS
            if unknown:
                raise ConfigError(
                    f"graphql: extension #{len(self.extensions) + 1} has unknown keys "
                    f"{', '.join(sorted(unknown))} (expected {', '.join(sorted(EXTENSION_KEYS))})"
                )
        name = getattr(extension, "__name__", None) or f"#{len(self.extensions) + 1}"
        self.extensions.append((str(name), extension))
        return self

    # the front-end's questions
    def settings(self, uid: str) -> TypeSettings | None:
        return self.types.get(uid)


class GraphQLPlugin:
    """`app.graphql`: the plugin's services, by the names the reference gives them."""

    def __init__(self) -> None:
        self.extension = ExtensionService()

    def service(self, name: str) -> Any:
        if name == "extension":
            return self.extension
        raise ConfigError(f"graphql: there is no service {name!r}")
