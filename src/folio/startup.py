"""Start-up problems as the command line reports them: one line each, and the exit code that
says whose they are. 2: the app's configuration (its files, the values of its environment
variables); 3: what it runs on (a database that cannot be reached, a port in use, a file it
may not read or write). `folio develop` answers 503 with the same line until a file changes."""

from __future__ import annotations

from pathlib import Path

from folio.errors import ConfigError

CONFIGURATION = 2
ENVIRONMENT = 3


class EnvironmentProblem(ConfigError):
    """What the app runs on refuses it (the configuration may be right)."""


def exit_code(problem: ConfigError) -> int:
    return ENVIRONMENT if isinstance(problem, EnvironmentProblem) else CONFIGURATION


def file_problem(exc: OSError, app_dir: Path | None = None) -> EnvironmentProblem:
    """A file or directory of the app that cannot be read or written (named from the app
    directory when it is inside it)."""
    reason = (exc.strerror or str(exc)).lower()
    where = str(exc.filename) if exc.filename is not None else "a file of the app"
    if app_dir is not None and Path(where).is_relative_to(app_dir):
        where = str(Path(where).relative_to(app_dir))
    return EnvironmentProblem(f"{where}: {reason}")
