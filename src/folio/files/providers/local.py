"""The local upload provider: objects are files in one directory (`public/uploads/` of the
app), served by this server under `/uploads/<key>`."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

from folio.files.providers.base import Provider, Source, StaticMount

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

    def static_mount(self) -> StaticMount:
        return StaticMount(self.base_url, self.root)
