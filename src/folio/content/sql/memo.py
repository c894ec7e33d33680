"""The read memo: rows read (a populated field's rows by parent, a list's page and total),
remembered under the database's version token (the `Version` step) while nothing is
committed, bounded in bytes (`FOLIO_READ_MEMO_MB`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Hashable
from typing import Any

from folio.caches import BoundedCache


def memo_mb() -> float:
    """The read rows (populated fields, pages) a process remembers at most, in MB (0:
    none): `FOLIO_READ_MEMO_MB`, read when the app is loaded."""
    return float(os.environ.get("FOLIO_READ_MEMO_MB", "32") or 32)


class RowMemo:
    """Rows read, by statement shape and key (a populate's parent key; a page's bounds),
    each with the version token of the database state they were read in; a lookup under
    another token misses. Bounded in bytes (every row weighed), least recently used out
    first."""

    def __init__(self, max_bytes: int) -> None:
        self._cache: BoundedCache[tuple[Any, Any]] = BoundedCache(
            max(1, max_bytes // 200), max_bytes
        )

    @property
    def size(self) -> int:
        """The bytes its entries are weighed at (at most its budget)."""
        return self._cache.bytes

    @property
    def budget(self) -> int:
        return self._cache.max_bytes

    def get(self, shape: Hashable, key: Any, token: Any) -> Any:
        """What `put` kept for (shape, key) under `token`, or None."""
        found = self._cache.get((shape, key))
        if found is None or found[0] != token:
            return None
        return found[1]

    def put(self, shape: Hashable, key: Any, token: Any, rows: list[Any], weight: int) -> None:
        """`weight`: the bytes of the entry's key (its statement's text and parameters), to
        which the rows' own are added."""
        self._cache.put((shape, key), (token, rows), weight + _weigh_rows(rows))

    def latest(self, shape: Hashable, key: Any) -> tuple[Any, Any] | None:
        """(token, what `put` kept) for (shape, key), whatever its token."""
        return self._cache.get((shape, key))

    def put_page(
        self, shape: Hashable, key: Any, token: Any, rows: list[Any], total: int, weight: int
    ) -> None:
        """A list's page and its total (`get` answers both)."""
        self._cache.put((shape, key), (token, (rows, total)), weight + _weigh_rows(rows))


# what a remembered row costs besides its text and bytes: the row object (a tuple, or
# asyncpg's Record: 56 bytes and a slot per value) and the list's slot for it; per value
# its slot and the value object (an int, float, bool or None holds at most 40 bytes, a
# datetime 48, an ASCII str 49 and its characters)
ROW_BYTES = 72
CELL_BYTES = 8 + 56
_FIXED_SIZE = frozenset({int, float, bool, type(None)})


def _weigh_rows(rows: list[Any]) -> int:
    """The bytes `rows` hold, every value weighed (no less than they take: a value another
    row shares is counted each time). A page of rows whose sizes vary (short ones where a
    sample would look, 100 KB ones between) is weighed as it is. A 25-row page of twelve
    columns costs 13 us (a sample of eight rows cost 9 us; SQLite's fetch of it, 48 us)."""
    total = sys.getsizeof(rows) + ROW_BYTES * len(rows)
    for row in rows:
        total += CELL_BYTES * len(row)
        for value in row:
            kind = value.__class__
            if kind is str:
                # an ASCII str holds a byte per character; others up to four
                total += len(value) if value.isascii() else sys.getsizeof(value)
            elif kind not in _FIXED_SIZE:
                total += _deep_size(value)
    return total


def _deep_size(value: Any) -> int:
    """The bytes of a value and, for lists, tuples and dicts (json decoded into them), of
    what they hold."""
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        total += sys.getsizeof(item)
        if isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return total
