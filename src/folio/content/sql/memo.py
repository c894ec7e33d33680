"""The read memo: rows read (a populated field's rows by parent, a list's page and total),
remembered under the database's version token (the `Version` step) while nothing is
committed, bounded in bytes (`FOLIO_READ_MEMO_MB`).

Remembering costs: each entry's rows are weighed and stored, and under a stream of writes
most entries are never asked for again before the token moves (the shared bench's `mixed`
scenario, nine reads to one update, read 17% slower with the memo than without). So the
memo keeps, for populated rows and for pages apart, a score of what it has been worth: a
hit raises it, an entry found under an older token without ever having been used lowers it.
While the score holds, every read is remembered at once (a repeated read with nothing
written in between is answered from here); once the entries go stale unused, a read is
remembered only when its statement and key were read before under the same token (a
`seen` mark: a hash and the token, no rows), so that reads repeated between writes are
still remembered, and their hits restore the score. While neither kind pays, most reads
leave the memo aside altogether (`aside`)."""

from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from itertools import chain
from typing import Any, Final


def memo_mb() -> float:
    """The read rows (populated fields, pages) a process remembers at most, in MB (0:
    none): `FOLIO_READ_MEMO_MB`, read when the app is loaded."""
    return float(os.environ.get("FOLIO_READ_MEMO_MB", "32") or 32)


# the kinds of entries, each with its own score
ROWS = 0
PAGES = 1
# the score: a hit saves a statement (its round trip and the database's work, 0.1 ms and
# more), an entry never used cost the weighing and storing of its rows (a few microseconds)
HIT = 8
WASTE = 1
TRUST = 64  # the score's bound either way; a memo starts trusting
# while neither kind pays, reads leave the memo aside (no version token, nothing looked up
# or marked) but one in this many, whose marks and hits let it come back
PROBE = 16
# what a `seen` mark holds (its key tuple and hash, the dict's slot); the marks take at
# most a sixteenth of the budget
SEEN_BYTES = 200


# An entry is a plain tuple (token, value, weight, used), its rows a tuple of rows: the
# collector stops tracking a tuple that holds only untracked values (numbers, strings, None,
# other such tuples), so a filled memo of SQLite's or MySQL's rows costs a full collection
# nothing. As objects (an entry, its list of rows, its key holding a tracked marker) they
# were three tracked objects an entry: after 192 list reads on SQLite, 42,569 tracked
# objects, and a full collection took 13-32 ms against 3 ms without the memo.
# (asyncpg's rows are tracked whatever holds them.)
TOKEN: Final = 0
VALUE: Final = 1
WEIGHT: Final = 2
USED: Final = 3
Entry = tuple[Any, Any, int, bool]


