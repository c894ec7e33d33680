"""Document identifiers: 24 lowercase alphanumeric characters, starting with a letter."""

from __future__ import annotations

import secrets

_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
_LETTERS = _ALPHABET[:26]


def new_document_id() -> str:
    first = secrets.choice(_LETTERS)
    return first + "".join(secrets.choice(_ALPHABET) for _ in range(23))
