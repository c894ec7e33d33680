"""The upload routes under /api/upload: upload (optionally linking the files to a media field
of an entry), update a file's information or bytes (`POST /api/upload?id=N`), list with
filters / sort / pagination, get one, delete. File records answer with `isUrlSigned` (true
when their URLs are pre-signed: a private bucket's), as the reference's upload routes do.

Bytes are stored before their record is written, and removed before their record is
deleted: a file store that is down answers 503 and leaves the database as it was.

An upload's body is read as it arrives (`multipart.read_form`): its files go to the app's
`.tmp/uploads/` as their bytes come, the size limit of each file (`sizeLimit`) and of the
whole request (20 files' worth) checked as they do, and are removed once the request is
answered (the provider has linked or copied them where they are served). With a provider
that takes streams (an object store), a new file that needs no reading here (not an image:
no formats, no content check) and of at least `stream_after` bytes goes to the store as the
body arrives, under the name chosen for it then, instead of to a temporary file: the store's
multipart upload runs while the body is read, and is completed once the files are checked
and their entry found, or aborted (an error, a client that goes away, a store that fails)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from folio.auth.principal import OPEN, Principal
from folio.config import true_or_false, whole_number
from folio.content.ids import decimal_id
from folio.errors import (
    ConfigError,
    FieldError,
    NotFoundError,
    PayloadTooLargeError,
    ValidationError,
    validation_failed,
)
from folio.files.mime import guess_mime, permitted
from folio.files.uploads import (
    Incoming,
    UploadSettings,
    check,
    discard,
    extension,
    keys_of,
    new_digest,
    store,
)
from folio.http.multipart import FilePart, Form, Streamed, read_form, sweep
from folio.http.responses import json_response
from folio.http.rest.content import query_params
from folio.schema.builtins import FILE_UID

if TYPE_CHECKING:
    from folio.app import Folio
    from folio.http.pipeline import Pipeline

INFO_KEYS = frozenset({"name", "alternativeText", "caption", "folder", "focalPoint"})


def upload_settings(raw: dict[str, Any]) -> UploadSettings:
    """The upload plugin's settings; a value of the wrong kind stops start-up naming it
    instead of being passed over."""
    upload: dict[str, Any] = raw["upload"] if isinstance(raw.get("upload"), dict) else {}
    config: dict[str, Any] = upload["config"] if isinstance(upload.get("config"), dict) else upload
    where = "config/plugins: upload." + ("config." if config is not upload else "")
    s = UploadSettings()
    if config.get("sizeLimit") is not None:
        s.size_limit = whole_number(config, "sizeLimit", 0, where)
    security = _setting(config, "security", dict, where, "an object") or {}
    allowed = _setting(security, "allowedTypes", list, where + "security.", "a list of types")
    if allowed is not None:
        s.allowed_types = [str(t) for t in allowed]
    denied = _setting(security, "deniedTypes", list, where + "security.", "a list of types")
    if denied is not None:
        s.denied_types = [str(t) for t in denied]
    s.responsive_formats = true_or_false(
        config, "responsiveDimensions", s.responsive_formats, where
    )
    if config.get("maxImagePixels") is not None:
        s.max_pixels = whole_number(config, "maxImagePixels", 0, where)
    return s


def _setting(section: dict[str, Any], key: str, kind: type, where: str, what: str) -> Any:
    value = section.get(key)
    if value is None:
        return None
    if not isinstance(value, kind):
        raise ConfigError(f"{where}{key} must be {what} (got {value!r})")
    return value


def _focal_point(value: Any) -> dict[str, Any]:
    """A focal point: an object with numbers `x` and `y` (other members are kept, as the
    reference keeps them)."""
    errors: list[FieldError] = []
    for axis in ("x", "y"):
        given = value.get(axis)
        path: list[str | int] = ["fileInfo", "focalPoint", axis]
        if given is None:
            errors.append(FieldError(path, f"fileInfo.focalPoint.{axis} is a required field"))
        elif isinstance(given, bool) or not isinstance(given, int | float):
            shown = orjson.dumps(given).decode()
            errors.append(
                FieldError(
                    path,
                    f"fileInfo.focalPoint.{axis} must be a `number` type, but the final value "
                    f"was: `NaN` (cast from the value `{shown}`).",
                )
            )
    if errors:
        raise validation_failed(errors)
    return dict(value)


def _infos(raw: list[Any], count: int, strict: bool = True) -> list[dict[str, Any]]:
    """The `fileInfo` entries (one per file). `strict`: unknown keys are refused (an upload)
    rather than ignored (a file update, as the reference answers)."""
    infos: list[dict[str, Any]] = []
    for item in raw:
        text = item if isinstance(item, str) else None
        try:
            value = orjson.loads(text) if text else {}
        except orjson.JSONDecodeError:
            raise ValidationError("fileInfo must be a JSON object") from None
        items = value if isinstance(value, list) else [value]
        for one in items:
            if not isinstance(one, dict):
                raise ValidationError("fileInfo must be a JSON object")
            kept: dict[str, Any] = {}
            for key, v in one.items():
                if key not in INFO_KEYS:
                    if not strict:
                        continue
                    raise ValidationError(
                        f"Invalid key {key}", {"key": key, "path": None, "source": "body"}
                    )
                if key == "focalPoint":
                    # anything but an object is ignored, as the reference does
                    if isinstance(v, dict):
                        kept[key] = _focal_point(v)
                    continue
                if v is not None and key != "folder" and not isinstance(v, str):
                    raise ValidationError(f"fileInfo.{key} must be a string")
                kept[key] = v
            infos.append(kept)
    if len(infos) > count:
        raise ValidationError("There are more fileInfo entries than files")
    return infos + [{}] * (count - len(infos))


class FileUploads:
    """What the upload routes of the content API and of the admin panel's media library
    share: reading an upload's multipart body, storing its files (their formats too) and
    writing their records, replacing a file's bytes under the same record."""

    def __init__(self, folio: Folio) -> None:
        self.folio = folio
        self.settings = upload_settings(folio.settings.raw.get("plugins", {}))
        self.provider = folio.storage
        self.tmp_dir = folio.settings.app_dir / ".tmp" / "uploads"
        sweep(self.tmp_dir)

    async def read(self, request: Request, stream: bool = False) -> Form:
        """The request's form, its `files` parts written to the temporary directory, or
        with `stream` (new files), those that can be sent to the store as they come (the
        caller closes the form once answered); the size limits checked as they come."""
        length = request.headers.get("content-length")
        limit = self.settings.size_limit * 20
        if length and length.isdecimal() and int(length) > limit:
            raise PayloadTooLargeError("Request body is too large")
        if not request.headers.get("content-type", "").startswith("multipart/form-data"):
            raise ValidationError("Files are empty")
        return await read_form(
            request,
            self.tmp_dir,
            file_fields=frozenset({"files"}),
            file_limit=self.settings.size_limit,
            body_limit=limit,
            stream=self._streamed if stream and self.provider.stream_after else None,
        )

    def _streamed(self, part: FilePart) -> Streamed | None:
        """Where a new file's bytes go as they come: to the store, unless they are to be
        read here (an image's) or refused (a type not allowed: nothing of it is sent)."""
        after = self.provider.stream_after
        mime = guess_mime(part.filename or "file", part.content_type)
        allowed = permitted(mime, self.settings.allowed_types, self.settings.denied_types)
        if after is None or mime.startswith("image/") or not allowed:
            return None
        key = new_digest(part.filename or "file") + extension(part.filename or "file")
        return Streamed(after, lambda: self.provider.writer(key, mime))

    async def create(
        self,
        uploads: list[FilePart],
        info: list[Any],
        link: Callable[[], tuple[Any, str, str] | None] | None = None,
    ) -> list[dict[str, Any]]:
        """Records of new files (`info`: the `fileInfo` values, one per file), linked to
        the (type, entry, media field) `link` gives (once the files are checked) when
        given; stored bytes are removed again if the records cannot be written."""
        if not uploads:
            raise ValidationError("Files are empty")
        infos = _infos(info, len(uploads))
        incoming = [_incoming(f) for f in uploads]
        mimes = [check(item, self.settings) for item in incoming]
        target = link() if link is not None else None
        stored: list[str] = []
        records = []
        try:
            for item, mime, one in zip(incoming, mimes, infos, strict=True):
                record, _ = await store(
                    item, mime, one, self.provider, self.settings, written=stored
                )
                records.append(record)
            return await self.folio.files.create(records, target)
        except BaseException:
            await discard(self.provider, stored)
            raise

    async def replace(
        self, doc: dict[str, Any], uploads: list[FilePart], info: list[Any]
    ) -> dict[str, Any]:
        """A file's information (`fileInfo`: name, alternativeText, caption, focalPoint),
        and its bytes when a file is sent (stored under the same name)."""
        [given] = _infos(info[:1], 1, strict=False)
        values = {k: v for k, v in given.items() if k != "folder"}
        stored: list[str] = []
        old_keys = keys_of(orjson.loads(orjson.dumps(doc)))
        if uploads:
            item = _incoming(uploads[0])
            mime = check(item, self.settings)
            try:
                record, _ = await store(
                    item,
                    mime,
                    given,
                    self.provider,
                    self.settings,
                    digest=str(doc["hash"]),
                    written=stored,
                )
            except BaseException:
                await discard(self.provider, [k for k in stored if k not in old_keys])
                raise
            # new bytes take the new file's name and keep the alternative text and caption
            # unless given; their focal point is the given one, or none; their formats an
            # object (empty for a small image), as the reference answers
            kept = {k: doc[k] for k in ("alternativeText", "caption")}
            values = {**record, "formats": record["formats"] or {}, **kept, **values}
        try:
            updated = await self.folio.files.update(str(doc["documentId"]), values)
        except BaseException:
            await discard(self.provider, [k for k in stored if k not in old_keys])
            raise
        if uploads:
            # the replaced bytes' formats that the new bytes do not have
            await discard(self.provider, [k for k in old_keys if k not in stored])
        return updated


