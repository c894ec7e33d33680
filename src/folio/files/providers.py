"""Upload providers. A provider stores and removes the bytes of a file and says where it is
served; the local one writes under `public/uploads/` and serves `/uploads/...`. An
S3-compatible provider implements the same three methods."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class Provider(Protocol):
    name: str

    def put(self, key: str, data: bytes, mime: str) -> str:
        """Stores `data` under `key` and returns its public URL."""

    def delete(self, key: str) -> None:
        """Removes the stored object; a missing one is not an error."""


class LocalProvider:
    name = "local"

    def __init__(self, root: Path, base_url: str = "/uploads") -> None:
        self.root = root
        self.base_url = base_url.rstrip("/")

    def put(self, key: str, data: bytes, mime: str) -> str:
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / key
        tmp = path.with_suffix(path.suffix + ".part")
        tmp.write_bytes(data)
        tmp.replace(path)
        return f"{self.base_url}/{key}"

    def delete(self, key: str) -> None:
        (self.root / key).unlink(missing_ok=True)
