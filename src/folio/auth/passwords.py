"""Password hashing: scrypt with a random salt, stored as `scrypt$<salt>$<digest>` (hex), and
the constant-time check of a password against such a hash. Both cost tens of milliseconds, so
callers on the event loop run them in a worker thread."""

from __future__ import annotations

import hashlib
import hmac
import secrets

# scrypt's cost: 16 MiB of memory per hash
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1


class HashedPassword(str):
    """A password already hashed (off the event loop) by the caller: stored as given."""


def _scrypt(password: bytes, salt: bytes) -> bytes:
    return hashlib.scrypt(password, salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P)


def hash_password(password: str) -> HashedPassword:
    salt = secrets.token_bytes(16)
    return HashedPassword(f"scrypt${salt.hex()}${_scrypt(password.encode(), salt).hex()}")


def verify_password(password: str, stored: str | None) -> bool:
    """Checks a password against a stored hash in constant time (False for no hash)."""
    if not stored or not stored.startswith("scrypt$"):
        # the same cost either way, so the answer time does not tell a missing user apart
        _scrypt(b"x", b"0" * 16)
        return False
    _, salt_hex, digest_hex = stored.split("$", 2)
    digest = _scrypt(password.encode(), bytes.fromhex(salt_hex))
    return hmac.compare_digest(digest.hex(), digest_hex)
