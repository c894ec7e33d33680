"""User session tokens: HS256 JSON Web Tokens carrying the user id, signed with the app's
secret, expiring after the configured time (30 days by default, like the reference)."""

from __future__ import annotations

import time

import jwt as pyjwt


class JwtCodec:
    def __init__(self, secret: str, expires_in: float) -> None:
        self.secret = secret
        self.expires_in = expires_in

    def issue(self, user_id: int) -> str:
        now = int(time.time())
        payload = {"id": user_id, "iat": now, "exp": now + int(self.expires_in)}
        return pyjwt.encode(payload, self.secret, algorithm="HS256")

    def verify(self, token: str) -> tuple[int, float] | None:
        """(user id, expiry as epoch seconds), or None for a bad, tampered or expired token."""
        try:
            payload = pyjwt.decode(
                token,
                self.secret,
                algorithms=["HS256"],
                options={"require": ["exp", "iat"]},
            )
        except pyjwt.PyJWTError:
            return None
        user_id = payload.get("id")
        if not isinstance(user_id, int) or isinstance(user_id, bool):
            return None
        return user_id, float(payload["exp"])
