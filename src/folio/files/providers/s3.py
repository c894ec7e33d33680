"""The S3 upload provider (`aws-s3`): objects in a bucket of AWS S3 or of any store that
speaks its API (MinIO, SeaweedFS, R2, Spaces), as the reference's S3 provider stores them.

Object keys are `rootPath/` + the file's name (`hash` + `ext`); an object's URL is
`baseUrl/key` when a `baseUrl` (a CDN) is set, else the store's own: `endpoint/bucket/key`
(path style: `forcePathStyle`, an endpoint given by IP address or `localhost`, or a bucket
name that is no DNS label) or `https://bucket.host/key`. A private bucket (`ACL: private`)
shows its objects through URLs pre-signed for `signedUrlExpires` seconds; URLs under a
`baseUrl` are not signed (the CDN serves them), as the reference does; a URL that names the
bucket but another store's address (the store moved) is signed for the present one.

Uploads are streamed: a file is read in chunks as it is sent, never whole. One larger than
a part (`providerConfig.multipart.partSize`, 8 MiB by default) goes up as a multipart upload,
`queueSize` parts at a time; a failed one is aborted, so no part is left behind and the key
keeps what it held. An object is read back (`open`) by a signed GET whose answer is
streamed (a missing key is `ObjectMissing`). Requests are signed here (SigV4,
`folio.files.sigv4`) and sent with httpx; a store that cannot be reached, fails or refuses
answers `StoreUnavailable` (503), its cause logged. Settings: `s3_options.py`."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlsplit

import httpx

from folio.files.providers.base import (
    ObjectMissing,
    ObjectWriter,
    Provider,
    Source,
    StoredObject,
    StoreUnavailable,
)
from folio.files.providers.s3_options import S3Options
from folio.files.sigv4 import Credentials, Signer, canonical_query, quote_path

log = logging.getLogger("folio.files")

# bytes read from a file and handed to the connection at a time
CHUNK = 1024 * 1024
# what a store's answer body may hold (an error, an upload id): more is not read
MAX_ANSWER = 64 * 1024
TIMEOUT = httpx.Timeout(connect=5.0, read=60.0, write=60.0, pool=60.0)
# parts of a streamed upload under way at once: one sent while the next fills (each held in
# memory until sent, and copied once more as it goes: what an upload holds stays within a
# few parts)
STREAM_QUEUE = 1

# what a part's body is: bytes, or chunks read as it is sent
Content = bytes | AsyncIterator[bytes]


def _path_style(options: S3Options, host: str) -> bool:
    if options.force_path_style or host == "localhost":
        return True
    bucket = options.bucket
    if "." in bucket or bucket != bucket.lower():
        return True
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Answer:
    status: int
    headers: httpx.Headers
    body: bytes


async def _read_answer(response: httpx.Response) -> bytes:
    """The answer's body, up to MAX_ANSWER bytes (a store's answers are small XML)."""
    body = b""
    async for piece in response.aiter_bytes():
        body += piece
        if len(body) >= MAX_ANSWER:
            break
    return body


def _element(body: bytes, name: str) -> str | None:
    """The text of the first element called `name` (any namespace) of an XML answer."""
    try:
        root = ET.fromstring(body)
    except ET.ParseError:
        return None
    for element in root.iter():
        if element.tag == name or element.tag.endswith("}" + name):
            return element.text or ""
    return None


class S3Provider(Provider):
    name = "aws-s3"

    def __init__(self, options: S3Options) -> None:
        self.options = options
        self.private = options.private
        # a file of at least a part goes up as a multipart upload: streamed as it comes
        self.stream_after = options.part_size
        endpoint = options.endpoint or f"https://s3.{options.region}.amazonaws.com"
        scheme, _, netloc = endpoint.partition("://")
        host = netloc.rsplit(":", 1)[0] if not netloc.endswith("]") else netloc
        if _path_style(options, host):
            self._host = netloc
            self._bucket_path = "/" + quote_path(options.bucket)
        else:
            self._host = f"{options.bucket}.{netloc}"
            self._bucket_path = ""
        self._origin = f"{scheme}://{self._host}"
        # the URL every object's URL starts with (its key follows)
        self.object_base = f"{self._origin}{self._bucket_path}/"
        self._prefix = f"{options.root_path}/" if options.root_path else ""
        self._signer = Signer(
            Credentials(options.access_key, options.secret_key, options.session_token),
            options.region,
        )
        self._acl = {"x-amz-acl": options.acl} if options.acl else {}
        self._client: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # ------------------------------------------------------------------ URLs
    def object_key(self, key: str) -> str:
        return self._prefix + key

    def url(self, key: str) -> str:
        """The URL recorded for the object `key` (unsigned)."""
        path = quote_path(self.object_key(key))
        if self.options.base_url:
            return f"{self.options.base_url}/{path}"
        return self.object_base + path

    def origins(self) -> tuple[str, ...]:
        if self.options.base_url:
            parts = urlsplit(self.options.base_url)
            return (f"{parts.scheme}://{parts.netloc}",)
        return (self._origin,)

    def signed_url(self, url: str) -> str:
        if not self.private or self.options.base_url:
            return url
        key_path = self._key_path(url)
        if key_path is None:
            return url
        path = f"{self._bucket_path}/{key_path}"
        query = self._signer.presign("GET", self._host, path, self.options.signed_url_expires)
        return f"{self._origin}{path}?{query}"

    def _key_path(self, url: str) -> str | None:
        """The object's path (encoded) in a URL of this bucket: one this provider made, or,
        as the reference decides, one whose host or path names the bucket (a bucket whose
        store moved); None for any other URL."""
        if url.startswith(self.object_base):
            return url[len(self.object_base) :].split("?", 1)[0]
        parts = urlsplit(url)
        bucket = self.options.bucket
        if parts.scheme not in ("http", "https"):
            return None
        if parts.hostname and parts.hostname.startswith(bucket + "."):
            return parts.path[1:] or None
        head = f"/{quote_path(bucket)}/"
        if parts.path.startswith(head):
            return parts.path[len(head) :] or None
        return None

    # ------------------------------------------------------------------ requests
    def _http(self) -> httpx.AsyncClient:
        # a client per event loop: its pooled connections belong to the loop they were
        # opened on
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            # a connection that cannot be opened is tried once more (the limits are the
            # transport's: a client's own apply only to the transport it makes)
            transport = httpx.AsyncHTTPTransport(
                retries=1,
                limits=httpx.Limits(max_connections=32, max_keepalive_connections=16),
            )
            self._client = httpx.AsyncClient(timeout=TIMEOUT, transport=transport)
            self._loop = loop
        return self._client

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None and self._loop is asyncio.get_running_loop():
            await client.aclose()

    async def _open_request(
        self,
        method: str,
        key: str,
        query: Sequence[tuple[str, str]] = (),
        *,
        headers: dict[str, str] | None = None,
        content: bytes | AsyncIterator[bytes] = b"",
        length: int | None = None,
    ) -> httpx.Response:
        """One signed request about the object `key`, sent; its answer's body not read yet
        (the caller reads and closes it). httpx.HTTPError when the store cannot be reached."""
        path = f"{self._bucket_path}/{quote_path(self.object_key(key))}"
        given = headers or {}
        # every x-amz- header is signed (S3 requires it); the others need not be
        amz = {k: v for k, v in given.items() if k.lower().startswith("x-amz-")}
        sent = {**given, **self._signer.headers(method, self._host, path, query, amz)}
        if length is not None:
            sent["Content-Length"] = str(length)
        url = f"{self._origin}{path}"
        if query:
            url += "?" + canonical_query(query)
        if isinstance(content, bytes) and len(content) > CHUNK:
            content = _let_go(content)
        client = self._http()
        request = client.build_request(method, url, headers=sent, content=content)
        return await client.send(request, stream=True)

    def _refused(self, method: str, key: str, response: httpx.Response, body: bytes) -> None:
        code = _element(body, "Code") or ""
        log.warning(
            "file store %s: %s %s answered %s %s",
            self._origin,
            method,
            key,
            response.status_code,
            code,
        )

    async def _send(
        self,
        method: str,
        key: str,
        query: Sequence[tuple[str, str]] = (),
        *,
        headers: dict[str, str] | None = None,
        content: bytes | AsyncIterator[bytes] = b"",
        length: int | None = None,
        expect: tuple[int, ...] = (200,),
    ) -> Answer:
        """One signed request about the object `key`; StoreUnavailable unless it answers
        one of `expect`."""
        try:
            response = await self._open_request(
                method, key, query, headers=headers, content=content, length=length
            )
            try:
                body = await _read_answer(response)
            finally:
                await response.aclose()
        except httpx.HTTPError as exc:
            log.warning("file store %s: %s %s failed: %r", self._origin, method, key, exc)
            raise StoreUnavailable() from exc
        if response.status_code not in expect:
            self._refused(method, key, response, body)
            raise StoreUnavailable()
        return Answer(response.status_code, response.headers, body)

    # ------------------------------------------------------------------ the provider
    async def put(self, key: str, source: Source, mime: str) -> str:
        headers = {"Content-Type": mime, **self._acl}
        part = self.options.part_size
        if isinstance(source, bytes):
            if len(source) <= part:
                await self._send("PUT", key, headers=headers, content=source, length=len(source))
            else:
                await self._multipart(key, headers, _bytes_parts(source, part))
        elif isinstance(source, Path):
            size = (await asyncio.to_thread(source.stat)).st_size
            if size <= part:
                chunks = _file_chunks(source, 0, size)
                await self._send("PUT", key, headers=headers, content=chunks, length=size)
            else:
                await self._multipart(key, headers, _file_parts(source, size, part))
        else:
            first = await asyncio.to_thread(source.read, part)
            if len(first) < part:
                await self._send("PUT", key, headers=headers, content=first, length=len(first))
            else:
                await self._multipart(key, headers, _stream_parts(source, first, part))
        return self.url(key)

    async def _multipart(
        self, key: str, headers: dict[str, str], parts: AsyncIterator[tuple[Content, int]]
    ) -> None:
        """A multipart upload of `parts` ((content, length)), `queueSize` at a time;
        aborted when one fails."""
        upload = await Multipart.start(self, key, headers, self.options.queue_size)
        try:
            while True:
                # room first, then the next part: a stream's part is read only then
                await upload.ready()
                try:
                    content, length = await anext(parts)
                except StopAsyncIteration:
                    break
                upload.send(content, length)
            await upload.complete()
        except BaseException:
            await upload.abort()
            raise

    def writer(self, key: str, mime: str) -> ObjectWriter:
        return Writer(self, key, {"Content-Type": mime, **self._acl})

    async def delete(self, key: str) -> None:
        await self._send("DELETE", key, expect=(204, 200, 404))

    @asynccontextmanager
    async def open(self, key: str) -> AsyncIterator[StoredObject]:
        # the bytes as stored (no content decoding: their count is the object's size)
        headers = {"Accept-Encoding": "identity"}
        try:
            response = await self._open_request("GET", key, headers=headers)
        except httpx.HTTPError as exc:
            log.warning("file store %s: GET %s failed: %r", self._origin, key, exc)
            raise StoreUnavailable() from exc
        try:
            if response.status_code != 200:
                body = await self._answer_body(response, key)
                if response.status_code == 404 and _element(body, "Code") in ("NoSuchKey", None):
                    raise ObjectMissing(key)
                self._refused("GET", key, response, body)
                raise StoreUnavailable()
            length = response.headers.get("content-length", "")
            if not length.isdecimal():
                log.warning("file store %s: GET %s answered no length", self._origin, key)
                raise StoreUnavailable()
            yield StoredObject(int(length), self._body(response, key))
        finally:
            await response.aclose()

    async def _answer_body(self, response: httpx.Response, key: str) -> bytes:
        try:
            return await _read_answer(response)
        except httpx.HTTPError as exc:
            log.warning("file store %s: GET %s failed: %r", self._origin, key, exc)
            raise StoreUnavailable() from exc

    async def _body(self, response: httpx.Response, key: str) -> AsyncIterator[bytes]:
        """An answer's body as it comes; StoreUnavailable if the connection fails."""
        try:
            async for chunk in response.aiter_raw(CHUNK):
                yield chunk
        except httpx.HTTPError as exc:
            log.warning("file store %s: reading %s failed: %r", self._origin, key, exc)
            raise StoreUnavailable() from exc


