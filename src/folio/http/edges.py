"""What every HTTP answer carries, whatever route serves it: CORS (the reference's
defaults: every origin reflected, credentials allowed, preflight `OPTIONS` answered 204) and
a request id (`X-Request-Id`: the client's when it sends a sane one, else a new one), and
the security headers (`http.security`).

CORS is configured as the reference configures it, in `config/middlewares.json`: the list
of middlewares with a `{"name": "strapi::cors", "config": {...}}` entry (`origin`: "*", a
list of origins or one; `methods`; `headers`; `expose`; `credentials`; `maxAge`), or an
object `{"cors": {...}}` with the same keys (`"cors": false` turns CORS off)."""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from folio.errors import ConfigError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]

METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
HEADERS = ["Content-Type", "Authorization", "Origin", "Accept"]
CORS_NAMES = ("strapi::cors", "global::cors", "cors")
REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


class RequestIds:
    """32 hex digits per request: a random half drawn once per process, and a counter.
    Unique across processes and hosts like a random UUID, without a system call for
    random bytes at each request (0.6 us an id, against 3.3 us for uuid4)."""

    def __init__(self) -> None:
        self.draw()
        os.register_at_fork(after_in_child=self.draw)  # a forked process draws its own

    def draw(self) -> None:
        self._prefix = os.urandom(8).hex()
        self._counter = itertools.count(int.from_bytes(os.urandom(4), "big"))

    def next(self) -> str:
        return f"{self._prefix}{next(self._counter) & 0xFFFFFFFFFFFFFFFF:016x}"


REQUEST_IDS = RequestIds()


@dataclass
class CorsSettings:
    enabled: bool = True
    origins: list[str] | None = None  # None: every origin
    methods: list[str] = field(default_factory=lambda: list(METHODS))
    headers: list[str] = field(default_factory=lambda: list(HEADERS))
    expose: list[str] = field(default_factory=list)
    credentials: bool = True
    max_age: int = 31536000

    @classmethod
    def read(cls, raw: dict[str, Any]) -> CorsSettings:
        config: Any = None
        for entry in raw.get("stack", []):
            if isinstance(entry, dict) and entry.get("name") in CORS_NAMES:
                config = entry.get("config", {})
        if config is None and "cors" in raw:
            config = raw["cors"]
        out = cls()
        if config is False:
            out.enabled = False
            return out
        if config is None:
            return out
        if not isinstance(config, dict):
            raise ConfigError("config/middlewares: the cors config must be an object")
        origin = config.get("origin", "*")
        if isinstance(origin, str):
            out.origins = None if origin == "*" else [origin]
        elif isinstance(origin, list) and all(isinstance(o, str) for o in origin):
            out.origins = None if "*" in origin else list(origin)
        else:
            raise ConfigError("config/middlewares: cors.origin is '*', an origin or a list")
        out.methods = _names(config.get("methods"), out.methods, "methods", upper=True)
        out.headers = _names(config.get("headers"), out.headers, "headers")
        out.expose = _names(config.get("expose"), out.expose, "expose")
        out.credentials = bool(config.get("credentials", True))
        max_age = config.get("maxAge", out.max_age)
        if not isinstance(max_age, int) or isinstance(max_age, bool):
            raise ConfigError("config/middlewares: cors.maxAge must be a number of seconds")
        out.max_age = max_age
        return out

    def allows(self, origin: str) -> bool:
        return self.origins is None or origin in self.origins


def _names(value: Any, default: list[str], key: str, upper: bool = False) -> list[str]:
    if value is None:
        return default
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"config/middlewares: cors.{key} must be a list of names")
    return [v.upper() for v in value] if upper else list(value)


class Edges:
    def __init__(
        self, cors: CorsSettings, security: list[tuple[bytes, bytes]] | None = None
    ) -> None:
        self.cors = cors
        self.security = security or []
        self._allow_methods = ",".join(cors.methods).encode()
        self._allow_headers = ",".join(cors.headers).encode()
        self._expose = ",".join(cors.expose).encode()

    def _cors_headers(self, origin: bytes, preflight: bool) -> list[tuple[bytes, bytes]]:
        out = [
            (
                b"access-control-allow-origin",
                origin if self.cors.credentials or self.cors.origins is not None else b"*",
            )
        ]
        if self.cors.credentials:
            out.append((b"access-control-allow-credentials", b"true"))
        if preflight:
            out.append((b"access-control-max-age", str(self.cors.max_age).encode()))
            out.append((b"access-control-allow-methods", self._allow_methods))
            out.append((b"access-control-allow-headers", self._allow_headers))
        elif self._expose:
            out.append((b"access-control-expose-headers", self._expose))
        return out

    async def handle(self, scope: Scope, send: Send) -> Send | None:
        """The `send` that adds the edges' headers to the answer; None when the request is
        a CORS preflight, answered here."""
        origin = b""
        request_id = b""
        preflight = False
        for name, value in scope["headers"]:
            if name == b"origin":
                origin = value
            elif name == b"x-request-id":
                request_id = value
            elif name == b"access-control-request-method":
                preflight = True
        text = request_id.decode("latin-1")
        if not REQUEST_ID.match(text):
            text = REQUEST_IDS.next()
        scope.setdefault("state", {})["request_id"] = text
        added: list[tuple[bytes, bytes]] = [(b"x-request-id", text.encode())]
        if self.cors.enabled:
            added.append((b"vary", b"Origin"))
            if origin and self.cors.allows(origin.decode("latin-1")):
                if preflight and scope["method"] == "OPTIONS":
                    await send(
                        {
                            "type": "http.response.start",
                            "status": 204,
                            "headers": [
                                *added,
                                *self._cors_headers(origin, True),
                                *self.security,
                            ],
                        }
                    )
                    await send({"type": "http.response.body", "body": b""})
                    return None
                added += self._cors_headers(origin, False)

        security = self.security

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.get("headers", [])
                if any(name.lower() == b"content-security-policy" for name, _ in headers):
                    # an answer with its own policy (the sandbox's pages, uploaded files)
                    # keeps its own security headers
                    present = {name.lower() for name, _ in headers}
                    extra = [h for h in security if h[0] not in present]
                else:
                    extra = security
                message["headers"] = [*headers, *added, *extra]
            await send(message)

        return sending
