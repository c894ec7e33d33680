"""What the account routes count before they act: sign-in, registration, forgotten and new
passwords, password change and email confirmation, whichever front-end (REST, GraphQL) a
request comes through, so that one client gets `max` attempts per window in all.

An attempt is counted under its action and client address, and also (as the reference's
limiter keys it) under the address given for the actions that take one; a sign-in is
counted as well under its identifier, whatever the client's address, so that a client that
changes addresses still gets `max` guesses per account and window. Credentials longer than
their maximum are refused (400, or 429 when the address is already limited) after being
counted under the address only, so that they never enter a key."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from folio.auth.ratelimit import RateLimiter, Verdict
from folio.content.accounts.credentials import check_lengths, length_problems
from folio.errors import RateLimitError

SIGN_IN = "auth.callback"
# the actions counted per given address too, as the reference keys them
EMAIL_KEYED = frozenset({"auth.register", "auth.forgotPassword", "auth.sendEmailConfirmation"})
UNKNOWN = "unknownIdentifier"


@dataclass
class Attempt:
    """One request to an account action, as the limiter sees it: the client's address, and
    once counted, the verdict of its window (REST shows it in the X-RateLimit headers)."""

    client: str
    verdict: Verdict | None = None


class AttemptLimits:
    def __init__(self, limiter: RateLimiter) -> None:
        self.limiter = limiter

    async def count(self, action: str, attempt: Attempt, body: Mapping[str, Any]) -> None:
        """Counts the attempt; raises RateLimitError past the limit, and the ValidationError
        of credentials longer than their maximum."""
        too_long = bool(length_problems(body))
        key = f"{action}:{attempt.client}"
        if action in EMAIL_KEYED:
            email = body.get("email")
            if not isinstance(email, str) or too_long:
                email = UNKNOWN
            key = f"{email.lower()}:{key}"
        keys = [key]
        ident = body.get("identifier")
        if action == SIGN_IN and not too_long and isinstance(ident, str) and ident:
            keys.append(f"{action}:identifier:{ident.lower()}")
        verdicts = await self.limiter.hit_all(keys)
        if verdicts is None:
            check_lengths(body)
            return
        # the address's window, unless the account's is the one that refuses
        refused = next((v for v in verdicts if not v.allowed), None)
        attempt.verdict = refused or verdicts[0]
        if refused is not None:
            raise RateLimitError()
        check_lengths(body)
