"""The populate memo stays within its byte budget, counting what each remembered entry
keeps: its rows, and its own copy of the statement's text and parameters."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from typing import Any

from folio.content.sql.load import KEY_PARAMS, KEYS, Populator, ReadContext, RowMemo
from folio.schema.loader import load_registry
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
    populator = Populator(load_registry(FIXTURES / "blog"), "sqlite")
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
    populator = Populator(load_registry(FIXTURES / "blog"), "sqlite")
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
