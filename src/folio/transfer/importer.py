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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Protocol, cast

from folio.config import Settings
from folio.content.accounts.users import UserService
from folio.content.bulk import BulkLoad, NotEmpty
from folio.content.documents import DocumentService
from folio.errors import FolioError
from folio.files.providers import Provider
from folio.schema.builtins import FILE_UID, ROLE_UID, USER_UID
from folio.transfer.archive import ArchiveError, ArchiveReader
from folio.transfer.linking import Linker, Rows
from folio.transfer.report import ImportReport, TransferError, parts
from folio.transfer.schemas import compare, report
from folio.webhooks import WebhookService

__all__ = ["App", "ImportReport", "Importer", "TransferError", "import_archive"]

LOCALE_UID = "plugin::i18n.locale"
PERMISSION_UID = "plugin::users-permissions.permission"
# the password hashes Folio checks (folio.auth.passwords), kept by a Folio-to-Folio move
FOLIO_HASH = "scrypt$"
LOCALIZATIONS = b'"field":"localizations"'
# archive records between two flushes of full batches (and progress reports)
STEP = 2000

Progress = Callable[[str, int], None]


class App(Protocol):
    """What an import needs of an app (folio.app.Folio)."""

    settings: Settings
    documents: DocumentService
    users: UserService
    storage: Provider
    webhooks: WebhookService


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
        rows = Rows()
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
            if not isinstance(data, dict):
                raise ArchiveError(f"entities: {uid} {row_id}: its data is not a JSON object")
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
            document_id = data.get("documentId")
            if not isinstance(document_id, str) or not document_id:
                raise ArchiveError(f"entities: {uid} {row_id}: no documentId")
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
                document_id,
                locale,
                data.get("publishedAt"),
                data.get("createdAt"),
                data.get("updatedAt"),
                data,
            )
            rows.add(uid, row_id, document_id, locale, draft)
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
        linker = Linker(self.registry, load, rows, role_types, self.roles, self.report)
        n = 0
        # a document's locales are its rows of one documentId: the reference's
        # `localizations` links (a quarter of them) are not even parsed
        for link in self.reader.lines("links", skip=LOCALIZATIONS):
            n += 1
            if n % STEP == 0:
                self.progress("links", n)
                yield None
            linker.add(link)
        self.progress("links", n)
        if self.report.skipped.get("entities of " + PERMISSION_UID):
            self.report.notes.append(
                "permissions are not imported: Folio's roles and permissions are in "
                "config/permissions.json"
            )
        for role_type, count in sorted(linker.roleless.items()):
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
