"""The Content Manager's HTTP API (`/admin/api/content-manager`), which the admin panel's
list and edit views use. Every read and write goes through the document service as the
signed-in administrator (a full-scope principal): the same validation, events, drafts,
locales and relation rules as REST and GraphQL.

    GET    /init                                        types, components, locales
    GET    /configuration/:uid, PUT                     the list's columns, sort, page size
    GET    /collection-types/:uid                       the list (drafts) with statuses
    POST   /collection-types/:uid                       create a draft
    GET    /collection-types/:uid/:documentId           the edit view's document
    PUT    /collection-types/:uid/:documentId           save the draft
    DELETE /collection-types/:uid/:documentId           delete (?locale=, * for all)
    POST   /collection-types/:uid/:documentId/actions/publish|unpublish|discard
    POST   /collection-types/:uid/actions/bulkDelete|bulkPublish|bulkUnpublish
    GET|PUT|DELETE /single-types/:uid, POST /single-types/:uid/actions/publish|...
    POST   /uid/generate, /uid/check-availability
    GET    /relations/:uid/:field                       targets to connect

The shapes are in the OpenAPI document (http/admin/openapi.py)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from folio.auth.principal import Principal
from folio.broadcast import ADMIN_SETTINGS
from folio.content.params import Limits, parse_locale
from folio.errors import FieldError, FolioError, NotFoundError, ValidationError, validation_failed
from folio.http.admin.cm_documents import AdminReads, status_of
from folio.http.admin.cm_meta import (
    Metadata,
    default_config,
    edited_type,
    edited_types,
    parse_config,
    searched,
    stored_config,
)
from folio.http.admin.session import principal
from folio.http.responses import json_response
from folio.http.rest.content import query_params, read_json
from folio.schema.kinds import UID_RE
from folio.schema.model import Attribute, ContentType, Registry, Schema

if TYPE_CHECKING:
    from folio.app import Folio
    from folio.http.admin.session import AdminAuth

BASE = "/admin/api/content-manager"
# what a write's body may carry that is no attribute (the edit view sends back what it read)
SYSTEM_KEYS = frozenset(
    {
        "id",
        "documentId",
        "createdAt",
        "updatedAt",
        "publishedAt",
        "locale",
        "status",
        "createdBy",
        "updatedBy",
        "localizations",
    }
)
LIST_LIMITS = Limits(default=10, maximum=100, with_count=True)
SETTING_PREFIX = "content-manager.list."
BULK_MAX = 100
UID_SCAN = 1000


Handler = Callable[[Request, Principal], Awaitable[Response]]


class ContentManager:
    def __init__(self, folio: Folio, auth: AdminAuth) -> None:
        self.folio = folio
        self.auth = auth
        self.registry = folio.registry
        self.documents = folio.documents
        self.meta = Metadata(folio.registry)
        # each type's configured main field, read from the settings on first use
        self.main_fields: dict[str, str] = {}
        self._configs_read = False
        # read again after a configuration is saved, through this process or another
        folio.broadcast.on(ADMIN_SETTINGS, self._forget_configs)
        self.shaper = AdminReads(folio.documents, folio.registry, self.main_fields)

    def routes(self) -> list[Route]:
        def r(path: str, handler: Handler, methods: list[str]) -> Route:
            return Route(BASE + path, self._guarded(handler), methods=methods)

        get = ["GET", "HEAD"]
        return [
            r("/init", self.init, get),
            r("/configuration/{uid}", self.get_configuration, get),
            r("/configuration/{uid}", self.put_configuration, ["PUT"]),
            r("/collection-types/{uid}", self.list, get),
            r("/collection-types/{uid}", self.create, ["POST"]),
            r("/collection-types/{uid}/actions/{action}", self.bulk, ["POST"]),
            r("/collection-types/{uid}/{document_id}", self.read, get),
            r("/collection-types/{uid}/{document_id}", self.update, ["PUT"]),
            r("/collection-types/{uid}/{document_id}", self.delete, ["DELETE"]),
            r("/collection-types/{uid}/{document_id}/actions/{action}", self.action, ["POST"]),
            r("/single-types/{uid}", self.read, get),
            r("/single-types/{uid}", self.update, ["PUT"]),
            r("/single-types/{uid}", self.delete, ["DELETE"]),
            r("/single-types/{uid}/actions/{action}", self.action, ["POST"]),
            r("/uid/generate", self.uid_generate, ["POST"]),
            r("/uid/check-availability", self.uid_check, ["POST"]),
            r("/relations/{uid}/{field}", self.relations, get),
        ]

    def _guarded(self, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            user = await self.auth.require(request)
            await self._load_configs()
            return await handler(request, principal(user))

        return endpoint

    # ------------------------------------------------------------------ helpers
    def _type(self, request: Request, single: bool | None = None) -> ContentType:
        """The path's type; a collection route for a single type (or the reverse) is
        not found."""
        ct = edited_type(self.registry, request.path_params["uid"])
        if ct is None:
            raise NotFoundError(f"Unknown content type {request.path_params['uid']}")
        if single is None:
            single = request.url.path.startswith(BASE + "/single-types/")
        if ct.is_single != single:
            raise NotFoundError(f"{ct.uid} is not a {'single' if single else 'collection'} type")
        return ct

    def _locale(self, ct: ContentType, request: Request) -> str | None:
        raw = request.query_params.get("locale")
        return parse_locale(ct, raw, self.documents.locales)

    def _params(self, ct: ContentType, locale: str | None) -> dict[str, Any]:
        params: dict[str, Any] = {"status": "draft", "populate": self.shaper.edit_populate(ct)}
        if locale is not None:
            params["locale"] = locale
        return params

    async def _body(self, request: Request) -> dict[str, Any]:
        body = await read_json(request, self.folio.settings.max_body_bytes)
        if not isinstance(body, dict):
            raise ValidationError("The request body must be a JSON object")
        return body

    async def _data(self, request: Request, ct: ContentType) -> dict[str, Any] | None:
        """The body's `data` (its system keys left out), None when the body has none."""
        body = await self._body(request)
        if "data" not in body:
            return None
        return _writable(ct, body["data"])

    async def _load_configs(self) -> None:
        """Each type's configured main field (read once, and again by /init)."""
        if self._configs_read:
            return
        for ct in edited_types(self.registry):
            stored = await self._get_setting(SETTING_PREFIX + ct.uid)
            main = stored_config(ct, stored).main_field
            if stored is not None and main != default_config(ct).main_field:
                self.main_fields[ct.uid] = main
            else:
                self.main_fields.pop(ct.uid, None)
        self._configs_read = True

    def _forget_configs(self) -> None:
        self._configs_read = False

    async def _get_setting(self, key: str) -> Any:
        return await self.folio.admins.get_setting(key)

    # ------------------------------------------------------------------ documents
    async def document(
        self,
        ct: ContentType,
        document_id: str | None,
        locale: str | None,
        principal: Principal,
    ) -> dict[str, Any]:
        """The edit view's answer: the draft, populated, with its status, other locales
        and other status."""
        doc = await self.documents.find_one(ct, document_id, self._params(ct, locale), principal)
        if doc is None:
            raise NotFoundError("Document not found")
        await self.shaper.shape(ct, [doc], principal)
        doc_id = str(doc["documentId"])
        versions = await self._versions(ct, doc_id, principal)
        own = doc.get("locale") if ct.localized else None
        published = versions.get((own, "published"))
        doc["status"] = (
            "published" if not ct.draft_and_publish else _status(doc.get("updatedAt"), published)
        )
        available_locales = []
        if ct.localized:
            for code in sorted({loc for loc, _ in versions if loc != own and loc is not None}):
                draft = versions.get((code, "draft"))
                pub = versions.get((code, "published"))
                shown = draft or pub or {}
                status = (
                    "published"
                    if not ct.draft_and_publish
                    else _status(draft.get("updatedAt") if draft else None, pub)
                )
                available_locales.append(
                    {
                        "locale": code,
                        "documentId": doc_id,
                        "status": status,
                        "updatedAt": shown.get("updatedAt"),
                    }
                )
        available_status = []
        if ct.draft_and_publish and published is not None:
            available_status.append(
                {
                    "id": published.get("id"),
                    "publishedAt": published.get("publishedAt"),
                    "updatedAt": published.get("updatedAt"),
                }
            )
        return {
            "data": doc,
            "meta": {"availableLocales": available_locales, "availableStatus": available_status},
        }

    async def _versions(
        self, ct: ContentType, document_id: str, principal: Principal
    ) -> dict[tuple[str | None, str], dict[str, Any]]:
        """(locale, draft|published) -> the version's id and times, every locale."""
        fields = ["updatedAt", "publishedAt", *(["locale"] if ct.localized else [])]
        out: dict[tuple[str | None, str], dict[str, Any]] = {}
        statuses = ("draft", "published") if ct.draft_and_publish else ("published",)
        for status in statuses:
            params: dict[str, Any] = {
                "status": status,
                "filters": {"documentId": {"$eq": document_id}},
                "fields": fields,
                "pagination": {"page": "1", "pageSize": "100", "withCount": "false"},
            }
            if ct.localized:
                params["locale"] = "*"
            page = await self.documents.find(ct, params, principal)
            for d in page.documents:
                out[(d.get("locale") if ct.localized else None, status)] = d
        if not ct.draft_and_publish:
            for (loc, _), d in list(out.items()):
                out[(loc, "draft")] = d
        return out

    # ------------------------------------------------------------------ metadata
    async def init(self, request: Request, principal: Principal) -> Response:
        # the main fields again (another process may have changed a configuration)
        self._configs_read = False
        await self._load_configs()
        data = self.meta.init(self.main_fields)
        data["locales"] = [
            {
                "code": loc.code,
                "name": loc.name,
                "isDefault": loc.code == self.documents.default_locale,
            }
            for loc in self.folio.settings.locales
        ]
        data["defaultLocale"] = self.documents.default_locale
        return json_response({"data": data})

    async def get_configuration(self, request: Request, principal: Principal) -> Response:
        ct = self._type(request, single=False)
        stored = await self._get_setting(SETTING_PREFIX + ct.uid)
        return json_response({"data": stored_config(ct, stored).shown()})

    async def put_configuration(self, request: Request, principal: Principal) -> Response:
        ct = self._type(request, single=False)
        body = await self._body(request)
        config = parse_config(ct, body.get("data", body))
        await self.folio.admins.put_setting(SETTING_PREFIX + ct.uid, config.shown())
        if config.main_field == default_config(ct).main_field:
            self.main_fields.pop(ct.uid, None)
        else:
            self.main_fields[ct.uid] = config.main_field
        self.folio.broadcast.publish(ADMIN_SETTINGS)
        return json_response({"data": config.shown()})

    # ------------------------------------------------------------------ list
    async def list(self, request: Request, principal: Principal) -> Response:
        ct = self._type(request, single=False)
        raw = query_params(request)
        stored = await self._get_setting(SETTING_PREFIX + ct.uid)
        config = stored_config(ct, stored)
        params: dict[str, Any] = {"status": "draft"}
        locale = raw.get("locale")
        if ct.localized:
            params["locale"] = locale if locale not in (None, "") else self.documents.default_locale
        params["sort"] = raw.get("sort") or config.sort
        params["pagination"] = {
            "page": raw.get("page", "1"),
            "pageSize": raw.get("pageSize", str(config.page_size)),
        }
        if isinstance(raw.get("pagination"), dict):
            params["pagination"] = raw["pagination"]
        for key in ("publicationFilter", "hasPublishedVersion"):
            if key in raw:
                params[key] = raw[key]
        filters = raw.get("filters")
        q = raw.get("_q")
        if isinstance(q, str) and q.strip():
            fields = searched(ct)
            search: dict[str, Any] = {
                "$or": [{name: {"$containsi": q.strip()}} for name in fields]
                or [{"documentId": {"$eq": q.strip()}}]
            }
            filters = {"$and": [filters, search]} if filters is not None else search
        if filters is not None:
            params["filters"] = filters
        page = await self.documents.find(ct, params, principal, limits=LIST_LIMITS)
        rows = await self.shaper.with_statuses(ct, page.documents, principal)
        return json_response({"data": rows, "meta": page.meta})

    # ------------------------------------------------------------------ one document
    def _document_id(self, request: Request) -> str | None:
        return request.path_params.get("document_id")

    async def read(self, request: Request, principal: Principal) -> Response:
        ct = self._type(request)
        answer = await self.document(
            ct, self._document_id(request), self._locale(ct, request), principal
        )
        return json_response(answer)

    async def create(self, request: Request, principal: Principal) -> Response:
        ct = self._type(request, single=False)
        locale = self._locale(ct, request)
        data = await self._data(request, ct)
        if data is None:
            raise _missing_data()
        made = await self.documents.create(
            ct, data, {"status": "draft", **({"locale": locale} if locale else {})}, principal
        )
        answer = await self.document(ct, str(made["documentId"]), locale, principal)
        return json_response(answer, 201)

    async def update(self, request: Request, principal: Principal) -> Response:
        ct = self._type(request)
        locale = self._locale(ct, request)
        data = await self._data(request, ct)
        if data is None:
            raise _missing_data()
        saved = await self._save(ct, self._document_id(request), data, locale, principal)
        answer = await self.document(ct, str(saved["documentId"]), locale, principal)
        return json_response(answer)

    async def _save(
        self,
        ct: ContentType,
        document_id: str | None,
        data: dict[str, Any],
        locale: str | None,
        principal: Principal,
    ) -> dict[str, Any]:
        params = {"status": "draft", **({"locale": locale} if locale else {})}
        if ct.localized and _has_components(ct, data):
            # a new locale version filled from another locale: its components are new ones
            found = await self.documents.find_one(
                ct, document_id, {**params, "fields": ["locale"]}, principal
            )
            if found is None:
                data = _without_component_ids(ct, data, self.registry)
        return await self.documents.update(ct, document_id, data, params, principal)

    async def delete(self, request: Request, principal: Principal) -> Response:
        ct = self._type(request)
        document_id = self._document_id(request)
        raw = request.query_params.get("locale")
        params: dict[str, Any] = {}
        if ct.localized and raw != "*":
            params["locale"] = self._locale(ct, request)
        if document_id is None:
            found = await self.documents.find_one(
                ct, None, {"status": "draft", **params}, principal
            )
            if found is None:
                raise NotFoundError("Document not found")
            document_id = str(found["documentId"])
        await self.documents.delete(ct, document_id, params, principal)
        return json_response({"data": {"documentId": document_id}})

    async def action(self, request: Request, principal: Principal) -> Response:
        ct = self._type(request)
        name = request.path_params["action"]
        if name not in ("publish", "unpublish", "discard"):
            raise NotFoundError(f"Unknown action {name}")
        if not ct.draft_and_publish:
            raise ValidationError(f"{ct.display_name} does not have draft and publish")
        document_id = self._document_id(request)
        locale = self._locale(ct, request)
        params = {"locale": locale} if locale else {}
        body = await self._body(request)
        if name == "publish":
            if "data" in body:
                data = _writable(ct, body["data"])
                saved = await self._save(ct, document_id, data, locale, principal)
                document_id = str(saved["documentId"])
            done = await self.documents.publish(ct, document_id, params, principal)
        elif name == "unpublish":
            discard = body.get("discardDraft", False)
            if not isinstance(discard, bool):
                raise ValidationError("discardDraft must be a boolean")
            done = await self.documents.unpublish(
                ct, document_id, params, principal, discard_draft=discard
            )
        else:
            done = await self.documents.discard(ct, document_id, params, principal)
        answer = await self.document(ct, str(done["documentId"]), locale, principal)
        return json_response(answer)

    async def bulk(self, request: Request, principal: Principal) -> Response:
        ct = self._type(request, single=False)
        name = request.path_params["action"]
        if name not in ("bulkDelete", "bulkPublish", "bulkUnpublish"):
            raise NotFoundError(f"Unknown action {name}")
        body = await self._body(request)
        ids = body.get("documentIds")
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
            raise _field_error(
                "documentIds", "documentIds must be a non-empty list of documentIds", ids
            )
        if len(ids) > BULK_MAX:
            raise _field_error("documentIds", f"At most {BULK_MAX} documents at once", len(ids))
        raw = body.get("locale", request.query_params.get("locale"))
        params: dict[str, Any] = {}
        if ct.localized:
            params["locale"] = parse_locale(ct, raw, self.documents.locales)
        if name != "bulkDelete" and not ct.draft_and_publish:
            raise ValidationError(f"{ct.display_name} does not have draft and publish")
        count = 0
        failures: list[dict[str, Any]] = []
        first: FolioError | None = None
        for document_id in dict.fromkeys(ids):
            try:
                if name == "bulkDelete":
                    await self.documents.delete(ct, document_id, params, principal)
                elif name == "bulkPublish":
                    await self.documents.publish(ct, document_id, params, principal)
                else:
                    await self.documents.unpublish(ct, document_id, params, principal)
            except NotFoundError:
                continue  # gone, or nothing to unpublish: nothing done
            except FolioError as exc:
                first = first or exc
                failures.append({"documentId": document_id, "error": exc.to_error()})
                continue
            count += 1
        if count == 0 and first is not None:
            raise first
        data: dict[str, Any] = {"count": count}
        if failures:
            data["errors"] = failures
        return json_response({"data": data})

    # ------------------------------------------------------------------ uid
    def _uid_target(self, body: dict[str, Any]) -> tuple[ContentType, Attribute]:
        uid = body.get("contentTypeUID")
        ct = edited_type(self.registry, uid) if isinstance(uid, str) else None
        if ct is None:
            raise NotFoundError(f"Unknown content type {uid}")
        field = body.get("field")
        attr = ct.attributes.get(field) if isinstance(field, str) else None
        if attr is None or attr.type != "uid":
            raise _field_error("field", f"{field} is not a uid attribute of {ct.uid}", field)
        return ct, attr

    async def _taken(
        self,
        ct: ContentType,
        attr: Attribute,
        base: str,
        locale: str | None,
        exclude: str | None,
        principal: Principal,
    ) -> set[str]:
        """The values of the uid attribute beginning with `base`, among the drafts (the
        versions a value must be unique in), in `locale` when the value is per locale."""
        filters: dict[str, Any] = {attr.name: {"$startsWith": base}}
        if exclude:
            filters = {"$and": [filters, {"documentId": {"$ne": exclude}}]}
        params: dict[str, Any] = {
            "status": "draft",
            "filters": filters,
            "fields": [attr.name],
            "pagination": {"page": "1", "pageSize": str(UID_SCAN), "withCount": "false"},
        }
        if ct.localized:
            params["locale"] = locale if attr.localized else "*"
        page = await self.documents.find(ct, params, principal, limits=Limits(25, UID_SCAN, False))
        return {str(d[attr.name]) for d in page.documents if d.get(attr.name) is not None}

    async def _available(
        self,
        ct: ContentType,
        attr: Attribute,
        base: str,
        locale: str | None,
        exclude: str | None,
        principal: Principal,
    ) -> str:
        taken = await self._taken(ct, attr, base, locale, exclude, principal)
        if base not in taken:
            return base
        n = 1
        while f"{base}-{n}" in taken:
            n += 1
        return f"{base}-{n}"

    def _uid_scope(self, ct: ContentType, body: dict[str, Any]) -> tuple[str | None, str | None]:
        """The locale a uid value is checked in, and the document editing it (its own value
        is not taken)."""
        locale = parse_locale(ct, body.get("locale"), self.documents.locales)
        exclude = body.get("documentId") if isinstance(body.get("documentId"), str) else None
        return locale, exclude

    async def uid_generate(self, request: Request, principal: Principal) -> Response:
        body = await self._body(request)
        ct, attr = self._uid_target(body)
        data = body.get("data") if isinstance(body.get("data"), dict) else {}
        assert isinstance(data, dict)
        source = data.get(attr.target_field) if attr.target_field else None
        usable = isinstance(source, str | int | float) and not isinstance(source, bool)
        base = slugify(str(source)) if usable else ""
        if not base:
            base = ct.singular
        if attr.max_length is not None:
            base = base[: attr.max_length].rstrip("-")
        locale, exclude = self._uid_scope(ct, body)
        value = await self._available(ct, attr, base, locale, exclude, principal)
        return json_response({"data": value})

    async def uid_check(self, request: Request, principal: Principal) -> Response:
        body = await self._body(request)
        ct, attr = self._uid_target(body)
        value = body.get("value")
        if not isinstance(value, str) or not value or not UID_RE.match(value):
            raise _field_error(
                "value", "value must be a non-empty string of A-Z, a-z, 0-9, -, _, . or ~", value
            )
        locale, exclude = self._uid_scope(ct, body)
        suggestion = await self._available(ct, attr, value, locale, exclude, principal)
        available = suggestion == value
        return json_response(
            {"isAvailable": available, "suggestion": None if available else suggestion}
        )

    # ------------------------------------------------------------------ relations
    async def relations(self, request: Request, principal: Principal) -> Response:
        uid = request.path_params["uid"]
        owner: Schema | None = edited_type(self.registry, uid) or self.registry.components.get(uid)
        if owner is None:
            raise NotFoundError(f"Unknown content type {uid}")
        attr = owner.attributes.get(request.path_params["field"])
        if attr is None or attr.type != "relation" or attr.target is None:
            raise NotFoundError(f"{uid} has no relation {request.path_params['field']}")
        target = self.registry.content_types.get(attr.target)
        if target is None:
            raise NotFoundError(f"Unknown content type {attr.target}")
        raw = query_params(request)
        main = self.shaper.main_field(target)
        params: dict[str, Any] = {
            "status": "draft",
            "fields": self.shaper._label_fields(target),
            "sort": [f"{main}:ASC", "id:ASC"] if main != "id" else ["id:ASC"],
            "pagination": {"page": raw.get("page", "1"), "pageSize": raw.get("pageSize", "10")},
        }
        if target.localized:
            locale = raw.get("locale")
            params["locale"] = locale if locale not in (None, "") else self.documents.default_locale
        parts: list[Any] = []
        exclude = raw.get("exclude")
        if isinstance(exclude, str) and exclude:
            parts.append({"documentId": {"$notIn": [e for e in exclude.split(",") if e]}})
        q = raw.get("_q")
        if isinstance(q, str) and q.strip():
            if main == "id":
                parts.append({"documentId": {"$containsi": q.strip()}})
            else:
                parts.append({main: {"$containsi": q.strip()}})
        if parts:
            params["filters"] = {"$and": parts} if len(parts) > 1 else parts[0]
        page = await self.documents.find(target, params, principal, limits=LIST_LIMITS)
        items = self.shaper.targets(target, page.documents)
        await self.shaper.set_target_statuses(target, items, principal)
        return json_response({"data": items, "meta": page.meta})


