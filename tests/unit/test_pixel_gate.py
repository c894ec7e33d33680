"""The image pixel gate: work is admitted while the pixels in flight fit the budget, in
the order it came; work larger than the budget runs alone; a waiter that gives up frees
its place."""

from __future__ import annotations

import asyncio

from folio.files.images import PixelGate


def test_work_waits_for_room_and_is_admitted_in_order() -> None:
    async def scenario() -> list[str]:
        gate = PixelGate(100)
        order: list[str] = []

        async def work(name: str, pixels: int, hold: asyncio.Event) -> None:
            taken = await gate.acquire(pixels)
            order.append(name)
            await hold.wait()
            gate.release(taken)

        holds = {name: asyncio.Event() for name in "abcd"}
        tasks = [
            asyncio.create_task(work("a", 60, holds["a"])),
            asyncio.create_task(work("b", 60, holds["b"])),
            # fits beside a, but b came first: it waits its turn
            asyncio.create_task(work("c", 30, holds["c"])),
            # larger than the whole budget: admitted alone
            asyncio.create_task(work("d", 500, holds["d"])),
        ]
        await asyncio.sleep(0)
        assert order == ["a"] and gate.used == 60
        holds["a"].set()
        await asyncio.sleep(0.01)
        assert order == ["a", "b", "c"] and gate.used == 90
        holds["b"].set()
        holds["c"].set()
        await asyncio.sleep(0.01)
        assert order == ["a", "b", "c", "d"] and gate.used == 100
        holds["d"].set()
        await asyncio.gather(*tasks)
        assert gate.used == 0
        return order

    assert asyncio.run(scenario()) == ["a", "b", "c", "d"]


def test_a_cancelled_waiter_frees_its_place() -> None:
    async def scenario() -> None:
        gate = PixelGate(100)
        first = await gate.acquire(80)
        waiter = asyncio.create_task(gate.acquire(50))
        behind = asyncio.create_task(gate.acquire(20))
        await asyncio.sleep(0)
        assert not waiter.done() and not behind.done()
        waiter.cancel()
        await asyncio.sleep(0.01)
        # the one behind fits once the cancelled one is out of the line
        assert behind.done() and gate.used == 100
        gate.release(first)
        gate.release(behind.result())
        assert gate.used == 0

    asyncio.run(scenario())
