"""File records: the documents of the media library (`plugin::upload.file`), read and
written through the document service, for the upload routes, GraphQL and the CLI.

It owns the records only; the bytes are the upload provider's (`folio.files`), stored
before a record is created and removed by the caller before its record goes (so that a
store that is down leaves the record, and the deletion can be tried again).

The records it answers show what a client may fetch: with a private provider, pre-signed
URLs (`signer`, set by the app: `content/signing.py`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from folio.content.documents import DocumentService
from folio.content.signing import UrlSigner
from folio.schema.builtins import FILE_UID
from folio.schema.model import ContentType


class FileService:
    def __init__(self, documents: DocumentService) -> None:
        self.documents = documents
        self.ct: ContentType = documents.registry.content_types[FILE_UID]
        self.signer: UrlSigner | None = None

    def _shown(self, record: dict[str, Any]) -> dict[str, Any]:
        return record if self.signer is None else dict(self.signer.file(record))

    async def get(self, file_id: int) -> dict[str, Any] | None:
        """The record with numeric id `file_id`, or None."""
        found = await self.documents.find_record(self.ct, file_id)
        return None if found is None else self._shown(found)

    async def create(
        self,
        records: list[dict[str, Any]],
        attach: tuple[ContentType, str, str] | None = None,
    ) -> list[dict[str, Any]]:
        """Records for files already stored, in one transaction; `attach` = (type,
        documentId or id, media field) links them to that entry's field in it too."""
        made = await self.documents.create_records(self.ct, records, attach)
        return [self._shown(record) for record in made]

    async def update(self, document_id: str, values: dict[str, Any]) -> dict[str, Any]:
        """A partial update of a record (its information, or what new bytes changed)."""
        return self._shown(await self.documents.update_record(self.ct, document_id, values))

    async def delete(self, document_id: str) -> None:
        """Deletes a record (its links to entries go with it)."""
        await self.documents.delete_record(self.ct, document_id)

    async def related(
        self, file_id: int, visible: Callable[[str], bool]
    ) -> list[tuple[str, dict[str, Any]]]:
        """The (type uid, document) of the entries file `file_id` is attached to, of the
        types `visible` accepts; a document with drafts once, by its published version."""
        out: list[tuple[str, dict[str, Any]]] = []
        for uid, row_id in await self.documents.file_links(file_id):
            ct = self.documents.registry.content_types.get(uid)
            if ct is None or not visible(uid):
                continue
            doc = await self.documents.find_record(ct, row_id)
            if doc is not None and not (ct.draft_and_publish and doc.get("publishedAt") is None):
                out.append((uid, doc))
        return out
