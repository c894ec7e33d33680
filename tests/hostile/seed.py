"""The suite's content: an API token made with `folio token create`, then categories and
1,100 articles created through the API in parallel requests."""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .server import CLEARED, FOLIO

ARTICLES = 1100
LARGE_CATEGORY = 400  # articles of the first category
MEMO_ROWS = 96  # the read-memo case's page: rows with views MEMO_VIEWS + 0..95
MEMO_VIEWS = 100_000
MEMO_BODY = 100_000  # bytes of every row of that page but each 12th
CATEGORIES = ["Large", "Arts", "Books", "Cities", "Design", "Energy", "Food"]


def create_token(app: Path, database_url: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    if database_url:
        env["DATABASE_URL"] = database_url
    done = subprocess.run(
        [
            FOLIO,
            "token",
            "create",
            "--name",
            "hostile-seed",
            "--type",
            "full-access",
            "--app",
            str(app),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return done.stdout.strip().splitlines()[-1].strip()


def _post(base: str, token: str, path: str, data: dict[str, Any]) -> dict[str, Any]:
    body = json.dumps({"data": data}).encode()
    request = urllib.request.Request(
        base + path,
        body,
        {"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    for attempt in range(5):
        try:
            with urllib.request.urlopen(request, timeout=120) as r:
                answer: dict[str, Any] = json.load(r)["data"]
                return answer
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"seeding {path}: {e.code} {e.read()[:500]!r}") from None
        except ConnectionError:
            if attempt == 4:
                raise
            time.sleep(0.5)
    raise AssertionError("unreachable")


def article(i: int, category: str) -> dict[str, Any]:
    """Article i: the memo case's rows are the last MEMO_ROWS, with views MEMO_VIEWS + r and
    a 100 KB body but for each 12th row."""
    data: dict[str, Any] = {"title": f"Article {i:04d}", "views": i, "category": category}
    r = i - (ARTICLES - MEMO_ROWS)
    if r >= 0:
        data["views"] = MEMO_VIEWS + r
        data["body"] = (
            "tiny" if r % 12 == 0 else ("lorem ipsum " * (MEMO_BODY // 12 + 1))[:MEMO_BODY]
        )
    return data


def seed(base: str, token: str, progress: Callable[[str], None]) -> None:
    """Seven categories, the first ("Large") with 400 articles created first (the lowest
    ids), the other 700 spread over the others; in parallel requests."""
    started = time.monotonic()
    docs = [_post(base, token, "/api/categories", {"name": n})["documentId"] for n in CATEGORIES]

    def one(i: int) -> None:
        cat = docs[0] if i < LARGE_CATEGORY else docs[1 + i % (len(docs) - 1)]
        _post(base, token, "/api/articles", article(i, cat))

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(one, range(LARGE_CATEGORY)))
        list(pool.map(one, range(LARGE_CATEGORY, ARTICLES)))
    progress(f"seeded {ARTICLES} articles in {time.monotonic() - started:.1f}s")
