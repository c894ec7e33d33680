"""Text kinds: string, text, rich text, email, password, uid and enumeration."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from folio.schema.kinds.base import InvalidValue, Kind, ValueDialect

if TYPE_CHECKING:
    from folio.schema.model import Attribute

SHORT_STRINGS = frozenset({"string", "email", "uid"})
EMAIL_RE = re.compile(r"^[^\s@]+@[^\s@]+\.[^\s@]+$")
UID_RE = re.compile(r"^[A-Za-z0-9\-_.~]*$")


class StringKind(Kind):
    label = "string"
    text_native = True

    def widget(self, attr: Attribute) -> str:
        # one widget per text type: string, text, richtext, email, password, uid, enumeration
        return attr.type

    def is_narrow(self, attr: Attribute) -> bool:
        if attr.type == "enumeration":
            return True
        if attr.type not in SHORT_STRINGS:
            return False  # text, richtext, password: unbounded
        return attr.max_length is None or attr.max_length <= 255

    def index_bytes(self, attr: Attribute) -> int:
        if attr.type == "enumeration":
            values = attr.raw.get("enum") or [""]
            return 4 + max(len(str(v).encode()) for v in values)
        limit = attr.max_length if attr.max_length is not None else 255
        # uids are ASCII; other strings up to 4 bytes a character
        return 4 + limit * (1 if attr.type == "uid" else 4)

    def column_type(self, attr: Attribute, dialect: ValueDialect) -> str:
        length = self.max_chars(attr)
        return dialect.column_type("text" if length is None else "string", length)

    def max_chars(self, attr: Attribute) -> int | None:
        """The most characters a value may have (None: unbounded)."""
        if attr.type == "enumeration":
            return max((len(str(v)) for v in attr.raw.get("enum") or []), default=1) or 1
        if attr.type in SHORT_STRINGS:
            return attr.max_length if attr.max_length is not None else 255
        return None

    def check_options(self, attr: Attribute) -> list[str]:
        problems = []
        for key in ("minLength", "maxLength"):
            if key in attr.raw and (
                not isinstance(attr.raw[key], int)
                or isinstance(attr.raw[key], bool)
                or attr.raw[key] < 0
            ):
                problems.append(f"`{key}` must be a non-negative integer")
        if "regex" in attr.raw:
            try:
                re.compile(str(attr.raw["regex"]))
            except re.error as exc:
                problems.append(f"`regex` is not a valid regular expression ({exc})")
        if attr.type == "enumeration":
            enum = attr.raw.get("enum")
            if not isinstance(enum, list) or not enum or not all(isinstance(e, str) for e in enum):
                problems.append("`enum` must be a non-empty list of strings")
        if (
            attr.type == "uid"
            and attr.target_field is not None
            and not isinstance(attr.target_field, str)
        ):
            problems.append("`targetField` must be a string")
        return problems

    def coerce(self, attr: Attribute, value: Any) -> Any:
        if not isinstance(value, str):
            raise self.type_error(attr, value)
        text = value
        if attr.type == "email" and text == "":
            raise InvalidValue(f"{attr.name} cannot be empty")
        limit = attr.max_length
        if limit is None and attr.type in SHORT_STRINGS:
            limit = 255
        if limit is not None and len(text) > limit:
            raise InvalidValue(f"{attr.name} must be at most {limit} characters")
        if (
            attr.min_length is not None
            and len(text) < attr.min_length
            and (attr.required or text != "")
        ):
            raise InvalidValue(f"{attr.name} must be at least {attr.min_length} characters")
        if attr.regex is not None and text != "" and not attr.regex.search(text):
            raise InvalidValue(f'{attr.name} must match the following: "/{attr.regex.pattern}/"')
        if attr.type == "email" and text != "" and not EMAIL_RE.match(text):
            raise InvalidValue(f"{attr.name} must be a valid email")
        if attr.type == "uid" and not UID_RE.match(text):
            raise InvalidValue(f'{attr.name} must match the following: "/^[A-Za-z0-9-_.~]*$/"')
        if attr.type == "enumeration" and text not in attr.enum:
            # the reference lists null among the allowed values of an optional enumeration
            allowed = ", ".join(attr.enum) + ("" if attr.required else ", ")
            raise InvalidValue(f"{attr.name} must be one of the following values: {allowed}")
        return text

    def parse_filter(self, raw: Any) -> Any:
        if isinstance(raw, bool):
            return "true" if raw else "false"
        if isinstance(raw, int | float):
            return str(raw)
        if not isinstance(raw, str):
            raise ValueError("not a string")
        return raw
