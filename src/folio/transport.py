"""The HTTP server's protocol (uvicorn's httptools one) on a transport that sends a
response's head and body in one write.

uvicorn writes the status line and headers when the response starts and the body when it
comes: two writes, so two system calls and two TCP segments for every response. On the
loopback a segment's delivery (the receiver's TCP processing and wake-up) is charged to the
sender's call: the head's write alone was a fifth of the server's CPU for a 25-row page.
Here a write is held until the next one or the end of the loop's current iteration,
whichever comes first, and the two go out joined: a response whose body follows its start
at once (every response Folio makes) is one write; a streamed one is never held longer
than an iteration."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

# bodies up to this size are copied behind the head they follow
JOIN_LIMIT = 256 * 1024


class JoiningTransport:
    """Delegates to a socket transport; `write` joins a held write with the next one."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None

    def write(self, data: bytes) -> None:
        held = self._held
        if held is None:
            if not data:
                return
            self._held = bytes(data)
            self._loop.call_soon(self._flush)
            return
        self._held = None
        if len(data) > JOIN_LIMIT:
            # a large body: copying it costs more than the second call
            self._transport.write(held)
            self._transport.write(data)
        else:
            self._transport.write(held + data)

    def _flush(self) -> None:
        held = self._held
        if held is not None:
            self._held = None
            if not self._transport.is_closing():
                self._transport.write(held)

    def writelines(self, lines: Any) -> None:
        self.write(b"".join(lines))

    def write_eof(self) -> None:
        self._flush()
        self._transport.write_eof()

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def abort(self) -> None:
        self._held = None
        self._transport.abort()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + len(self._held or b"")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class JoiningHttpToolsProtocol(HttpToolsProtocol):
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        joined: Any = JoiningTransport(transport, self.loop)
        super().connection_made(joined)
