"""The tests' webhook receiver (a real HTTP server process, webhook_receiver.py) and
waiting on what it got."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.api.serving import free_port

RECEIVER = Path(__file__).with_name("webhook_receiver.py")


class Receiver:
    def __init__(self, base: str, log: Path) -> None:
        self.base = base
        self.log = log

    def url(self, path: str = "/hook") -> str:
        return self.base + path

    def requests(self, path: str | None = None) -> list[dict[str, Any]]:
        """What it got so far (whole lines), of one path when given."""
        if not self.log.exists():
            return []
        out = []
        for line in self.log.read_text().splitlines():
            try:
                item = json.loads(line)
            except ValueError:
                continue  # a line being written
            if path is None or item["path"] == path:
                item["json"] = json.loads(item["body"]) if item["body"] else None
                out.append(item)
        return out

    def wait_for(
        self,
        done: Callable[[list[dict[str, Any]]], bool],
        path: str | None = None,
        timeout: float = 30.0,
    ) -> list[dict[str, Any]]:
        """The requests, once `done(requests)` holds (AssertionError after `timeout`)."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.requests(path)
            if done(got):
                return got
            if time.monotonic() > deadline:
                raise AssertionError(f"the receiver did not get what was expected: {got!r}")
            time.sleep(0.05)

    def wait_count(self, n: int, path: str | None = None, timeout: float = 30.0) -> list[Any]:
        return self.wait_for(lambda got: len(got) >= n, path, timeout)

    def control(self, path: str = "*", **behaviour: Any) -> None:
        """How it answers requests to `path` from now on: fail=N (the next N answer
        failStatus, 500 by default), status=code, hang=seconds."""
        body = json.dumps({"path": path, **behaviour}).encode()
        request = urllib.request.Request(self.base + "/_control", body, method="POST")
        with urllib.request.urlopen(request, timeout=10) as r:
            assert r.status == 200


@contextmanager
def receiver(directory: Path) -> Iterator[Receiver]:
    """A receiver process on a free port, until the block ends."""
    port = free_port()
    log = directory / f"received-{port}.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(RECEIVER), "--port", str(port), "--log", str(log)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(base + "/_health", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("the webhook receiver did not start") from None
                time.sleep(0.05)
        yield Receiver(base, log)
    finally:
        proc.kill()
        proc.wait(timeout=10)
