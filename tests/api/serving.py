"""An app served by a real `folio serve` process, for the end-to-end tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

FOLIO = [sys.executable, "-m", "folio.cli.main"]
# variables of the test run that would change what the served app is
CLEARED = ("DATABASE_URL", "FOLIO_ENV", "NODE_ENV")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(
    app: Path,
    log: Path | None = None,
    env: dict[str, str] | None = None,
    args: list[str] | None = None,
) -> Iterator[str]:
    """`folio serve app [args]` on a free port until the block ends; yields its base URL
    once `/_health` answers. Its output (the banner, a line per request) goes to `log`, or
    to a file beside the app (a pipe nobody reads would fill up and stall the server)."""
    if env is None:
        env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    if log is None:
        log = app.parent / f"{app.name}-server.log"
    base = f"http://127.0.0.1:{free_port()}"
    with ExitStack() as stack:
        out: Any = stack.enter_context(log.open("wb"))
        proc = subprocess.Popen(
            [*FOLIO, "serve", str(app), "--port", base.rsplit(":", 1)[1], *(args or [])],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 20
            while True:
                try:
                    with urllib.request.urlopen(base + "/_health", timeout=2) as r:
                        if r.status == 204:
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    proc.terminate()
                    proc.wait(timeout=10)
                    text = log.read_text()
                    raise AssertionError(f"server did not start: {text}")
                time.sleep(0.05)
            yield base
        finally:
            proc.terminate()
            proc.wait(timeout=10)
