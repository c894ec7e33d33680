"""The single authorization check between the HTTP edge and content.

Every content request names its action (`api::article.article.find`, ...) and asks
`AccessControl.authorize` for a principal before touching content. Users, roles and API
tokens plug in here; until they are configured every request is allowed as the public
principal."""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import Request


@dataclass(frozen=True)
class Principal:
    kind: str = "public"  # public | user | token
    name: str = "public"
    can_read_drafts: bool = True
    permissions: frozenset[str] = field(default_factory=frozenset)


PUBLIC = Principal()


class AccessControl:
    async def authorize(self, request: Request, action: str) -> Principal:
        """Returns who is asking, or raises ForbiddenError / UnauthorizedError."""
        return PUBLIC