class RowMemo:
    """Rows read, by statement shape and key (a populate's parent key; a page's bounds),
    each with the version token of the database state they were read in; a lookup under
    another token misses (and drops the entry). Bounded in bytes (every row weighed),
    least recently used out first. What is read is stored where `admit` says."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max(1, max_bytes)
        self._seen_cap = max(16, self.max_bytes // 16 // SEEN_BYTES)
        self._cap = max(1, self.max_bytes - self._seen_cap * SEEN_BYTES)
        self._max_entries = max(1, self.max_bytes // 200)
        self._entries: OrderedDict[Hashable, Entry] = OrderedDict()
        self._bytes = 0
        # SQLite's reader threads share it
        self._lock = threading.Lock()
        # (hash of the shape, key) -> the token it was last read under, not kept
        self._seen: dict[tuple[int, Any], Any] = {}
        self.scores = [TRUST, TRUST]
        self._reads = 0
        # per kind: hits, and entries dropped stale without a use (for benchmarks)
        self.hits = [0, 0]
        self.wasted = [0, 0]

    @property
    def size(self) -> int:
        """The bytes its entries and marks are weighed at (at most its budget)."""
        return self._bytes + len(self._seen) * SEEN_BYTES

    @property
    def budget(self) -> int:
        return self.max_bytes

    def trusted(self, kind: int) -> bool:
        """Whether entries of `kind` are kept at first sight (they have been paying)."""
        return self.scores[kind] > 0

    def aside(self) -> bool:
        """Whether a read leaves the memo aside: neither its populated rows nor its pages
        have been paying (entries went stale unused), and this read is not one of the few
        that still try it. Under a stream of writes a read then costs what it costs without
        the memo (on PostgreSQL, the plain page statement instead of the gated one)."""
        if self.scores[ROWS] > 0 or self.scores[PAGES] > 0:
            return False
        self._reads += 1
        return self._reads % PROBE != 0

    def _score(self, kind: int, change: int) -> None:
        if change > 0:
            self.hits[kind] += 1
        else:
            self.wasted[kind] += 1
        score = self.scores[kind] + change
        self.scores[kind] = TRUST if score > TRUST else -TRUST if score < -TRUST else score

    def get(self, shape: Hashable, key: Any, token: Any, kind: int = ROWS) -> Any:
        """What `put` kept for (shape, key) under `token`, or None."""
        entry = self._entries.get((shape, key))
        if entry is None:
            return None
        if entry[TOKEN] != token:
            self.settle(shape, key, entry, False, kind)
            return None
        self._score(kind, HIT)
        self._used(shape, key, entry, True)
        return entry[VALUE]

    def latest(self, shape: Hashable, key: Any) -> Entry | None:
        """The entry kept for (shape, key), whatever its token (`entry[TOKEN]`,
        `entry[VALUE]`)."""
        return self._entries.get((shape, key))

    def settle(self, shape: Hashable, key: Any, entry: Entry, hit: bool, kind: int) -> None:
        """Scores an entry the database said still holds (`hit`: `latest`'s token is still
        the database's) or no longer does: then it is dropped, a waste if never used."""
        if hit:
            self._score(kind, HIT)
            self._used(shape, key, entry, False)
            return
        if not entry[USED]:
            self._score(kind, -WASTE)
        with self._lock:
            if self._entries.get((shape, key)) is entry:
                del self._entries[(shape, key)]
                self._bytes -= entry[WEIGHT]

    def _used(self, shape: Hashable, key: Any, entry: Entry, recent: bool) -> None:
        """Marks the entry used (a tuple: it is replaced by its used copy) and, where
        `recent`, the most recently used."""
        entries = self._entries
        with self._lock:
            if entries.get((shape, key)) is not entry:
                return  # dropped or replaced meanwhile
            if not entry[USED]:
                entries[(shape, key)] = (entry[TOKEN], entry[VALUE], entry[WEIGHT], True)
            if recent:
                entries.move_to_end((shape, key))

    def admit(self, kind: int, shape: Hashable, keys: Sequence[Any], token: Any) -> Sequence[Any]:
        """Which of `keys`, just read under `token` and not found here, to keep: all of
        them while the kind's entries have been paying; else those read before under the
        same token (the others are marked as read)."""
        if self.scores[kind] > 0:
            return keys
        seen = self._seen
        cap = self._seen_cap
        h = hash(shape)
        out = []
        for key in keys:
            mark = (h, key)
            if seen.get(mark) == token:
                out.append(key)
            else:
                if len(seen) >= cap:
                    seen.clear()  # the oldest marks would mostly be under older tokens
                seen[mark] = token
        return out

    def put(self, shape: Hashable, key: Any, token: Any, rows: list[Any], weight: int) -> None:
        """`weight`: the bytes of the entry's key (its statement's text and parameters), to
        which the rows' own are added."""
        self._store((shape, key), (token, tuple(rows), weight + weigh_rows(rows), False))

    def put_page(
        self, shape: Hashable, key: Any, token: Any, rows: list[Any], total: int, weight: int
    ) -> None:
        """A list's page and its total (`get` answers both, the rows as a tuple)."""
        value = (tuple(rows), total)
        self._store((shape, key), (token, value, weight + weigh_rows(rows), False))

    def _store(self, key: Hashable, entry: Entry) -> None:
        """Keeps `entry`, dropping the least recently used past a bound; an entry larger
        than the whole budget is not kept."""
        weight = entry[WEIGHT]
        if weight > self._cap:
            return
        entries = self._entries
        with self._lock:
            old = entries.pop(key, None)
            if old is not None:
                self._bytes -= old[WEIGHT]
            entries[key] = entry
            self._bytes += weight
            while len(entries) > self._max_entries or self._bytes > self._cap:
                _, dropped = entries.popitem(last=False)
                self._bytes -= dropped[WEIGHT]


# what a remembered row costs besides its values: the row object (a tuple, or asyncpg's
# Record: 56 bytes and a slot per value) and the list's slot for it; per value its slot
ROW_BYTES = 72
CELL_BYTES = 8
_NESTED = (list, tuple, dict)


def weigh_rows(rows: list[Any]) -> int:
    """The bytes `rows` hold, every value weighed (no less than they take: a value another
    row shares is counted each time). A page of rows whose sizes vary (short ones where a
    sample would look, 100 KB ones between) is weighed as it is. Each value is weighed by
    `sys.getsizeof` in one pass that stays in C; lists, tuples and dicts (json decoded into
    them), where there are any, with what they hold. A 25-row page of twelve columns: 3 us
    (13 us for a loop over the values in Python)."""
    cells = chain.from_iterable
    total = (
        sys.getsizeof(rows)
        + ROW_BYTES * len(rows)
        + CELL_BYTES * sum(map(len, rows))
        + sum(map(sys.getsizeof, cells(rows)))
    )
    if any(issubclass(kind, _NESTED) for kind in set(map(type, cells(rows)))):
        for value in cells(rows):
            if isinstance(value, _NESTED):
                total += _deep_size(value) - sys.getsizeof(value)
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
