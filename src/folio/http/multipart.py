"""Reading a multipart/form-data request body as it arrives, for uploads.

Each file part is written to a file of its own in a temporary directory as its bytes come
(nothing of it is held in memory but the chunks waiting to be written, at most WRITE_BATCH
bytes), and the limits hold while reading: the first byte of a file past the per-file limit,
or of the body past the whole-request limit, ends the reading with a 413 (the rest of the body
is not read) and the files written so far are removed. Text fields are kept in memory, each
bounded. The caller removes the files once done with them (`Form.discard`)."""

from __future__ import annotations

import asyncio
import codecs
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request

from folio.errors import PayloadTooLargeError, ValidationError

FIELD_LIMIT = 1024 * 1024  # bytes of one text field
# a file of the temporary directory not written to for this long was left by a process that
# stopped in the middle of an upload (one under way is written to as its bytes come)
STALE_AFTER = 3600.0
# file bytes gathered before they are written (on a worker thread, so that a slow disk does
# not hold up the event loop)
WRITE_BATCH = 1024 * 1024


@dataclass
class FilePart:
    """A file part: its field name, file name, declared type, where its bytes are and how
    many there are."""

    name: str
    filename: str
    content_type: str | None
    path: Path
    size: int = 0


@dataclass
class Form:
    fields: list[tuple[str, str]] = field(default_factory=list)
    files: list[FilePart] = field(default_factory=list)

    def get(self, name: str) -> str | None:
        return next((value for key, value in self.fields if key == name), None)

    def getlist(self, name: str) -> list[str]:
        return [value for key, value in self.fields if key == name]

    def files_named(self, name: str) -> list[FilePart]:
        return [part for part in self.files if part.name == name]

    def discard(self) -> None:
        """Removes the files' bytes from the temporary directory."""
        for part in self.files:
            part.path.unlink(missing_ok=True)


class _Reader:
    """The parser's callbacks: the parts' headers, the text fields' values, the files'
    bytes gathered for writing, the limits."""

    def __init__(
        self,
        directory: Path,
        file_fields: frozenset[str],
        file_limit: int,
        max_files: int,
        max_fields: int,
        charset: str,
    ) -> None:
        self.form = Form()
        self.directory = directory
        self.file_fields = file_fields
        self.file_limit = file_limit
        self.max_files = max_files
        self.max_fields = max_fields
        self.charset = charset
        self.header_name = bytearray()
        self.header_value = bytearray()
        self.disposition = b""
        self.content_type: str | None = None
        self.part: FilePart | None = None  # the file part being read
        self.skipped = False  # a file part of another field: read and dropped
        self.out: BinaryIO | None = None
        self.value: bytearray | None = None  # the text field being read
        self.field_name = ""
        self.part_size = 0
        self.files = 0
        self.pending: list[tuple[BinaryIO, memoryview]] = []
        self.pending_bytes = 0

    def callbacks(self) -> dict[str, object]:
        return {
            "on_part_begin": self.on_part_begin,
            "on_header_field": self.on_header_field,
            "on_header_value": self.on_header_value,
            "on_header_end": self.on_header_end,
            "on_headers_finished": self.on_headers_finished,
            "on_part_data": self.on_part_data,
            "on_part_end": self.on_part_end,
        }

    def on_part_begin(self) -> None:
        self.disposition = b""
        self.content_type = None
        self.part = None
        self.skipped = False
        self.value = None
        self.part_size = 0

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self.header_name += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self.header_value += data[start:end]

    def on_header_end(self) -> None:
        name = bytes(self.header_name).lower()
        if name == b"content-disposition":
            self.disposition = bytes(self.header_value)
        elif name == b"content-type":
            self.content_type = self._text(bytes(self.header_value))
        self.header_name.clear()
        self.header_value.clear()

    def _text(self, raw: bytes) -> str:
        return raw.decode(self.charset, errors="replace")

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self.disposition)
        if b"name" not in options:
            raise ValidationError('A part\'s Content-Disposition must give its "name"')
        self.field_name = self._text(options[b"name"])
        if b"filename" in options:
            self.files += 1
            if self.files > self.max_files:
                raise ValidationError(f"Too many files: at most {self.max_files} per request")
            if self.field_name not in self.file_fields:
                self.skipped = True
                return
            self.directory.mkdir(parents=True, exist_ok=True)
            path = self.directory / f"upload-{secrets.token_hex(12)}.part"
            # created with the usual permissions (the stored file may be this one, linked)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            self.part = FilePart(
                self.field_name, self._text(options[b"filename"]), self.content_type, path
            )
            self.form.files.append(self.part)
            self.out = os.fdopen(fd, "wb")
        else:
            if len(self.form.fields) >= self.max_fields:
                raise ValidationError(f"Too many fields: at most {self.max_fields} per request")
            self.value = bytearray()

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        self.part_size += end - start
        if self.value is not None:
            if self.part_size > FIELD_LIMIT:
                raise PayloadTooLargeError(
                    f"The field {self.field_name} is larger than {FIELD_LIMIT} bytes"
                )
            self.value += data[start:end]
            return
        if self.part_size > self.file_limit:
            name = self.part.filename if self.part is not None else self.field_name
            raise PayloadTooLargeError(
                f"{name} exceeds the size limit of {self.file_limit} bytes",
                {"name": name, "size": self.part_size, "limit": self.file_limit},
            )
        if self.part is not None and self.out is not None:
            self.part.size = self.part_size
            self.pending.append((self.out, memoryview(data)[start:end]))
            self.pending_bytes += end - start

    def on_part_end(self) -> None:
        if self.value is not None:
            self.form.fields.append((self.field_name, self._text(bytes(self.value))))
            self.value = None
        elif self.out is not None:
            out, self.out = self.out, None
            self.pending.append((out, memoryview(b"")))  # closed once written

    def take_pending(self) -> list[tuple[BinaryIO, memoryview]]:
        pending, self.pending = self.pending, []
        self.pending_bytes = 0
        return pending

    def close(self) -> None:
        if self.out is not None:
            self.out.close()
            self.out = None
        for out, _ in self.pending:
            out.close()
        self.pending = []


