"""`folio import`: a transfer archive of the reference loaded into an app.

In order: the archive opens (a wrong key stops here); its schemas are compared with the
app's models (any difference stops here, with the list); the files' bytes go to the upload
provider; then ONE transaction of the document service's bulk load (`content/bulk.py`)
checks that the database holds no content (or deletes it with `force`), writes every entry
version with its id, documentId, locale, status and times, its components and dynamic
zones, then the links in the archive's order: relations (owning sides; the inverse sides'
order kept as each link's inverse position), media links (the files' morph links) and
users' roles. Anything that fails rolls the whole of it back and removes the files this
import stored, so the app is as it was.

What maps onto Folio's configuration rather than its data is compared, not written: the
archive's locales with `config/i18n.json` (content in a locale the app lacks is imported
and reported: it is served once the locale is added), its roles with the roles of
`config/permissions.json` (users keep a role the app declares; the others are reported),
permissions (Folio's are in `config/permissions.json`), the core-store settings of the
`configuration` stage. Its webhooks are added through the admin API's service once the
content is committed, each on its own (one the app refuses is reported). Users come
without their password when it is the reference's (its bcrypt hashes are not Folio's:
they sign in after a password reset); a hash of Folio's own (from `folio export`) is kept.
Every skipped record is counted in the report."""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Protocol, cast

from folio.config import Settings
from folio.content.accounts.users import UserService
from folio.content.bulk import BulkLoad, NotEmpty, RelationWriter
from folio.content.documents import DocumentService
from folio.errors import FolioError
from folio.files.providers import Provider
from folio.schema.builtins import FILE_UID, ROLE_UID, USER_UID
from folio.schema.model import ContentType, Schema
from folio.transfer.archive import ArchiveError, ArchiveReader
from folio.transfer.schemas import compare, report
from folio.webhooks import WebhookService

LOCALE_UID = "plugin::i18n.locale"
PERMISSION_UID = "plugin::users-permissions.permission"
PARTS = ("content", "files", "config")
# the password hashes Folio checks (folio.auth.passwords), kept by a Folio-to-Folio move
FOLIO_HASH = "scrypt$"
LOCALIZATIONS = b'"field":"localizations"'
# archive records between two flushes of full batches (and progress reports)
STEP = 2000

Progress = Callable[[str, int], None]


class TransferError(Exception):
    """An import refused or failed; nothing was written. The message says why."""


class App(Protocol):
    """What an import needs of an app (folio.app.Folio)."""

    settings: Settings
    documents: DocumentService
    users: UserService
    storage: Provider
    webhooks: WebhookService


@dataclass
class ImportReport:
    entries: Counter[str] = field(default_factory=Counter)
    components: int = 0
    relations: int = 0
    media_links: int = 0
    user_roles: int = 0
    assets: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    documents: int = 0  # distinct documentIds
    seconds: float = 0.0

    @property
    def versions(self) -> int:
        """Entry versions (rows): a document has one per locale and status."""
        return sum(self.entries.values())

    def lines(self) -> list[str]:
        out = [f"{uid}: {n} entry versions" for uid, n in sorted(self.entries.items())]
        out.append(
            f"components: {self.components}, relation links: {self.relations}, media links: "
            f"{self.media_links}, users' roles: {self.user_roles}, files stored: {self.assets}"
        )
        out += [f"skipped: {what}: {n}" for what, n in sorted(self.skipped.items())]
        out += self.notes
        return out


def parts(only: list[str] | None, exclude: list[str] | None) -> set[str]:
    """The parts to import (`content`, `files`, `config`), as the reference names them."""
    for name in [*(only or []), *(exclude or [])]:
        if name not in PARTS:
            raise TransferError(f"unknown part {name!r} (parts: {', '.join(PARTS)})")
    chosen = set(only or PARTS)
    return chosen - set(exclude or [])


class _Rows:
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
class _Plan:
    owner: Schema
    write: RelationWriter
    target: str
    localized: bool
    from_type: bool  # the owner is a content type (not a component)


