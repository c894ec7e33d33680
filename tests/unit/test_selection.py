"""Rows to documents: the compiled conversion of a selection."""

from __future__ import annotations

from folio.content.sql.select import Selection


def test_documents_apply_keys_and_converters() -> None:
    sel = Selection("", ("id", "it's", "flag"), ((2, lambda v: None if v is None else bool(v)),))
    rows = [(1, "a", 1, "extra"), (2, "b", None, "extra")]
    assert sel.documents(rows) == [
        {"id": 1, "it's": "a", "flag": True},
        {"id": 2, "it's": "b", "flag": None},
    ]
    assert sel.documents([]) == []


def test_grouped_keys_on_the_last_column_in_row_order() -> None:
    sel = Selection("", ("id", "name"), ())
    rows = [(3, "c", "p1"), (1, "a", "p2"), (2, "b", "p1")]
    assert sel.grouped(rows) == {
        "p1": [{"id": 3, "name": "c"}, {"id": 2, "name": "b"}],
        "p2": [{"id": 1, "name": "a"}],
    }
    assert sel.grouped([]) == {}
