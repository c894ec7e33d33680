"""`folio serve --workers N`: N server processes on one listening socket, watched by the
process the command started (the supervisor).

The supervisor binds the socket, starts each worker (a fresh interpreter, which serves the
app with `folio.cli.server.FolioServer` on the inherited socket; the kernel hands each new
connection to one of the workers waiting on it) and starts a worker again when one dies.
On SIGTERM or SIGINT it closes its own copy of the socket (so that once the workers have
closed theirs, new connections are refused rather than queued for no one), passes SIGTERM
to every worker, each of which drains as one server does (server.Shutdown), and waits for
them up to the drain's delay and grace and a margin for the app's own shut-down; a worker
still there then is killed. A second signal is passed on (the workers end their delay).
Its exit status is 0, or STARTUP_FAILURE when a worker could not start the app (every
other one would fail the same way: nothing is restarted). A supervisor killed outright takes
its workers with it (on Linux: they get SIGTERM and drain)."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import logging
import multiprocessing
import os
import signal
import socket
import threading
import time
from multiprocessing.process import BaseProcess
from typing import Any

import uvicorn
from uvicorn.config import STARTUP_FAILURE

log = logging.getLogger("uvicorn.error")

# seconds between two looks at the workers
WATCH_SECONDS = 0.2
# prctl's option: the signal a process gets when its parent dies (linux/prctl.h)
PR_SET_PDEATHSIG = 1
# a worker that dies this soon after its start is not started again before this long
RESTART_PAUSE = 1.0
# seconds past the drain's delay and grace that the workers are waited for (the app's own
# shut-down: webhook deliveries under way, closing the database)
CLOSE_MARGIN = 10.0


def _serve(config: uvicorn.Config, delay: float, sock: socket.socket) -> None:
    """A worker's body (in its own interpreter)."""
    from folio.cli.server import FolioServer

    _stop_with_parent()
    config.configure_logging()
    server = FolioServer(config, delay)
    server.run(sockets=[sock])
    if not server.started:
        raise SystemExit(STARTUP_FAILURE)


def _stop_with_parent() -> None:
    """Asks Linux to send this worker SIGTERM when its supervisor dies (killed: it had no
    chance to stop its workers), so that no orphan keeps serving on the port; elsewhere,
    nothing."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class Workers:
    def __init__(self, config: uvicorn.Config, count: int, delay: float) -> None:
        self.config = config
        self.count = count
        self.delay = delay
        self.stopping = threading.Event()
        self.processes: list[BaseProcess] = []
        self._spawn = multiprocessing.get_context("spawn")

    def _start(self, sock: socket.socket) -> BaseProcess:
        process = self._spawn.Process(
            target=_serve, args=(self.config, self.delay, sock), daemon=False
        )
        process.start()
        return process

    def _stop(self, sig: int, frame: Any) -> None:
        if self.stopping.is_set():
            self._signal()  # a second signal: the workers end their drain's delay at once
        self.stopping.set()

    def _signal(self) -> None:
        for process in self.processes:
            if process.is_alive() and process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGTERM)

    def run(self) -> int:
        sock = self.config.bind_socket()
        previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        status = 0
        try:
            log.info("Started parent process [%d]", os.getpid())
            self.processes = [self._start(sock) for _ in range(self.count)]
            status = self._watch(sock)
        finally:
            sock.close()
            self._end()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return status

    def _watch(self, sock: socket.socket) -> int:
        """Restarts the workers that die until a signal comes; STARTUP_FAILURE when one
        could not start the app."""
        started = {id(p): time.monotonic() for p in self.processes}
        while not self.stopping.wait(WATCH_SECONDS):
            for i, process in enumerate(self.processes):
                if process.is_alive():
                    continue
                process.join()
                if process.exitcode == STARTUP_FAILURE:
                    log.error("worker [%s] could not start the app: stopping", process.pid)
                    return STARTUP_FAILURE
                if self.stopping.is_set():
                    break
                log.warning(
                    "worker [%s] died (status %s): starting another", process.pid, process.exitcode
                )
                if time.monotonic() - started.get(id(process), 0.0) < RESTART_PAUSE:
                    self.stopping.wait(RESTART_PAUSE)
                replacement = self._start(sock)
                started[id(replacement)] = time.monotonic()
                self.processes[i] = replacement
        return 0

    def _end(self) -> None:
        """SIGTERM to every worker, and the wait for them; a worker past it is killed."""
        self._signal()
        grace = self.config.timeout_graceful_shutdown or 0
        wait = self.delay + grace + CLOSE_MARGIN
        deadline = time.monotonic() + wait
        for process in self.processes:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                log.error("worker [%s] did not stop in time: killed", process.pid)
                process.kill()
                process.join()
        log.info("Stopping parent process [%d]", os.getpid())
