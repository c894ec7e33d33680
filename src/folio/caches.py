"""A cache bounded by entries and by bytes, least recently used out first.

Folio caches what it derives from what clients send (parsed query strings, SQL texts per
query shape, parsed GraphQL documents); clients choose those keys, so every such cache must
stay within a fixed size whatever they send. Each entry is weighed when stored (the caller
says how many bytes it stands for, e.g. the length of its key and text); a store past
either bound evicts the oldest entries. A lookup costs one dict access and one move to the
end."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class BoundedCache(Generic[V]):
    def __init__(self, entries: int, max_bytes: int) -> None:
        self.entries = max(1, entries)
        self.max_bytes = max(1, max_bytes)
        self._data: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self.bytes = 0
        # SQLite's writer thread plans statements too: one caller at a time
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            found = self._data.get(key)
            if found is None:
                return None
            self._data.move_to_end(key)
            return found[0]

    def put(self, key: Hashable, value: V, weight: int) -> None:
        """Stores `value`, weighing `weight` bytes; an entry larger than the whole budget
        is not kept."""
        if weight > self.max_bytes:
            return
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            self._data[key] = (value, weight)
            self.bytes += weight
            while len(self._data) > self.entries or self.bytes > self.max_bytes:
                _, (_, dropped) = self._data.popitem(last=False)
                self.bytes -= dropped

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.bytes = 0


def weigh(*parts: object) -> int:
    """A rough byte weight of a key and value made of strings, bytes and tuples of them
    (what the caches here hold), plus a fixed overhead per entry."""
    total = 200
    stack: list[object] = list(parts)
    while stack:
        item = stack.pop()
        if isinstance(item, str | bytes):
            total += len(item) + 50
        elif isinstance(item, tuple | list):
            total += 8 * len(item) + 56
            stack.extend(item)
        else:
            total += 32
    return total