class UploadEndpoints:
    def __init__(self, folio: Folio, pipeline: Pipeline) -> None:
        self.folio = folio
        self.file_type = folio.registry.content_types[FILE_UID]
        self.files = FileUploads(folio)
        self.settings = self.files.settings
        self.provider = folio.storage

        guarded = pipeline.endpoint
        self.upload = guarded("plugin::upload.content-api.upload", self._upload)
        self.find = guarded("plugin::upload.content-api.find", self._find)
        self.find_one = guarded("plugin::upload.content-api.findOne", self._find_one)
        self.destroy = guarded("plugin::upload.content-api.destroy", self._destroy)

    async def _upload(self, request: Request, principal: Principal) -> Response:
        file_id = request.query_params.get("id")
        # new files may stream to the store; a replacement's bytes keep the file's name
        form = await self.files.read(request, stream=file_id is None)
        try:
            uploads = form.files_named("files")
            if file_id is not None:
                doc = await file_record(self.folio, file_id, "Entity not found")
                updated = await self.files.replace(doc, uploads, form.getlist("fileInfo"))
                return json_response(_record(updated))
            docs = await self.files.create(
                uploads,
                form.getlist("fileInfo"),
                lambda: self._link_target(form.get("ref"), form.get("refId"), form.get("field")),
            )
            return json_response([_record(doc) for doc in docs], 201)
        finally:
            await form.close()

    def _link_target(self, ref: Any, ref_id: Any, fld: Any) -> tuple[Any, str, str] | None:
        if ref is None and ref_id is None and fld is None:
            return None
        ct = self.folio.registry.content_types.get(str(ref))
        if ct is None or ct.uid == FILE_UID:
            raise ValidationError(f"ref {ref!r} is not a content type")
        attr = ct.attributes.get(str(fld))
        if attr is None or attr.type != "media":
            raise ValidationError(f"field {fld!r} is not a media field of {ref}")
        if not isinstance(ref_id, str) or not ref_id:
            raise ValidationError("refId must name the entry (its documentId or id)")
        return ct, ref_id, attr.name

    async def _find(self, request: Request, principal: Principal) -> Response:
        # files are listed whatever relations they reach (no visibility rule here)
        page = await self.folio.documents.find(self.file_type, query_params(request), OPEN)
        return json_response([_record(doc) for doc in page.documents])

    async def _find_one(self, request: Request, principal: Principal) -> Response:
        return json_response(_record(await file_record(self.folio, request.path_params["id"])))

    async def _destroy(self, request: Request, principal: Principal) -> Response:
        return json_response(_record(await delete_file(self.folio, request.path_params["id"])))


