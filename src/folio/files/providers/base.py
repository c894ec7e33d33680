"""What an upload provider is: where the bytes of uploaded files (and their image formats)
go. A provider stores an object under a key and answers the URL clients fetch it from, and
removes objects; the file records in the database are the caller's. Its methods are
coroutines, so a provider that talks to a remote store (S3 and the like) does so without
holding up the event loop, and a local one moves its file IO to a worker thread.

What is stored comes as a local file (an upload streamed to disk), a readable binary stream,
or bytes (an image format, a few hundred KB at most): a provider reads a file or stream as it
sends it on, so that no upload need be held in memory whole.

A provider whose objects are private (`private`) hands out URLs that only work signed:
`signed_url` gives the URL to show for an object, wherever an answer shows a file (see
`folio.content.signing`). A provider that cannot reach its store raises `StoreUnavailable`
(503, the answer's `Retry-After` set), never half-stores an object under its key, and leaves
the database to its caller.

A provider may also take an object as its bytes come (`writer`: an upload's body streamed to
the store as the request arrives, for objects of at least `stream_after` bytes); what it
writes is stored under its key only once committed, and never if aborted.

A stored object is read back as it was stored (`open`: its size, then its bytes a chunk at a
time, never whole), for what copies files elsewhere (`folio export`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, ClassVar

from folio.errors import ServiceUnavailableError

# what a provider stores: a local file's path, a binary stream read to its end, or bytes
Source = Path | BinaryIO | bytes


class StoreUnavailable(ServiceUnavailableError):
    """The store could not be reached, failed, or refused a request (the cause is logged,
    not shown: it names the store's address and account)."""

    retry_after = 5

    def __init__(self, message: str = "The file store is unavailable, try again later") -> None:
        super().__init__(message)


class ObjectMissing(LookupError):
    """The store holds no object under the key asked for."""


@dataclass(frozen=True)
class StoredObject:
    """A stored object being read: its size in bytes, and its bytes (`chunks`, an async
    iterator of pieces of at most a megabyte or so, `size` bytes in all)."""

    size: int
    chunks: AsyncIterator[bytes]


class ObjectWriter(ABC):
    """An object being stored as its bytes come: under its key (`key`) once `commit`
    answers, never if `abort`ed (whatever was sent is dropped)."""

    key: str

    @abstractmethod
    def write(self, data: bytes | memoryview) -> None:
        """More of the object's bytes (copied: `data` may be reused), sent by `drain`."""

    @abstractmethod
    async def drain(self) -> None:
        """Sends on what was written, waiting while the store is behind (so that what is
        held in memory stays bounded); StoreUnavailable if the store failed."""

    @abstractmethod
    async def commit(self) -> str:
        """Stores the object (the bytes written are all of it) and returns its URL."""

    @abstractmethod
    async def abort(self) -> None:
        """Drops what was sent, as far as the store lets (a failure is logged, not raised);
        nothing once committed."""


@dataclass(frozen=True)
class StaticMount:
    """A directory the HTTP front-end serves under a URL path (`/uploads`)."""

    path: str
    directory: Path


class Provider(ABC):
    """One storage backend; `name` is recorded in each file record's `provider`."""

    name: ClassVar[str]
    # whether the stored objects can be read only through signed URLs (`signed_url`)
    private: bool = False
    # the size from which an upload's bytes are worth streaming to the store as they come
    # (`writer`); None: the provider takes whole files only
    stream_after: int | None = None

    @abstractmethod
    async def put(self, key: str, source: Source, mime: str) -> str:
        """Stores what `source` holds under `key` (replacing what was there) and returns
        its URL. A file given by its path is left in place (the caller removes it)."""

    @abstractmethod
    async def delete(self, key: str) -> None:
        """Removes the stored object; a missing one is not an error."""

    @abstractmethod
    def open(self, key: str) -> AbstractAsyncContextManager[StoredObject]:
        """The object stored under `key`, read as the `async with` block iterates its
        chunks (and released at the block's end, read to its end or not). ObjectMissing
        when there is none; StoreUnavailable when the store cannot be read (before or
        while the chunks come)."""

    def writer(self, key: str, mime: str) -> ObjectWriter:
        """A writer storing an object under `key` as its bytes come (for a provider whose
        `stream_after` is set); nothing is sent before its first `write`."""
        raise NotImplementedError(f"the {self.name} provider takes whole files only")

    def static_mount(self) -> StaticMount | None:
        """The directory to serve the stored objects from, for a provider whose URLs point
        back at this server; None when they are served elsewhere."""
        return None

    def origins(self) -> tuple[str, ...]:
        """The origins (`scheme://host[:port]`) the provider's URLs point at, other than
        this server's: what a page showing the files must allow (its CSP `img-src`)."""
        return ()

    def signed_url(self, url: str) -> str:
        """The URL an answer shows for an object recorded as stored at `url`: `url` itself,
        unless the provider is private and `url` is one of its own objects' (then a
        pre-signed URL, made without asking the store)."""
        return url

    async def close(self) -> None:
        """Releases what the provider holds open (its connections), at the app's end."""
        return None
