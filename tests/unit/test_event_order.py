"""The event bus hands this process's committed events to its listeners in id order: an
event waits while a write that may still commit a smaller id is under way, whether that
write holds its recorded ids (`hold`) or has not learnt them yet (`reserve`: a create whose
one statement records its event)."""

from __future__ import annotations

import asyncio

from folio.content.events import Event, EventBus


def _event(event_id: int) -> Event:
    return Event("entry.create", "api::tag.tag", "tag", f"d{event_id}", None, None, {}, id=event_id)


def _bus() -> tuple[EventBus, list[int]]:
    bus = EventBus()
    got: list[int] = []
    bus.listen(lambda events: got.extend(e.id for e in events))
    return bus, got


def test_a_reserved_write_holds_back_the_ids_above_what_was_seen() -> None:
    async def scenario() -> list[list[int]]:
        bus, got = _bus()
        steps = []
        bus.hold([5])
        bus.committed([_event(5)])
        steps.append(list(got))  # [5]
        floor = bus.reserve()  # its id will be above 5
        bus.hold([7])
        bus.committed([_event(7)])  # 7 may not pass the reserved write
        steps.append(list(got))
        bus.hold([6])  # the reserved write learns its id: 6
        bus.release(floor)
        steps.append(list(got))  # 6 is held, 7 still waits
        bus.committed([_event(6)])
        steps.append(list(got))
        return steps

    assert asyncio.run(scenario()) == [[5], [5], [5], [5, 6, 7]]


def test_a_failed_reserved_write_lets_the_others_through() -> None:
    async def scenario() -> list[list[int]]:
        bus, got = _bus()
        steps = []
        first = bus.reserve()
        second = bus.reserve()
        bus.hold([3])
        bus.committed([_event(3)])
        steps.append(list(got))
        bus.release(first)  # failed: no id
        steps.append(list(got))  # the second reservation still holds 3 back
        bus.release(second)
        steps.append(list(got))
        return steps

    assert asyncio.run(scenario()) == [[], [], [3]]


def test_a_reservation_does_not_hold_back_ids_seen_before_it() -> None:
    async def scenario() -> list[int]:
        bus, got = _bus()
        bus.hold([1, 2])
        floor = bus.reserve()
        bus.committed([_event(2), _event(1)])
        seen = list(got)
        bus.release(floor)
        return seen

    assert asyncio.run(scenario()) == [1, 2]
