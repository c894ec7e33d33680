"""The signature of a delivery, which the reference's webhooks lack: a receiver that knows
the webhook's secret can tell that a request comes from this app, unchanged, and recently.

    X-Folio-Timestamp: <Unix time in seconds of the attempt>
    X-Folio-Signature: sha256=<hex HMAC-SHA256 with the secret of "<timestamp>.<body>">

The timestamp is inside the signed text, so a captured request replayed later is told by
its age (`verify` refuses those older than `tolerance` seconds, 5 minutes by default)."""

from __future__ import annotations

import hashlib
import hmac
import time

SIGNATURE_HEADER = "X-Folio-Signature"
TIMESTAMP_HEADER = "X-Folio-Timestamp"
SCHEME = "sha256="
TOLERANCE = 300


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The signature header's value for `body` sent at `timestamp`."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return SCHEME + digest.hexdigest()


def verify(
    secret: str,
    body: bytes,
    timestamp: str | None,
    signature: str | None,
    *,
    tolerance: float = TOLERANCE,
    now: float | None = None,
) -> bool:
    """Whether a received request carries the signature of `secret` for its body and a
    timestamp at most `tolerance` seconds away from `now`."""
    if not timestamp or not signature or not timestamp.strip().isdecimal():
        return False
    sent = int(timestamp.strip())
    if abs((time.time() if now is None else now) - sent) > tolerance:
        return False
    return hmac.compare_digest(sign(secret, sent, body), signature.strip())
