"""The transfer archive's container, as the reference's `strapi export` writes it and its
`strapi import` reads it: a tar of numbered JSON-lines files per stage (`schemas/`,
`entities/`, `links/`, `configuration/`), the assets (`assets/metadata/<file>.json` beside
`assets/uploads/<file>`) and `metadata.json`; optionally gzipped, optionally encrypted; or
the same tree unpacked in a directory.

Everything streams: a reader pass decrypts, inflates and walks the tar once, member by
member (each `lines()` or `assets()` call is one pass), and the writer spools each stage's
current JSON-lines file to a temporary file (a tar member states its size before its
bytes), so that memory stays bounded whatever the archive's size. The encryption is
`encryption.py`'s."""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import tarfile
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any, BinaryIO, cast

import orjson

from folio.transfer.encryption import (
    MAGIC,
    ArchiveError,
    Decrypting,
    Encrypting,
    looks_plain,
)

__all__ = ["STAGES", "ArchiveError", "ArchiveReader", "ArchiveWriter", "Asset"]

STAGES = ("schemas", "entities", "links", "configuration")
# the reference rolls a stage's JSON-lines file when the next line would pass this size
MAX_JSONL_BYTES = 256_000_000

_CHUNK = 1 << 16


# ---------------------------------------------------------------------------- reading
class Asset:
    """One file of the archive's assets: its name under `assets/uploads/`, its metadata
    (the file record, or for a format: the format with `type`, `id` and `mainHash`) and
    its bytes, readable from `stream` until the reader moves to the next asset."""

    __slots__ = ("filename", "metadata", "size", "stream")

    def __init__(self, filename: str, metadata: dict[str, Any], size: int, stream: IO[bytes]):
        self.filename = filename
        self.metadata = metadata
        self.size = size
        self.stream = stream

    def read(self, n: int = -1) -> bytes:
        return self.stream.read(n)


def _stage_of(name: str) -> str | None:
    parts = name.strip("/").split("/")
    if len(parts) == 2 and parts[0] in STAGES and parts[1].endswith(".jsonl"):
        return parts[0]
    return None


def _parse_lines(
    stream: IO[bytes], label: str, skip: bytes | None = None
) -> Iterator[dict[str, Any]]:
    for number, line in enumerate(stream, start=1):
        if not line.strip() or (skip is not None and skip in line):
            continue
        try:
            item = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise ArchiveError(f"{label}, line {number}: not JSON ({exc})") from exc
        if not isinstance(item, dict):
            raise ArchiveError(f"{label}, line {number}: not a JSON object")
        yield item


