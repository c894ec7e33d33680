"""Who is asking, and may they: the one authorization check between the HTTP edge and the
services.

A request without an `Authorization` header is the public role. `Authorization: Bearer X`
is a user's JWT (three dot-separated parts) or an API token; anything else in that header is
a 401. What a credential resolves to (its permission set) is cached for a few seconds, so a
request costs a dictionary lookup, not a query; role changes in `config/permissions.json`
apply within a second, token or user changes made through this process at once, and those
made through another process or host as soon as its change message arrives (the app wires
`forget` to folio.broadcast); the cache time bounds what a lost message can leave stale.

Drafts (`status=draft`) are readable by API tokens that may read the type, and by roles that
may `update` the type (whoever may change a draft may see it); never by the public role
unless the app grants it `update`."""

from __future__ import annotations

import time
from collections.abc import MutableMapping
from datetime import UTC, datetime
from typing import Any

from folio.auth.jwt import JwtCodec
from folio.auth.permissions import PUBLIC, RoleTable
from folio.auth.principal import Principal, TokenStore, UserStore
from folio.errors import ForbiddenError, UnauthorizedError

CACHE_LIMIT = 10_000
TOUCH_EVERY = 60.0


def _bearer(scope: MutableMapping[str, Any]) -> bytes | None:
    for key, value in scope["headers"]:
        if key == b"authorization":
            return bytes(value)
    return None


class AccessControl:
    def __init__(
        self,
        roles: RoleTable,
        users: UserStore,
        tokens: TokenStore,
        jwt: JwtCodec,
        cache_seconds: float = 5.0,
    ) -> None:
        self.roles = roles
        self.users = users
        self.tokens = tokens
        self.jwt = jwt
        self.cache_seconds = cache_seconds
        self._cache: dict[bytes, tuple[Principal, float]] = {}
        self._touched: dict[int, float] = {}
        self._public = self._role_principal(PUBLIC, "public")
        # a changed user or token may no longer do what its cached principal says
        users.on_change.append(self.forget)
        tokens.on_change.append(self.forget)

    def _role_principal(self, role: str | None, kind: str, user_id: int | None = None) -> Principal:
        found = self.roles.get(role) if role else None
        return Principal(
            kind=kind,
            name=role or "",
            permissions=found.permissions if found else frozenset(),
            user_id=user_id,
        )

    def forget(self) -> None:
        """Drops every cached credential (after a role, user or token change)."""
        self._cache.clear()
        self._public = self._role_principal(PUBLIC, "public")

    async def principal(self, scope: MutableMapping[str, Any]) -> Principal:
        if self.roles.refresh():
            self.forget()
        header = _bearer(scope)
        if header is None:
            return self._public
        now = time.monotonic()
        cached = self._cache.get(header)
        if cached is not None and cached[1] > now:
            return cached[0]
        principal, ttl = await self._resolve(header)
        if len(self._cache) >= CACHE_LIMIT:
            self._cache.clear()
        self._cache[header] = (principal, now + ttl)
        return principal

    async def _resolve(self, header: bytes) -> tuple[Principal, float]:
        parts = header.decode("latin-1").split()
        if len(parts) != 2 or parts[0].lower() != "bearer":
            raise UnauthorizedError()
        credential = parts[1]
        if credential.count(".") == 2:
            return await self._user(credential)
        return await self._token(credential)

    async def _user(self, credential: str) -> tuple[Principal, float]:
        verified = self.jwt.verify(credential)
        if verified is None:
            raise UnauthorizedError()
        user_id, expires = verified
        user = await self.users.auth(user_id)
        if user is None or user.blocked or (self.users.email_confirmation and not user.confirmed):
            raise UnauthorizedError("Invalid credentials")
        ttl = min(self.cache_seconds, max(0.0, expires - time.time()))
        return self._role_principal(user.role, "user", user.id), ttl

    async def _token(self, credential: str) -> tuple[Principal, float]:
        record = await self.tokens.lookup(credential)
        if record is None:
            raise UnauthorizedError()
        ttl = self.cache_seconds
        if record.expires_at is not None:
            left = (record.expires_at - datetime.now(UTC)).total_seconds()
            if left <= 0:
                raise UnauthorizedError("Token expired")
            ttl = min(ttl, left)
        now = time.monotonic()
        if now - self._touched.get(record.id, -TOUCH_EVERY) >= TOUCH_EVERY:
            self._touched[record.id] = now
            await self.tokens.touch(record.id)
        scope = {"full-access": "all", "read-only": "read"}.get(record.type, "listed")
        principal = Principal(
            kind="token",
            name=record.name,
            scope=scope,
            permissions=record.permissions,
            token_id=record.id,
        )
        return principal, ttl

    async def authorize(self, scope: MutableMapping[str, Any], action: str) -> Principal:
        """The principal of the request if it may run `action`; else ForbiddenError (or
        UnauthorizedError for bad credentials)."""
        principal = await self.principal(scope)
        if not principal.can(action):
            raise ForbiddenError()
        return principal
