"""Start-up problems as the command line reports them: one line each, and the exit code that
says whose they are. 2: the app's configuration (its files, the values of its environment
variables); 3: what it runs on (a database that cannot be reached, a port in use, a file it
may not read or write). `folio develop` answers 503 with the same line until a file changes.
A misspelt name (a model's key, a configuration key, an action, a policy) is told with the
nearest valid one."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

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


def nearest(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to a misspelt one, when one is close (`requird` ->
    `required`)."""
    found = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    return found[0] if found else None


def unknown_keys(given: Any, known: frozenset[str]) -> list[str]:
    """Messages for the keys of `given` that are not in `known`, each with the nearest
    known key when one is close."""
    if not isinstance(given, dict):
        return []
    out = []
    for key in given:
        if key in known:
            continue
        near = nearest(str(key), known)
        hint = f"; did you mean `{near}`?" if near else ""
        out.append(f"unknown key `{key}`{hint}")
    return out
