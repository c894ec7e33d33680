"""The webhooks' HTTP client against real servers on loopback (asyncio servers written
for each case): framing of answers (length, chunked, to the end of the connection, none),
interim answers, keep-alive reuse, a connection the receiver closed while idle, refused
connections and malformed answers."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from folio.webhooks.http import DRAIN, KEEP, HttpClient, HttpError, target

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, dict[str, Any]], Awaitable[None]]


async def _request(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return head, await reader.readexactly(length)


def run(handler: Handler, client_work: Callable[[HttpClient, str], Awaitable[Any]]) -> Any:
    """Serves `handler` on a free port and runs `client_work(client, base)`."""

    async def main() -> Any:
        state: dict[str, Any] = {"connections": 0, "requests": []}

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            state["connections"] += 1
            try:
                await handler(reader, writer, state)
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = HttpClient()
        try:
            async with asyncio.timeout(20):
                result = await client_work(client, f"http://127.0.0.1:{port}")
        finally:
            await client.close()
            server.close()
        return result, state

    return asyncio.run(main())


def test_keep_alive_reuses_one_connection() -> None:
    async def handler(reader: Any, writer: Any, state: dict[str, Any]) -> None:
        while True:
            head, body = await _request(reader)
            state["requests"].append((head, body))
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()

    async def work(client: HttpClient, base: str) -> list[Any]:
        return [await client.post(base + "/a?x=1", [("X-A", "b")], b"{}") for _ in range(3)]

    answers, state = run(handler, work)
    assert [(a.status, a.body) for a in answers] == [(200, b"ok")] * 3
    assert state["connections"] == 1
    head, body = state["requests"][0]
    assert head.startswith(b"POST /a?x=1 HTTP/1.1\r\n")
    assert b"\r\nX-A: b\r\n" in head and b"\r\nContent-Length: 2\r\n" in head
    assert body == b"{}"


def test_chunked_interim_and_unframed_answers() -> None:
    async def handler(reader: Any, writer: Any, state: dict[str, Any]) -> None:
        await _request(reader)
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        writer.write(
            b"HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\n"
        )
        await _request(reader)
        writer.write(b"HTTP/1.0 202 Accepted\r\n\r\nuntil the end")
        await writer.drain()

    async def work(client: HttpClient, base: str) -> list[Any]:
        return [await client.post(base, [], b"x"), await client.post(base, [], b"y")]

    (first, second), state = run(handler, work)
    assert (first.status, first.body) == (500, b"hello world")
    assert (second.status, second.body) == (202, b"until the end")
    assert state["connections"] == 1


def test_a_connection_closed_while_idle_is_replaced() -> None:
    async def handler(reader: Any, writer: Any, state: dict[str, Any]) -> None:
        await _request(reader)
        writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
        await writer.drain()
        # closes the kept-alive connection without a word

    async def work(client: HttpClient, base: str) -> list[int]:
        first = await client.post(base, [], b"1")
        await asyncio.sleep(0.05)
        second = await client.post(base, [], b"2")
        return [first.status, second.status]

    statuses, state = run(handler, work)
    assert statuses == [204, 204]
    assert state["connections"] == 2


def test_a_large_body_keeps_its_start_and_closes_the_connection() -> None:
    size = DRAIN + 10

    async def handler(reader: Any, writer: Any, state: dict[str, Any]) -> None:
        while True:
            await _request(reader)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % size)
            writer.write(b"a" * size)
            await writer.drain()

    async def work(client: HttpClient, base: str) -> list[Any]:
        return [await client.post(base, [], b"") for _ in range(2)]

    answers, state = run(handler, work)
    assert [len(a.body) for a in answers] == [KEEP, KEEP]
    assert state["connections"] == 2


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (b"SMTP ready\r\n\r\n", "not an HTTP answer"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: nope\r\n\r\n", "invalid Content-Length"),
        (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "malformed header line"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "in the middle of the answer"),
        (b"", "closed before an answer"),
    ],
)
def test_malformed_answers_are_errors(answer: bytes, problem: str) -> None:
    async def handler(reader: Any, writer: Any, state: dict[str, Any]) -> None:
        await _request(reader)
        writer.write(answer)
        await writer.drain()

    async def work(client: HttpClient, base: str) -> str:
        with pytest.raises(HttpError) as caught:
            await client.post(base, [], b"")
        return str(caught.value)

    message, _ = run(handler, work)
    assert problem in message


def test_refused_connections_and_bad_headers() -> None:
    async def main() -> None:
        client = HttpClient()
        with pytest.raises(HttpError, match="connection refused"):
            await client.post("http://127.0.0.1:9/x", [], b"")
        with pytest.raises(HttpError, match="invalid header"):
            await client.post("http://127.0.0.1:9/x", [("X-A", "b\r\nInjected: 1")], b"")
        with pytest.raises(HttpError, match="unsupported URL scheme"):
            await client.post("ftp://127.0.0.1/x", [], b"")

    asyncio.run(main())


def test_targets() -> None:
    t = target("https://user:p%40ss@Example.COM/hook?a=1#frag")
    assert (t.scheme, t.host, t.port, t.host_header, t.path) == (
        "https",
        "example.com",
        443,
        "example.com",
        "/hook?a=1",
    )
    assert t.authorization == "Basic " + base64.b64encode(b"user:p@ss").decode()
    t = target("http://[::1]:8080")
    assert (t.host, t.port, t.host_header, t.path) == ("::1", 8080, "[::1]:8080", "/")
    assert target("http://bücher.example/").host == "xn--bcher-kva.example"