async def _let_go(data: bytes) -> AsyncIterator[bytes]:
    """A large body as httpx lets go of it once sent: an answer and its request stay in a
    reference cycle until the garbage collector runs, and a body given as bytes would stay
    with them (parts of 8 MB piling up); a generator's bytes go when it ends."""
    yield data


def _xml_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


async def _file_chunks(path: Path, offset: int, length: int) -> AsyncIterator[bytes]:
    """`length` bytes of the file from `offset`, a chunk at a time, read off the loop."""
    fd = await asyncio.to_thread(os.open, path, os.O_RDONLY)
    try:
        end = offset + length
        while offset < end:
            chunk = await asyncio.to_thread(os.pread, fd, min(CHUNK, end - offset), offset)
            if not chunk:
                raise StoreUnavailable("The uploaded file changed while it was stored")
            offset += len(chunk)
            yield chunk
    finally:
        os.close(fd)


async def _file_parts(path: Path, size: int, part: int) -> AsyncIterator[tuple[Content, int]]:
    for offset in range(0, size, part):
        length = min(part, size - offset)
        yield _file_chunks(path, offset, length), length


async def _bytes_parts(data: bytes, part: int) -> AsyncIterator[tuple[Content, int]]:
    for offset in range(0, len(data), part):
        piece = data[offset : offset + part]
        yield piece, len(piece)


