"""The generated GraphQL schema ("shadow CRUD"): for each content type its object type,
input, filters input and collections, the queries and mutations over the document service,
and the upload, locale and users-permissions types, named and shaped as the reference
names and shapes them.

The builder keeps every type it makes in `types` (by name) and the model behind each object
type in `owners`, so that the selection planner (`plan`) and schema extensions find them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphql import (
    GraphQLArgument,
    GraphQLBoolean,
    GraphQLEnumType,
    GraphQLEnumValue,
    GraphQLField,
    GraphQLFloat,
    GraphQLID,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLInt,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLString,
    GraphQLUnionType,
)

from folio.config import whole_number
from folio.errors import ConfigError
from folio.extensions import ExtensionService
from folio.http.graphql import names
from folio.http.graphql.scalars import DATE, DATETIME, JSON, LONG, TIME, locale_code, zone_input
from folio.schema.builtins import FILE_UID, ROLE_UID, USER_UID
from folio.schema.model import Attribute, Component, ContentType, Registry, Schema

if TYPE_CHECKING:
    from folio.http.graphql.resolvers import Resolvers

Resolver = Callable[..., Any]

LOCALE_DESCRIPTION = "The locale to use for the query"
TIMESTAMPS = ("createdAt", "updatedAt", "publishedAt")
# the operators of every scalar filter input, in the reference's order
OPERATORS = (
    "eq",
    "eqi",
    "ne",
    "nei",
    "startsWith",
    "endsWith",
    "contains",
    "notContains",
    "containsi",
    "notContainsi",
    "gt",
    "gte",
    "lt",
    "lte",
)
LIST_OPERATORS = ("in", "notIn", "between")

SCALAR_OF: dict[str, GraphQLScalarType] = {
    "string": GraphQLString,
    "text": GraphQLString,
    "richtext": GraphQLString,
    "email": GraphQLString,
    "password": GraphQLString,
    "uid": GraphQLString,
    "enumeration": GraphQLString,
    "integer": GraphQLInt,
    "biginteger": LONG,
    "float": GraphQLFloat,
    "decimal": GraphQLFloat,
    "boolean": GraphQLBoolean,
    "date": DATE,
    "datetime": DATETIME,
    "timestamp": DATETIME,
    "time": TIME,
    "json": JSON,
    "blocks": JSON,
}

# the types the users-permissions feature exposes beside its models
EXPOSED_BUILTINS = (FILE_UID, ROLE_UID, USER_UID)


# `graphql.config` keys bounding a request -> GraphQLSettings attribute (a positive integer)
LIMIT_KEYS = {
    "maxTokens": "max_tokens",
    "maxNesting": "max_nesting",
    "maxFields": "max_fields",
    "maxAliases": "max_aliases",
    "maxFragments": "max_fragments",
    "maxDirectives": "max_directives",
    "maxRepeats": "max_repeats",
    "maxCost": "max_cost",
    "maxResponseBytes": "max_response_bytes",
}


@dataclass
class GraphQLSettings:
    """`graphql.config` of `config/plugins`."""

    endpoint: str = "/graphql"
    shadow_crud: bool = True
    depth_limit: int = 10
    amount_limit: int = 100
    default_limit: int = 10
    max_limit: int = -1
    introspection: bool = True
    # the sandbox (an IDE for browsers at the endpoint)
    sandbox: bool = True
    # parsed and validated documents kept (engineServer.cacheSize)
    cache_size: int = 512
    # per-request timing in the answer's `extensions` (engineServer.tracing)
    tracing: bool = False
    # what one request may ask for, checked before it runs: the document (its tokens,
    # bracket nesting, fields once fragments are spread, aliases, fragments, directives,
    # times one field is selected at one place of the answer), the estimated items of its
    # answer (`maxCost`) and the answer's bytes
    max_tokens: int = 5_000
    max_nesting: int = 40
    max_fields: int = 1_000
    max_aliases: int = 100
    max_fragments: int = 100
    max_directives: int = 100
    max_repeats: int = 10
    max_cost: int = 25_000
    max_response_bytes: int = 32 * 1024 * 1024
    production: bool = False
    raw: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def read(cls, plugins: dict[str, Any], production: bool) -> GraphQLSettings:
        graphql = plugins.get("graphql") if isinstance(plugins.get("graphql"), dict) else {}
        config = graphql.get("config") if isinstance(graphql, dict) else None
        config = config if isinstance(config, dict) else {}
        out = cls(raw=config)
        endpoint = config.get("endpoint")
        if endpoint is not None:
            if not isinstance(endpoint, str) or not endpoint.startswith("/"):
                raise ConfigError(
                    f"{WHERE}endpoint must be a path starting with / (got {endpoint!r})"
                )
            out.endpoint = endpoint.rstrip("/") or "/graphql"
        out.shadow_crud = bool(config.get("shadowCRUD", True))
        for key, attr in (
            ("depthLimit", "depth_limit"),
            ("amountLimit", "amount_limit"),
            ("defaultLimit", "default_limit"),
            ("maxLimit", "max_limit"),
        ):
            if config.get(key) is not None:
                setattr(out, attr, whole_number(config, key, 0, WHERE, None))
        for key, attr in LIMIT_KEYS.items():
            if config.get(key) is not None:
                setattr(out, attr, whole_number(config, key, 0, WHERE))
        engine = config.get("engineServer") if isinstance(config.get("engineServer"), dict) else {}
        assert isinstance(engine, dict)
        introspection = engine.get("introspection")
        out.introspection = bool(introspection) if introspection is not None else not production
        if engine.get("cacheSize") is not None:
            out.cache_size = whole_number(engine, "cacheSize", 0, WHERE + "engineServer.", 0)
        out.tracing = bool(engine.get("tracing", False))
        out.production = production
        # `landingPage` (a boolean, or a function giving one), else the deprecated
        # `playgroundAlways`; by default on outside production only
        landing = config.get("landingPage")
        if callable(landing):
            landing = landing()
        if landing is not None:
            out.sandbox = bool(landing)
        else:
            out.sandbox = bool(config.get("playgroundAlways")) or not production
        return out


WHERE = "config/plugins: graphql.config."


def exposed(ct: ContentType, extension: ExtensionService | None = None) -> bool:
    """Whether the shadow CRUD covers a content type: the app's types and the upload and
    users-permissions models, unless the app disabled it."""
    if not (ct.uid.startswith("api::") or ct.uid in EXPOSED_BUILTINS):
        return False
    settings = extension.settings(ct.uid) if extension is not None else None
    return settings is None or settings.isEnabled()


class SchemaBuilder:
    def __init__(
        self,
        registry: Registry,
        resolvers: Resolvers,
        settings: GraphQLSettings,
        locales: frozenset[str] = frozenset(),
        extension: ExtensionService | None = None,
    ):
        self.registry = registry
        self.extension = extension or ExtensionService()
        self.locale_code = locale_code(locales)
        self.resolvers = resolvers
        self.settings = settings
        self.types: dict[str, GraphQLNamedType] = {}
        # object type name -> the model it shows (content type or component)
        self.owners: dict[str, Schema] = {}
        self.content_types = [ct for ct in _ordered(registry) if exposed(ct, self.extension)]
        self.file_type = registry.content_types[FILE_UID]

    # ------------------------------------------------------------------ the app's settings
    def relation_target(self, attr: Attribute) -> ContentType | None:
        target = self.registry.content_types.get(str(attr.target))
        return target if target is not None and exposed(target, self.extension) else None

    def _shown(self, schema: Schema, name: str, where: str) -> bool:
        """Whether an attribute is in the output, input or filters of its type."""
        settings = self.extension.settings(schema.uid)
        if settings is None:
            return True
        return bool(getattr(settings, where)(name))

    def action(self, ct: ContentType, action: str) -> bool:
        settings = self.extension.settings(ct.uid)
        return settings is None or settings.isActionEnabled(action)

    # ------------------------------------------------------------------ shared types
    def named(self, name: str, make: Callable[[], GraphQLNamedType]) -> Any:
        found = self.types.get(name)
        if found is None:
            found = make()
            self.types[name] = found
        return found

    def input_named(self, name: str) -> GraphQLInputObjectType:
        found = self.types[name]
        assert isinstance(found, GraphQLInputObjectType)
        return found

    def pagination_type(self) -> GraphQLObjectType:
        return self.named(  # type: ignore[no-any-return]
            "Pagination",
            lambda: GraphQLObjectType(
                "Pagination",
                lambda: {
                    "total": GraphQLField(GraphQLNonNull(GraphQLInt)),
                    "page": GraphQLField(GraphQLNonNull(GraphQLInt)),
                    "pageSize": GraphQLField(GraphQLNonNull(GraphQLInt)),
                    "pageCount": GraphQLField(GraphQLNonNull(GraphQLInt)),
                },
            ),
        )

    def pagination_arg(self) -> GraphQLInputObjectType:
        return self.named(  # type: ignore[no-any-return]
            "PaginationArg",
            lambda: GraphQLInputObjectType(
                "PaginationArg",
                {
                    "page": GraphQLInputField(GraphQLInt),
                    "pageSize": GraphQLInputField(GraphQLInt),
                    "start": GraphQLInputField(GraphQLInt),
                    "limit": GraphQLInputField(GraphQLInt),
                },
            ),
        )

    def status_enum(self) -> GraphQLEnumType:
        return self.named(  # type: ignore[no-any-return]
            "PublicationStatus",
            lambda: GraphQLEnumType(
                "PublicationStatus",
                {"DRAFT": GraphQLEnumValue("draft"), "PUBLISHED": GraphQLEnumValue("published")},
            ),
        )

    def publication_filter(self) -> GraphQLEnumType:
        values = (
            "NEVER_PUBLISHED",
            "HAS_PUBLISHED_VERSION",
            "MODIFIED",
            "UNMODIFIED",
            "NEVER_PUBLISHED_DOCUMENT",
            "HAS_PUBLISHED_VERSION_DOCUMENT",
            "PUBLISHED_WITHOUT_DRAFT",
            "PUBLISHED_WITH_DRAFT",
        )
        return self.named(  # type: ignore[no-any-return]
            "PublicationFilter",
            lambda: GraphQLEnumType(
                "PublicationFilter", {v: GraphQLEnumValue(v.lower()) for v in values}
            ),
        )

    def delete_response(self) -> GraphQLObjectType:
        return self.named(  # type: ignore[no-any-return]
            "DeleteMutationResponse",
            lambda: GraphQLObjectType(
                "DeleteMutationResponse", {"documentId": GraphQLField(GraphQLNonNull(GraphQLID))}
            ),
        )

    def error_type(self) -> GraphQLObjectType:
        return self.named(  # type: ignore[no-any-return]
            "Error",
            lambda: GraphQLObjectType(
                "Error",
                {
                    "code": GraphQLField(GraphQLNonNull(GraphQLString)),
                    "message": GraphQLField(GraphQLString),
                },
            ),
        )

    def scalar_filter(self, scalar: GraphQLScalarType) -> GraphQLInputObjectType:
        name = f"{scalar.name}FilterInput"

        def make() -> GraphQLInputObjectType:
            def fields() -> dict[str, GraphQLInputField]:
                out = {
                    "and": GraphQLInputField(GraphQLList(scalar)),
                    "or": GraphQLInputField(GraphQLList(scalar)),
                    "not": GraphQLInputField(self.input_named(name)),
                }
                for op in OPERATORS:
                    out[op] = GraphQLInputField(scalar)
                out["null"] = GraphQLInputField(GraphQLBoolean)
                out["notNull"] = GraphQLInputField(GraphQLBoolean)
                for op in LIST_OPERATORS:
                    out[op] = GraphQLInputField(GraphQLList(scalar))
                return out

            return GraphQLInputObjectType(name, fields)

        return self.named(name, make)  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ attributes
    def output_scalar(self, owner: str, attr: Attribute) -> GraphQLOutputType:
        if attr.type == "enumeration" and attr.enum:
            return self.enum(owner, attr)
        return SCALAR_OF.get(attr.type, JSON)

    def enum(self, owner: str, attr: Attribute) -> GraphQLEnumType:
        name = str(attr.raw.get("enumName") or names.enum_name(owner, attr.name))
        return self.named(  # type: ignore[no-any-return]
            name,
            lambda: GraphQLEnumType(
                name, {names.enum_value_name(v): GraphQLEnumValue(v) for v in attr.enum}
            ),
        )

    def object_type(self, schema: Schema) -> GraphQLObjectType:
        if isinstance(schema, Component):
            return self.component_type(schema)
        assert isinstance(schema, ContentType)
        return self.content_type(schema)

    def _attribute_fields(self, schema: Schema, owner: str) -> dict[str, GraphQLField]:
        out: dict[str, GraphQLField] = {}
        r = self.resolvers
        for attr in schema.attributes.values():
            if attr.is_hidden or not self._shown(schema, attr.name, "output"):
                continue
            if attr.kind.scalar:
                kind = self.output_scalar(owner, attr)
                out[attr.name] = GraphQLField(GraphQLNonNull(kind) if attr.required else kind)
            elif attr.type == "relation":
                target = self.relation_target(attr)
                if target is None:
                    continue
                owning = target.attributes.get(attr.mapped_by) if attr.mapped_by else None
                if attr.to_many(owning):
                    self._many(out, attr.name, target, paged=True)
                else:
                    out[attr.name] = GraphQLField(
                        self.content_type(target), resolve=r.linked(attr.name)
                    )
            elif attr.type == "media":
                if attr.multiple:
                    self._many(out, attr.name, self.file_type)
                else:
                    out[attr.name] = GraphQLField(
                        self.content_type(self.file_type), resolve=r.linked(attr.name)
                    )
            elif attr.type == "component":
                comp = self.registry.components[str(attr.component)]
                kind_ = self.component_type(comp)
                if attr.repeatable:
                    out[attr.name] = GraphQLField(
                        GraphQLList(kind_),
                        args=self.list_args(self.component_filters(comp)),
                        resolve=r.component_list(attr.name),
                    )
                else:
                    out[attr.name] = GraphQLField(kind_, resolve=r.linked(attr.name))
            elif attr.type == "dynamiczone":
                out[attr.name] = GraphQLField(
                    GraphQLList(self.zone(owner, attr)), resolve=r.linked(attr.name)
                )
        return out

    def _many(
        self, out: dict[str, GraphQLField], name: str, target: ContentType, paged: bool = False
    ) -> None:
        """A to-many relation, multiple media or `localizations`: `<name>_connection` and
        `<name>` (`paged`: each document's page is read in the database)."""
        obj = self.content_type(target)
        args = self.list_args(self.filters(target)) if not target.is_single else None
        out[f"{name}_connection"] = GraphQLField(
            self.relation_collection(target),
            args=args,
            resolve=self.resolvers.relation_connection(name, paged),
        )
        out[name] = GraphQLField(
            GraphQLNonNull(GraphQLList(obj)),
            args=args,
            resolve=self.resolvers.relation_list(name, paged),
        )

    def list_args(self, filters: GraphQLInputObjectType | None) -> dict[str, GraphQLArgument]:
        args: dict[str, GraphQLArgument] = {}
        if filters is not None:
            args["filters"] = GraphQLArgument(filters)
        args["pagination"] = GraphQLArgument(self.pagination_arg(), default_value={})
        args["sort"] = GraphQLArgument(GraphQLList(GraphQLString), default_value=[])
        return args

    def zone(self, owner: str, attr: Attribute) -> GraphQLUnionType:
        name = f"{owner}{names.pascal(attr.name)}DynamicZone"

        def make() -> GraphQLUnionType:
            members = [
                self.component_type(self.registry.components[uid]) for uid in attr.components
            ]
            return GraphQLUnionType(
                name, [*members, self.error_type()], resolve_type=self.resolvers.zone_type
            )

        return self.named(name, make)  # type: ignore[no-any-return]

    def content_type(self, ct: ContentType) -> GraphQLObjectType:
        name = names.type_name(ct)

        def make() -> GraphQLObjectType:
            self.owners[name] = ct

            def fields() -> dict[str, GraphQLField]:
                out = {"documentId": GraphQLField(GraphQLNonNull(GraphQLID))}
                out.update(self._attribute_fields(ct, name))
                if ct.uid == FILE_UID:
                    out["related"] = GraphQLField(
                        GraphQLList(self.generic_morph()), resolve=self.resolvers.file_related
                    )
                for stamp in TIMESTAMPS:
                    out[stamp] = GraphQLField(DATETIME)
                if ct.localized:
                    out["locale"] = GraphQLField(GraphQLString)
                    self._many(out, "localizations", ct)
                return out

            return GraphQLObjectType(name, fields)

        return self.named(name, make)  # type: ignore[no-any-return]

    def component_type(self, comp: Component) -> GraphQLObjectType:
        name = names.component_name(comp)

        def make() -> GraphQLObjectType:
            self.owners[name] = comp

            def fields() -> dict[str, GraphQLField]:
                return {
                    "id": GraphQLField(GraphQLNonNull(GraphQLID)),
                    **self._attribute_fields(comp, name),
                }

            return GraphQLObjectType(name, fields)

        return self.named(name, make)  # type: ignore[no-any-return]

    def generic_morph(self) -> GraphQLUnionType:
        def make() -> GraphQLUnionType:
            members: list[GraphQLObjectType] = [
                self.component_type(c) for c in self.registry.components.values()
            ]
            for ct in self.content_types:
                members.append(self.content_type(ct))
                if ct.uid == FILE_UID:
                    members.append(self.locale_type())
            return GraphQLUnionType("GenericMorph", members, resolve_type=self.resolvers.morph_type)

        return self.named("GenericMorph", make)  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ collections
    def entity_collection(self, ct: ContentType) -> GraphQLObjectType:
        name = f"{names.type_name(ct)}EntityResponseCollection"
        return self.named(  # type: ignore[no-any-return]
            name,
            lambda: GraphQLObjectType(
                name,
                lambda: {
                    "nodes": GraphQLField(
                        GraphQLNonNull(GraphQLList(GraphQLNonNull(self.content_type(ct))))
                    ),
                    "pageInfo": GraphQLField(GraphQLNonNull(self.pagination_type())),
                },
            ),
        )

    def relation_collection(self, ct: ContentType) -> GraphQLObjectType:
        name = f"{names.type_name(ct)}RelationResponseCollection"
        return self.named(  # type: ignore[no-any-return]
            name,
            lambda: GraphQLObjectType(
                name,
                lambda: {
                    "nodes": GraphQLField(
                        GraphQLNonNull(GraphQLList(GraphQLNonNull(self.content_type(ct))))
                    )
                },
            ),
        )

    # ------------------------------------------------------------------ filters
    def _attribute_filters(self, schema: Schema) -> dict[str, GraphQLInputField]:
        out: dict[str, GraphQLInputField] = {}
        for attr in schema.attributes.values():
            if attr.is_hidden or not self._shown(schema, attr.name, "filters"):
                continue
            if attr.kind.scalar:
                out[attr.name] = GraphQLInputField(
                    self.scalar_filter(SCALAR_OF.get(attr.type, JSON))
                )
            elif attr.type == "relation":
                target = self.relation_target(attr)
                found = self.filters(target) if target is not None else None
                if found is not None:
                    out[attr.name] = GraphQLInputField(found)
            elif attr.type == "component":
                comp = self.registry.components[str(attr.component)]
                out[attr.name] = GraphQLInputField(self.component_filters(comp))
        return out

    def filters(self, ct: ContentType) -> GraphQLInputObjectType | None:
        """`<Type>FiltersInput` (single types have none)."""
        if ct.is_single:
            return None
        name = f"{names.type_name(ct)}FiltersInput"

        def make() -> GraphQLInputObjectType:
            def fields() -> dict[str, GraphQLInputField]:
                me = self.input_named(name)
                out = {"documentId": GraphQLInputField(self.scalar_filter(GraphQLID))}
                out.update(self._attribute_filters(ct))
                for stamp in TIMESTAMPS:
                    out[stamp] = GraphQLInputField(self.scalar_filter(DATETIME))
                if ct.localized:
                    out["locale"] = GraphQLInputField(self.scalar_filter(GraphQLString))
                    out["localizations"] = GraphQLInputField(me)
                return _logical(out, me)

            return GraphQLInputObjectType(name, fields)

        return self.named(name, make)  # type: ignore[no-any-return]

    def component_filters(self, comp: Component) -> GraphQLInputObjectType:
        name = f"{names.component_name(comp)}FiltersInput"

        def make() -> GraphQLInputObjectType:
            def fields() -> dict[str, GraphQLInputField]:
                return _logical(self._attribute_filters(comp), self.input_named(name))

            return GraphQLInputObjectType(name, fields)

        return self.named(name, make)  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ inputs
    def _attribute_inputs(self, schema: Schema, owner: str) -> dict[str, GraphQLInputField]:
        out: dict[str, GraphQLInputField] = {}
        for attr in schema.attributes.values():
            if not self._shown(schema, attr.name, "input"):
                continue
            kind: GraphQLInputType | None = None
            if attr.kind.scalar:
                if attr.type == "enumeration" and attr.enum:
                    kind = self.enum(owner, attr)
                else:
                    kind = SCALAR_OF.get(attr.type, JSON)
            elif attr.type == "relation":
                target = self.relation_target(attr)
                if target is None:
                    continue
                owning = target.attributes.get(attr.mapped_by) if attr.mapped_by else None
                kind = GraphQLList(GraphQLID) if attr.to_many(owning) else GraphQLID
            elif attr.type == "media":
                kind = GraphQLList(GraphQLID) if attr.multiple else GraphQLID
            elif attr.type == "component":
                comp = self.registry.components[str(attr.component)]
                found = self.component_input(comp)
                kind = GraphQLList(found) if attr.repeatable else found
            elif attr.type == "dynamiczone":
                zone_name = f"{owner}{names.pascal(attr.name)}DynamicZoneInput"
                scalar = self.types.get(zone_name)
                if scalar is None:
                    members = {
                        names.component_name(self.registry.components[uid]): uid
                        for uid in attr.components
                    }
                    scalar = self.types[zone_name] = zone_input(zone_name, members)
                kind = GraphQLList(GraphQLNonNull(scalar))
            if kind is not None:
                out[attr.name] = GraphQLInputField(kind)
        return out

    def input_type(self, ct: ContentType) -> GraphQLInputObjectType:
        name = f"{names.type_name(ct)}Input"

        def make() -> GraphQLInputObjectType:
            def fields() -> dict[str, GraphQLInputField]:
                out = self._attribute_inputs(ct, names.type_name(ct))
                out["publishedAt"] = GraphQLInputField(DATETIME)
                if not ct.localized:
                    out["locale"] = GraphQLInputField(GraphQLString)
                return out

            return GraphQLInputObjectType(name, fields)

        return self.named(name, make)  # type: ignore[no-any-return]

    def component_input(self, comp: Component) -> GraphQLInputObjectType:
        name = f"{names.component_name(comp)}Input"

        def make() -> GraphQLInputObjectType:
            def fields() -> dict[str, GraphQLInputField]:
                return {
                    "id": GraphQLInputField(GraphQLID),
                    **self._attribute_inputs(comp, names.component_name(comp)),
                }

            return GraphQLInputObjectType(name, fields)

        return self.named(name, make)  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ operations
    def read_args(self, ct: ContentType, many: bool) -> dict[str, GraphQLArgument]:
        args: dict[str, GraphQLArgument] = {}
        if many:
            filters = self.filters(ct)
            assert filters is not None
            args.update(self.list_args(filters))
        elif not ct.is_single:
            args["documentId"] = GraphQLArgument(GraphQLNonNull(GraphQLID))
        args["status"] = GraphQLArgument(self.status_enum(), default_value="published")
        args["hasPublishedVersion"] = GraphQLArgument(GraphQLBoolean)
        args["publicationFilter"] = GraphQLArgument(self.publication_filter())
        if ct.localized:
            args["locale"] = GraphQLArgument(self.locale_code, description=LOCALE_DESCRIPTION)
        return args

    def queries(self) -> dict[str, GraphQLField]:
        r = self.resolvers
        out: dict[str, GraphQLField] = {}
        for ct in self.content_types:
            if ct.uid == ROLE_UID or ct.uid == USER_UID:
                continue
            self._type_queries(out, ct)
            if ct.uid == FILE_UID:
                self._locale_queries(out)
                for uid in (ROLE_UID, USER_UID):
                    self._type_queries(out, self.registry.content_types[uid])
        out["me"] = GraphQLField(self.users_me(), resolve=r.me)
        return out

    def _type_queries(self, out: dict[str, GraphQLField], ct: ContentType) -> None:
        r = self.resolvers
        obj = self.content_type(ct)
        single = names.singular_field(ct)
        if ct.is_single:
            if self.action(ct, "find"):
                out[single] = GraphQLField(
                    obj, args=self.read_args(ct, False), resolve=r.single(ct)
                )
            return
        plural = names.plural_field(ct)
        if self.action(ct, "findOne"):
            out[single] = GraphQLField(obj, args=self.read_args(ct, False), resolve=r.find_one(ct))
        if self.action(ct, "find"):
            out[f"{plural}_connection"] = GraphQLField(
                self.entity_collection(ct),
                args=self.read_args(ct, True),
                resolve=r.connection(ct),
            )
            out[plural] = GraphQLField(
                GraphQLNonNull(GraphQLList(obj)), args=self.read_args(ct, True), resolve=r.find(ct)
            )

    def locale_type(self) -> GraphQLObjectType:
        return self.named(  # type: ignore[no-any-return]
            "I18NLocale",
            lambda: GraphQLObjectType(
                "I18NLocale",
                {
                    "documentId": GraphQLField(GraphQLNonNull(GraphQLID)),
                    "name": GraphQLField(GraphQLString),
                    "code": GraphQLField(GraphQLString),
                    **{stamp: GraphQLField(DATETIME) for stamp in TIMESTAMPS},
                },
            ),
        )

    def _locale_queries(self, out: dict[str, GraphQLField]) -> None:
        """The configured locales, as the reference's i18n plugin lists them."""
        r = self.resolvers
        obj = self.locale_type()
        filters = self.named(
            "I18NLocaleFiltersInput",
            lambda: GraphQLInputObjectType(
                "I18NLocaleFiltersInput",
                lambda: _logical(
                    {
                        "documentId": GraphQLInputField(self.scalar_filter(GraphQLID)),
                        "name": GraphQLInputField(self.scalar_filter(GraphQLString)),
                        "code": GraphQLInputField(self.scalar_filter(GraphQLString)),
                        **{
                            stamp: GraphQLInputField(self.scalar_filter(DATETIME))
                            for stamp in TIMESTAMPS
                        },
                    },
                    self.input_named("I18NLocaleFiltersInput"),
                ),
            ),
        )
        collection = self.named(
            "I18NLocaleEntityResponseCollection",
            lambda: GraphQLObjectType(
                "I18NLocaleEntityResponseCollection",
                {
                    "nodes": GraphQLField(GraphQLNonNull(GraphQLList(GraphQLNonNull(obj)))),
                    "pageInfo": GraphQLField(GraphQLNonNull(self.pagination_type())),
                },
            ),
        )
        status = {
            "status": GraphQLArgument(self.status_enum(), default_value="published"),
            "hasPublishedVersion": GraphQLArgument(GraphQLBoolean),
            "publicationFilter": GraphQLArgument(self.publication_filter()),
        }
        out["i18NLocale"] = GraphQLField(
            obj,
            args={"documentId": GraphQLArgument(GraphQLNonNull(GraphQLID)), **status},
            resolve=r.locale,
        )
        out["i18NLocales_connection"] = GraphQLField(
            collection, args={**self.list_args(filters), **status}, resolve=r.locales_connection
        )
        out["i18NLocales"] = GraphQLField(
            GraphQLNonNull(GraphQLList(obj)),
            args={**self.list_args(filters), **status},
            resolve=r.locales,
        )

    def write_args(self, ct: ContentType, kind: str) -> dict[str, GraphQLArgument]:
        args: dict[str, GraphQLArgument] = {}
        if kind in ("update", "delete") and not ct.is_single:
            args["documentId"] = GraphQLArgument(GraphQLNonNull(GraphQLID))
        if kind != "delete":
            args["status"] = GraphQLArgument(self.status_enum(), default_value="published")
            args["data"] = GraphQLArgument(GraphQLNonNull(self.input_type(ct)))
        if ct.localized:
            args["locale"] = GraphQLArgument(self.locale_code, description=LOCALE_DESCRIPTION)
        return args

    def mutations(self) -> dict[str, GraphQLField]:
        r = self.resolvers
        out: dict[str, GraphQLField] = {}
        for ct in self.content_types:
            if not ct.uid.startswith("api::"):
                continue
            name = names.type_name(ct)
            obj = self.content_type(ct)
            if not ct.is_single and self.action(ct, "create"):
                out[f"create{name}"] = GraphQLField(
                    obj, args=self.write_args(ct, "create"), resolve=r.create(ct)
                )
            if self.action(ct, "update"):
                out[f"update{name}"] = GraphQLField(
                    obj, args=self.write_args(ct, "update"), resolve=r.update(ct)
                )
            if self.action(ct, "delete"):
                out[f"delete{name}"] = GraphQLField(
                    self.delete_response(),
                    args=self.write_args(ct, "delete"),
                    resolve=r.delete(ct),
                )
        out.update(self.upload_mutations())
        out.update(self.users_mutations())
        return out

    def upload_mutations(self) -> dict[str, GraphQLField]:
        r = self.resolvers
        info = GraphQLInputObjectType(
            "FileInfoInput",
            {
                "name": GraphQLInputField(GraphQLString),
                "alternativeText": GraphQLInputField(GraphQLString),
                "caption": GraphQLInputField(GraphQLString),
            },
        )
        self.types["FileInfoInput"] = info
        file_ = self.content_type(self.file_type)
        return {
            "updateUploadFile": GraphQLField(
                GraphQLNonNull(file_),
                args={
                    "id": GraphQLArgument(GraphQLNonNull(GraphQLID)),
                    "info": GraphQLArgument(info),
                },
                resolve=r.update_file,
            ),
            "deleteUploadFile": GraphQLField(
                file_,
                args={"id": GraphQLArgument(GraphQLNonNull(GraphQLID))},
                resolve=r.delete_file,
            ),
        }

    # ------------------------------------------------------------------ users-permissions
    def users_me(self) -> GraphQLObjectType:
        role = GraphQLObjectType(
            "UsersPermissionsMeRole",
            {
                "id": GraphQLField(GraphQLNonNull(GraphQLID)),
                "name": GraphQLField(GraphQLNonNull(GraphQLString)),
                "description": GraphQLField(GraphQLString),
                "type": GraphQLField(GraphQLString),
            },
        )
        return self.named(  # type: ignore[no-any-return]
            "UsersPermissionsMe",
            lambda: GraphQLObjectType(
                "UsersPermissionsMe",
                {
                    "id": GraphQLField(GraphQLNonNull(GraphQLID)),
                    "documentId": GraphQLField(GraphQLNonNull(GraphQLID)),
                    "username": GraphQLField(GraphQLNonNull(GraphQLString)),
                    "email": GraphQLField(GraphQLString),
                    "confirmed": GraphQLField(GraphQLBoolean),
                    "blocked": GraphQLField(GraphQLBoolean),
                    "role": GraphQLField(role),
                },
            ),
        )

    def users_mutations(self) -> dict[str, GraphQLField]:
        r = self.resolvers
        nn_string = GraphQLNonNull(GraphQLString)
        login_payload = GraphQLObjectType(
            "UsersPermissionsLoginPayload",
            lambda: {
                "jwt": GraphQLField(GraphQLString),
                "user": GraphQLField(GraphQLNonNull(self.users_me())),
            },
        )
        password_payload = GraphQLObjectType(
            "UsersPermissionsPasswordPayload", {"ok": GraphQLField(GraphQLNonNull(GraphQLBoolean))}
        )

        def ok_payload(name: str) -> GraphQLObjectType:
            return GraphQLObjectType(name, {"ok": GraphQLField(GraphQLNonNull(GraphQLBoolean))})

        user_ct = self.registry.content_types[USER_UID]
        role_ct = self.registry.content_types[ROLE_UID]
        user_response = GraphQLObjectType(
            "UsersPermissionsUserEntityResponse",
            lambda: {"data": GraphQLField(self.content_type(user_ct))},
        )
        role_input = GraphQLNonNull(self.input_type(role_ct))
        user_input = GraphQLNonNull(self.input_type(user_ct))
        id_arg = GraphQLArgument(GraphQLNonNull(GraphQLID))
        register_input = GraphQLInputObjectType(
            "UsersPermissionsRegisterInput",
            {
                "username": GraphQLInputField(nn_string),
                "email": GraphQLInputField(nn_string),
                "password": GraphQLInputField(nn_string),
            },
        )
        login_input = GraphQLInputObjectType(
            "UsersPermissionsLoginInput",
            {
                "identifier": GraphQLInputField(nn_string),
                "password": GraphQLInputField(nn_string),
                "provider": GraphQLInputField(nn_string, default_value="local"),
            },
        )
        return {
            "createUsersPermissionsRole": GraphQLField(
                ok_payload("UsersPermissionsCreateRolePayload"),
                args={"data": GraphQLArgument(role_input)},
                resolve=r.create_role,
                description="Create a new role",
            ),
            "updateUsersPermissionsRole": GraphQLField(
                ok_payload("UsersPermissionsUpdateRolePayload"),
                args={"id": id_arg, "data": GraphQLArgument(role_input)},
                resolve=r.update_role,
                description="Update an existing role",
            ),
            "deleteUsersPermissionsRole": GraphQLField(
                ok_payload("UsersPermissionsDeleteRolePayload"),
                args={"id": id_arg},
                resolve=r.delete_role,
                description="Delete an existing role",
            ),
            "createUsersPermissionsUser": GraphQLField(
                GraphQLNonNull(user_response),
                args={"data": GraphQLArgument(user_input)},
                resolve=r.create_user,
                description="Create a new user",
            ),
            "updateUsersPermissionsUser": GraphQLField(
                GraphQLNonNull(user_response),
                args={"id": id_arg, "data": GraphQLArgument(user_input)},
                resolve=r.update_user,
                description="Update an existing user",
            ),
            "deleteUsersPermissionsUser": GraphQLField(
                GraphQLNonNull(user_response),
                args={"id": id_arg},
                resolve=r.delete_user,
                description="Delete an existing user",
            ),
            "login": GraphQLField(
                GraphQLNonNull(login_payload),
                args={"input": GraphQLArgument(GraphQLNonNull(login_input))},
                resolve=r.login,
            ),
            "register": GraphQLField(
                GraphQLNonNull(login_payload),
                args={"input": GraphQLArgument(GraphQLNonNull(register_input))},
                resolve=r.register,
                description="Register a user",
            ),
            "forgotPassword": GraphQLField(
                password_payload,
                args={"email": GraphQLArgument(nn_string)},
                resolve=r.forgot_password,
                description="Request a reset password token",
            ),
            "resetPassword": GraphQLField(
                login_payload,
                args={
                    "password": GraphQLArgument(nn_string),
                    "passwordConfirmation": GraphQLArgument(nn_string),
                    "code": GraphQLArgument(nn_string),
                },
                resolve=r.reset_password,
                description=(
                    "Reset user password. Confirm with a code (resetToken from forgotPassword)"
                ),
            ),
            "changePassword": GraphQLField(
                login_payload,
                args={
                    "currentPassword": GraphQLArgument(nn_string),
                    "password": GraphQLArgument(nn_string),
                    "passwordConfirmation": GraphQLArgument(nn_string),
                },
                resolve=r.change_password,
                description="Change user password. Confirm with the current password.",
            ),
            "emailConfirmation": GraphQLField(
                login_payload,
                args={"confirmation": GraphQLArgument(nn_string)},
                resolve=r.email_confirmation,
                description="Confirm an email users email address",
            ),
        }

    # ------------------------------------------------------------------ the schema
    def build(self) -> GraphQLSchema:
        """The generated schema; `Mutation` may be empty until extensions add to it."""
        shadow = self.settings.shadow_crud
        query = GraphQLObjectType("Query", self.queries() if shadow else {})
        mutation = GraphQLObjectType("Mutation", self.mutations() if shadow else {})
        return GraphQLSchema(
            query=query,
            mutation=mutation,
            types=[self.generic_morph()] if shadow else None,
        )


def _logical(
    out: dict[str, GraphQLInputField], me: GraphQLInputObjectType
) -> dict[str, GraphQLInputField]:
    """A filters input's `and`, `or` and `not`."""
    out["and"] = GraphQLInputField(GraphQLList(me))
    out["or"] = GraphQLInputField(GraphQLList(me))
    out["not"] = GraphQLInputField(me)
    return out


def _ordered(registry: Registry) -> list[ContentType]:
    """The upload model, then the users-permissions ones, then the app's types by uid."""
    builtin = [registry.content_types[uid] for uid in EXPOSED_BUILTINS]
    app = sorted(
        (ct for ct in registry.content_types.values() if ct.uid.startswith("api::")),
        key=lambda ct: ct.uid,
    )
    return [*builtin, *app]
