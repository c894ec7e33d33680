"""Who is asking: the public role, a user (through their role) or an API token, with
the permissions they hold. Services receive a principal and ask it what it may do."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from folio.auth.permissions import PUBLIC, find_action

READ_SUFFIXES = (".find", ".findOne", ".listLocales")


@dataclass(frozen=True, slots=True)
class Principal:
    kind: str = "public"  # public | user | token
    name: str = PUBLIC  # the role type, or the token's name
    scope: str = "listed"  # all (full-access token) | read (read-only token) | listed
    permissions: frozenset[str] = field(default_factory=frozenset)
    user_id: int | None = None
    token_id: int | None = None

    def can(self, action: str) -> bool:
        if self.scope == "all":
            return True
        if self.scope == "read":
            return action.endswith(READ_SUFFIXES)
        return action in self.permissions

    def can_find(self, uid: str) -> bool:
        """May see documents of a type through a relation (populate, deep filters)."""
        return self.can(find_action(uid))

    def can_read_drafts(self, uid: str) -> bool:
        if self.scope == "all":
            return True
        if self.kind == "token":
            return self.can(f"{uid}.find") or self.can(f"{uid}.findOne")
        return f"{uid}.update" in self.permissions


OPEN = Principal(kind="public", name="open", scope="all")


@dataclass(frozen=True)
class UserAuth:
    """A user as access control sees it."""

    id: int
    blocked: bool
    confirmed: bool
    role: str | None


@dataclass(frozen=True)
class TokenRecord:
    """What a request authenticated by a token needs, read once and cached."""

    id: int
    name: str
    type: str
    permissions: frozenset[str]
    expires_at: datetime | None
    last_used_at: datetime | None


class UserStore(Protocol):
    """Where access control looks users up (the users service). `on_change` listeners run
    after a change that alters what a user's credential may do."""

    on_change: list[Callable[[], None]]

    @property
    def email_confirmation(self) -> bool: ...

    async def auth(self, user_id: int) -> UserAuth | None: ...


class TokenStore(Protocol):
    """Where access control looks API tokens up (the tokens service)."""

    on_change: list[Callable[[], None]]

    async def lookup(self, access_key: str) -> TokenRecord | None: ...

    async def touch(self, token_id: int) -> None: ...