async def _stream_parts(
    stream: BinaryIO, first: bytes, part: int
) -> AsyncIterator[tuple[Content, int]]:
    """A stream of unknown length, a part at a time (each read whole: a stream cannot be
    read from two places at once)."""
    piece = first
    while piece:
        yield piece, len(piece)
        piece = await asyncio.to_thread(stream.read, part)


class Multipart:
    """One multipart upload under way: its parts sent as they are given, at most `queue`
    at a time, then completed (the object stored) or aborted (nothing stored, the parts
    sent dropped by the store). The failure of a part is raised by the next `ready` or by
    `complete`."""

    def __init__(self, provider: S3Provider, key: str, upload_id: str, queue: int) -> None:
        self.provider = provider
        self.key = key
        self.upload_id = upload_id
        self._room = asyncio.Semaphore(queue)
        self._etags: dict[int, str] = {}
        self._sending: set[asyncio.Task[None]] = set()
        self._failed: Exception | None = None
        self._parts = 0
        self._over = False

    @classmethod
    async def start(
        cls, provider: S3Provider, key: str, headers: dict[str, str], queue: int
    ) -> Multipart:
        started = await provider._send("POST", key, [("uploads", "")], headers=headers)
        upload_id = _element(started.body, "UploadId")
        if not upload_id:
            log.warning("file store %s: no UploadId for %s", provider._origin, key)
            raise StoreUnavailable()
        return cls(provider, key, upload_id, queue)

    async def ready(self) -> None:
        """Waits until a part may be sent (fewer than `queue` under way), then `send` sends
        the next; an earlier part's failure is raised here."""
        await self._room.acquire()
        if self._failed is not None:
            self._room.release()
            raise self._failed

    def send(self, content: Content, length: int) -> None:
        """Sends the next part (in the room `ready` made)."""
        self._parts += 1
        task = asyncio.create_task(self._part(self._parts, content, length))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _part(self, number: int, content: Content, length: int) -> None:
        try:
            query = [("partNumber", str(number)), ("uploadId", self.upload_id)]
            done = await self.provider._send("PUT", self.key, query, content=content, length=length)
            self._etags[number] = done.headers.get("etag", "")
        except Exception as exc:
            if self._failed is None:
                self._failed = exc
        finally:
            self._room.release()

    async def complete(self) -> None:
        """Waits for the parts under way, then stores the object made of them."""
        await asyncio.gather(*self._sending)
        if self._failed is not None:
            # the first part that failed says why
            raise self._failed
        listed = "".join(
            f"<Part><PartNumber>{n}</PartNumber><ETag>{_xml_text(self._etags[n])}</ETag></Part>"
            for n in sorted(self._etags)
        )
        body = f"<CompleteMultipartUpload>{listed}</CompleteMultipartUpload>".encode()
        done = await self.provider._send(
            "POST", self.key, [("uploadId", self.upload_id)], content=body, length=len(body)
        )
        # S3 may answer 200 with an error in the body
        if _element(done.body, "Code") is not None:
            log.warning("file store %s: completing %s failed", self.provider._origin, self.key)
            raise StoreUnavailable()
        self._over = True

    async def abort(self) -> None:
        """Stops the parts under way and drops the upload (once: nothing after `complete`)."""
        if self._over:
            return
        self._over = True
        for task in self._sending:
            task.cancel()
        await asyncio.gather(*self._sending, return_exceptions=True)
        query = [("uploadId", self.upload_id)]
        try:
            await self.provider._send("DELETE", self.key, query, expect=(204, 200, 404))
        except StoreUnavailable:
            # the store's own clean-up of incomplete uploads takes it from here
            log.warning(
                "file store %s: abort of the upload of %s failed", self.provider._origin, self.key
            )


