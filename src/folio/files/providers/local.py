"""The local upload provider: objects are files in one directory (`public/uploads/` of the
app), served by this server under `/uploads/<key>`."""

from __future__ import annotations

import asyncio
from pathlib import Path

from folio.files.providers.base import Provider, StaticMount


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

    def _write(self, path: Path, data: bytes) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        # written aside and renamed, so a reader never sees a partial file
        part = path.with_name(path.name + ".part")
        part.write_bytes(data)
        part.replace(path)

    async def put(self, key: str, data: bytes, mime: str) -> str:
        await asyncio.to_thread(self._write, self._path(key), data)
        return f"{self.base_url}/{key}"

    async def delete(self, key: str) -> None:
        await asyncio.to_thread(self._path(key).unlink, missing_ok=True)

    def static_mount(self) -> StaticMount:
        return StaticMount(self.base_url, self.root)
