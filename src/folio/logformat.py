"""The log's line formats, one for every line a server process writes on stderr: Folio's
own messages, the request log's lines (folio.http.requestlog) and the HTTP server's
(uvicorn's start-up, shutdown, warnings and errors), as plain text or one JSON object per
line (`time`, `level`, `logger`, `message`, and `error` with a traceback).

Plain: `2026-01-02T03:04:05.678Z INFO: folio.mail: the message` (the request log's lines:
`<time> GET /path 200 1.23 ms <request id>`)."""

from __future__ import annotations

import logging
import time
from typing import Any

import orjson

FORMATS = ("plain", "json")

_second: list[Any] = [-1, ""]  # the last second formatted, and its text


def timestamp(now: float) -> str:
    """`now` (seconds since the epoch) as UTC ISO 8601 with milliseconds."""
    seconds = int(now)
    if seconds != _second[0]:  # formatted once per second, not once per line
        _second[0], _second[1] = seconds, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    return f"{_second[1]}.{int((now - seconds) * 1000):03d}Z"


def _source(record: logging.LogRecord) -> str:
    # uvicorn writes even its start-up lines as `uvicorn.error`
    return "uvicorn" if record.name.startswith("uvicorn") else record.name


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": timestamp(record.created),
            "level": record.levelname.lower(),
            "logger": _source(record),
            "message": record.getMessage().rstrip("\n"),
        }
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["error"] = record.exc_text
        return orjson.dumps(entry).decode()


class PlainFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = (
            f"{timestamp(record.created)} {record.levelname}: {_source(record)}: "
            f"{record.getMessage().rstrip(chr(10))}"
        )
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def formatter(fmt: str) -> logging.Formatter:
    if fmt not in FORMATS:
        raise ValueError(f"unknown log format {fmt!r}: use plain or json")
    return JsonFormatter() if fmt == "json" else PlainFormatter()


def line(fmt: str, message: str, level: str = "info", logger: str = "folio") -> str:
    """One line of the log in `fmt`, for what is written before logging is set up (the
    banner)."""
    number = logging.getLevelName(level.upper())
    record = logging.LogRecord(logger, number, "", 0, message, (), None)
    return formatter(fmt).format(record)


def server_log_config(level: str, fmt: str) -> dict[str, Any]:
    """uvicorn's `log_config`: its lines, and those of any other library (at warning and
    above), in `fmt` on stderr. Applied in each server process (workers, reloads)."""
    handler = {
        "class": "logging.StreamHandler",
        "formatter": "folio",
        "stream": "ext://sys.stderr",
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "folio": {"()": f"folio.logformat.{'Json' if fmt == 'json' else 'Plain'}Formatter"}
        },
        "handlers": {"folio": handler},
        "loggers": {
            "uvicorn": {"handlers": ["folio"], "level": "INFO", "propagate": False},
            "uvicorn.error": {"level": "INFO"},
            "uvicorn.access": {"handlers": [], "level": "INFO", "propagate": False},
        },
        "root": {"handlers": ["folio"], "level": "WARNING"},
    }


def configure_logging(level: str, fmt: str = "plain") -> None:
    """Folio's own log (`folio.*`: mail written by the default sender, errors) on stderr,
    at `level`, in `fmt`."""
    folio_log = logging.getLogger("folio")
    for handler in [h for h in folio_log.handlers if getattr(h, "folio", False)]:
        folio_log.removeHandler(handler)
    handler = logging.StreamHandler()
    handler.setFormatter(formatter(fmt))
    handler.folio = True  # type: ignore[attr-defined]
    folio_log.addHandler(handler)
    folio_log.propagate = False  # the root's handler (server_log_config) would write it again
    # Python's warnings too, through the root's handler, instead of raw lines on stderr
    logging.captureWarnings(True)
    folio_log.setLevel("DEBUG" if level == "trace" else level.upper())
