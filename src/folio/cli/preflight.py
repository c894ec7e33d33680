"""What `folio serve` checks before it starts the server, so that a problem is one line and
an exit code (folio.startup) rather than a trace from a server process: the whole app loads
(models, configuration, permissions, route files, `src/index.py`) and its HTTP front-end is
built (middlewares' settings, the GraphQL schema and its extensions), the address can be
listened on, and the database opens and takes the models' schema (the app's `bootstrap`
runs in the server, not here). `folio develop` checks only the address: it answers 503
with the problem until a file is fixed."""

from __future__ import annotations

import asyncio
import errno
import socket
from pathlib import Path

from uvicorn.importer import import_from_string

from folio.app import Folio
from folio.errors import ConfigError
from folio.startup import EnvironmentProblem

# the server's app factory, named as `folio serve` hands it to the server (the command line
# does not import the HTTP front-end): `create_app(app_dir)`, whose `state.folio` is the app
ASGI_FACTORY = "folio.http.app:create_app"


def check_address(host: str, port: int) -> None:
    """Binds the address the server will listen on once (as the server binds it, reusing
    a port in TIME_WAIT), and lets it go."""
    where = f"cannot listen on {host}:{port}"
    if not 1 <= port <= 65535:
        raise ConfigError(f"{where}: a port is a number from 1 to 65535")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror:
        raise ConfigError(f"{where}: unknown host {host!r}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise EnvironmentProblem(
                    f"{where}: the port is in use (another server?); choose another with "
                    "--port or PORT"
                ) from None
            if exc.errno == errno.EACCES:
                raise EnvironmentProblem(
                    f"{where}: permission denied (ports below 1024 need privileges)"
                ) from None
            if exc.errno == errno.EADDRNOTAVAIL:
                raise ConfigError(f"{where}: not an address of this machine") from None
            raise EnvironmentProblem(f"{where}: {exc.strerror or exc}") from None


async def _open(folio: Folio) -> None:
    try:
        await folio.start(bootstrap=False)
    finally:
        await folio.close()


def preflight(app_dir: Path, host: str, port: int, whole_app: bool = True) -> None:
    """Raises ConfigError (EnvironmentProblem for what the app runs on) for the first
    problem found; `whole_app` False checks the address only."""
    folio: Folio | None = None
    if whole_app:
        folio = import_from_string(ASGI_FACTORY)(app_dir).state.folio
    check_address(host, port)
    if folio is not None:
        asyncio.run(_open(folio))
