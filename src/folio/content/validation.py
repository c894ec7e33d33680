"""Validation of written documents against the model: types, required, lengths, ranges,
patterns, enumerations, emails and uid formats. Every problem is collected with its path, so
one request reports all of them in one `ValidationError`."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from folio.errors import FieldError, ValidationError, validation_failed
from folio.schema.kinds import InvalidValue
from folio.schema.model import Attribute, Schema

# Members of `data` that are not attributes but are accepted and handled elsewhere (or
# ignored, as the reference does for read-only system fields).
ACCEPTED_INPUT = frozenset({"locale"})


def hash_password(password: str) -> str:
    salt = secrets.token_hex(16)
    digest = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=2**14, r=8, p=1)
    return f"scrypt${salt}${digest.hex()}"


def require_data(body: Any) -> dict[str, Any]:
    """The `data` member of a write body."""
    if not isinstance(body, dict) or "data" not in body:
        raise ValidationError('Missing "data" payload in the request body')
    data = body["data"]
    if not isinstance(data, dict):
        raise ValidationError('Missing "data" payload in the request body')
    return data


class Written:
    """The outcome of validating `data`: column values, and link operations for later."""

    def __init__(self) -> None:
        self.values: dict[Attribute, Any] = {}
        self.links: dict[Attribute, Any] = {}


def validate_data(schema: Schema, data: dict[str, Any], *, partial: bool) -> Written:
    """Checks `data` for a create (`partial=False`) or an update (`partial=True`)."""
    errors: list[FieldError] = []
    invalid_keys: list[str] = []
    out = Written()
    for key, value in data.items():
        attr = schema.attributes.get(key)
        if attr is None:
            if key in ACCEPTED_INPUT:
                continue
            errors.append(FieldError([key], f"Invalid key {key}", value))
            invalid_keys.append(key)
            continue
        if not attr.kind.scalar:
            out.links[attr] = value
            continue
        if value is None:
            if attr.required:
                errors.append(FieldError([key], str(attr.kind.type_error(attr, None)), value))
            else:
                out.values[attr] = None
            continue
        try:
            coerced = attr.kind.coerce(attr, value)
        except InvalidValue as exc:
            path: list[str | int] = list(exc.path) if exc.path else [key]
            errors.append(FieldError(path, str(exc), exc.value if exc.path else value))
            continue
        if attr.type == "password":
            coerced = hash_password(coerced)
        out.values[attr] = coerced
    if not partial:
        for attr in schema.attributes.values():
            if attr in out.values or attr in out.links:
                continue
            if attr.kind.scalar and attr.has_default and attr.default is not None:
                out.values[attr] = attr.kind.default_for(attr)
            elif attr.required and attr.kind.scalar and attr.type != "uid":
                errors.append(FieldError([attr.name], f"{attr.name} must be defined.", None))
    if errors:
        error = validation_failed(errors)
        if invalid_keys:
            error.message = f"Invalid key {invalid_keys[0]}" if len(errors) == 1 else error.message
            error.details = {
                "key": invalid_keys[0],
                "path": None,
                "source": "body",
                **error.details,
            }
        raise error
    return out
