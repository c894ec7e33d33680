"""`folio import` of an archive with malformed records: an entry whose data is not an
object, or that has no documentId, refuses the archive with its place named and nothing
written (no file stored either); a link whose sides are not objects is skipped and counted,
as any link the app cannot write."""

from __future__ import annotations

import json
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from folio.transfer.importer import TransferError
from tests.api.test_import import (
    ARCHIVE,
    app,  # noqa: F401  (the app fixture)
    listed,
    run_import,
)
from tests.conftest import Api

ARTICLE = "api::article.article"


def _archive_with(tmp_path: Path, stage: str, change: Callable[[dict[str, Any]], None]) -> Path:
    """The sample archive unpacked, its first record of `stage` about an article changed."""
    unpacked = tmp_path / "unpacked"
    with tarfile.open(ARCHIVE) as tar:
        tar.extractall(unpacked, filter="data")
    path = sorted((unpacked / stage).glob("*.jsonl"))[0]
    lines = path.read_bytes().split(b"\n")
    for i, line in enumerate(lines):
        item = json.loads(line) if line.strip() else {}
        about = item.get("left", {}) if stage == "links" else item
        if about.get("type") == ARTICLE:
            change(item)
            lines[i] = json.dumps(item).encode()
            break
    path.write_bytes(b"\n".join(lines))
    return unpacked


def _nothing_written(api: Api, app_dir: Path) -> None:
    assert listed(api, "/api/articles?status=draft") == []
    uploads = app_dir / "public" / "uploads"
    assert not uploads.exists() or list(uploads.iterdir()) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda item: item.update(data="text"), r"api::article\.article 1: its data is not"),
        (lambda item: item.update(data=[1, 2]), r"api::article\.article 1: its data is not"),
        (lambda item: item["data"].pop("documentId"), r"api::article\.article 1: no documentId"),
        (lambda item: item["data"].update(documentId=7), r"api::article\.article 1: no documentId"),
    ],
)
def test_a_malformed_entry_refuses_the_archive(
    app: Api,  # noqa: F811
    app_dir: Path,
    tmp_path: Path,
    change: Callable[[dict[str, Any]], None],
    message: str,
) -> None:
    archive = _archive_with(tmp_path, "entities", change)
    with pytest.raises(TransferError, match=message + ".*nothing was imported"):
        run_import(app, archive)
    _nothing_written(app, app_dir)


@pytest.mark.parametrize("side", ["left", "right"])
def test_a_link_without_an_object_side_is_skipped(
    app: Api,  # noqa: F811
    tmp_path: Path,
    side: str,
) -> None:
    whole = run_import(app, ARCHIVE)
    archive = _archive_with(tmp_path, "links", lambda item: item.update({side: "x"}))
    report = run_import(app, archive, force=True)
    assert report.documents == whole.documents
    assert sum(report.skipped.values()) == sum(whole.skipped.values()) + 1
