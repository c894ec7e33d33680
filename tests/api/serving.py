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
def serving(app: Path, log: Path | None = None, env: dict[str, str] | None = None) -> Iterator[str]:
    """`folio serve app` on a free port until the block ends; yields its base URL once
    `/_health` answers. Its output goes to `log` when given (else it is kept for the
    message of a server that does not start)."""
    if env is None:
        env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    base = f"http://127.0.0.1:{free_port()}"
    with ExitStack() as stack:
        out: Any = stack.enter_context(log.open("wb")) if log else subprocess.PIPE
        proc = subprocess.Popen(
            [*FOLIO, "serve", str(app), "--port", base.rsplit(":", 1)[1]],
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
                    text = log.read_text() if log else proc.stdout.read().decode()  # type: ignore[union-attr]
                    raise AssertionError(f"server did not start: {text}")
                time.sleep(0.05)
            yield base
        finally:
            proc.terminate()
            proc.wait(timeout=10)
