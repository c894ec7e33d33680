"""The longest credentials the account routes take: names and addresses as the model stores
them (its strings hold 255 characters), passwords a few times what is hashed (72 bytes).
Longer ones are refused before they are counted under a key, looked up, hashed or stored."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from folio.errors import FieldError, validation_failed

MAX_NAME_CHARS = 255
MAX_PASSWORD_BYTES = 256
NAME_FIELDS = ("identifier", "email", "username")
PASSWORD_FIELDS = ("password", "currentPassword", "passwordConfirmation")


def length_problems(body: Mapping[str, Any]) -> list[FieldError]:
    """The credentials of `body` longer than their maximum (their values are not echoed
    back: they may be megabytes)."""
    errors: list[FieldError] = []
    for name in NAME_FIELDS:
        value = body.get(name)
        if isinstance(value, str) and len(value) > MAX_NAME_CHARS:
            errors.append(FieldError([name], f"{name} must be at most {MAX_NAME_CHARS} characters"))
    for name in PASSWORD_FIELDS:
        value = body.get(name)
        if isinstance(value, str) and (
            len(value) > MAX_PASSWORD_BYTES or len(value.encode()) > MAX_PASSWORD_BYTES
        ):
            errors.append(FieldError([name], f"{name} must be at most {MAX_PASSWORD_BYTES} bytes"))
    return errors


def check_lengths(body: Mapping[str, Any]) -> None:
    """Raises the ValidationError of the credentials of `body` longer than their maximum."""
    errors = length_problems(body)
    if errors:
        # raised as made, not through a variable: a frame that holds the error its own
        # traceback holds lives (with the request's body) until the cycle collector runs
        raise validation_failed(errors)
