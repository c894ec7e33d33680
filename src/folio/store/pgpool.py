"""A small pool of PostgreSQL connections for one event loop.

asyncpg's own pool spends about 50 us of CPU on each acquire and release (a context object,
a queue, connection holders, an inactivity timer, a reset coroutine); a 25-row page costs the
server about 450 us in all, so that was a tenth of it. Folio needs less: its connections keep
no session state (transactions end in their block, advisory locks are transaction-scoped), so
a connection that finished its work goes back as it is, to the next waiter or to the idle
list. One that did not finish (a cancelled request, a broken socket) is closed instead, and a
waiter then opens a new one. After an outage of the database the idle ones are dropped
(`discard_idle`)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg


class ConnectionPool:
    def __init__(self, connect: Callable[[], Awaitable[Any]], max_size: int) -> None:
        self._connect = connect
        self._max = max(1, max_size)
        self._idle: list[Any] = []
        # waiters get a connection, or None: "a place is free, open one"
        self._waiters: deque[asyncio.Future[Any]] = deque()
        self._size = 0  # connections open or opening
        self._closed = False

    @property
    def size(self) -> int:
        return self._size

    async def start(self, min_size: int) -> None:
        for _ in range(min(min_size, self._max)):
            self._size += 1
            try:
                conn = await self._connect()
            except BaseException:
                self._size -= 1
                raise
            self._idle.append(conn)

    async def acquire(self) -> Any:
        if self._closed:
            raise asyncpg.InterfaceError("the connection pool is closed")
        while self._idle:
            conn = self._idle.pop()
            if not conn.is_closed():
                return conn
            self._size -= 1
        if self._size >= self._max:
            waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                conn = await waiter
            except asyncio.CancelledError:
                # handed a connection (or a free place) just as the request was cancelled:
                # pass it on
                if waiter.done() and not waiter.cancelled():
                    self._pass_on(waiter.result())
                raise
            if conn is not None:
                return conn
        self._size += 1
        try:
            return await self._connect()
        except BaseException:
            self._size -= 1
            self._pass_on(None)
            raise

    def release(self, conn: Any, healthy: bool = True) -> None:
        """Takes back a connection; `healthy` False when its work did not finish (it may be
        in the middle of a statement): it is closed."""
        if not healthy or self._closed or conn.is_closed() or conn.is_in_transaction():
            if not conn.is_closed():
                conn.terminate()
            self._size -= 1
            if not self._closed:
                self._pass_on(None)
            return
        self._pass_on(conn)

    def _pass_on(self, conn: Any) -> None:
        """Gives a connection (or a free place, None) to the first waiter still waiting."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(conn)
                return
        if conn is not None:
            self._idle.append(conn)

    def discard_idle(self) -> None:
        """Closes the idle connections: after the database was found unreachable they are
        most likely dead, and each would fail a request before the pool opened a new one."""
        idle, self._idle = self._idle, []
        for conn in idle:
            self._size -= 1
            if not conn.is_closed():
                conn.terminate()

    async def close(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            self._size -= 1
            try:
                await asyncio.wait_for(conn.close(), 5)
            except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                conn.terminate()
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_exception(asyncpg.InterfaceError("the connection pool is closed"))
