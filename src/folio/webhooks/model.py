"""What a webhook is, and the checks of its fields, shared by `config/webhooks.json` (a
problem stops start-up: ConfigError) and the admin API (a 400 ValidationError)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from folio.content.events import EVENT_NAMES

# the events a webhook may ask for: the default ones, and the reference's
# `entry.draft-discard` (sent when an editor discards a draft's changes; not among the
# defaults, as in the reference)
ALLOWED_EVENTS = (*EVENT_NAMES, "entry.draft-discard")
# the id of a webhook of config/webhooks.json, as the admin API shows it
CONFIG_PREFIX = "config:"

# headers a webhook may not set: the framing of the request, and Folio's own
RESERVED_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "x-folio-signature",
        "x-folio-timestamp",
        "x-folio-event-id",
    }
)
# RFC 9110 token characters (a header's name)
TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
MAX_NAME = 255
MAX_URL = 2048
MAX_HEADERS = 50
MAX_HEADER_VALUE = 4096
MIN_SECRET = 8
MAX_SECRET = 512


@dataclass(frozen=True)
class Webhook:
    """A webhook: where events go (`url`), with which headers, for which `events`.
    `key`: its name for the delivery records and the cursor (`config:<name>` for those of
    config/webhooks.json, the id for the API's), which is also its id in the admin API.
    `secret`: the key of its signature header (None: not signed)."""

    key: str
    name: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    events: tuple[str, ...] = EVENT_NAMES
    enabled: bool = True
    secret: str | None = None
    created_at: str | None = None
    updated_at: str | None = None

    @property
    def from_config(self) -> bool:
        return self.key.startswith(CONFIG_PREFIX)

    def shown(self) -> dict[str, Any]:
        """The webhook as the admin API shows it (the reference's fields, and where it is
        defined); its secret never."""
        return {
            "id": self.key,
            "name": self.name,
            "url": self.url,
            "headers": dict(self.headers),
            "events": list(self.events),
            "isEnabled": self.enabled,
            "source": "config" if self.from_config else "api",
            "signed": self.secret is not None,
        }


# ------------------------------------------------------------------ the checks
# Each returns None, or what is wrong (a phrase after the field's name).


def name_problem(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return "must be a non-empty string"
    if len(value) > MAX_NAME:
        return f"must be at most {MAX_NAME} characters"
    return None


def url_problem(value: Any) -> str | None:
    if not isinstance(value, str) or len(value) > MAX_URL:
        return "must be a valid URL"
    if any(c.isspace() or ord(c) < 32 for c in value):
        return "must be a valid URL"
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        return "must be a valid URL"
    if not parts.scheme or not parts.netloc or not parts.hostname or port == 0:
        return "must be a valid URL"
    if parts.scheme.lower() not in ("http", "https"):
        return f"must be an http:// or https:// URL (got {value!r})"
    return None


def headers_problem(value: Any) -> str | None:
    if not isinstance(value, dict):
        return "must be an object of header names and string values"
    if len(value) > MAX_HEADERS:
        return f"may hold at most {MAX_HEADERS} headers"
    for name, item in value.items():
        if not isinstance(name, str) or not TOKEN.match(name):
            return f"has an invalid header name {name!r}"
        if name.lower() in RESERVED_HEADERS:
            return f"cannot set {name} (Folio sets it)"
        if not isinstance(item, str):
            return f"{name} must be a string (got {item!r})"
        if len(item) > MAX_HEADER_VALUE or any(c in item for c in "\r\n\0"):
            return f"{name} must be at most {MAX_HEADER_VALUE} characters without line breaks"
    return None


def events_problem(value: Any) -> str | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return f"must be a list of events ({', '.join(EVENT_NAMES)})"
    return None


def unknown_event(value: list[str]) -> str | None:
    """The first event of a list that a webhook may not ask for."""
    return next((name for name in value if name not in ALLOWED_EVENTS), None)


def enabled_problem(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"must be true or false (got {value!r})"


def secret_problem(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not MIN_SECRET <= len(value) <= MAX_SECRET:
        return f"must be a string of {MIN_SECRET} to {MAX_SECRET} characters, or null"
    return None


def ordered_events(names: list[str]) -> tuple[str, ...]:
    """The events of a list, once each, in their list's order."""
    return tuple(dict.fromkeys(names))
