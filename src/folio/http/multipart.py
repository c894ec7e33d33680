"""Reading a multipart/form-data request body as it arrives, for uploads.

Each file part is written to a file of its own in a temporary directory as its bytes come
(nothing of it is held in memory but the chunks waiting to be written, at most WRITE_BATCH
bytes), and the limits hold while reading: the first byte of a file past the per-file limit,
or of the body past the whole-request limit, ends the reading with a 413 (the rest of the body
is not read) and the files written so far are removed. Text fields are kept in memory, each
bounded. The caller removes the files once done with them (`Form.discard`).

A file part may go to an object store instead, as its bytes come (`stream`: the caller says
which parts may, and from what size): its first bytes are held until they reach that size
(a smaller file is written to a temporary file after all), then handed to the store's
writer, and the rest as it arrives; the reading waits while the store is behind. What was
sent is stored once the caller commits it, and dropped (`Form.close`) otherwise."""

from __future__ import annotations

import asyncio
import codecs
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request

from folio.errors import PayloadTooLargeError, ValidationError
from folio.files.providers import ObjectWriter

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
    # where the bytes went instead of `path`: an object store's writer (to be committed)
    writer: ObjectWriter | None = None


@dataclass
class Streamed:
    """Where a file part's bytes go once they reach `after` bytes: the writer `open`
    makes, instead of a temporary file."""

    after: int
    open: Callable[[], ObjectWriter]


# which file parts may be streamed (the part as its headers describe it: no bytes yet)
Streaming = Callable[[FilePart], Streamed | None]
Sink = BinaryIO | ObjectWriter


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

    async def close(self) -> None:
        """`discard`, and drops what went to a store and was not committed."""
        self.discard()
        for part in self.files:
            if part.writer is not None:
                await part.writer.abort()


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
        stream: Streaming | None = None,
    ) -> None:
        self.form = Form()
        self.stream = stream
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
        # a part that may be streamed: where to, and its first bytes, held until then
        self.streamed: Streamed | None = None
        self.held: bytearray | None = None
        self.in_file = False  # inside a file part (of `file_fields`)
        self.value: bytearray | None = None  # the text field being read
        self.field_name = ""
        self.part_size = 0
        self.files = 0
        self.pending: list[tuple[Sink, memoryview]] = []
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
        self.streamed = None
        self.held = None
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

    def _create(self, path: Path) -> BinaryIO:
        self.directory.mkdir(parents=True, exist_ok=True)
        # created with the usual permissions (the stored file may be this one, linked)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        return os.fdopen(fd, "wb")

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
            path = self.directory / f"upload-{secrets.token_hex(12)}.part"
            self.part = FilePart(
                self.field_name, self._text(options[b"filename"]), self.content_type, path
            )
            self.form.files.append(self.part)
            self.in_file = True
            self.streamed = self.stream(self.part) if self.stream is not None else None
            if self.streamed is not None:
                self.held = bytearray()
            else:
                self.out = self._create(path)
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
        part = self.part
        if part is None or not self.in_file:
            return
        part.size = self.part_size
        if self.held is not None and self.streamed is not None:
            self.held += memoryview(data)[start:end]
            if len(self.held) >= self.streamed.after:
                # large enough: to the store, from its first byte
                part.writer = self.streamed.open()
                self._queue(part.writer, memoryview(self.held))
                self.held = None
            return
        sink = part.writer if part.writer is not None else self.out
        if sink is not None:
            self._queue(sink, memoryview(data)[start:end])

    def _queue(self, sink: Sink, chunk: memoryview) -> None:
        self.pending.append((sink, chunk))
        self.pending_bytes += chunk.nbytes

    def on_part_end(self) -> None:
        if self.value is not None:
            self.form.fields.append((self.field_name, self._text(bytes(self.value))))
            self.value = None
        elif self.in_file:
            self.in_file = False
            if self.held is not None and self.part is not None:
                # a file smaller than what is streamed: to a temporary file after all
                held, self.held = self.held, None
                self.out = self._create(self.part.path)
                self._queue(self.out, memoryview(held))
            if self.out is not None:
                out, self.out = self.out, None
                self.pending.append((out, memoryview(b"")))  # closed once written

    async def flush(self) -> None:
        """Hands the bytes gathered on: to the temporary files (on a worker thread), to the
        stores' writers (waiting while a store is behind)."""
        pending, self.pending = self.pending, []
        self.pending_bytes = 0
        files: list[tuple[BinaryIO, memoryview]] = []
        # taken off the list as they go: a chunk handed on is not held here meanwhile
        pending.reverse()
        while pending:
            sink, chunk = pending.pop()
            if isinstance(sink, ObjectWriter):
                if files:
                    await asyncio.to_thread(_write, files)
                    files = []
                sink.write(chunk)
                del chunk  # not held while the store takes what is full
                await sink.drain()
            else:
                files.append((sink, chunk))
        if files:
            await asyncio.to_thread(_write, files)

    def close(self) -> None:
        if self.out is not None:
            self.out.close()
            self.out = None
        for out, _ in self.pending:
            if not isinstance(out, ObjectWriter):
                out.close()
        self.pending = []
        self.held = None


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
    stream: Streaming | None = None,
) -> Form:
    """The request's fields and files (those of `file_fields`; other fields' files are read
    and dropped), the files written in `directory`, or for those `stream` accepts (and
    large enough), sent to the writer it names. PayloadTooLargeError as soon as a file
    passes `file_limit` bytes or the body `body_limit`; ValidationError for a body that is
    not multipart/form-data. On an error no file is left, and what went to a store is
    dropped."""
    _, params = parse_options_header(request.headers.get("content-type", ""))
    boundary = params.get(b"boundary")
    if not boundary:
        raise ValidationError("The multipart body has no boundary")
    charset = params.get(b"charset", b"utf-8").decode("latin-1")
    try:
        charset = codecs.lookup(charset).name
    except LookupError:
        charset = "latin-1"
    reader = _Reader(directory, file_fields, file_limit, max_files, max_fields, charset, stream)
    seen = 0
    try:
        parser = MultipartParser(boundary, reader.callbacks())  # type: ignore[arg-type]
        async for chunk in request.stream():
            seen += len(chunk)
            if seen > body_limit:
                raise PayloadTooLargeError("Request body is too large")
            parser.write(chunk)
            if reader.pending_bytes >= WRITE_BATCH:
                await reader.flush()
        parser.finalize()
        if reader.in_file or reader.value is not None:
            raise ValidationError("The multipart body ends inside a part")
        await reader.flush()
    except FormParserError:
        reader.close()
        await reader.form.close()
        raise ValidationError("The multipart body is not valid") from None
    except BaseException:
        reader.close()
        await reader.form.close()
        raise
    return reader.form
