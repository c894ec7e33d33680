"""The HTTP server of `folio serve` and `folio develop`: uvicorn's options (Folio's protocol
and its connection limits, keep-alive, log format), the process's open-files limit, and the
server itself (`run_server`): uvicorn's, with the graceful shutdown of `Shutdown` (one
process; several are supervised by folio.cli.workers)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from types import FrameType
from typing import Any

import uvicorn
from uvicorn.config import STARTUP_FAILURE

from folio.cli.workers import Workers
from folio.config import Settings
from folio.errors import ConfigError
from folio.logformat import server_log_config
from folio.transport import FolioHttpProtocol, Limits, raise_open_files_limit

log = logging.getLogger("uvicorn.error")

# connections waiting to be accepted (the kernel caps it at net.core.somaxconn)
BACKLOG = 4096


def server_options(
    settings: Settings, host: str, port: int, log_level: str, log_format: str
) -> dict[str, Any]:
    """uvicorn.run's options. The protocol's limits go to the server processes (workers,
    reloads) through the environment."""
    raise_open_files_limit()
    limits = Limits(
        headers=settings.headers_timeout,
        body=settings.body_timeout,
        per_client=settings.max_connections_per_client,
        total=settings.max_connections,
        # behind a reverse proxy every client comes from the proxy's address
        exempt=tuple(settings.trusted_proxies),
    )
    os.environ.update(limits.to_environ())
    shutdown = Shutdown.read(settings)
    # the drain's delay, for FolioServer in every server process
    os.environ[DELAY_ENV] = repr(shutdown.delay)
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "factory": True,
        "log_level": log_level,
        "log_config": server_log_config(log_level, log_format),
        "access_log": False,  # Folio logs each request itself (folio.http.requestlog)
        "server_header": False,
        # X-Forwarded-* are believed only from the configured proxies
        "proxy_headers": bool(settings.trusted_proxies),
        "forwarded_allow_ips": ",".join(settings.trusted_proxies) or None,
        "http": FolioHttpProtocol,
        "timeout_keep_alive": settings.keep_alive_timeout,
        "backlog": BACKLOG,
        # the requests under way have this long to finish once the server stops
        "timeout_graceful_shutdown": shutdown.grace_whole_seconds(),
    }
    try:
        import uvloop  # noqa: F401

        options["loop"] = "uvloop"
    except ImportError:  # pragma: no cover
        pass
    return options


# ------------------------------------------------------------------ shutdown

WHERE = "config/server: shutdown."
DELAY_ENV = "FOLIO_SHUTDOWN_DELAY"
# seconds a stopping server gives the requests under way before it cuts them
GRACE_SECONDS = 30.0


@dataclass(frozen=True)
class Shutdown:
    """`config/server.json` `shutdown`: what the server does on SIGTERM (or SIGINT).

    At once readiness (`/_health/ready`) answers 503 and every answer closes its
    connection; after `delaySeconds` (0 by default: a balancer that reads readiness may
    want a few seconds to notice) the listening socket is closed (new connections are
    refused), event streams are ended, idle connections closed, and the requests under way
    have `graceSeconds` to finish before they are cut; then the app shuts down and the
    process exits 0."""

    grace: float = GRACE_SECONDS
    delay: float = 0.0

    def grace_whole_seconds(self) -> int:
        """The grace as uvicorn takes it."""
        return math.ceil(self.grace)

    @classmethod
    def delay_from_environ(cls) -> float:
        try:
            return max(0.0, float(os.environ.get(DELAY_ENV, "0")))
        except ValueError:
            return 0.0

    @classmethod
    def read(cls, settings: Settings) -> Shutdown:
        server = settings.raw.get("server", {})
        section = server.get("shutdown", {}) if isinstance(server, dict) else {}
        if not isinstance(section, dict):
            raise ConfigError(f"config/server: shutdown must be an object (got {section!r})")
        return cls(
            grace=_seconds(section, "graceSeconds", cls.grace),
            delay=_seconds(section, "delaySeconds", cls.delay),
        )


def _seconds(section: dict[str, Any], key: str, default: float) -> float:
    value = section.get(key, default)
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = float(value)  # from the environment, in a Python config file
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 0 <= value < float("inf")
    ):
        raise ConfigError(f"{WHERE}{key} must be a number of seconds, 0 or more (got {value!r})")
    return float(value)


class FolioServer(uvicorn.Server):
    """uvicorn's server, which tells the app when it starts to stop (the function the app
    left in its lifespan's state under `folio.drain`), waits `delay` seconds before it
    closes its socket (a second signal ends the wait), and exits normally after a signal
    (uvicorn raises the signal again once it has shut down, which ends the process with
    the signal's status)."""

    def __init__(self, config: uvicorn.Config, delay: float = 0.0) -> None:
        super().__init__(config)
        self.delay = delay
        self.lifespan: Any = None
        self._hurry = False  # a second signal: the delay ends at once

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.should_exit:
            self._hurry = True
        super().handle_exit(sig, frame)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in STOP_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        drain = self.lifespan.state.get(DRAIN) if self.lifespan is not None else None
        if callable(drain):
            drain()
        if self.delay > 0:
            log.info("draining: new connections are taken for %.3g s more", self.delay)
            deadline = time.monotonic() + self.delay
            # a second signal cuts the wait short
            while time.monotonic() < deadline and not self._hurry:
                await asyncio.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
        await super().shutdown(sockets)


# the key of the app's lifespan state holding its drain function (folio.http.app.DRAIN;
# written here too: the command line does not import the HTTP front-end)
DRAIN = "folio.drain"
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def run_server(app: str, options: dict[str, Any]) -> int:
    """Serves `app` (an import string) with uvicorn.run's `options` (server_options', with
    `workers` or `reload`); the exit status: 0 after a signal, STARTUP_FAILURE when the app
    did not start. `folio develop` (reload) is uvicorn's own reloader."""
    options = dict(options)
    workers = int(options.pop("workers", 1) or 1)
    if options.get("reload"):
        uvicorn.run(app, **options)
        return 0
    config = uvicorn.Config(app, **options)
    delay = Shutdown.delay_from_environ()
    if workers > 1:
        return Workers(config, workers, delay).run()
    server = FolioServer(config, delay)
    server.run()
    return 0 if server.started else STARTUP_FAILURE