class Writer(ObjectWriter):
    """An object streamed to the store as its bytes come (`Provider.writer`): gathered a
    part at a time, each full part sent while the next fills, at most STREAM_QUEUE parts
    under way (`drain` waits for room: what it holds stays within a few parts); the
    multipart upload starts with the first full part, and the last, shorter part goes at
    `commit`."""

    def __init__(self, provider: S3Provider, key: str, headers: dict[str, str]) -> None:
        self.provider = provider
        self.key = key
        self.headers = headers
        self.part_size = provider.options.part_size
        self._held = bytearray()
        self._upload: Multipart | None = None
        self._queue = min(provider.options.queue_size, STREAM_QUEUE)

    def write(self, data: bytes | memoryview) -> None:
        self._held += data

    async def drain(self) -> None:
        while len(self._held) >= self.part_size:
            await self._send_part(self.part_size)

    async def _send_part(self, length: int) -> None:
        if self._upload is None:
            self._upload = await Multipart.start(self.provider, self.key, self.headers, self._queue)
        await self._upload.ready()
        if length == len(self._held):
            piece, self._held = bytes(self._held), bytearray()
        else:
            with memoryview(self._held) as view:
                piece = bytes(view[:length])
            del self._held[:length]
        self._upload.send(piece, length)

    async def commit(self) -> str:
        if self._held or self._upload is None:
            await self._send_part(len(self._held))
        assert self._upload is not None
        await self._upload.complete()
        return self.provider.url(self.key)

    async def abort(self) -> None:
        self._held = bytearray()
        if self._upload is not None:
            await self._upload.abort()
