"""Security headers on every answer, as the reference's security middleware sets them by
default (a content security policy for the API, no MIME sniffing, same-origin framing, no
referrer, HSTS, ...), configured as the reference configures them: the `strapi::security`
entry of `config/middlewares.json` with helmet's option names, or `{"security": {...}}`;
`false` for the whole entry or for one option turns it off.

    {"name": "strapi::security", "config": {
        "contentSecurityPolicy": {"directives": {"img-src": ["'self'", "data:", "cdn.example"]}},
        "frameguard": {"action": "deny"}, "hsts": false}}

A directive set to null is dropped. An answer that brings its own content security policy
(the GraphQL sandbox's pages) keeps it."""

from __future__ import annotations

from typing import Any

from folio.errors import ConfigError

SECURITY_NAMES = ("strapi::security", "global::security", "security")

CSP_DEFAULTS: dict[str, list[str]] = {
    "connect-src": ["'self'", "https:"],
    "img-src": ["'self'", "data:", "blob:"],
    "media-src": ["'self'", "data:", "blob:"],
    "default-src": ["'self'"],
    "base-uri": ["'self'"],
    "font-src": ["'self'", "https:", "data:"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'self'"],
    "object-src": ["'none'"],
    "script-src": ["'self'"],
    "script-src-attr": ["'none'"],
    "style-src": ["'self'", "https:", "'unsafe-inline'"],
}

FRAME_ACTIONS = {"sameorigin": "SAMEORIGIN", "deny": "DENY"}


def _option(config: dict[str, Any], key: str) -> dict[str, Any] | None:
    """An option's settings: {} for the defaults, None when turned off."""
    value = config.get(key, True)
    if value is False:
        return None
    if value is True or value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"config/middlewares: security.{key} must be an object or false")
    return value


def _csp(option: dict[str, Any]) -> bytes:
    directives: dict[str, list[str]] = (
        dict(CSP_DEFAULTS) if option.get("useDefaults", True) is not False else {}
    )
    given = option.get("directives", {})
    if not isinstance(given, dict):
        raise ConfigError("config/middlewares: contentSecurityPolicy.directives must be an object")
    for name, value in given.items():
        key = "".join("-" + c.lower() if c.isupper() else c for c in str(name))
        if value is None:
            directives.pop(key, None)
        elif isinstance(value, str):
            directives[key] = [value]
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            directives[key] = list(value)
        else:
            raise ConfigError(
                f"config/middlewares: contentSecurityPolicy directive {name} must be a list of "
                "strings, a string or null"
            )
    return ";".join(f"{k} {' '.join(v)}".strip() for k, v in directives.items()).encode()


def security_headers(raw: dict[str, Any]) -> list[tuple[bytes, bytes]]:
    """The headers every answer carries, from the middlewares configuration."""
    config: Any = None
    for entry in raw.get("stack", []):
        if isinstance(entry, dict) and entry.get("name") in SECURITY_NAMES:
            config = entry.get("config", {})
        elif entry in SECURITY_NAMES:
            config = {}
    if config is None and "security" in raw:
        config = raw["security"]
    if config is False:
        return []
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise ConfigError("config/middlewares: the security config must be an object or false")
    out: list[tuple[bytes, bytes]] = []
    csp = _option(config, "contentSecurityPolicy")
    if csp is not None:
        out.append((b"content-security-policy", _csp(csp)))
    referrer = _option(config, "referrerPolicy")
    if referrer is not None:
        policy = referrer.get("policy", "no-referrer")
        text = ",".join(policy) if isinstance(policy, list) else str(policy)
        out.append((b"referrer-policy", text.encode()))
    hsts = _option(config, "hsts")
    if hsts is not None:
        max_age = hsts.get("maxAge", 31536000)
        if not isinstance(max_age, int) or isinstance(max_age, bool) or max_age < 0:
            raise ConfigError("config/middlewares: security.hsts.maxAge must be seconds")
        text = f"max-age={max_age}"
        if hsts.get("includeSubDomains", True):
            text += "; includeSubDomains"
        if hsts.get("preload", False):
            text += "; preload"
        out.append((b"strict-transport-security", text.encode()))
    if _option(config, "noSniff") is not None:
        out.append((b"x-content-type-options", b"nosniff"))
    dns = _option(config, "dnsPrefetchControl")
    if dns is not None:
        out.append((b"x-dns-prefetch-control", b"on" if dns.get("allow") else b"off"))
    if _option(config, "ieNoOpen") is not None:
        out.append((b"x-download-options", b"noopen"))
    frame = _option(config, "frameguard")
    if frame is not None:
        action = str(frame.get("action", "sameorigin")).lower()
        if action not in FRAME_ACTIONS:
            raise ConfigError(
                "config/middlewares: security.frameguard.action is sameorigin or deny"
            )
        out.append((b"x-frame-options", FRAME_ACTIONS[action].encode()))
    cross = _option(config, "permittedCrossDomainPolicies")
    if cross is not None:
        out.append(
            (
                b"x-permitted-cross-domain-policies",
                str(cross.get("permittedPolicies", "none")).encode(),
            )
        )
    return out
