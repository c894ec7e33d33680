"""The resolvers of the generated schema: each query and mutation one call of the document
service (or of the users and upload services) with the caller's principal, after the same
permission check as the matching REST route; field resolvers only read loaded documents."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphql import GraphQLObjectType, GraphQLResolveInfo
from starlette.requests import Request

from folio.auth.principal import OPEN, Principal
from folio.caches import BoundedCache, weigh
from folio.content.ids import decimal_id
from folio.content.params import Limits, parse_pagination
from folio.content.query import Pagination
from folio.errors import (
    ApplicationError,
    NotFoundError,
    UnauthorizedError,
)
from folio.http.graphql.plan import Planner, Variant, pagination_params, unwrap
from folio.http.upload import delete_file, update_file_info
from folio.http.users import attempt_of
from folio.schema.builtins import FILE_UID, USER_UID
from folio.schema.model import Component, ContentType, Schema

if TYPE_CHECKING:
    from folio.app import Folio
    from folio.http.graphql.schema import GraphQLSettings

Resolver = Callable[..., Any]
UP = "plugin::users-permissions"
UPLOAD = "plugin::upload.content-api"
LOCALES = "plugin::i18n.locales.listLocales"
PLANS = 1024
# the permission each fixed resolver needs (checked around it, as for the generated ones)
ACTIONS: dict[str, str] = {
    "locale": LOCALES,
    "locales": LOCALES,
    "locales_connection": LOCALES,
    "update_file": f"{UPLOAD}.upload",
    "delete_file": f"{UPLOAD}.destroy",
    "me": f"{UP}.user.me",
    "login": f"{UP}.auth.callback",
    "register": f"{UP}.auth.register",
    "forgot_password": f"{UP}.auth.forgotPassword",
    "reset_password": f"{UP}.auth.resetPassword",
    "change_password": f"{UP}.auth.changePassword",
    "email_confirmation": f"{UP}.auth.emailConfirmation",
    "create_user": f"{UP}.user.create",
    "update_user": f"{UP}.user.update",
    "delete_user": f"{UP}.user.destroy",
    "create_role": f"{UP}.role.createRole",
    "update_role": f"{UP}.role.updateRole",
    "delete_role": f"{UP}.role.deleteRole",
}
# what a populate reads of a parent document
COPIED: tuple[str, ...] = ("id", "documentId", "locale")


@dataclass
class Context:
    """What every resolver of a request sees (`info.context`)."""

    request: Request
    principal: Principal
    folio: Folio
    # the operation's text, name and variables: with a field's path, the key under which
    # the document service keeps a read's parsed query
    key: tuple[Hashable, ...]
    # fields read apart from their parent's read (by response path, list indices left
    # out), with the status and locale of the read; their batches being loaded
    variants: dict[tuple[str, ...], tuple[Variant, str, str | None]] = field(default_factory=dict)
    batches: dict[tuple[str, ...], Batch] = field(default_factory=dict)


class Batch:
    """The parents of one variant field whose values are loaded together."""

    def __init__(self) -> None:
        self.parents: list[dict[str, Any]] = []
        self.done: asyncio.Future[dict[int, Any]] = asyncio.get_running_loop().create_future()


def response_path(info: GraphQLResolveInfo) -> tuple[str, ...]:
    """A field's response keys from the root, list indices left out."""
    keys: list[str] = []
    node = info.path
    while node is not None:
        if isinstance(node.key, str):
            keys.append(node.key)
        node = node.prev
    return tuple(reversed(keys))


def page_info(pagination: Pagination, total: int) -> dict[str, int]:
    """`pageInfo` in page terms, whichever mode the list was read in."""
    size = max(pagination.size, 1)
    page = pagination.page if pagination.mode == "page" else pagination.start // size + 1
    return {
        "page": page,
        "pageSize": size,
        "pageCount": (total + size - 1) // size,
        "total": total,
    }


