"""`folio export`: an app's content as an archive in the reference's format.

What the reference's `strapi export` writes and its `strapi import` reads: `schemas/` (every
type and component, `export_schemas.py`), `entities/` (one line per stored row: every
locale, draft and published version, with its components and dynamic zones inline),
`links/` (relations between rows in their order, both sides' positions; files' morph links
to entries and components; each row's `localizations` link), `assets/` (each file's bytes
and record, its formats too, the bytes streamed from the upload provider: the local disk or
an object store), `configuration/` (the default locale, webhooks) and `metadata.json`.
The container (tar, gzip, encryption, numbered JSON-lines files) is `archive.py`'s.

Rows are read through the document service's bulk reads (`DocumentService.dump`), by pages
of ids, and written as they come: memory stays bounded whatever the number of documents.
Users, roles and their permissions, files and locales go as the reference's
`plugin::users-permissions.*`, `plugin::upload.file` and `plugin::i18n.locale` entities; API
tokens and admin accounts are not exported (the reference does not export them either)."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol, cast

import orjson

from folio.auth.permissions import RoleTable
from folio.config import Settings
from folio.content.documents import DocumentService
from folio.content.ids import new_document_id
from folio.errors import ValidationError
from folio.files.providers import ObjectMissing, Provider
from folio.schema.builtins import FILE_UID, ROLE_UID, USER_UID
from folio.schema.model import ContentType, Registry, Schema
from folio.transfer.archive import ArchiveWriter
from folio.transfer.export_schemas import reference_schemas
from folio.webhooks import WebhookService

if TYPE_CHECKING:
    from folio.content.sql.dump import Dump


class App(Protocol):
    """What an export reads of the app (folio.app.Folio): its models and settings, the
    document service, the roles, the upload provider and the webhooks."""

    registry: Registry
    settings: Settings
    documents: DocumentService
    roles: RoleTable
    storage: Provider
    webhooks: WebhookService


log = logging.getLogger("folio.transfer")

# the reference's transfer groups (`--only`, `--exclude`) and the stages each one holds
GROUPS = ("content", "files", "config")
REFERENCE_VERSION = "5.54.0"
LOCALE_UID = "plugin::i18n.locale"
PERMISSION_UID = "plugin::users-permissions.permission"
# rows and links read per statement
PAGE = 2000

Progress = Callable[[str, int], None]


@dataclass
class ExportResult:
    path: Path
    counts: dict[str, int] = field(default_factory=dict)


def transfer_groups(only: Sequence[str] | None, exclude: Sequence[str] | None) -> set[str]:
    """The groups an export holds, from `--only` / `--exclude` (comma lists or repeated)."""

    def names(values: Sequence[str] | None) -> set[str]:
        out = {v.strip() for value in values or () for v in value.split(",") if v.strip()}
        unknown = sorted(out - set(GROUPS))
        if unknown:
            message = f"Unknown transfer group {', '.join(unknown)} (one of {', '.join(GROUPS)})"
            raise ValidationError(message, {"errors": [{"path": [], "message": message}]})
        return out

    chosen = names(only) or set(GROUPS)
    return chosen - names(exclude)


def _number(value: Any) -> Any:
    """An order as the reference writes it: an integer where it is one."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _file_name(name: str) -> bool:
    return bool(name) and "\\" not in name and PurePath(name).name == name and name != ".."


