"""An app's GraphQL extensions (`app.graphql.extension.use(...)`) applied to the generated
schema, and every resolver of the root types (and any other one configured) wrapped with
its authorization, policies and middlewares (`resolversConfig`).

Order, as the reference: `types` join the schema, then each extension's `typeDefs` extend
it (`extend type Query { ... }`, new types, fields of generated types), then `resolvers`
are bound to their fields, then `plugins` may transform the result. A conflict (a type or a
resolver given twice), an SDL error or a resolver for a field that does not exist stops
start-up with a ConfigError naming the extension.

Around a resolver: authorization (`auth: false` lets everyone in; `auth: {scope: [...]}`
requires those permissions; otherwise a generated resolver needs its action's permission and
a custom root resolver a full-access caller), then the policies in order (a false one refuses
with `PolicyError`), then the middlewares, outermost first, then the resolver."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import graphql as graphql_module
from graphql import (
    DocumentNode,
    GraphQLError,
    GraphQLField,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLSchema,
    ObjectTypeDefinitionNode,
    ObjectTypeExtensionNode,
    extend_schema,
    parse,
    validate_schema,
)

from folio.errors import ConfigError, ForbiddenError, PolicyError
from folio.hooks import named_entry
from folio.http.graphql.resolvers import Context, action_of

if TYPE_CHECKING:
    from folio.app import Folio

Resolver = Callable[..., Any]
CONFIG_KEYS = frozenset({"auth", "policies", "middlewares"})


@dataclass
class Helpers:
    """What an extension function receives: the schema library (`graphql`, graphql-core)
    and the app; `nexus` and `strapi` name the same for code ported from the reference."""

    graphql: Any
    app: Folio

    @property
    def nexus(self) -> Any:
        return self.graphql

    @property
    def strapi(self) -> Folio:
        return self.app


@dataclass
class Extensions:
    """The app's extensions, gathered."""

    types: list[tuple[str, GraphQLNamedType]]
    type_defs: list[tuple[str, str]]
    plugins: list[tuple[str, Callable[..., Any]]]
    resolvers: dict[tuple[str, str], tuple[str, Resolver]]
    config: dict[str, dict[str, Any]]


def gather(folio: Folio) -> Extensions:
    out = Extensions([], [], [], {}, {})
    helpers = Helpers(graphql_module, folio)
    for name, extension in folio.graphql.extension.extensions:
        value = extension(helpers) if callable(extension) else extension
        if not isinstance(value, dict):
            raise ConfigError(f"graphql extension {name}: must give a dict")
        for kind in value.get("types") or []:
            if not isinstance(kind, GraphQLNamedType):
                raise ConfigError(f"graphql extension {name}: `types` holds {kind!r}")
            out.types.append((name, kind))
        sdl = value.get("typeDefs")
        if sdl:
            if not isinstance(sdl, str):
                raise ConfigError(f"graphql extension {name}: `typeDefs` must be SDL text")
            out.type_defs.append((name, sdl))
        for plugin in value.get("plugins") or []:
            if not callable(plugin):
                raise ConfigError(f"graphql extension {name}: a plugin must be callable")
            out.plugins.append((name, plugin))
        for type_name, fields in (value.get("resolvers") or {}).items():
            if not isinstance(fields, dict):
                raise ConfigError(f"graphql extension {name}: resolvers.{type_name} is no dict")
            for field, fn in fields.items():
                if not callable(fn):
                    raise ConfigError(
                        f"graphql extension {name}: resolvers.{type_name}.{field} is not callable"
                    )
                before = out.resolvers.get((type_name, field))
                if before is not None:
                    raise ConfigError(
                        f"graphql extension {name}: {type_name}.{field} already has a resolver "
                        f"(from extension {before[0]})"
                    )
                out.resolvers[(type_name, field)] = (name, fn)
        for key, config in (value.get("resolversConfig") or {}).items():
            if not isinstance(config, dict) or set(config) - CONFIG_KEYS or "." not in key:
                raise ConfigError(
                    f"graphql extension {name}: resolversConfig[{key!r}] takes "
                    "`<Type>.<field>` keys and auth, policies, middlewares"
                )
            out.config.setdefault(key, {}).update(config)
    return out


