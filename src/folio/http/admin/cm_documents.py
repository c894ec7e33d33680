"""The documents as the Content Manager reads them, through the document service: the
edit view's document (components and zones deep, media, relations one level as
`{id, documentId, locale, label, status}` in their stored order) with its other locales
and statuses, the list's rows with their status, and relation targets. A version's status
is the reference's: `draft` (never published), `published`, `modified` (its draft was
changed after it was published: the draft's updatedAt is later than the published
version's)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from folio.auth.principal import Principal
from folio.content.documents import DocumentService
from folio.content.params import Limits
from folio.http.admin.cm_meta import default_main_field
from folio.schema.model import ContentType, Registry, Schema

# documentIds asked at once in one filter
BATCH = 200
# the reads of statuses ask for as many documents as they name (at most BATCH per locale)
_UNBOUNDED = Limits(default=25, maximum=0, with_count=False)


def status_of(draft_updated: Any, published_updated: Any | None) -> str:
    if published_updated is None:
        return "draft"
    if draft_updated is not None and str(draft_updated) > str(published_updated):
        return "modified"
    return "published"


class AdminReads:
    def __init__(
        self, documents: DocumentService, registry: Registry, main_fields: dict[str, str]
    ) -> None:
        self.documents = documents
        self.registry = registry
        # each type's configured main field (kept up to date by the configuration routes)
        self.main_fields = main_fields

    def main_field(self, schema: Schema) -> str:
        return self.main_fields.get(schema.uid) or default_main_field(schema)

    # ------------------------------------------------------------------ populate
    def edit_populate(self, schema: Schema) -> dict[str, Any]:
        """Everything the edit view shows: relations one level (their main field), media,
        components and zones with theirs."""
        spec: dict[str, Any] = {}
        for name, attr in schema.attributes.items():
            if attr.type == "relation" and attr.target in self.registry.content_types:
                target = self.registry.content_types[attr.target]
                spec[name] = {"fields": self._label_fields(target)}
            elif attr.type == "media":
                spec[name] = "true"
            elif attr.type == "component" and attr.component:
                inner = self.edit_populate(self.registry.components[attr.component])
                spec[name] = {"populate": inner} if inner else "true"
            elif attr.type == "dynamiczone":
                on: dict[str, Any] = {}
                for uid in attr.components:
                    inner = self.edit_populate(self.registry.components[uid])
                    on[uid] = {"populate": inner} if inner else {}
                spec[name] = {"on": on}
        return spec

    def _label_fields(self, target: ContentType) -> list[str]:
        fields = ["updatedAt"]
        main = self.main_field(target)
        if main not in ("id", "documentId"):
            fields.append(main)
        if target.localized:
            fields.append("locale")
        return fields

    # ------------------------------------------------------------------ statuses
    async def published_times(
        self,
        ct: ContentType,
        document_ids: Iterable[str],
        locale: str | None,
        principal: Principal,
    ) -> dict[tuple[str, str | None], tuple[Any, Any]]:
        """(documentId, locale) -> (updatedAt, publishedAt) of the published versions of
        the documents, in `locale` (every locale: "*"), one read per `BATCH` documents."""
        ids = sorted(set(document_ids))
        found: dict[tuple[str, str | None], tuple[Any, Any]] = {}
        if not ct.draft_and_publish or not ids:
            return found
        fields = ["updatedAt", "publishedAt", *(["locale"] if ct.localized else [])]
        for start in range(0, len(ids), BATCH):
            chunk = ids[start : start + BATCH]
            size = len(chunk) * (len(self.documents.locales.codes) if locale == "*" else 1)
            params: dict[str, Any] = {
                "status": "published",
                "filters": {"documentId": {"$in": chunk}},
                "fields": fields,
                "pagination": {"page": "1", "pageSize": str(size), "withCount": "false"},
            }
            if ct.localized and locale is not None:
                params["locale"] = locale
            page = await self.documents.find(ct, params, principal, limits=_UNBOUNDED)
            for doc in page.documents:
                key = (str(doc["documentId"]), doc.get("locale") if ct.localized else None)
                found[key] = (doc.get("updatedAt"), doc.get("publishedAt"))
        return found

    async def with_statuses(
        self, ct: ContentType, rows: list[dict[str, Any]], principal: Principal
    ) -> list[dict[str, Any]]:
        """The list's rows (drafts) with `status` and the published version's
        `publishedAt`: one more read for the page."""
        if not ct.draft_and_publish:
            for row in rows:
                row["status"] = "published"
            return rows
        locales = {row.get("locale") for row in rows}
        locale = "*" if len(locales) > 1 else next(iter(locales), None)
        times = await self.published_times(
            ct, (str(r["documentId"]) for r in rows), locale, principal
        )
        for row in rows:
            key = (str(row["documentId"]), row.get("locale") if ct.localized else None)
            published = times.get(key)
            row["publishedAt"] = published[1] if published else None
            row["status"] = status_of(row.get("updatedAt"), published[0] if published else None)
        return rows

    # ------------------------------------------------------------------ relations
    def targets(self, target: ContentType, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        main = self.main_field(target)
        out = []
        for doc in docs:
            label = doc.get(main) if main in doc else None
            out.append(
                {
                    "id": doc.get("id"),
                    "documentId": doc.get("documentId"),
                    "locale": doc.get("locale") if target.localized else None,
                    "label": str(label) if label not in (None, "") else doc.get("documentId"),
                    "status": "published",
                    "_updatedAt": doc.get("updatedAt"),
                }
            )
        return out

    async def set_target_statuses(
        self, target: ContentType, items: list[dict[str, Any]], principal: Principal
    ) -> None:
        """Each target's status (one read per target type), in place."""
        if target.draft_and_publish and items:
            times = await self.published_times(
                target, (str(i["documentId"]) for i in items), "*", principal
            )
            for item in items:
                published = times.get((str(item["documentId"]), item["locale"]))
                item["status"] = status_of(
                    item.get("_updatedAt"), published[0] if published else None
                )
        for item in items:
            item.pop("_updatedAt", None)

    async def shape(self, schema: Schema, docs: list[dict[str, Any]], principal: Principal) -> None:
        """Relations of the documents (and of their components, at any depth) turned into
        targets with labels and statuses, in place; one status read per target type."""
        pending: dict[str, list[dict[str, Any]]] = {}
        self._collect(schema, docs, pending)
        for uid, items in pending.items():
            await self.set_target_statuses(self.registry.content_types[uid], items, principal)

    def _collect(
        self, schema: Schema, docs: list[dict[str, Any]], pending: dict[str, list[dict[str, Any]]]
    ) -> None:
        for name, attr in schema.attributes.items():
            if attr.type == "relation" and attr.target in self.registry.content_types:
                target = self.registry.content_types[attr.target]
                for doc in docs:
                    if name not in doc:
                        continue
                    value = doc[name]
                    if isinstance(value, list):
                        doc[name] = self.targets(target, value)
                        pending.setdefault(target.uid, []).extend(doc[name])
                    elif isinstance(value, dict):
                        doc[name] = self.targets(target, [value])[0]
                        pending.setdefault(target.uid, []).append(doc[name])
            elif attr.type == "component" and attr.component:
                comp = self.registry.components[attr.component]
                for doc in docs:
                    value = doc.get(name)
                    items = value if isinstance(value, list) else [value] if value else []
                    self._collect(comp, [i for i in items if isinstance(i, dict)], pending)
            elif attr.type == "dynamiczone":
                for doc in docs:
                    for item in doc.get(name) or []:
                        if isinstance(item, dict):
                            uid = item.get("__component")
                            if uid in self.registry.components:
                                self._collect(self.registry.components[uid], [item], pending)