class _Pull:
    """A stored object's chunks (an async iterator of this event loop) as the readable
    binary stream the archive's writer reads on a worker thread: each `read` returns the
    bytes asked for (fewer only at the end), taking chunks from the loop as needed."""

    def __init__(self, chunks: AsyncIterator[bytes], loop: asyncio.AbstractEventLoop) -> None:
        self._chunks = chunks
        self._loop = loop
        self._chunk = memoryview(b"")
        self._done = False
        self._stopped = False

    def stop(self) -> None:
        self._stopped = True

    async def _next(self) -> bytes | None:
        return await anext(self._chunks, None)

    def read(self, size: int = -1) -> bytes:
        out = bytearray()
        while size < 0 or len(out) < size:
            if not self._chunk:
                if self._done:
                    break
                if self._stopped:
                    raise OSError("the export was stopped")
                chunk = asyncio.run_coroutine_threadsafe(self._next(), self._loop).result()
                if chunk is None:
                    self._done = True
                    break
                self._chunk = memoryview(chunk)
            take = len(self._chunk) if size < 0 else min(size - len(out), len(self._chunk))
            out += self._chunk[:take]
            self._chunk = self._chunk[take:]
        return bytes(out)


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class Exporter:
    def __init__(self, folio: App, writer: ArchiveWriter, progress: Progress | None) -> None:
        self.folio = folio
        self.registry = folio.registry
        self.dump: Dump = folio.documents.dump()
        self.writer = writer
        self.progress = progress
        self.counts: dict[str, int] = {"schemas": 0, "entities": 0, "links": 0, "assets": 0}
        self.counts["configuration"] = 0
        # role type -> row id (for the permissions' links)
        self.roles: dict[str, int] = {}
        self._exported = {ct.uid for ct in self.exported_types()} | set(self.registry.components)
        # (permission id, role id, position in the role's list)
        self.granted: list[tuple[int, int, int]] = []

    # ------------------------------------------------------------------ helpers
    def line(self, stage: str, record: dict[str, Any]) -> None:
        self.writer.add_line(stage, record)
        self.counts[stage] += 1

    def tick(self, stage: str) -> None:
        if self.progress is not None:
            self.progress(stage, self.counts[stage])

    def exported_types(self) -> list[ContentType]:
        """The app's types and the built-in ones the reference has (files, users, roles)."""
        return [
            ct
            for ct in self.registry.content_types.values()
            if ct.uid.startswith("api::") or ct.uid in (FILE_UID, USER_UID, ROLE_UID)
        ]

    def exported(self, uid: str) -> bool:
        return uid in self.registry.components or any(ct.uid == uid for ct in self.exported_types())

    # ------------------------------------------------------------------ stages
    def schemas(self) -> None:
        for schema in reference_schemas(self.registry, self.folio.settings.app_dir):
            self.line("schemas", schema)
        self.tick("schemas")

    async def rows(self, ct: ContentType) -> AsyncIterator[list[dict[str, Any]]]:
        """The rows of `ct`, page by page (an async iterator of lists)."""
        after = 0
        while True:
            page = await self.dump.rows(ct, after, PAGE)
            if not page:
                return
            after = int(page[-1]["id"])
            yield page

    async def entities(self) -> None:
        for ct in self.exported_types():
            async for page in self.rows(ct):
                for record in page:
                    row_id = record.pop("id")
                    if ct.uid == FILE_UID:
                        # Folio has no media folders: every file is at the library's root
                        record.setdefault("folderPath", "/")
                    if ct.uid == ROLE_UID and record.get("type"):
                        self.roles[str(record["type"])] = int(row_id)
                    self.line("entities", {"type": ct.uid, "id": row_id, "data": record})
                self.tick("entities")
        self.locales()
        self.permissions()

    def locales(self) -> None:
        now = _now()
        for i, loc in enumerate(self.folio.settings.locales, start=1):
            data = {
                "documentId": new_document_id(),
                "name": loc.name,
                "code": loc.code,
                "createdAt": now,
                "updatedAt": now,
                "publishedAt": now,
                "locale": None,
            }
            self.line("entities", {"type": LOCALE_UID, "id": i, "data": data})

    def permissions(self) -> None:
        """Each role's actions as the reference's permission entries, linked to it."""
        now = _now()
        next_id = 1
        for type_, role_id in self.roles.items():
            role = self.folio.roles.get(type_)
            if role is None:
                continue
            for pos, action in enumerate(sorted(role.permissions), start=1):
                data = {
                    "documentId": new_document_id(),
                    "action": action,
                    "createdAt": now,
                    "updatedAt": now,
                    "publishedAt": now,
                    "locale": None,
                }
                self.line("entities", {"type": PERMISSION_UID, "id": next_id, "data": data})
                self.granted.append((next_id, role_id, pos))
                next_id += 1

    def permission_links(self) -> None:
        for permission_id, role_id, pos in self.granted:
            self.line(
                "links",
                {
                    "kind": "relation.basic",
                    "relation": "manyToOne",
                    "left": {"type": PERMISSION_UID, "field": "role", "ref": permission_id},
                    "right": {"type": ROLE_UID, "field": "permissions", "ref": role_id, "pos": pos},
                },
            )

    async def localizations(self) -> None:
        """Each row's `localizations` link to its document, as the reference writes them."""
        for ct in self.exported_types():
            after = 0
            while True:
                page = await self.dump.keys(ct, after, PAGE)
                if not page:
                    break
                for row_id, document_id in page:
                    self.line(
                        "links",
                        {
                            "kind": "relation.circular",
                            "relation": "oneToMany",
                            "left": {"type": ct.uid, "ref": row_id, "field": "localizations"},
                            "right": {"type": ct.uid, "ref": document_id},
                        },
                    )
                after = page[-1][0]
                self.tick("links")

    def _link_sources(self) -> Iterator[Schema]:
        yield from self.exported_types()
        yield from self.registry.components.values()

    async def links(self) -> None:
        await self.localizations()
        for schema in self._link_sources():
            for attr in self.dump.owned_relations(schema):
                assert attr.target is not None and attr.relation is not None
                if not self.exported(attr.target):
                    continue
                kind = "relation.circular" if attr.target == schema.uid else "relation.basic"
                left_pos = attr.relation in ("oneToMany", "manyToMany")
                right_pos = attr.inversed_by is not None and attr.relation in (
                    "manyToOne",
                    "manyToMany",
                )
                after = 0
                while True:
                    page = await self.dump.links(schema, attr, after, PAGE)
                    if len(page) == PAGE and page[0].id != page[-1].id:
                        # a link resolved to two rows may straddle the page's end
                        last = page[-1].id
                        page = [link for link in page if link.id != last]
                    if not page:
                        break
                    for link in page:
                        left: dict[str, Any] = {
                            "type": schema.uid,
                            "field": attr.name,
                            "ref": link.source,
                        }
                        if left_pos:
                            left["pos"] = _number(link.position)
                        right: dict[str, Any] = {"type": attr.target}
                        if attr.inversed_by is not None:
                            right["field"] = attr.inversed_by
                        right["ref"] = link.target
                        if right_pos:
                            right["pos"] = _number(link.inv_position)
                        self.line(
                            "links",
                            {
                                "kind": kind,
                                "relation": attr.relation,
                                "left": left,
                                "right": right,
                            },
                        )
                    after = page[-1].id
                    self.tick("links")
        await self.media_links()
        self.permission_links()

    async def media_links(self) -> None:
        after = 0
        while True:
            page = await self.dump.media_links(after, PAGE)
            if not page:
                return
            for link in page:
                if not self.exported(link.related_type):
                    continue
                self.line(
                    "links",
                    {
                        "kind": "relation.morph",
                        "relation": "morphToMany",
                        "left": {"type": FILE_UID, "field": "related", "ref": link.file},
                        "right": {
                            "ref": link.related,
                            "pos": _number(link.position),
                            "type": link.related_type,
                            "field": link.field,
                        },
                    },
                )
            after = page[-1].id
            self.tick("links")

    async def assets(self) -> None:
        """Each file's bytes and record, then its formats' (as the reference does: a
        format's record is the format with `type`, the file's `id` and `mainHash`), the
        bytes read from the upload provider, whichever it is."""
        ct = self.registry.content_types[FILE_UID]
        async for page in self.rows(ct):
            for record in page:
                record.setdefault("folderPath", "/")
                await self._asset(record, record)
                formats = record.get("formats")
                if isinstance(formats, orjson.Fragment):
                    # a JSON column comes as its text, to be written as it is
                    formats = orjson.loads(orjson.dumps(formats))
                if isinstance(formats, dict):
                    for name, fmt in formats.items():
                        if isinstance(fmt, dict):
                            meta = {**fmt, "type": name, "id": record["id"]}
                            meta["mainHash"] = record.get("hash")
                            await self._asset(fmt, meta)
            self.tick("assets")

    async def _asset(self, item: dict[str, Any], metadata: dict[str, Any]) -> None:
        """One object (a file's or a format's), streamed from the provider into the
        archive: the archive is written on a worker thread (its compression and
        encryption with it), pulling the object's chunks from this loop as it goes."""
        digest, ext = item.get("hash"), item.get("ext") or ""
        name = f"{digest}{ext}"
        if not isinstance(digest, str) or not isinstance(ext, str) or not _file_name(name):
            return  # not a name this app stores objects under
        try:
            async with self.folio.storage.open(name) as stored:
                source = _Pull(stored.chunks, asyncio.get_running_loop())
                writing = asyncio.ensure_future(
                    asyncio.to_thread(
                        self.writer.add_asset, name, metadata, cast(BinaryIO, source), stored.size
                    )
                )
                try:
                    await asyncio.shield(writing)
                except asyncio.CancelledError:
                    # the thread stops at its next read; the archive is not left to it
                    # while it is being removed
                    source.stop()
                    with contextlib.suppress(BaseException):
                        await writing
                    raise
        except ObjectMissing:
            # a record whose bytes are gone: the reference skips it with a warning
            log.warning("export: %s is not in the file store, its record goes alone", name)
            return
        self.counts["assets"] += 1

    async def configuration(self) -> None:
        """The default locale, and the webhooks made through the admin API (those of
        config/webhooks.json are the app's files) as the reference's: name, url, headers,
        events, enabled (a signing secret has no place there)."""
        for i, hook in enumerate(await self.folio.webhooks.stored(), start=1):
            self.line(
                "configuration",
                {
                    "type": "webhook",
                    "value": {
                        "id": i,
                        "name": hook.name,
                        "url": hook.url,
                        "headers": dict(hook.headers),
                        "events": list(hook.events),
                        "enabled": hook.enabled,
                    },
                },
            )
        self.line(
            "configuration",
            {
                "type": "core-store",
                "value": {
                    "id": 1,
                    "key": "plugin_i18n_default_locale",
                    "value": self.folio.settings.default_locale,
                    "type": "string",
                    "environment": None,
                    "tag": None,
                },
            },
        )
        self.tick("configuration")