class Resolvers:
    def __init__(self, folio: Folio, settings: GraphQLSettings) -> None:
        self.folio = folio
        self.documents = folio.documents
        self.settings = settings
        caps = [n for n in (settings.max_limit, settings.amount_limit) if n > 0]
        maximum = min(caps) if caps else 0
        default = min(settings.default_limit, maximum) if maximum else settings.default_limit
        self.list_limits = Limits(default, maximum, with_count=False)
        self.count_limits = Limits(default, maximum, with_count=True)
        self.planner: Planner | None = None
        # read parameters per operation, root field and variables
        self._plans: BoundedCache[tuple[dict[str, Any], dict[tuple[str, ...], Variant]]] = (
            BoundedCache(PLANS, 32 * 1024 * 1024)
        )
        self.component_types: dict[str, str] = {}
        self.type_names: dict[str, str] = {}

    def bind(self, owners: dict[str, Schema]) -> None:
        """Called once the schema is built: the model behind each object type."""
        self.planner = Planner(self.folio.registry, owners, self.list_limits)
        for name, schema in owners.items():
            if isinstance(schema, Component):
                self.component_types[schema.uid] = name
            else:
                self.type_names[schema.uid] = name

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def action(ct: ContentType, name: str) -> str:
        """The permission of an action on a type, named as its REST route names it."""
        if ct.uid == FILE_UID:
            return f"{UPLOAD}.{name}"
        return f"{ct.uid}.{name}"

    def plan(
        self,
        ct: ContentType,
        info: GraphQLResolveInfo,
        args: dict[str, Any],
        obj: GraphQLObjectType,
        nodes: list[Any],
        inner: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        """A root field's read parameters, made once per operation, field and variables;
        the variants it has are registered for the request (see `variant`)."""
        key = self._key(info)
        found = self._plans.get(key)
        if found is None:
            variants: dict[tuple[str, ...], Variant] = {}
            params = self.read_params(ct, info, args, obj, nodes, inner, variants)
            found = (params, variants)
            # the key holds the operation's text and variables; the plan several times that
            self._plans.put(key, found, weigh(*key) * 4)
        params, variants = found
        _register(info, variants, params)
        return params

    def read_params(
        self,
        ct: ContentType,
        info: GraphQLResolveInfo,
        args: dict[str, Any],
        obj: GraphQLObjectType,
        nodes: list[Any],
        inner: tuple[str, ...] = (),
        variants: dict[tuple[str, ...], Variant] | None = None,
    ) -> dict[str, Any]:
        assert self.planner is not None
        if nodes:
            path = (str(info.path.key), *inner)
            selection = self.planner.selection(info, obj, nodes, path, variants)
        else:
            selection = {"fields": [], "populate": {}}
        params: dict[str, Any] = {"fields": selection["fields"]}
        if selection["populate"]:
            params["populate"] = selection["populate"]
        if args.get("filters"):
            params["filters"] = self.planner.filters(ct, args["filters"])
        if args.get("sort"):
            params["sort"] = [s for s in args["sort"] if s is not None]
        pagination = pagination_params(args.get("pagination"))
        if pagination:
            params["pagination"] = pagination
        params["status"] = args.get("status") or "published"
        if args.get("locale") is not None:
            params["locale"] = args["locale"]
        for name in ("hasPublishedVersion", "publicationFilter"):
            if args.get(name) is not None:
                params[name] = args[name]
        return params

    @staticmethod
    def _key(info: GraphQLResolveInfo) -> tuple[Hashable, ...]:
        ctx: Context = info.context
        return (*ctx.key, info.path.key)

    def _write_params(
        self, ct: ContentType, info: GraphQLResolveInfo, args: dict[str, Any]
    ) -> dict[str, Any]:
        obj = unwrap(info.return_type)
        variants: dict[tuple[str, ...], Variant] = {}
        params = self.read_params(ct, info, {}, obj, info.field_nodes, (), variants)
        params["status"] = args.get("status") or "published"
        if args.get("locale") is not None:
            params["locale"] = args["locale"]
        _register(info, variants, params)
        return params

    def input_data(self, ct: Schema, data: dict[str, Any]) -> dict[str, Any]:
        """A `<Type>Input` value as REST `data`: relation ids as the reference reads them
        (digits name a row id, other strings a documentId; null clears)."""
        out: dict[str, Any] = {}
        for key, value in data.items():
            attr = ct.attributes.get(key)
            if attr is not None and attr.type == "relation":
                if value is None:
                    target = self.folio.registry.content_types.get(str(attr.target))
                    owning = (
                        target.attributes.get(attr.mapped_by)
                        if target is not None and attr.mapped_by
                        else None
                    )
                    value = [] if attr.to_many(owning) else None
                elif isinstance(value, list):
                    value = [_relation_id(v) for v in value if v is not None]
                else:
                    value = _relation_id(value)
            elif attr is not None and attr.type == "component" and value is not None:
                comp = self.folio.registry.components[str(attr.component)]
                if isinstance(value, list):
                    value = [self.input_data(comp, v) if isinstance(v, dict) else v for v in value]
                elif isinstance(value, dict):
                    value = self.input_data(comp, value)
            out[key] = value
        return out

    # ------------------------------------------------------------------ content types
    def find(self, ct: ContentType) -> Resolver:
        action = self.action(ct, "find")

        async def resolve(_root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
            ctx: Context = info.context
            obj = unwrap(info.return_type)
            params = self.plan(ct, info, args, obj, info.field_nodes)
            page = await self.documents.find(
                ct, params, ctx.principal, limits=self.list_limits, key=self._key(info)
            )
            return page.documents

        return acting(resolve, action)

    def connection(self, ct: ContentType) -> Resolver:
        action = self.action(ct, "find")

        async def resolve(_root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
            ctx: Context = info.context
            assert self.planner is not None
            collection = unwrap(info.return_type)
            nodes, with_info = self.planner.nodes_of(info, collection, info.field_nodes)
            obj = unwrap(collection.fields["nodes"].type)
            params = self.plan(ct, info, args, obj, nodes, ("nodes",))
            limits = self.count_limits if with_info else self.list_limits
            page = await self.documents.find(
                ct, params, ctx.principal, limits=limits, key=self._key(info)
            )
            out: dict[str, Any] = {"nodes": page.documents}
            if with_info:
                out["pageInfo"] = page_info(page.pagination, page.total)
                if (args.get("pagination") or {}).get("limit") == -1:
                    # every entry asked for: the page is as large as what it holds
                    size = max(min(page.pagination.size, page.total), 1)
                    out["pageInfo"].update(pageSize=size, pageCount=1 if page.total else 0)
            return out

        return acting(resolve, action)

    def find_one(self, ct: ContentType) -> Resolver:
        action = self.action(ct, "findOne")

        async def resolve(_root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
            ctx: Context = info.context
            obj = unwrap(info.return_type)
            if args.get("hasPublishedVersion") is not None or args.get("publicationFilter"):
                # a version chosen by the versions its document has: a list of one
                one = self.read_params(ct, info, args, obj, info.field_nodes)
                one["filters"] = {"documentId": {"$eq": str(args["documentId"])}}
                page = await self.documents.find(ct, one, ctx.principal, limits=self.list_limits)
                return page.documents[0] if page.documents else None
            params = self.plan(ct, info, args, obj, info.field_nodes)
            return await self.documents.find_one(
                ct, str(args["documentId"]), params, ctx.principal, key=self._key(info)
            )

        return acting(resolve, action)

    def single(self, ct: ContentType) -> Resolver:
        action = f"{ct.uid}.find"

        async def resolve(_root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
            ctx: Context = info.context
            obj = unwrap(info.return_type)
            params = self.plan(ct, info, args, obj, info.field_nodes)
            return await self.documents.find_one(
                ct, None, params, ctx.principal, key=self._key(info)
            )

        return acting(resolve, action)

    def create(self, ct: ContentType) -> Resolver:
        action = f"{ct.uid}.create"

        async def resolve(_root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
            ctx: Context = info.context
            params = self._write_params(ct, info, args)
            data = self.input_data(ct, args["data"])
            return await self.documents.create(ct, data, params, ctx.principal)

        return acting(resolve, action)

    def update(self, ct: ContentType) -> Resolver:
        action = f"{ct.uid}.update"

        async def resolve(_root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
            ctx: Context = info.context
            params = self._write_params(ct, info, args)
            data = self.input_data(ct, args["data"])
            document_id = None if ct.is_single else str(args["documentId"])
            try:
                return await self.documents.update(ct, document_id, data, params, ctx.principal)
            except NotFoundError:
                return None  # an unknown document: null, as the reference answers

        return acting(resolve, action)

    def delete(self, ct: ContentType) -> Resolver:
        action = f"{ct.uid}.delete"

        async def resolve(_root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
            ctx: Context = info.context
            params = {"locale": args["locale"]} if args.get("locale") is not None else {}
            if ct.is_single:
                found = await self.documents.find_one(
                    ct, None, {"fields": [], "status": "draft", **params}, OPEN
                )
                if found is None:
                    raise NotFoundError("Document not found")
                document_id = str(found["documentId"])
                await self.documents.delete(ct, None, params, ctx.principal)
            else:
                document_id = str(args["documentId"])
                await self.documents.delete(ct, document_id, params, ctx.principal)
            return {"documentId": document_id}

        return acting(resolve, action)

    # ------------------------------------------------------------------ fields
    def _page(self, items: list[Any], pagination: dict[str, Any] | None) -> list[Any]:
        page = parse_pagination(pagination_params(pagination), self.list_limits)
        return items[page.offset : page.offset + page.size]

    def relation_list(self, name: str, paged: bool = False) -> Resolver:
        """A to-many field's entries (`paged`: its page was read in the database)."""

        def pick(items: Any, pagination: Any) -> Any:
            if not items:
                return []
            if not isinstance(items, list):
                items = [items]
            return items if paged else self._page(items, pagination)

        def resolve(parent: Any, info: GraphQLResolveInfo, pagination: Any = None, **_: Any) -> Any:
            if paged:
                # read in the database; its pagination errors are this field's
                parse_pagination(pagination_params(pagination), self.list_limits)
            ctx: Context = info.context
            if ctx.variants or name not in parent:
                path = response_path(info)
                if path in ctx.variants or name not in parent:
                    return self._lazy(info, path, parent, lambda v: pick(v, pagination))
            return pick(parent[name], pagination)

        return resolve

    def relation_connection(self, name: str, paged: bool = False) -> Resolver:
        list_ = self.relation_list(name, paged)

        def resolve(parent: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
            found = list_(parent, info, **args)
            if inspect.isawaitable(found):
                return _nodes(found)
            return {"nodes": found}

        return resolve

    def component_list(self, name: str) -> Resolver:
        def pick(items: Any, pagination: Any, sort: Any) -> Any:
            if items is None:
                return None
            if sort:
                items = _sorted(items, [s for s in sort if s])
            return self._page(items, pagination)

        def resolve(
            parent: Any,
            info: GraphQLResolveInfo,
            pagination: Any = None,
            sort: Any = None,
            **_: Any,
        ) -> Any:
            ctx: Context = info.context
            if ctx.variants or name not in parent:
                path = response_path(info)
                if path in ctx.variants or name not in parent:
                    return self._lazy(info, path, parent, lambda v: pick(v, pagination, sort))
            return pick(parent[name], pagination, sort)

        return resolve

    def linked(self, name: str) -> Resolver:
        """A to-one relation, media field, component or dynamic zone: the loaded
        document's value (loaded now when an app's resolver returned the document)."""

        def resolve(parent: Any, info: GraphQLResolveInfo, **_: Any) -> Any:
            if name in parent:
                ctx: Context = info.context
                if not ctx.variants:
                    return parent[name]
                path = response_path(info)
                if path not in ctx.variants:
                    return parent[name]
            else:
                path = response_path(info)
            return self._lazy(info, path, parent, lambda v: v)

        resolve.dict_key = name  # type: ignore[attr-defined]
        return resolve

    def _lazy(
        self,
        info: GraphQLResolveInfo,
        path: tuple[str, ...],
        parent: dict[str, Any],
        finish: Callable[[Any], Any],
    ) -> Any:
        """A field read apart from its parent's read: a variant of the plan, or a field of
        a document an app's resolver returned (planned here, from the field's selection)."""
        ctx: Context = info.context
        if path not in ctx.variants:
            assert self.planner is not None
            schema = self.planner.owners[info.parent_type.name]
            variants: dict[tuple[str, ...], Variant] = {}
            populate = self.planner.field_populate(info, path, variants)
            draft = (
                isinstance(schema, ContentType)
                and schema.draft_and_publish
                and "publishedAt" in parent
                and parent["publishedAt"] is None
            )
            status = "draft" if draft else "published"
            ctx.variants[path] = (Variant(schema, populate), status, parent.get("locale"))
            for sub, variant in variants.items():
                ctx.variants[sub] = (variant, status, parent.get("locale"))
        return self._variant(ctx, path, parent, finish)

    async def _variant(
        self,
        ctx: Context,
        path: tuple[str, ...],
        parent: dict[str, Any],
        finish: Callable[[Any], Any],
    ) -> Any:
        """A variant field's value: its parents at this path are loaded in one batch."""
        batch = ctx.batches.get(path)
        if batch is None:
            batch = ctx.batches[path] = Batch()
            asyncio.get_running_loop().create_task(self._load(ctx, path, batch))
        batch.parents.append(parent)
        found = await batch.done
        return finish(found.get(id(parent)))

    async def _load(self, ctx: Context, path: tuple[str, ...], batch: Batch) -> None:
        for _ in range(3):  # the other parents of the list register first
            await asyncio.sleep(0)
        del ctx.batches[path]
        variant, status, locale = ctx.variants[path]
        [(name, _)] = variant.populate.items()
        try:
            copies: list[dict[str, Any]] = [
                {k: p[k] for k in COPIED if k in p} for p in batch.parents
            ]
            await self.documents.populate(
                variant.schema,
                copies,
                variant.populate,
                ctx.principal,
                status=status,
                locale=locale,
            )
            found = {
                id(parent): copy.get(name)
                for parent, copy in zip(batch.parents, copies, strict=True)
            }
        except Exception as exc:
            batch.done.set_exception(exc)
        else:
            batch.done.set_result(found)

    def zone_type(self, value: Any, _info: GraphQLResolveInfo, _union: Any) -> str:
        uid = value.get("__component") if isinstance(value, dict) else None
        return self.component_types.get(str(uid), "Error")

    def morph_type(self, value: Any, _info: GraphQLResolveInfo, _union: Any) -> str:
        uid = str(value.get("__type") or value.get("__component") or "")
        return self.type_names.get(uid) or self.component_types.get(uid, "")

    async def file_related(self, parent: Any, info: GraphQLResolveInfo) -> Any:
        """The documents a file is attached to (each as its type in `GenericMorph`)."""
        ctx: Context = info.context
        if "id" not in parent:
            return []
        related = await self.folio.files.related(
            int(parent["id"]),
            lambda uid: uid in self.type_names and ctx.principal.can_find(uid),
        )
        return [{**doc, "__type": uid} for uid, doc in related]

    # ------------------------------------------------------------------ locales
    async def locale(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        for doc in self.folio.settings.locale_records():
            if doc["documentId"] == str(args["documentId"]):
                return doc
        return None

    async def locales(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        docs = [d for d in self.folio.settings.locale_records() if _matches(d, args.get("filters"))]
        if args.get("sort"):
            docs = _sorted(docs, [s for s in args["sort"] if s])
        return self._page(docs, args.get("pagination"))

    async def locales_connection(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        docs = [d for d in self.folio.settings.locale_records() if _matches(d, args.get("filters"))]
        page = parse_pagination(pagination_params(args.get("pagination")), self.list_limits)
        return {
            "nodes": docs[page.offset : page.offset + page.size],
            "pageInfo": page_info(page, len(docs)),
        }

    # ------------------------------------------------------------------ upload
    async def update_file(self, _root: Any, resolve_info: GraphQLResolveInfo, **args: Any) -> Any:
        # (`info` is an argument of this mutation)
        ctx: Context = resolve_info.context
        return await update_file_info(ctx.folio, str(args["id"]), args.get("info") or {})

    async def delete_file(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        ctx: Context = info.context
        return await delete_file(ctx.folio, str(args["id"]))

    # ------------------------------------------------------------------ users-permissions
    async def me(self, _root: Any, info: GraphQLResolveInfo) -> Any:
        ctx: Context = info.context
        user_id = ctx.principal.user_id
        if user_id is None:
            # an API token is no user (REST answers 401 here)
            raise UnauthorizedError("Authentication requested")
        user = await self.folio.users.get(user_id, self._me_query())
        return _me(user) if user is not None else None

    def _me_query(self) -> Any:
        ct = self.folio.registry.content_types[USER_UID]
        return self.documents.query(
            ct, {"populate": {"role": "true"}}, OPEN, find=False, key=("graphql-me",)
        )

    async def login(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        given = args["input"]
        # counted with REST's sign-ins by the user service (so are the account mutations below)
        attempt = attempt_of(info.context.request)
        identifier, password = given.get("identifier"), given.get("password")
        result = await self.folio.users.login(identifier, password, attempt=attempt)
        return await self._payload(result)

    async def register(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        attempt = attempt_of(info.context.request)
        return await self._payload(
            await self.folio.users.register(dict(args["input"]), attempt=attempt)
        )

    async def forgot_password(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        attempt = attempt_of(info.context.request)
        await self.folio.users.forgot_password({"email": args["email"]}, attempt=attempt)
        return {"ok": True}

    async def reset_password(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        attempt = attempt_of(info.context.request)
        return await self._payload(
            await self.folio.users.reset_password(dict(args), attempt=attempt)
        )

    async def change_password(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        ctx: Context = info.context
        if ctx.principal.user_id is None:
            raise ApplicationError("You must be authenticated to reset your password")
        attempt = attempt_of(ctx.request)
        result = await self.folio.users.change_password(
            ctx.principal.user_id, dict(args), attempt=attempt
        )
        return await self._payload(result)

    async def email_confirmation(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        attempt = attempt_of(info.context.request)
        user_id = await self.folio.users.confirm_email(args["confirmation"], attempt=attempt)
        token = self.folio.users.jwt.issue(user_id)
        return await self._payload({"jwt": token, "user": None}, user_id)

    async def _payload(self, result: dict[str, Any], user_id: int | None = None) -> Any:
        """A login payload: the token and the user as `UsersPermissionsMe` (with role)."""
        user = result.get("user")
        ident = user_id if user_id is not None else (user or {}).get("id")
        if ident is not None:
            user = await self.folio.users.get(int(ident), self._me_query())
        if user is None:
            raise UnauthorizedError()
        return {"jwt": result.get("jwt"), "user": _me(user)}

    async def create_user(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        ctx: Context = info.context
        ct = self.folio.registry.content_types[USER_UID]
        read = self._user_query(info, ctx)
        user = await self.folio.users.create(self.input_data(ct, args["data"]), read=read)
        return {"data": user}

    async def update_user(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        ctx: Context = info.context
        ct = self.folio.registry.content_types[USER_UID]
        user_id = _numeric(args["id"])
        read = self._user_query(info, ctx)
        user = await self.folio.users.update(user_id, self.input_data(ct, args["data"]), read)
        return {"data": user}

    async def delete_user(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        return {"data": await self.folio.users.delete(_numeric(args["id"]))}

    def _user_query(self, info: GraphQLResolveInfo, ctx: Context) -> Any:
        assert self.planner is not None
        ct = self.folio.registry.content_types[USER_UID]
        response = unwrap(info.return_type)
        sub, _ = self.planner.nodes_of(info, response, info.field_nodes, "data")
        params = self.read_params(ct, info, {}, unwrap(response.fields["data"].type), sub)
        return self.documents.query(ct, params, ctx.principal, find=False)

    async def create_role(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        raise ApplicationError("Roles are declared in config/permissions.json")

    async def update_role(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        raise ApplicationError("Roles are declared in config/permissions.json")

    async def delete_role(self, _root: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        raise ApplicationError("Roles are declared in config/permissions.json")


def acting(resolve: Resolver, action: str) -> Resolver:
    """A generated resolver, with the permission it needs (checked around it)."""
    resolve.action = action  # type: ignore[attr-defined]
    return resolve


def action_of(resolve: Any) -> str | None:
    """The permission a generated or fixed resolver needs, None for others."""
    found = getattr(resolve, "action", None)
    if found is None and getattr(resolve, "__self__", None) is not None:
        found = ACTIONS.get(getattr(resolve, "__name__", ""))
    return found


def _register(
    info: GraphQLResolveInfo, variants: dict[tuple[str, ...], Variant], params: dict[str, Any]
) -> None:
    """A read's variant fields, for their resolvers, with the read's status and locale."""
    ctx: Context = info.context
    for path, variant in variants.items():
        ctx.variants[path] = (variant, params["status"], params.get("locale"))


async def _nodes(items: Any) -> dict[str, Any]:
    return {"nodes": await items}


def _relation_id(value: Any) -> Any:
    if isinstance(value, str) and value.isdecimal():
        return decimal_id(value)
    return value


def _numeric(raw: Any) -> int:
    found = decimal_id(str(raw))
    if found is None:
        raise NotFoundError()
    return found


def _me(user: dict[str, Any]) -> dict[str, Any]:
    role = user.get("role")
    return {
        "id": user.get("id"),
        "documentId": user.get("documentId"),
        "username": user.get("username"),
        "email": user.get("email"),
        "confirmed": user.get("confirmed"),
        "blocked": user.get("blocked"),
        "role": dict(role) if isinstance(role, dict) else None,
    }


def _sorted(items: list[Any], keys: list[str]) -> list[Any]:
    """Entries sorted by `field[:asc|desc]` keys (nulls last), for lists read whole."""
    out = list(items)
    for key in reversed(keys):
        raw, _, direction = key.partition(":")
        name = raw.strip()
        desc = direction.strip().lower() == "desc"
        present = [i for i in out if i.get(name) is not None]
        absent = [i for i in out if i.get(name) is None]
        present.sort(key=lambda i: i[name], reverse=desc)
        out = present + absent
    return out


def _matches(doc: dict[str, Any], filters: dict[str, Any] | None) -> bool:
    """The string operators of a filter input, on an in-memory record (the locales)."""
    if not filters:
        return True
    for key, cond in filters.items():
        if cond is None:
            continue
        if key == "and":
            if not all(_matches(doc, c) for c in cond if c is not None):
                return False
        elif key == "or":
            if not any(_matches(doc, c) for c in cond if c is not None):
                return False
        elif key == "not":
            if _matches(doc, cond):
                return False
        elif not _test(doc.get(key), cond):
            return False
    return True


def _test(value: Any, cond: dict[str, Any]) -> bool:
    return all(arg is None or _operator(value, op, arg) for op, arg in cond.items())


def _operator(value: Any, op: str, arg: Any) -> bool:
    text = "" if value is None else str(value)
    if op == "null":
        return (value is None) == bool(arg)
    if op == "notNull":
        return (value is not None) == bool(arg)
    if op == "not":
        return not _test(value, arg)
    if isinstance(arg, list):
        items = [str(x) for x in arg]
        if op == "in":
            return text in items
        if op == "notIn":
            return text not in items
        if op == "between":
            return len(items) == 2 and items[0] <= text <= items[1]
        if op == "and":
            return all(text == x for x in items)
        if op == "or":
            return any(text == x for x in items)
        return False
    a = str(arg)
    checks: dict[str, bool] = {
        "eq": text == a,
        "eqi": text.lower() == a.lower(),
        "ne": text != a,
        "nei": text.lower() != a.lower(),
        "startsWith": text.startswith(a),
        "endsWith": text.endswith(a),
        "contains": a in text,
        "notContains": a not in text,
        "containsi": a.lower() in text.lower(),
        "notContainsi": a.lower() not in text.lower(),
        "gt": text > a,
        "gte": text >= a,
        "lt": text < a,
        "lte": text <= a,
    }
    return checks.get(op, False)
