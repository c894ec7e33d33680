"""The local upload provider: objects are files in one directory (`public/uploads/` of the
app), served by this server under `/uploads/<key>`."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from folio.files.providers.base import ObjectMissing, Provider, Source, StaticMount, StoredObject

COPY_CHUNK = 1024 * 1024


class LocalProvider(Provider):
    name = "local"

    def __init__(self, root: Path, base_url: str = "/uploads") -> None:
        self.root = root
        self.base_url = base_url.rstrip("/")

    def _path(self, key: str) -> Path:
        # keys are file names made by the upload code; anything that would leave the
        # directory is a bug, not a file to write or remove
        if not key or key in (".", "..") or Path(key).name != key:
            raise ValueError(f"not a file name: {key!r}")
        return self.root / key

    def _write(self, path: Path, source: Source) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        # written aside and renamed, so a reader never sees a partial file
        part = path.with_name(path.name + ".part")
        part.unlink(missing_ok=True)
        try:
            if isinstance(source, bytes):
                part.write_bytes(source)
            elif isinstance(source, Path):
                try:
                    # a file on the same file system: linked, not copied
                    os.link(source, part)
                except OSError:
                    shutil.copyfile(source, part)
            else:
                with part.open("wb") as out:
                    shutil.copyfileobj(source, out, COPY_CHUNK)
            part.replace(path)
        except BaseException:
            part.unlink(missing_ok=True)
            raise

    async def put(self, key: str, source: Source, mime: str) -> str:
        await asyncio.to_thread(self._write, self._path(key), source)
        return f"{self.base_url}/{key}"

    async def delete(self, key: str) -> None:
        await asyncio.to_thread(self._path(key).unlink, missing_ok=True)

    @asynccontextmanager
    async def open(self, key: str) -> AsyncIterator[StoredObject]:
        path = self._path(key)
        try:
            fd = await asyncio.to_thread(os.open, path, os.O_RDONLY)
        except FileNotFoundError:
            raise ObjectMissing(key) from None
        try:
            size = (await asyncio.to_thread(os.fstat, fd)).st_size
            yield StoredObject(size, _chunks(fd, size))
        finally:
            os.close(fd)

    def static_mount(self) -> StaticMount:
        return StaticMount(self.base_url, self.root)


async def _chunks(fd: int, size: int) -> AsyncIterator[bytes]:
    """The `size` bytes of an open file, a chunk at a time, each read on a worker thread
    (the file being the one opened, a replacement renamed over it meanwhile is not read)."""
    offset = 0
    while offset < size:
        chunk = await asyncio.to_thread(os.pread, fd, min(COPY_CHUNK, size - offset), offset)
        if not chunk:
            raise OSError(f"the file ended at {offset} of its {size} bytes")
        offset += len(chunk)
        yield chunk
