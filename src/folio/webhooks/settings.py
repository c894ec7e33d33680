"""The webhooks' settings: the webhooks of `config/webhooks.json` (or `.py`, whose
`config(env)` can read secrets from the environment), and how they are delivered, from
`config/server.json` `webhooks` (`defaultHeaders`, as the reference reads it, and Folio's
own delivery settings). A problem stops start-up with one line naming the file and key."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from folio.config import Settings, whole_number
from folio.content.events import EVENT_NAMES
from folio.errors import ConfigError
from folio.webhooks.model import (
    CONFIG_PREFIX,
    Webhook,
    enabled_problem,
    events_problem,
    headers_problem,
    name_problem,
    ordered_events,
    secret_problem,
    unknown_event,
    url_problem,
)


@dataclass(frozen=True)
class DeliverySettings:
    """`server.webhooks` in config/server.json (times in seconds)."""

    # headers of every delivery (a webhook's own headers win)
    default_headers: dict[str, str] = field(default_factory=dict)
    # how long one attempt may take, connection to last byte of the answer
    timeout: float = 10.0
    # attempts at one event before it is given up (and listed as failed)
    max_attempts: int = 10
    # the wait before the second attempt; it doubles for each further one, up to
    # `max_backoff`, give or take a fifth (jitter)
    backoff: float = 5.0
    max_backoff: float = 600.0
    # how often the worker looks at the outbox for what other processes committed
    poll_interval: float = 1.0
    # events and delivery records older than this are pruned (events still owed to an
    # enabled webhook are kept)
    retention_days: float = 7.0


# server.json `webhooks` keys of numbers -> (attribute, the least value)
SECONDS = {
    "timeout": ("timeout", 0.01),
    "backoff": ("backoff", 0.001),
    "maxBackoff": ("max_backoff", 0.001),
    "pollInterval": ("poll_interval", 0.01),
    "retentionDays": ("retention_days", 0.01),
}


def _number(section: dict[str, Any], key: str, default: float, least: float, where: str) -> float:
    value = section.get(key, default)
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = float(value)  # from the environment, in a Python config file
    if isinstance(value, bool) or not isinstance(value, int | float) or value < least:
        raise ConfigError(f"{where}{key} must be a number of at least {least} (got {value!r})")
    return float(value)


def delivery_settings(server: dict[str, Any]) -> DeliverySettings:
    section = server.get("webhooks", {})
    where = "config/server: webhooks."
    if section is None:
        return DeliverySettings()
    if not isinstance(section, dict):
        raise ConfigError(f"config/server: webhooks must be an object (got {section!r})")
    headers = section.get("defaultHeaders", {})
    problem = headers_problem(headers)
    if problem:
        raise ConfigError(f"{where}defaultHeaders {problem}")
    values: dict[str, Any] = {"default_headers": dict(headers)}
    defaults = DeliverySettings()
    for key, (name, least) in SECONDS.items():
        values[name] = _number(section, key, getattr(defaults, name), least, where)
    values["max_attempts"] = whole_number(section, "maxAttempts", defaults.max_attempts, where)
    settings = DeliverySettings(**values)
    if settings.max_backoff < settings.backoff:
        raise ConfigError(
            f"{where}maxBackoff must be at least backoff ({settings.max_backoff} < "
            f"{settings.backoff})"
        )
    return settings


def config_webhooks(raw: dict[str, Any], where: str) -> list[Webhook]:
    """The webhooks of config/webhooks.json: `{"webhooks": [{name, url, headers, events,
    enabled, secret}]}` (`events` left out: every event)."""
    listed = raw.get("webhooks", [])
    if not isinstance(listed, list):
        raise ConfigError(f"{where}: webhooks must be a list of webhooks")
    out: list[Webhook] = []
    names: set[str] = set()
    for i, item in enumerate(listed):
        at = f"{where}: webhooks[{i}]"
        if not isinstance(item, dict):
            raise ConfigError(f"{at} must be an object with a name and a url")
        for key in ("name", "url"):
            if key not in item:
                raise ConfigError(f"{at}.{key} is required")
        checks = (
            ("name", name_problem),
            ("url", url_problem),
            ("headers", headers_problem),
            ("events", events_problem),
            ("enabled", enabled_problem),
            ("secret", secret_problem),
        )
        for key, check in checks:
            if key in item:
                problem = check(item[key])
                if problem:
                    raise ConfigError(f"{at}.{key} {problem}")
        unknown = unknown_event(item.get("events", []))
        if unknown is not None:
            raise ConfigError(
                f"{at}.events has an unknown event {unknown!r} (known: {', '.join(EVENT_NAMES)})"
            )
        name = item["name"].strip()
        if name in names:
            raise ConfigError(f"{at}.name {name!r} is used by an earlier webhook")
        names.add(name)
        events = item.get("events")
        out.append(
            Webhook(
                key=CONFIG_PREFIX + name,
                name=name,
                url=item["url"],
                headers=dict(item.get("headers", {})),
                events=ordered_events(events) if events is not None else EVENT_NAMES,
                enabled=item.get("enabled", True),
                secret=item.get("secret"),
            )
        )
    return out


def load(settings: Settings) -> tuple[DeliverySettings, list[Webhook]]:
    """The delivery settings and the configured webhooks of an app's settings."""
    delivery = delivery_settings(settings.raw.get("server", {}))
    config_dir = Path(settings.app_dir) / "config"
    name = "webhooks.py" if (config_dir / "webhooks.py").is_file() else "webhooks.json"
    hooks = config_webhooks(settings.raw.get("webhooks", {}), f"config/{name}")
    return delivery, hooks
