"""The populate memo stays within its byte budget, counting what each remembered entry
keeps: its rows (every one weighed, whatever their sizes and characters), and its own copy
of the statement's text and parameters."""

from __future__ import annotations

import gc
import sys
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from folio.content.sql.load import (
    KEY_PARAMS,
    KEYS,
    Populator,
    ReadContext,
)
from folio.content.sql.memo import RowMemo, weigh_rows
from folio.schema.loader import load_registry
from folio.store.dialects.sqlite import SQLITE
from folio.store.program import Stmt, Version
from tests.conftest import FIXTURES

BUDGET = 2 * 1024 * 1024


def run(
    program: Any, token: Any, answer: Callable[[Stmt], list[Any]]
) -> tuple[list[Any], list[Stmt]]:
    """Drives a populate program as a database would: the token, then each statement's
    rows (`answer`); its result and the statements it asked."""
    asked: list[Stmt] = []
    step = next(program)
    try:
        while True:
            if isinstance(step, Version):
                step = program.send(token)
            else:
                assert isinstance(step, Stmt)
                asked.append(step)
                step = program.send(answer(step))
    except StopIteration as stop:
        return stop.value, asked


def test_single_parent_statements_with_long_texts_stay_within_the_budget() -> None:
    populator = Populator(load_registry(FIXTURES / "blog"), SQLITE)
    populator.memo = RowMemo(BUDGET)
    padding = "x" * 800
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(20_000):
            # a new text per statement, as each read builds it: one parent, no rows
            sql = f"SELECT t.id, l.source_id FROM links l /* {padding} {i % 7} */ WHERE {KEYS}"
            got, _ = run(
                populator._rows(sql, [KEY_PARAMS], "l.source_id", [i], -1, ReadContext("p", None)),
                ("token",),
                lambda stmt: [],
            )
            assert got == []
        gc.collect()
        used = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert used < 1.5 * BUDGET, used


def test_rows_are_remembered_per_parent_under_the_token() -> None:
    populator = Populator(load_registry(FIXTURES / "blog"), SQLITE)
    sql = f"SELECT t.name, l.source_id FROM links l WHERE {KEYS}"

    def read(keys: list[int], token: Any, rows: list[Any]) -> tuple[list[Any], list[Stmt]]:
        ctx = ReadContext("p", None)
        program = populator._rows(sql, [KEY_PARAMS], "l.source_id", keys, -1, ctx)
        return run(program, token, lambda stmt: [r for r in rows if r[-1] in stmt.params])

    rows = [("a", 1), ("b", 1), ("c", 2)]
    got, asked = read([1, 2], "t1", rows)
    assert got == rows and len(asked) == 1
    # the same parents under the same token: nothing asked
    got, asked = read([1, 2], "t1", rows)
    assert sorted(got) == rows and asked == []
    # one more parent: only that one is asked for
    got, asked = read([1, 2, 3], "t1", [*rows, ("d", 3)])
    assert sorted(got) == [*rows, ("d", 3)]
    assert [s.params for s in asked] == [[3]]
    assert asked[0].sql == "SELECT t.name, l.source_id FROM links l WHERE l.source_id IN (?)"
    # another token (a commit since): asked again
    got, asked = read([1, 2], "t2", [("z", 1)])
    assert got == [("z", 1)] and len(asked) == 1


def deep_size(value: Any, seen: set[int] | None = None) -> int:
    """The bytes `value` holds, each object counted once."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    total = sys.getsizeof(value)
    if isinstance(value, list | tuple):
        total += sum(deep_size(v, seen) for v in value)
    elif isinstance(value, dict):
        total += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in value.items())
    return total


def uneven_page(text: str, rows: int = 96, every: int = 12) -> list[tuple[Any, ...]]:
    """Rows where each `every`th is tiny and the others hold `text` (a fresh copy each)."""
    return [
        (
            i,
            f"doc{i:020d}",
            "tiny" if i % every == 0 else (text + str(i)),
            None,
            1.5,
            datetime(2026, 1, 1, tzinfo=UTC),
        )
        for i in range(rows)
    ]


LONG = 20_000
TEXTS = {
    "ascii": "lorem ipsum " * (LONG // 12),
    "latin-1": "é" * LONG,
    "two bytes": "ĉ" * LONG,
    "four bytes": "\U0001f600" * LONG,
}


@pytest.mark.parametrize("kind", sorted(TEXTS))
def test_rows_are_weighed_at_no_less_than_they_hold(kind: str) -> None:
    for every in (12, 8, 3, 1):
        page = uneven_page(TEXTS[kind], every=every)
        held = deep_size(page)
        weighed = weigh_rows(page)
        assert held <= weighed <= 1.1 * held + 96 * 400, (every, held, weighed)


def test_other_values_are_weighed_at_no_less_than_they_hold() -> None:
    many = [tuple(f"v{i}-{j}" for j in range(40)) for i in range(25)]
    assert deep_size(many) <= weigh_rows(many) <= 2 * deep_size(many)
    blobs = [(i, b"\x00" * (i * 1000)) for i in range(50)]
    assert deep_size(blobs) <= weigh_rows(blobs) <= 1.1 * deep_size(blobs)
    nested = [(1, ["x" * 5000, {"k": "y" * 5000}])]
    assert deep_size(nested) <= weigh_rows(nested) <= 1.1 * deep_size(nested)


def test_pages_of_uneven_rows_stay_within_the_budget() -> None:
    memo = RowMemo(BUDGET)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(60):
            # each page about 1.7 MB, every 12th row tiny (where a sample of eight looked)
            memo.put_page(("page", n), (96, 0, True), "token", uneven_page(TEXTS["ascii"]), 96, 0)
            assert memo.size <= BUDGET
        gc.collect()
        used = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert 0 < memo.size <= BUDGET
    assert used < 1.25 * BUDGET, used