async def export_archive(
    folio: App,
    path: str | Path,
    *,
    compress: bool = True,
    encrypt: bool = False,
    key: str | None = None,
    only: Sequence[str] | None = None,
    exclude: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> ExportResult:
    """Writes the app's content to an archive at `path` (the writer adds `.tar`, `.gz`
    and `.enc` as the reference does) and returns its final name and what it holds."""
    groups = transfer_groups(only, exclude)
    if encrypt and not key:
        message = "An encrypted export needs a key (--key)"
        raise ValidationError(message, {"errors": [{"path": ["key"], "message": message}]})
    # the reference 5.54 reads (and writes) the headerless cipher: AES-128-ECB under
    # scrypt(key, "", 16); an archive with a header is refused as "not a valid data file"
    with ArchiveWriter(
        Path(path), compress=compress, key=key if encrypt else None, legacy_encryption=True
    ) as writer:
        exporter = Exporter(folio, writer, progress)
        exporter.schemas()
        if "content" in groups:
            await exporter.entities()
            await exporter.links()
        if "files" in groups:
            await exporter.assets()
        if "config" in groups:
            await exporter.configuration()
        writer.set_metadata({"createdAt": _now(), "strapi": {"version": REFERENCE_VERSION}})
    return ExportResult(writer.path, exporter.counts)