def extended(schema: GraphQLSchema, found: Extensions) -> GraphQLSchema | None:
    """The generated schema with the extensions' types, SDL, resolvers and plugins (None
    when it has no query at all: `shadowCRUD: false` and no extension)."""
    if found.types:
        known = {n for n in schema.type_map if not n.startswith("__")}
        for name, kind in found.types:
            if kind.name in known:
                raise ConfigError(f"graphql extension {name}: type {kind.name} already exists")
            known.add(kind.name)
        schema = _rebuilt(schema, [k for _, k in found.types])
    for name, sdl in found.type_defs:
        try:
            schema = extend_schema(schema, _roots_extended(schema, parse(sdl)))
        except (GraphQLError, TypeError) as exc:
            raise ConfigError(f"graphql extension {name}: typeDefs: {exc}") from None
    for (type_name, field_name), (name, fn) in found.resolvers.items():
        owner = schema.type_map.get(type_name)
        if not isinstance(owner, GraphQLObjectType) or field_name not in owner.fields:
            raise ConfigError(
                f"graphql extension {name}: resolver for {type_name}.{field_name}, "
                "which the schema does not have"
            )
        owner.fields[field_name].resolve = _adapted(fn)
    for name, plugin in found.plugins:
        result = plugin(schema)
        if isinstance(result, GraphQLSchema):
            schema = result
        elif result is not None:
            raise ConfigError(f"graphql extension {name}: a plugin returns a schema or None")
    schema = _without_empty_mutation(schema)
    empty = schema.query_type is None or not schema.query_type.fields
    if empty and not (found.types or found.type_defs):
        return None  # nothing to serve: no generated CRUD and no extension
    errors = validate_schema(schema)
    if errors:
        raise ConfigError(
            "graphql: the extended schema is invalid: " + "; ".join(e.message for e in errors)
        )
    return schema


def _roots_extended(schema: GraphQLSchema, document: DocumentNode) -> DocumentNode:
    """`type Query { ... }` (or Mutation) read as `extend type Query` while the generated
    one is still empty (`shadowCRUD: false`): both spellings work there."""
    definitions = []
    for node in document.definitions:
        if isinstance(node, ObjectTypeDefinitionNode) and node.name.value in ("Query", "Mutation"):
            existing = schema.type_map.get(node.name.value)
            if isinstance(existing, GraphQLObjectType) and not existing.fields:
                node = ObjectTypeExtensionNode(
                    name=node.name,
                    interfaces=node.interfaces,
                    directives=node.directives,
                    fields=node.fields,
                    loc=node.loc,
                )
        definitions.append(node)
    return DocumentNode(definitions=definitions, loc=document.loc)


def _rebuilt(schema: GraphQLSchema, types: list[GraphQLNamedType]) -> GraphQLSchema:
    kwargs = schema.to_kwargs()
    kwargs["types"] = (*(kwargs.get("types") or ()), *types)
    return GraphQLSchema(**kwargs)


def _without_empty_mutation(schema: GraphQLSchema) -> GraphQLSchema:
    """The generated `Mutation` is kept until the extensions ran (they may extend it)."""
    mutation = schema.mutation_type
    if mutation is None or mutation.fields:
        return schema
    kwargs = schema.to_kwargs()
    kwargs["mutation"] = None
    kwargs["types"] = tuple(t for t in kwargs.get("types") or () if t is not mutation)
    return GraphQLSchema(**kwargs)


def _adapted(fn: Resolver) -> Resolver:
    """An app resolver `(parent, args, context, info)` as graphql-core calls resolvers."""

    def resolve(parent: Any, resolve_info: GraphQLResolveInfo, **args: Any) -> Any:
        return fn(parent, args, resolve_info.context, resolve_info)

    return resolve


# ---------------------------------------------------------------------- securing
@dataclass
class GraphQLPolicyContext:
    """What a policy sees: the resolver's parent, arguments, request context and info, the
    HTTP request, who is asking, and the app."""

    parent: Any
    args: dict[str, Any]
    context: Context
    info: GraphQLResolveInfo
    app: Folio

    @property
    def request(self) -> Any:
        return self.context.request

    @property
    def principal(self) -> Any:
        return self.context.principal

    @property
    def state(self) -> Any:
        return self.context.request.state

    @property
    def user_id(self) -> int | None:
        return self.context.principal.user_id


def secured(schema: GraphQLSchema, config: dict[str, dict[str, Any]], folio: Folio) -> None:
    """Wraps the root types' resolvers, and those `config` names, with their checks."""
    for key in config:
        type_name, _, field_name = key.partition(".")
        kind = schema.type_map.get(type_name)
        if not isinstance(kind, GraphQLObjectType) or field_name not in kind.fields:
            raise ConfigError(f"graphql: resolversConfig names {key}, which the schema lacks")
    roots = {t.name for t in (schema.query_type, schema.mutation_type) if t is not None}
    for type_name, kind in schema.type_map.items():
        if not isinstance(kind, GraphQLObjectType) or type_name.startswith("__"):
            continue
        for field_name, field in kind.fields.items():
            key = f"{type_name}.{field_name}"
            if type_name in roots or key in config:
                _secure(field, config.get(key, {}), type_name in roots, folio, key)