class ArchiveReader:
    """Reads an archive file (`.tar`, `.tar.gz`, `.tar.gz.enc`, `.tar.enc`) or an
    unpacked directory. `key`: the passphrase of an encrypted one."""

    def __init__(self, path: Path | str, key: str | None = None) -> None:
        self.path = Path(path)
        self.key = key
        if not self.path.exists():
            raise ArchiveError(f"{self.path}: no such file or directory")
        self.directory = self.path.is_dir()
        if not self.directory:
            with self.path.open("rb") as f:
                head = f.read(512)
            encrypted = self.path.name.endswith(".enc") or head.startswith(MAGIC)
            if not encrypted and not looks_plain(head):
                if key is None:
                    raise ArchiveError(
                        f"{self.path.name}: not a tar archive (an encrypted one needs its key)"
                    )
                encrypted = True
            if encrypted and key is None:
                raise ArchiveError(f"{self.path.name}: the archive is encrypted; pass its key")
            self.encrypted = encrypted
            if encrypted:
                # fail early, before any work, on a wrong key
                self._plain().close()

    def __enter__(self) -> ArchiveReader:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None

    def _plain(self) -> BinaryIO:
        raw: BinaryIO = self.path.open("rb")
        if self.encrypted:
            assert self.key is not None
            try:
                return io.BufferedReader(Decrypting(raw, self.key, self.path.name), _CHUNK)
            except BaseException:
                raw.close()
                raise
        return raw

    def _members(self) -> Iterator[tuple[str, int, IO[bytes]]]:
        """(name, size, stream) of each regular file, in archive order."""
        plain = self._plain()
        try:
            try:
                tar = tarfile.open(fileobj=plain, mode="r|*")  # noqa: SIM115 (closed below)
            except (tarfile.TarError, OSError, EOFError) as exc:
                raise ArchiveError(f"{self.path.name}: not a tar archive ({exc})") from exc
            with tar:
                try:
                    for member in tar:
                        if not member.isfile():
                            continue
                        stream = tar.extractfile(member)
                        if stream is None:
                            continue
                        yield member.name.removeprefix("./"), member.size, stream
                except (tarfile.TarError, OSError, EOFError, gzip.BadGzipFile) as exc:
                    raise ArchiveError(f"{self.path.name}: damaged archive ({exc})") from exc
        finally:
            plain.close()

    def _files(self, prefix: str) -> list[Path]:
        folder = self.path / prefix
        return sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []

    def lines(self, stage: str, skip: bytes | None = None) -> Iterator[dict[str, Any]]:
        """The JSON objects of one stage's files, in file order; `skip`: lines that hold
        these bytes are passed over unparsed."""
        if stage not in STAGES:
            raise ValueError(stage)
        if self.directory:
            for path in self._files(stage):
                if path.name.endswith(".jsonl"):
                    with path.open("rb") as f:
                        yield from _parse_lines(f, f"{stage}/{path.name}", skip)
            return
        for name, _, stream in self._members():
            if _stage_of(name) == stage:
                yield from _parse_lines(stream, name, skip)

    def count_lines(self, skip: bytes | None = None) -> dict[str, int]:
        """Records per stage, counted without parsing them (one pass), less those holding
        `skip` (as `lines` passes them over): the totals of a progress bar."""
        counts = dict.fromkeys(STAGES, 0)

        def count(stream: IO[bytes]) -> int:
            n, last = 0, b"\n"
            while chunk := stream.read(_CHUNK):
                n += chunk.count(b"\n") - (chunk.count(skip) if skip else 0)
                last = chunk[-1:]
            return n + (last != b"\n")

        if self.directory:
            for stage in STAGES:
                for path in self._files(stage):
                    with path.open("rb") as f:
                        counts[stage] += count(f)
            return counts
        for name, _, stream in self._members():
            found = _stage_of(name)
            if found is not None:
                counts[found] += count(stream)
        return counts

    def metadata(self) -> dict[str, Any]:
        if self.directory:
            path = self.path / "metadata.json"
            if not path.exists():
                raise ArchiveError(f"{self.path}: no metadata.json")
            data = path.read_bytes()
        else:
            for name, _, stream in self._members():
                if name == "metadata.json":
                    data = stream.read()
                    break
            else:
                raise ArchiveError(f"{self.path.name}: no metadata.json")
        try:
            out = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise ArchiveError(f"metadata.json: not JSON ({exc})") from exc
        return out if isinstance(out, dict) else {}

    def assets(self) -> Iterator[Asset]:
        """The asset files with their metadata. In a tar the reference writes each file's
        metadata before its bytes; bytes that come first wait in a temporary file."""
        if self.directory:
            for meta_path in self._files("assets/metadata"):
                filename = meta_path.name.removesuffix(".json")
                upload = self.path / "assets" / "uploads" / filename
                if not upload.is_file():
                    continue
                meta = _metadata(meta_path.read_bytes(), meta_path.name)
                with upload.open("rb") as f:
                    yield Asset(filename, meta, upload.stat().st_size, f)
            return
        pending: dict[str, dict[str, Any]] = {}
        early: dict[str, tuple[int, IO[bytes]]] = {}
        try:
            for name, size, stream in self._members():
                if name.startswith("assets/metadata/") and name.endswith(".json"):
                    filename = name.removeprefix("assets/metadata/").removesuffix(".json")
                    meta = _metadata(stream.read(), name)
                    if filename in early:
                        spool_size, spool = early.pop(filename)
                        spool.seek(0)
                        yield Asset(filename, meta, spool_size, spool)
                        spool.close()
                    else:
                        pending[filename] = meta
                elif name.startswith("assets/uploads/"):
                    filename = name.removeprefix("assets/uploads/")
                    if filename in pending:
                        yield Asset(filename, pending.pop(filename), size, stream)
                    else:
                        spool = tempfile.TemporaryFile()  # noqa: SIM115 (closed when used)
                        _copy(stream, spool)
                        early[filename] = (size, spool)
        finally:
            for _, spool in early.values():
                spool.close()


def _metadata(data: bytes, label: str) -> dict[str, Any]:
    try:
        out = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise ArchiveError(f"{label}: not JSON ({exc})") from exc
    if not isinstance(out, dict):
        raise ArchiveError(f"{label}: not a JSON object")
    return out


def _copy(src: IO[bytes], dst: IO[bytes]) -> None:
    while chunk := src.read(_CHUNK):
        dst.write(chunk)