def _status(draft_updated: Any, published: dict[str, Any] | None) -> str:
    return status_of(draft_updated, published.get("updatedAt") if published else None)


def _writable(ct: ContentType, data: Any) -> dict[str, Any]:
    """A body's `data` without the system keys the edit view sends back (those that are no
    attribute of `ct`)."""
    if not isinstance(data, dict):
        raise ValidationError("data must be an object")
    return {k: v for k, v in data.items() if k not in SYSTEM_KEYS or k in ct.attributes}


def _has_components(schema: Schema, data: dict[str, Any]) -> bool:
    return any(
        name in data and attr.type in ("component", "dynamiczone")
        for name, attr in schema.attributes.items()
    )


def _without_component_ids(
    schema: Schema, data: dict[str, Any], registry: Registry
) -> dict[str, Any]:
    """`data` with the `id` of its components and zone entries (at any depth) left out."""

    def entry(comp: Schema | None, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        out = {k: v for k, v in value.items() if k != "id"}
        return _without_component_ids(comp, out, registry) if comp is not None else out

    out = dict(data)
    for name, attr in schema.attributes.items():
        if name not in out:
            continue
        value = out[name]
        if attr.type == "component" and attr.component:
            comp = registry.components.get(attr.component)
            out[name] = (
                [entry(comp, v) for v in value] if isinstance(value, list) else entry(comp, value)
            )
        elif attr.type == "dynamiczone" and isinstance(value, list):
            out[name] = [entry(_zone_component(registry, v), v) for v in value]
    return out


def _zone_component(registry: Registry, value: Any) -> Schema | None:
    uid = value.get("__component") if isinstance(value, dict) else None
    return registry.components.get(uid) if isinstance(uid, str) else None


def _missing_data() -> ValidationError:
    return _field_error("data", 'Missing "data" payload in the request body', None)


def _field_error(path: str, message: str, value: Any) -> ValidationError:
    return validation_failed([FieldError([path], message, value)])


# ---------------------------------------------------------------------- slugs
_TRANSLITERATE = {
    "ß": "ss",
    "æ": "ae",
    "Æ": "AE",
    "ø": "o",
    "Ø": "O",
    "œ": "oe",
    "Œ": "OE",
    "đ": "d",
    "Đ": "D",
    "ð": "d",
    "Ð": "D",
    "ł": "l",
    "Ł": "L",
    "þ": "th",
    "Þ": "TH",
    "&": " and ",
}
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def slugify(text: str) -> str:
    """As the reference slugifies a uid's source: ASCII (accents dropped, a few letters
    spelled out), camelCase split, lowercase, every other run of characters one dash."""
    text = "".join(_TRANSLITERATE.get(c, c) for c in text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    text = _CAMEL.sub(r"\1 \2", text).lower()
    return _NOT_SLUG.sub("-", text).strip("-")


def content_routes(folio: Folio, auth: AdminAuth) -> list[Route]:
    """The Content Manager's routes, each behind `auth.require` (the admin session)."""
    return ContentManager(folio, auth).routes()
