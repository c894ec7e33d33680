"""The archive's links as Folio stores them. The reference links rows (a draft to drafts,
a published version to published versions) by their ids; Folio's links name the target
document, its locale where its type has locales and, from a source without drafts to a
type with them, its status. Each link's two positions are kept: its place in the owner's
list and in the target's inverse list. Media links (the files' morph links) and users'
roles (by role type) are written too; anything else is counted as skipped."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from folio.content.bulk import BulkLoad, RelationWriter
from folio.schema.builtins import FILE_UID, USER_UID
from folio.schema.model import ContentType, Registry, Schema
from folio.transfer.report import ImportReport


class Rows:
    """What the links need of each entry version: its documentId, locale and status, per
    type and row id (about 150 bytes a version)."""

    def __init__(self) -> None:
        self.by_type: dict[str, dict[int, tuple[str, str | None, bool]]] = {}
        self.documents: dict[str, str] = {}

    def add(self, uid: str, row_id: int, doc: str, locale: str | None, draft: bool) -> None:
        doc = self.documents.setdefault(doc, doc)  # one string per document
        self.by_type.setdefault(uid, {})[row_id] = (doc, locale, draft)

    def get(self, uid: str, row_id: Any) -> tuple[str, str | None, bool] | None:
        rows = self.by_type.get(uid)
        return rows.get(row_id) if rows is not None and type(row_id) is int else None


@dataclass(frozen=True)
class Plan:
    """How the links of one owning relation attribute are written."""

    owner: Schema
    write: RelationWriter
    target: str
    localized: bool
    from_type: bool  # the owner is a content type (not a component)


class Linker:
    """Writes the archive's link records into a bulk load."""

    def __init__(
        self,
        registry: Registry,
        load: BulkLoad,
        rows: Rows,
        role_types: dict[int, str],
        roles: dict[str, str],
        report: ImportReport,
    ) -> None:
        self.registry = registry
        self.load = load
        self.rows = rows
        self.role_types = role_types  # the archive's role ids -> role types
        self.roles = roles  # role type -> the app's role documentId
        self.report = report
        self.roleless: Counter[str] = Counter()  # role type -> users left without it
        self._plans: dict[tuple[str, str], Plan | None] = {}

    def add(self, link: dict[str, Any]) -> None:
        """One link record: written, or counted as skipped."""
        left = _side(link.get("left"))
        right = _side(link.get("right"))
        left_type = str(left.get("type"))
        fld = str(left.get("field"))
        if fld == "localizations":
            return  # a document's locales are its rows of one documentId
        if left_type == FILE_UID and fld == "related":
            written = self._media(left, right)
        elif left_type == USER_UID and fld == "role":
            written = self._role(left, right)
        else:
            written = self._relation(left, right)
        if not written:
            self.report.skipped[f"links {left_type}.{fld}"] += 1

    def _plan(self, uid: str, field_name: str) -> Plan | None:
        """How the links of one owning relation attribute are written (None: not one the
        app has)."""
        key = (uid, field_name)
        if key in self._plans:
            return self._plans[key]
        registry = self.registry
        owner: Schema | None = registry.content_types.get(uid) or registry.components.get(uid)
        plan = None
        if owner is not None and (uid.startswith("api::") or uid in registry.components):
            attr = owner.attributes.get(field_name)
            target = registry.content_types.get(str(attr.target)) if attr is not None else None
            if attr is not None and attr.type == "relation" and attr.mapped_by is None and target:
                plan = Plan(
                    owner,
                    self.load.relation_writer(owner, attr),
                    target.uid,
                    target.localized,
                    isinstance(owner, ContentType),
                )
        self._plans[key] = plan
        return plan

    def _relation(self, left: dict[str, Any], right: dict[str, Any]) -> bool:
        rows = self.rows
        plan = self._plan(str(left.get("type")), str(left.get("field")))
        if plan is None or right.get("type") != plan.target:
            return False
        found = rows.get(plan.target, right.get("ref"))
        source_id = left.get("ref")
        if found is None or not isinstance(source_id, int):
            return False
        source_draft = False
        if plan.from_type:
            source = rows.get(plan.owner.uid, source_id)
            if source is None:
                return False
            source_draft = source[2]
        doc, locale, draft = found
        plan.write(
            source_id,
            source_draft,
            doc,
            locale if plan.localized else None,
            "draft" if draft else "published",
            _position(left.get("pos")),
            _position(right.get("pos")),
        )
        self.report.relations += 1
        return True

    def _media(self, left: dict[str, Any], right: dict[str, Any]) -> bool:
        registry, rows = self.registry, self.rows
        uid = str(right.get("type"))
        owner: Schema | None = registry.content_types.get(uid) or registry.components.get(uid)
        if owner is None:
            return False
        attr = owner.attributes.get(str(right.get("field")))
        file_id, related_id = left.get("ref"), right.get("ref")
        if attr is None or attr.type != "media" or not isinstance(related_id, int):
            return False
        if not isinstance(file_id, int) or rows.get(FILE_UID, file_id) is None:
            return False
        if isinstance(owner, ContentType) and rows.get(uid, related_id) is None:
            return False
        self.load.media(file_id, owner, related_id, attr.name, _position(right.get("pos")))
        self.report.media_links += 1
        return True

    def _role(self, left: dict[str, Any], right: dict[str, Any]) -> bool:
        users = self.registry.content_types[USER_UID]
        user_id = left.get("ref")
        if not isinstance(user_id, int) or self.rows.get(USER_UID, user_id) is None:
            return False
        role_type = self.role_types.get(right.get("ref"))  # type: ignore[arg-type]
        doc = self.roles.get(str(role_type))
        if doc is None:
            self.roleless[str(role_type)] += 1
            return True
        self.load.relation(
            users,
            users.attributes["role"],
            user_id,
            False,
            doc,
            None,
            None,
            _position(left.get("pos")),
            _position(right.get("pos")),  # the user's place in the role's list
        )
        self.report.user_roles += 1
        return True


def _position(value: Any) -> float:
    return float(value) if type(value) in (int, float) else 1.0


def _side(value: Any) -> dict[str, Any]:
    """One side of a link record: an object, or an empty one (the link is then skipped)."""
    return value if isinstance(value, dict) else {}