class Importer:
    def __init__(
        self,
        app: App,
        path: Path | str,
        *,
        key: str | None = None,
        force: bool = False,
        only: list[str] | None = None,
        exclude: list[str] | None = None,
        progress: Progress | None = None,
        totals: Callable[[dict[str, int]], None] | None = None,
    ) -> None:
        self.app = app
        self.totals = totals
        self.registry = app.documents.registry
        self.parts = parts(only, exclude)
        self.force = force
        self.progress = progress or (lambda stage, n: None)
        try:
            self.reader = ArchiveReader(path, key)
        except ArchiveError as exc:
            raise TransferError(str(exc)) from None
        self.report = ImportReport()
        # the types a load fills (and, with `force`, empties first): as the reference's
        # transfer groups have it, `content` is every entity and link (file records
        # included), `files` the files' bytes, `config` the configuration stage
        self.types: set[str] = set()
        if "content" in self.parts:
            self.types = {uid for uid in self.registry.content_types if uid.startswith("api::")}
            self.types |= {USER_UID, FILE_UID}
        self.urls: dict[tuple[Any, str | None], str] = {}
        self.stored: list[str] = []
        self.roles: dict[str, str] = {}  # role type -> Folio role documentId
        self._plans: dict[tuple[str, str], _Plan | None] = {}
        self._roleless: Counter[str] = Counter()  # role type -> users left without it
        self._without_bytes = 0
        self._passwordless = 0
        self._webhooks: list[dict[str, Any]] = []  # the reference's, added once committed

    # ------------------------------------------------------------------ steps
    def check_schemas(self) -> None:
        differences = compare(self.reader.lines("schemas"), self.registry)
        if differences:
            raise TransferError(
                "the archive's schemas differ from the app's models; nothing was imported:\n"
                + report(differences)
            )

    async def check_empty(self) -> None:
        """Refuses early (before storing files) a database that holds content."""
        if self.force or not self.types:
            return
        try:
            await self.app.documents.bulk_load(_nothing, types=self.types)
        except NotEmpty as exc:
            raise _not_empty(exc) from None

    def read_configuration(self) -> None:
        """The `configuration` stage, read before anything is written: its webhooks kept
        for `add_webhooks`, the other records (the reference's core-store) counted."""
        for record in self.reader.lines("configuration"):
            kind = str(record.get("type"))
            value = record.get("value")
            if kind == "webhook" and isinstance(value, dict):
                self._webhooks.append(value)
            else:
                self.report.skipped[f"configuration records ({kind})"] += 1

    async def store_assets(self) -> None:
        storage = self.app.storage
        mount = storage.static_mount()
        count = 0
        for asset in self.reader.assets():
            name = Path(asset.filename).name
            meta = asset.metadata
            mime = str(meta.get("mime") or "application/octet-stream")
            existed = mount is not None and (mount.directory / name).exists()
            url = await storage.put(name, cast(BinaryIO, asset.stream), mime)
            if not existed:
                self.stored.append(name)
            fmt = meta.get("type") if meta.get("mainHash") else None
            self.urls[(meta.get("id"), str(fmt) if fmt else None)] = url
            count += 1
            self.progress("assets", count)
        self.report.assets = count

    async def remove_stored(self) -> None:
        for name in self.stored:
            # best effort: the database is what must be left as it was
            with contextlib.suppress(Exception):
                await self.app.storage.delete(name)
        self.stored = []

    async def run(self) -> ImportReport:
        started = time.perf_counter()
        try:
            self.check_schemas()
            await self.check_empty()
            if self.totals is not None:
                self.totals(self.reader.count_lines(skip=LOCALIZATIONS))
            self.roles = {
                str(r.get("type")): str(r["documentId"]) for r in await self.app.users.list_roles()
            }
            if "config" in self.parts:
                self.read_configuration()
            if "files" in self.parts:
                await self.store_assets()
            if self.types:
                await self.app.documents.bulk_load(self._work, replace=self.force, types=self.types)
        except NotEmpty as exc:
            await self.remove_stored()
            raise _not_empty(exc) from None
        except ArchiveError as exc:
            await self.remove_stored()
            raise TransferError(f"{exc}; nothing was imported") from None
        except TransferError:
            await self.remove_stored()
            raise
        except BaseException:
            await self.remove_stored()
            raise
        await self.add_webhooks()
        self.report.seconds = time.perf_counter() - started
        return self.report

    async def add_webhooks(self) -> None:
        """The archive's webhooks, added through the admin API's service once the content
        is committed, each on its own: one the app refuses (a name it has, an address it
        does not take) is reported, not fatal."""
        added = 0
        for hook in self._webhooks:
            name = str(hook.get("name"))
            body = {
                "name": name,
                "url": hook.get("url"),
                "headers": hook.get("headers") or {},
                "events": hook.get("events") or [],
                "isEnabled": bool(hook.get("enabled", True)),
            }
            try:
                await self.app.webhooks.create(body)
            except FolioError as exc:
                self.report.notes.append(f"webhook {name!r} not added: {exc}")
                continue
            added += 1
        if added:
            self.report.notes.append(
                f"{added} webhooks added, each with a new signing secret (the admin panel "
                "shows how to verify it)"
            )

    # ------------------------------------------------------------------ the load
    def _work(self, load: BulkLoad) -> Iterator[None]:
        rows = _Rows()
        role_types: dict[int, str] = {}
        locales_used: set[str] = set()
        archive_locales: set[str] = set()
        files = "files" in self.parts
        types = self.registry.content_types
        n = 0
        for item in self.reader.lines("entities"):
            n += 1
            if n % STEP == 0:
                self.progress("entities", n)
                yield None
            uid = str(item.get("type"))
            row_id = item.get("id")
            data = item.get("data") or {}
            if uid == LOCALE_UID:
                archive_locales.add(str(data.get("code")))
                continue
            if uid == ROLE_UID:
                if isinstance(row_id, int):
                    role_types[row_id] = str(data.get("type"))
                continue
            ct = types.get(uid)
            wanted = ct is not None and (uid.startswith("api::") or uid in (USER_UID, FILE_UID))
            if not wanted or ct is None or not isinstance(row_id, int):
                self.report.skipped[f"entities of {uid}"] += 1
                continue
            if uid == FILE_UID:
                data = self._file(row_id, data) if files else data
            elif uid == USER_UID and not str(data.get("password") or "").startswith(FOLIO_HASH):
                # a hash Folio cannot check (the reference's bcrypt): no password
                data = {k: v for k, v in data.items() if k != "password"}
                self._passwordless += 1
            locale = data.get("locale") if ct.localized else None
            if locale:
                locales_used.add(str(locale))
            draft = ct.draft_and_publish and data.get("publishedAt") is None
            load.entry(
                ct,
                row_id,
                str(data.get("documentId")),
                locale,
                data.get("publishedAt"),
                data.get("createdAt"),
                data.get("updatedAt"),
                data,
            )
            rows.add(uid, row_id, str(data.get("documentId")), locale, draft)
            self.report.entries[uid] += 1
        self.progress("entities", n)
        self.report.documents = len(rows.documents)
        missing = sorted(locales_used - set(self.app.settings.locale_codes))
        if missing:
            # kept (the reference stored them): they are read once the locale is added
            self.report.notes.append(
                f"entries in locales the app does not have: {', '.join(missing)} (imported; "
                "served once added: folio locale add CODE)"
            )
        absent = sorted(archive_locales - set(self.app.settings.locale_codes))
        if absent:
            self.report.notes.append(
                f"locales of the archive without content here, not in config/i18n.json: "
                f"{', '.join(absent)}"
            )
        self.report.components = sum(
            v for k, v in load.counts.items() if k in self.registry.components
        )
        yield from self._links(load, rows, role_types)
        if self.report.skipped.get("entities of " + PERMISSION_UID):
            self.report.notes.append(
                "permissions are not imported: Folio's roles and permissions are in "
                "config/permissions.json"
            )
        for role_type, count in sorted(self._roleless.items()):
            self.report.notes.append(
                f"{count} users have no role: their role {role_type!r} is not in "
                "config/permissions.json"
            )
        if self._without_bytes:
            self.report.notes.append(
                f"{self._without_bytes} files have no bytes in the archive (the reference "
                "found none to export): their records point at their old URLs"
            )
        if self._passwordless:
            self.report.notes.append(
                f"{self._passwordless} users imported without their password (the "
                "reference's bcrypt hashes): they sign in after a password reset"
            )

    def _file(self, row_id: int, data: dict[str, Any]) -> dict[str, Any]:
        """A file record pointing at the bytes as this app's provider stored them."""
        out = dict(data)
        url = self.urls.get((row_id, None))
        if url is not None:
            out["url"] = url
            out["provider"] = self.app.storage.name
        else:
            self._without_bytes += 1
        formats = data.get("formats")
        if isinstance(formats, dict):
            fixed = {}
            for name, fmt in formats.items():
                fmt_url = self.urls.get((row_id, name))
                fixed[name] = {**fmt, "url": fmt_url} if fmt_url and isinstance(fmt, dict) else fmt
            out["formats"] = fixed
        return out

    def _links(
        self,
        load: BulkLoad,
        rows: _Rows,
        role_types: dict[int, str],
    ) -> Iterator[None]:
        n = 0
        # a document's locales are its rows of one documentId: the reference's
        # `localizations` links (a quarter of them) are not even parsed
        for link in self.reader.lines("links", skip=LOCALIZATIONS):
            n += 1
            if n % STEP == 0:
                self.progress("links", n)
                yield None
            left = link.get("left") or {}
            right = link.get("right") or {}
            left_type = str(left.get("type"))
            fld = str(left.get("field"))
            if fld == "localizations":
                continue  # a document's locales are its rows of one documentId
            if left_type == FILE_UID and fld == "related":
                if self._media(load, left, right, rows):
                    continue
                self.report.skipped[f"links {left_type}.{fld}"] += 1
                continue
            if left_type == USER_UID and fld == "role":
                if self._role(load, left, right, rows, role_types):
                    continue
                self.report.skipped[f"links {left_type}.{fld}"] += 1
                continue
            if self._relation(load, left, right, rows):
                continue
            self.report.skipped[f"links {left_type}.{fld}"] += 1
        self.progress("links", n)

    def _plan(self, load: BulkLoad, uid: str, field_name: str) -> _Plan | None:
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
                plan = _Plan(
                    owner,
                    load.relation_writer(owner, attr),
                    target.uid,
                    target.localized,
                    isinstance(owner, ContentType),
                )
        self._plans[key] = plan
        return plan

    def _relation(
        self, load: BulkLoad, left: dict[str, Any], right: dict[str, Any], rows: _Rows
    ) -> bool:
        plan = self._plan(load, str(left.get("type")), str(left.get("field")))
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

    def _media(
        self, load: BulkLoad, left: dict[str, Any], right: dict[str, Any], rows: _Rows
    ) -> bool:
        registry = self.registry
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
        load.media(file_id, owner, related_id, attr.name, _position(right.get("pos")))
        self.report.media_links += 1
        return True

    def _role(
        self,
        load: BulkLoad,
        left: dict[str, Any],
        right: dict[str, Any],
        rows: _Rows,
        role_types: dict[int, str],
    ) -> bool:
        users = self.registry.content_types[USER_UID]
        user_id = left.get("ref")
        if not isinstance(user_id, int) or rows.get(USER_UID, user_id) is None:
            return False
        role_type = role_types.get(right.get("ref"))  # type: ignore[arg-type]
        doc = self.roles.get(str(role_type))
        if doc is None:
            self._roleless[str(role_type)] += 1
            return True
        load.relation(
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


def _nothing(load: BulkLoad) -> Iterator[None]:
    return iter(())


def _not_empty(exc: NotEmpty) -> TransferError:
    held = ", ".join(f"{uid} ({n})" for uid, n in exc.counts.items())
    return TransferError(
        f"the database already holds content: {held}; nothing was imported (--force replaces it)"
    )


async def import_archive(
    app: App,
    path: Path | str,
    *,
    key: str | None = None,
    force: bool = False,
    only: list[str] | None = None,
    exclude: list[str] | None = None,
    progress: Progress | None = None,
    totals: Callable[[dict[str, int]], None] | None = None,
) -> ImportReport:
    """Imports the archive at `path` (a file or an unpacked directory) into `app` (started:
    its database open and synced). Raises TransferError, with nothing written.
    `progress(stage, records so far)` is called now and then; `totals`, when given, gets
    each stage's number of records first (one more pass over the archive)."""
    importer = Importer(
        app,
        path,
        key=key,
        force=force,
        only=only,
        exclude=exclude,
        progress=progress,
        totals=totals,
    )
    return await importer.run()
