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


# more digits than any row id a database keeps (19), leading zeros allowed: a longer text
# is refused before Python converts it (past 4,300 digits it raises ValueError)
MAX_ID_DIGITS = 64


def decimal_id(text: str) -> int | None:
    """The row id `text` spells in decimal digits, None when it is not digits. Digits too
    many for any id are refused as a database refuses a number past its range
    (ValidationError: 400)."""
    if not text.isdecimal():
        return None
    if len(text) > MAX_ID_DIGITS:
        from folio.store.database import invalid_value

        raise invalid_value("out of range")
    return int(text)
