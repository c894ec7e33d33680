"""Document identifiers: 24 lowercase alphanumeric characters, starting with a letter."""

from __future__ import annotations

import secrets

_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
_SPACE = 26 * 36**23  # every identifier: a letter, then 23 letters or digits


def new_document_id() -> str:
    """One read of the system's random source per identifier (not one per character): 160
    random bits reduced to the identifier space (about 2^124 identifiers), so the modulo
    bias is below 2^-35."""
    n = int.from_bytes(secrets.token_bytes(20)) % _SPACE
    chars = []
    for _ in range(23):
        n, digit = divmod(n, 36)
        chars.append(_ALPHABET[digit])
    chars.append(_ALPHABET[n])  # n < 26 here: the leading letter
    return "".join(reversed(chars))
