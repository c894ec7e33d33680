"""Settings of access control, read from `config/plugins` (key `users-permissions`),
`config/admin` and the environment, and the secrets they need.

A secret that is not configured (`JWT_SECRET`, `API_TOKEN_SALT`) is generated once and kept
in `.tmp/secrets.json` of the app, so development needs no setup; production sets them in
the environment (every worker and every machine must share them)."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from folio.config import Settings
from folio.errors import ConfigError

log = logging.getLogger("folio.auth")

DURATION_RE = re.compile(r"^\s*(\d+)\s*(ms|s|m|h|d|w|y)?\s*$")
UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31557600}


def parse_duration(value: Any, what: str) -> float:
    """Seconds from a number of seconds or a text like `30d`, `12h`, `15m`."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    if isinstance(value, str):
        match = DURATION_RE.match(value)
        if match and int(match.group(1)) > 0:
            return int(match.group(1)) * UNITS[match.group(2) or "s"]
    raise ConfigError(f"{what}: expected a positive duration such as 30d, 12h or 3600")


@dataclass
class RateLimit:
    enabled: bool = True
    interval: float = 60.0  # seconds
    max: int = 10
    # windows kept at most (memory limiter: about 250 bytes each)
    max_entries: int = 100_000


@dataclass
class AuthSettings:
    jwt_secret: str = ""
    jwt_expires_in: float = 30 * 86400.0
    token_salt: str = ""
    admin_keys: tuple[str, ...] = ()
    default_role: str = "authenticated"
    email_confirmation: bool = False
    email_confirmation_redirect: str = ""
    reset_password_url: str = ""
    register_allowed_fields: tuple[str, ...] = ()
    ratelimit: RateLimit = field(default_factory=RateLimit)
    cache_seconds: float = 5.0


def _section(raw: dict[str, Any], *keys: str) -> dict[str, Any]:
    node: Any = raw
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else {}


GENERATED = ("JWT_SECRET", "API_TOKEN_SALT")


def _read_secrets(path: Path) -> dict[str, Any]:
    try:
        stored = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return stored if isinstance(stored, dict) else {}


def _stored_secret(app_dir: Path, name: str) -> str:
    """A generated secret kept in `.tmp/secrets.json`. The file is created once with every
    generated secret, by an atomic link, so workers starting together agree on them."""
    path = app_dir / ".tmp" / "secrets.json"
    stored = _read_secrets(path)
    if isinstance(stored.get(name), str):
        return str(stored[name])
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = {key: secrets.token_hex(32) for key in GENERATED}
    fresh.update(stored)
    fresh.setdefault(name, secrets.token_hex(32))
    temp = path.with_suffix(f".{os.getpid()}.tmp")
    temp.write_bytes(orjson.dumps(fresh, option=orjson.OPT_INDENT_2))
    os.chmod(temp, 0o600)
    try:
        if stored:
            os.replace(temp, path)
        else:
            with contextlib.suppress(FileExistsError):  # another worker created it first
                os.link(temp, path)
    finally:
        temp.unlink(missing_ok=True)
    value = _read_secrets(path).get(name)
    if not isinstance(value, str):
        raise ConfigError(f"{path}: cannot keep the generated {name}")
    log.warning("%s is not configured: using the one generated in %s", name, path)
    return value


def load_auth_settings(settings: Settings) -> AuthSettings:
    raw = settings.raw
    up = _section(raw, "plugins", "users-permissions", "config")
    admin = raw.get("admin", {})
    s = AuthSettings()
    jwt = _section(up, "jwt")
    s.jwt_secret = str(os.environ.get("JWT_SECRET") or up.get("jwtSecret") or "")
    if not s.jwt_secret:
        s.jwt_secret = _stored_secret(settings.app_dir, "JWT_SECRET")
    if "expiresIn" in jwt:
        s.jwt_expires_in = parse_duration(jwt["expiresIn"], "users-permissions jwt.expiresIn")
    salt = _section(admin, "apiToken").get("salt")
    s.token_salt = str(os.environ.get("API_TOKEN_SALT") or salt or "")
    if not s.token_salt:
        s.token_salt = _stored_secret(settings.app_dir, "API_TOKEN_SALT")
    keys = _section(admin, "auth").get("keys")
    listed = [str(k) for k in keys] if isinstance(keys, list) else []
    if os.environ.get("ADMIN_API_KEY"):
        listed.append(os.environ["ADMIN_API_KEY"])
    s.admin_keys = tuple(k for k in listed if k)
    if isinstance(up.get("defaultRole"), str):
        s.default_role = up["defaultRole"]
    s.email_confirmation = bool(up.get("emailConfirmation", False))
    s.email_confirmation_redirect = str(up.get("emailConfirmationRedirection") or "")
    s.reset_password_url = str(up.get("resetPasswordUrl") or "")
    fields = _section(up, "register").get("allowedFields")
    if isinstance(fields, list):
        s.register_allowed_fields = tuple(str(f) for f in fields)
    limit = up.get("ratelimit")
    if isinstance(limit, dict):
        s.ratelimit.enabled = bool(limit.get("enabled", True))
        if "interval" in limit:
            interval = limit["interval"]
            if isinstance(interval, dict):  # the reference's {min: 5} form
                interval = sum(
                    float(v) * {"ms": 0.001, "sec": 1, "min": 60, "hour": 3600}.get(k, 0)
                    for k, v in interval.items()
                    if isinstance(v, int | float)
                )
            elif isinstance(interval, int | float):
                interval = float(interval) / 1000.0  # milliseconds, as the reference
            s.ratelimit.interval = parse_duration(interval, "users-permissions ratelimit.interval")
        if isinstance(limit.get("max"), int):
            s.ratelimit.max = int(limit["max"])
        entries = limit.get("maxEntries")
        if entries is not None:
            if not isinstance(entries, int) or isinstance(entries, bool) or entries < 1:
                raise ConfigError("users-permissions ratelimit.maxEntries: a positive integer")
            s.ratelimit.max_entries = entries
    if isinstance(up.get("cacheSeconds"), int | float):
        s.cache_seconds = float(up["cacheSeconds"])
    return s
