"""The README's worked example of lifecycle hooks, run as an app's `src/index.py`: a
document-service middleware that changes parameters, refuses before the write and rolls it
back after, and after-commit subscribers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Api, database_url, failed, make_api

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_example() -> str:
    """The first code block of the README's events section, as an app would save it."""
    text = README.read_text()
    section = text[text.index("## Events and lifecycle hooks") :]
    block = re.search(r"\n((?:    .*\n|\n)+)", section[section.index("src/index.py") :])
    assert block is not None
    lines = block.group(1).splitlines()
    return "\n".join(line[4:] for line in lines) + "\n"


@pytest.fixture
def hooked(backend: str, app_dir: Path) -> Iterator[Api]:
    code = readme_example().replace(
        "print(event.event, event.uid, event.document_id, event.locale, event.entry)",
        "app.seen.append((event.event, event.document_id, event.entry['title']))",
    )
    assert "app.seen.append" in code
    code = code.replace("def register(app):\n", "def register(app):\n    app.seen = []\n", 1)
    (app_dir / "src" / "index.py").write_text(code)
    yield from make_api(app_dir, database_url(backend, app_dir))


def test_the_readme_example_of_lifecycle_hooks(hooked: Api) -> None:
    api = hooked
    # parameters changed before the write
    doc = api.create("articles", {"title": "  Spaced  ", "description": "d"})
    assert doc["title"] == "Spaced"
    # refused before the write
    error = failed(api.post("/api/articles", {"data": {"title": "   "}}))
    assert error["message"] == "A title cannot be blank"
    # refused after the write, inside its transaction: rolled back
    error = failed(api.post("/api/articles", {"data": {"title": "No description"}}))
    assert error["message"] == "Write a description before publishing"
    titles = [d["title"] for d in api.get("/api/articles?status=draft").json()["data"]]
    assert titles == ["Spaced"]
    # a draft may go without one
    draft = api.create("articles", {"title": "Draft"}, "?status=draft")
    r = api.put(f"/api/articles/{draft['documentId']}", {"data": {"title": "Draft 2"}})
    assert failed(r)["message"] == "Write a description before publishing"
    r = api.get(f"/api/articles/{draft['documentId']}?status=draft")
    assert r.json()["data"]["title"] == "Draft"
    # the subscribers saw the committed publications only
    api.client.portal.call(api.folio.events.drain)  # type: ignore[attr-defined]
    seen = api.folio.seen  # type: ignore[attr-defined]
    assert seen == [("entry.publish", doc["documentId"], "Spaced")]