def _write(pending: list[tuple[BinaryIO, memoryview]]) -> None:
    for out, chunk in pending:
        if chunk.nbytes:
            out.write(chunk)
        else:
            out.close()


def sweep(directory: Path) -> int:
    """Removes the files a stopped process left in `directory`; how many."""
    removed = 0
    if not directory.is_dir():
        return 0
    now = time.time()
    for path in directory.glob("upload-*.part"):
        try:
            if now - path.stat().st_mtime > STALE_AFTER:
                path.unlink()
                removed += 1
        except OSError:
            continue  # removed meanwhile by another worker
    return removed


async def read_form(
    request: Request,
    directory: Path,
    *,
    file_fields: frozenset[str],
    file_limit: int,
    body_limit: int,
    max_files: int = 100,
    max_fields: int = 1000,
) -> Form:
    """The request's fields and files (those of `file_fields`; other fields' files are read
    and dropped), the files written in `directory`. PayloadTooLargeError as soon as a file
    passes `file_limit` bytes or the body `body_limit`; ValidationError for a body that is
    not multipart/form-data. On an error no file is left."""
    _, params = parse_options_header(request.headers.get("content-type", ""))
    boundary = params.get(b"boundary")
    if not boundary:
        raise ValidationError("The multipart body has no boundary")
    charset = params.get(b"charset", b"utf-8").decode("latin-1")
    try:
        charset = codecs.lookup(charset).name
    except LookupError:
        charset = "latin-1"
    reader = _Reader(directory, file_fields, file_limit, max_files, max_fields, charset)
    seen = 0
    try:
        parser = MultipartParser(boundary, reader.callbacks())  # type: ignore[arg-type]
        async for chunk in request.stream():
            seen += len(chunk)
            if seen > body_limit:
                raise PayloadTooLargeError("Request body is too large")
            parser.write(chunk)
            if reader.pending_bytes >= WRITE_BATCH:
                await asyncio.to_thread(_write, reader.take_pending())
        parser.finalize()
        if reader.out is not None or reader.value is not None:
            raise ValidationError("The multipart body ends inside a part")
        await asyncio.to_thread(_write, reader.take_pending())
    except FormParserError:
        reader.close()
        reader.form.discard()
        raise ValidationError("The multipart body is not valid") from None
    except BaseException:
        reader.close()
        reader.form.discard()
        raise
    return reader.form
