"""What an upload provider is: where the bytes of uploaded files (and their image formats)
go. A provider stores an object under a key and answers the URL clients fetch it from, and
removes objects; the file records in the database are the caller's. Its methods are
coroutines, so a provider that talks to a remote store (S3 and the like) does so without
holding up the event loop, and a local one moves its file IO to a worker thread.

What is stored comes as a local file (an upload streamed to disk), a readable binary stream,
or bytes (an image format, a few hundred KB at most): a provider reads a file or stream as it
sends it on, so that no upload need be held in memory whole."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, ClassVar

# what a provider stores: a local file's path, a binary stream read to its end, or bytes
Source = Path | BinaryIO | bytes


@dataclass(frozen=True)
class StaticMount:
    """A directory the HTTP front-end serves under a URL path (`/uploads`)."""

    path: str
    directory: Path


class Provider(ABC):
    """One storage backend; `name` is recorded in each file record's `provider`."""

    name: ClassVar[str]

    @abstractmethod
    async def put(self, key: str, source: Source, mime: str) -> str:
        """Stores what `source` holds under `key` (replacing what was there) and returns
        its URL. A file given by its path is left in place (the caller removes it)."""

    @abstractmethod
    async def delete(self, key: str) -> None:
        """Removes the stored object; a missing one is not an error."""

    def static_mount(self) -> StaticMount | None:
        """The directory to serve the stored objects from, for a provider whose URLs point
        back at this server; None when they are served elsewhere."""
        return None