def _secure(
    field: GraphQLField, config: dict[str, Any], root: bool, folio: Folio, key: str
) -> None:
    inner = field.resolve or _default
    auth = config.get("auth")
    scope: list[str] | None
    if auth is False:
        scope, check = None, False
    elif isinstance(auth, dict):
        raw = auth.get("scope")
        scope = [raw] if isinstance(raw, str) else list(raw or [])
        check = True
    elif auth is None:
        action = action_of(inner)
        scope = [action] if action else None
        check = root
    else:
        raise ConfigError(f"graphql: resolversConfig[{key!r}].auth is false or {{scope: [...]}}")
    policies = [_policy(p, folio, key) for p in config.get("policies") or []]
    middlewares = [_middleware(m, folio, key) for m in config.get("middlewares") or []]
    call = _plain(inner)
    for middleware in reversed(middlewares):
        call = _wrapped(middleware, call)
    if not check and not policies and not middlewares:
        return

    def refuse(result: Any) -> None:
        if result is not None and not result:
            raise PolicyError("Policy Failed")

    async def rest(
        pending: Any, later: list[Callable[[GraphQLPolicyContext], Any]], make: Any, run: Any
    ) -> Any:
        """The policies from one that answered an awaitable on, then the resolver."""
        refuse(await pending)
        for policy in later:
            result = policy(make())
            refuse(await result if inspect.isawaitable(result) else result)
        result = run()
        return await result if inspect.isawaitable(result) else result

    # synchronous unless a policy or the resolver is not (`resolve_info`: a field may have
    # an argument named `info`)
    def resolve(parent: Any, resolve_info: GraphQLResolveInfo, **args: Any) -> Any:
        info = resolve_info
        ctx: Context = info.context
        if check:
            principal = ctx.principal
            allowed = (
                principal.scope == "all" if scope is None else all(principal.can(s) for s in scope)
            )
            if not allowed:
                raise ForbiddenError("Forbidden access")
        if policies:

            def make() -> GraphQLPolicyContext:
                return GraphQLPolicyContext(parent, args, ctx, info, folio)

            for i, policy in enumerate(policies):
                result = policy(make())
                if inspect.isawaitable(result):
                    return rest(
                        result, policies[i + 1 :], make, lambda: call(parent, args, ctx, info)
                    )
                refuse(result)
        return call(parent, args, ctx, info)

    resolve.action = getattr(inner, "action", None)  # type: ignore[attr-defined]
    field.resolve = resolve


def _default(parent: Any, resolve_info: GraphQLResolveInfo, **args: Any) -> Any:
    return graphql_module.default_field_resolver(parent, resolve_info, **args)


# a resolver in the middlewares' terms: (parent, args, context, info)
Next = Callable[[Any, dict[str, Any], Any, GraphQLResolveInfo], Any]


def _plain(resolve: Resolver) -> Next:
    def call(parent: Any, args: dict[str, Any], _context: Any, info: GraphQLResolveInfo) -> Any:
        return resolve(parent, info, **args)

    return call


def _wrapped(middleware: Callable[..., Any], call: Next) -> Next:
    def step(parent: Any, args: dict[str, Any], context: Any, info: GraphQLResolveInfo) -> Any:
        return middleware(call, parent, args, context, info)

    return step


def _policy(item: Any, folio: Folio, key: str) -> Callable[[GraphQLPolicyContext], Any]:
    """A policy entry: a registered name, `{name, config}`, or a function given the
    context and the app."""
    if callable(item):
        fn = item
        return lambda ctx: fn(ctx, folio)
    named, config = named_entry(
        item, folio.hooks.policies, api=None, what="policy", where=_where(key)
    )
    return lambda ctx: named(ctx, config, folio)


def _middleware(item: Any, folio: Folio, key: str) -> Callable[..., Any]:
    """A middleware entry: a function `(next, parent, args, context, info)`, a registered
    name or `{name, options}` (its factory `middleware(options, app)` makes one)."""
    if callable(item):
        return item  # type: ignore[no-any-return]
    factory, options = named_entry(
        item,
        folio.hooks.middlewares,
        api=None,
        what="middleware",
        where=_where(key),
        config_key="options",
    )
    made = factory(options, folio)
    if not callable(made):
        raise ConfigError(f"{_where(key)}: middleware {item!r} does not make a function")
    return made  # type: ignore[no-any-return]


def _where(key: str) -> str:
    return f"graphql: resolversConfig[{key!r}]"
