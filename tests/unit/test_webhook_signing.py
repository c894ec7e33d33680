"""The delivery signature: what a receiver computes to check it, and what it refuses."""

from __future__ import annotations

import hashlib
import hmac

from folio.webhooks.signing import sign, verify


def test_the_signature_is_hmac_sha256_of_timestamp_and_body() -> None:
    body = b'{"event":"entry.create"}'
    expected = hmac.new(b"secret-key", b"1700000000." + body, hashlib.sha256).hexdigest()
    assert sign("secret-key", 1700000000, body) == f"sha256={expected}"


def test_verify_refuses_another_body_secret_or_an_old_timestamp() -> None:
    body = b'{"event":"entry.create"}'
    signature = sign("secret-key", 1700000000, body)
    assert verify("secret-key", body, "1700000000", signature, now=1700000100)
    assert not verify("secret-key", body + b" ", "1700000000", signature, now=1700000100)
    assert not verify("other-key", body, "1700000000", signature, now=1700000100)
    assert not verify("secret-key", body, "1700000001", signature, now=1700000100)
    # replayed later than the tolerance (5 minutes by default)
    assert not verify("secret-key", body, "1700000000", signature, now=1700000301)
    assert verify("secret-key", body, "1700000000", signature, now=1700000900, tolerance=1000)
    assert not verify("secret-key", body, None, signature)
    assert not verify("secret-key", body, "soon", signature)
    assert not verify("secret-key", body, "1700000000", None)