async def file_record(folio: Folio, raw_id: str, missing: str = "file.notFound") -> dict[str, Any]:
    """The file record with this numeric id (NotFoundError `missing` otherwise; by default
    the reference's message)."""
    file_id = decimal_id(raw_id)
    doc = await folio.files.get(file_id) if file_id is not None else None
    if doc is None:
        raise NotFoundError(missing)
    return doc


async def delete_file(folio: Folio, raw_id: str) -> dict[str, Any]:
    """Deletes a file's stored bytes (every format), then its record; the record as it
    was. A store that is down stops it before the record goes (it can be tried again: a
    missing object is no error)."""
    doc = await file_record(folio, raw_id)
    for key in keys_of(orjson.loads(orjson.dumps(doc))):
        await folio.storage.delete(key)
    await folio.files.delete(str(doc["documentId"]))
    return doc


async def update_file_info(folio: Folio, raw_id: str, info: dict[str, Any]) -> dict[str, Any]:
    """A file's information (name, alternativeText, caption), its bytes unchanged."""
    doc = await file_record(folio, raw_id)
    [given] = _infos([orjson.dumps(info).decode()], 1, strict=False)
    values = {k: v for k, v in given.items() if k != "folder"}
    return await folio.files.update(str(doc["documentId"]), values)


def _incoming(part: FilePart) -> Incoming:
    filename = part.filename or "file"
    if part.writer is not None:
        digest = part.writer.key.removesuffix(extension(filename))
        return Incoming(filename, part.writer, part.content_type, part.size, digest)
    return Incoming(filename, part.path, part.content_type, part.size)


def _record(doc: dict[str, Any]) -> dict[str, Any]:
    """A file record as the upload routes answer it."""
    return {**doc, "isUrlSigned": doc.get("isUrlSigned") is True}
