"""The HTTP server's settings for `folio serve` and `folio develop`: uvicorn's options
(Folio's protocol and its connection limits, keep-alive, log format) and the process's
open-files limit."""

from __future__ import annotations

import os
from typing import Any

from folio.config import Settings
from folio.logformat import server_log_config
from folio.transport import FolioHttpProtocol, Limits, raise_open_files_limit

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
    }
    try:
        import uvloop  # noqa: F401

        options["loop"] = "uvloop"
    except ImportError:  # pragma: no cover
        pass
    return options
