"""An app served by a real `folio serve` process, for the end-to-end tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
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
    with ExitStack() as stack:
        out: Any = stack.enter_context(log.open("wb"))
        for attempt in range(3):
            base = f"http://127.0.0.1:{free_port()}"
            proc = subprocess.Popen(
                [*FOLIO, "serve", str(app), "--port", base.rsplit(":", 1)[1], *(args or [])],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
            started = _started(base, proc)
            if started:
                break
            proc.terminate()
            proc.wait(timeout=10)
            if started is False or attempt == 2:
                raise AssertionError(f"server did not start: {log.read_text()}")
        try:
            yield base
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def _started(base: str, proc: subprocess.Popen[bytes], seconds: float = 20) -> bool | None:
    """True once the server at `base` answers `/_health` from this process; False once
    its process has ended or `seconds` have passed; None when another process answers on
    its port (it took the port chosen meanwhile, so this one cannot listen there)."""
    port = int(base.rsplit(":", 1)[1])
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(base + "/_health", timeout=2) as r:
                if r.status == 204:
                    return True if listens(proc.pid, port) else None
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def listens(pid: int, port: int) -> bool:
    """Whether process `pid` holds the socket that listens on TCP `port`."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{fields[9]}]")
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") in inodes:
                return True
        except OSError:
            continue
    return False


class Output:
    """A server process's stdout and stderr lines, as they come (read through pipes, so
    that nothing the process does to its files' limits touches them)."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self._threads = [
            threading.Thread(target=self._read, args=(proc.stdout, self.stdout), daemon=True),
            threading.Thread(target=self._read, args=(proc.stderr, self.stderr), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    @staticmethod
    def _read(stream: Any, lines: list[str]) -> None:
        for raw in stream:
            lines.append(raw.decode("utf-8", "replace").rstrip("\n"))

    def join(self) -> None:
        for thread in self._threads:
            thread.join(timeout=10)

    def wait_for(self, needle: str, timeout: float = 10) -> list[str]:
        """The stderr lines holding `needle`, once there is one (or the time is up)."""
        deadline = time.monotonic() + timeout
        while True:
            found = [line for line in self.stderr if needle in line]
            if found or time.monotonic() > deadline:
                return found
            time.sleep(0.05)


@contextmanager
def piped_server(
    app: Path, env: dict[str, str] | None = None, args: list[str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes], Output]]:
    """`folio serve app [args]` on a free port with its output read through pipes; yields
    its base URL, the process and its output once `/_health` answers. The process is
    stopped (SIGTERM, a clean shutdown) when the block ends, and its output read to the
    end."""
    if env is None:
        env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    for attempt in range(3):
        base = f"http://127.0.0.1:{free_port()}"
        proc = subprocess.Popen(
            [*FOLIO, "serve", str(app), "--port", base.rsplit(":", 1)[1], *(args or [])],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        output = Output(proc)
        started = _started(base, proc)
        if started:
            break
        proc.terminate()
        proc.wait(timeout=10)
        output.join()
        if started is False or attempt == 2:
            raise AssertionError("server did not start: " + "\n".join(output.stderr))
    try:
        yield base, proc, output
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        output.join()
