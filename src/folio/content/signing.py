"""Pre-signed URLs of a private upload provider's files, in every answer that shows a file.

When the provider's objects are private (an S3 bucket with `ACL: private`), the URL a file
record holds does not open the file: answers show a pre-signed one instead, made per answer
(it expires). As the reference does with its document-service middleware, the signing
wraps the document service (`middleware`: lists, single documents and the answers of
writes, for REST, GraphQL and the admin alike) and the file service's records (the upload
routes, the media library); it reaches the files wherever a document holds them: media
fields, and inside populated components, dynamic zones, relations and localizations. A
signed file carries `isUrlSigned: true`, and so does each of its formats.

The documents given are never changed: an answer's signed parts are copies (the same
populated file, shown under several parents, is signed once), so what the read memo, an
event or the caller holds keeps the recorded URL. Signing is local computation (no request
to the store), a few microseconds per URL."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from folio.content.documents import Page
from folio.content.events import DocumentContext
from folio.files.providers import Provider
from folio.schema.builtins import FILE_UID
from folio.schema.model import Registry, Schema

# what a schema's documents hold that may lead to files: (field, how, target uid or None)
Step = tuple[str, str, str | None]
MEDIA, ONE, ZONE = "media", "one", "zone"


class UrlSigner:
    """Signs the files of documents of any type, for a provider with private objects."""

    def __init__(self, registry: Registry, provider: Provider) -> None:
        self.registry = registry
        self.provider = provider
        self._steps: dict[str, list[Step]] = {}

    # ------------------------------------------------------------------ the plan per type
    def _schemas(self) -> dict[str, Schema]:
        return {**self.registry.components, **self.registry.content_types}

    @staticmethod
    def _targets(schema: Schema) -> list[tuple[str, str, list[str]]]:
        """(field, how, the types it leads to) of every field that holds files or
        documents that may hold some."""
        out: list[tuple[str, str, list[str]]] = []
        for attr in schema.attributes.values():
            if attr.type == "media":
                out.append((attr.name, MEDIA, []))
            elif attr.type == "component" and attr.component:
                out.append((attr.name, ONE, [attr.component]))
            elif attr.type == "dynamiczone":
                out.append((attr.name, ZONE, list(attr.components)))
            elif attr.type == "relation" and attr.target and attr.target != FILE_UID:
                out.append((attr.name, ONE, [attr.target]))
        if getattr(schema, "localized", False):
            out.append(("localizations", ONE, [schema.uid]))
        return out

    def _plan(self) -> dict[str, list[Step]]:
        """Each type's steps toward files: the types that hold media, then (until nothing
        changes) those that lead to one of them, cycles included."""
        schemas = self._schemas()
        fields = {uid: self._targets(schema) for uid, schema in schemas.items()}
        reach = {uid for uid, found in fields.items() if any(h == MEDIA for _, h, _ in found)}
        grown = True
        while grown:
            grown = False
            for uid, found in fields.items():
                if uid not in reach and any(t in reach for _, _, ts in found for t in ts):
                    reach.add(uid)
                    grown = True
        plan: dict[str, list[Step]] = {}
        for uid, found in fields.items():
            plan[uid] = [
                (name, how, ts[0] if how == ONE else None)
                for name, how, ts in found
                if how == MEDIA or any(t in reach for t in ts)
            ]
        return plan

    def steps(self, uid: str) -> list[Step]:
        """The fields of `uid`'s documents that hold files or may lead to some (relations,
        components and zones whose types have media somewhere below)."""
        if not self._steps:
            self._steps = self._plan()
        return self._steps.get(uid, [])

    # ------------------------------------------------------------------ signing
    def file(self, record: Any) -> Any:
        """A file record with its URL and its formats' signed (a copy; the record itself
        when none of its URLs is the provider's)."""
        if not isinstance(record, dict):
            return record
        url = record.get("url")
        signed = self.provider.signed_url(url) if isinstance(url, str) else url
        raw = record.get("formats")
        # a JSON column is read as its text, to be written out as it is
        formats: Any = orjson.loads(orjson.dumps(raw)) if isinstance(raw, orjson.Fragment) else raw
        changed = {}
        if isinstance(formats, dict):
            for name, fmt in formats.items():
                furl = fmt.get("url") if isinstance(fmt, dict) else None
                if isinstance(furl, str):
                    fsigned = self.provider.signed_url(furl)
                    if fsigned != furl:
                        changed[name] = {**fmt, "url": fsigned, "isUrlSigned": True}
        if signed == url and not changed:
            return record
        out = dict(record)
        if changed:
            out["formats"] = {**formats, **changed}
        if signed != url:
            out["url"] = signed
            out["isUrlSigned"] = True
        return out

    def document(self, uid: str, doc: Any, seen: dict[int, Any] | None = None) -> Any:
        """`doc` (of type `uid`) with the files it holds signed: a copy where something
        was signed, `doc` itself otherwise."""
        if uid == FILE_UID:
            return self.file(doc)
        if not isinstance(doc, dict):
            return doc
        steps = self.steps(uid)
        if not steps:
            return doc
        seen = {} if seen is None else seen
        done = seen.get(id(doc))
        if done is not None:
            return done[1]
        out = doc
        for name, how, target in steps:
            value = doc.get(name)
            if value is None:
                continue
            new = self._each(value, how, target, seen)
            if new is not value:
                if out is doc:
                    out = dict(doc)
                out[name] = new
        # kept with the original, so that the id stays that of a live object
        seen[id(doc)] = (doc, out)
        return out

    def documents(self, uid: str, docs: list[Any]) -> list[Any]:
        seen: dict[int, Any] = {}
        signed = [self.document(uid, doc, seen) for doc in docs]
        return signed if any(a is not b for a, b in zip(signed, docs, strict=True)) else docs

    def _each(self, value: Any, how: str, target: str | None, seen: dict[int, Any]) -> Any:
        """A field's value signed: one item or a list of them (the list itself when none
        changed)."""
        if isinstance(value, list):
            signed = [self._one(item, how, target, seen) for item in value]
            return signed if any(a is not b for a, b in zip(signed, value, strict=True)) else value
        return self._one(value, how, target, seen)

    def _one(self, item: Any, how: str, target: str | None, seen: dict[int, Any]) -> Any:
        if how == MEDIA:
            return self.file(item)
        if not isinstance(item, dict):
            return item
        # a dynamic zone's item names its component
        uid = target if target is not None else str(item.get("__component"))
        return self.document(uid, item, seen)

    # ------------------------------------------------------------------ the service's wrap
    async def middleware(self, ctx: DocumentContext, next: Callable[[], Awaitable[Any]]) -> Any:
        """The document service's answers, signed (a list's page, a document, a write's
        answer, the documents `populate` loaded fields into); counts and deletions answer
        nothing to sign."""
        result = await next()
        if ctx.action == "populate" and isinstance(result, list):
            # fields loaded into the caller's own copies of documents: set in place
            for doc in result:
                done = self.document(ctx.uid, doc)
                if done is not doc:
                    doc.update(done)
            return result
        if isinstance(result, Page):
            documents = self.documents(ctx.uid, result.documents)
            if documents is not result.documents:
                return Page(documents, result.total, result.pagination)
            return result
        if isinstance(result, dict):
            return self.document(ctx.uid, result)
        return result