# ---------------------------------------------------------------------------- writing
class ArchiveWriter:
    """Writes an archive at `base` + `.tar` [+ `.gz`] [+ `.enc`] (the reference's naming;
    `path` is the final name). Lines and assets should come stage by stage in the
    reference's order (schemas, entities, assets, links, configuration); a stage's files
    are written to the tar when the next stage starts, or at `close()`."""

    def __init__(
        self,
        base: Path | str,
        *,
        compress: bool = True,
        key: str | None = None,
        max_jsonl_bytes: int = MAX_JSONL_BYTES,
        legacy_encryption: bool = True,
    ) -> None:
        name = str(base)
        for suffix in (".enc", ".gz", ".tar"):
            name = name.removesuffix(suffix)
        self.path = Path(name + ".tar" + (".gz" if compress else "") + (".enc" if key else ""))
        self.max_jsonl_bytes = max_jsonl_bytes
        self._metadata: dict[str, Any] = {}
        self._mtime = time.time()
        self._out: BinaryIO = self.path.open("wb")
        self._layers: list[IO[bytes]] = []
        sink: IO[bytes] = self._out
        if key:
            sink = cast(IO[bytes], Encrypting(self._out, key, legacy_encryption))
            self._layers.append(sink)
        if compress:
            sink = cast(
                IO[bytes],
                gzip.GzipFile(fileobj=sink, mode="wb", compresslevel=6, mtime=int(self._mtime)),
            )
            self._layers.append(sink)
        self._tar = tarfile.open(fileobj=sink, mode="w|", format=tarfile.PAX_FORMAT)  # noqa: SIM115
        # stage -> (spool of its current file, bytes in it, number of files written)
        self._open: dict[str, tuple[IO[bytes], int, int]] = {}
        self._written: dict[str, int] = {s: 0 for s in STAGES}
        self._order: list[str] = []
        self.counts: dict[str, int] = {s: 0 for s in STAGES}
        self.counts["assets"] = 0
        self._closed = False

    def __enter__(self) -> ArchiveWriter:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        if t is None:
            self.close()
        else:
            self.abort()

    def _enter_stage(self, stage: str) -> None:
        if self._order and self._order[-1] == stage:
            return
        # a new stage: the earlier ones are complete
        for earlier in list(self._open):
            if earlier != stage:
                self._flush(earlier)
        self._order.append(stage)

    def _member(self, name: str, size: int, stream: IO[bytes]) -> None:
        info = tarfile.TarInfo(name)
        info.size = size
        info.mtime = int(self._mtime)
        info.mode = 0o644
        self._tar.addfile(info, stream)

    def _flush(self, stage: str) -> None:
        got = self._open.pop(stage, None)
        if got is None:
            return
        spool, size, _ = got
        self._written[stage] += 1
        spool.seek(0)
        self._member(f"{stage}/{stage}_{self._written[stage]:05d}.jsonl", size, spool)
        spool.close()

    def add_line(self, stage: str, item: Any) -> None:
        """One JSON-lines record of a stage."""
        if stage not in STAGES:
            raise ValueError(stage)
        self._enter_stage(stage)
        line = orjson.dumps(item) + b"\n"
        spool, size, _ = self._open.get(stage, (None, 0, 0))
        if spool is not None and size + len(line) > self.max_jsonl_bytes:
            self._flush(stage)
            spool = None
        if spool is None:
            spool, size = tempfile.TemporaryFile(), 0  # noqa: SIM115 (closed once written)
        spool.write(line)
        self._open[stage] = (spool, size + len(line), 0)
        self.counts[stage] += 1

    def add_asset(
        self,
        filename: str,
        metadata: dict[str, Any],
        data: bytes | IO[bytes],
        size: int | None = None,
    ) -> None:
        """One file: its metadata (`assets/metadata/<filename>.json`), then its bytes
        (`assets/uploads/<filename>`); `size` is required with a stream."""
        self._enter_stage("assets")
        meta = orjson.dumps(metadata)
        self._member(f"assets/metadata/{filename}.json", len(meta), io.BytesIO(meta))
        if isinstance(data, bytes):
            size, data = len(data), io.BytesIO(data)
        if size is None:
            raise ValueError("size is required with a stream")
        self._member(f"assets/uploads/{filename}", size, data)
        self.counts["assets"] += 1

    def set_metadata(self, metadata: dict[str, Any]) -> None:
        self._metadata = metadata

    def close(self) -> None:
        if self._closed:
            return
        for stage in STAGES:
            self._flush(stage)
        meta = orjson.dumps(self._metadata, option=orjson.OPT_INDENT_2)
        self._member("metadata.json", len(meta), io.BytesIO(meta))
        self._finish()

    def _finish(self) -> None:
        self._closed = True
        self._tar.close()
        for layer in reversed(self._layers):
            layer.close()
        self._out.close()

    def abort(self) -> None:
        """Stops writing and removes the partial archive."""
        if self._closed:
            return
        for spool, _, _ in self._open.values():
            spool.close()
        self._open.clear()
        try:
            self._finish()
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
