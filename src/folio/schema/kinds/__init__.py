"""Attribute kinds by attribute type, and the kinds of the system fields.

A kind owns its attribute types' rules (column type, written values, filter values and
operators, JSON output); each family of kinds is one module of this package."""

from folio.schema.kinds.base import (
    ALL_FAMILIES,
    Converter,
    InvalidValue,
    Kind,
    ValueDialect,
    describe,
)
from folio.schema.kinds.boolean import BooleanKind
from folio.schema.kinds.json import BLOCK_TYPES, BlocksKind, JsonKind
from folio.schema.kinds.links import LinkKind
from folio.schema.kinds.numbers import FloatKind, IntegerKind
from folio.schema.kinds.temporal import DateKind, DateTimeKind, TimeKind
from folio.schema.kinds.text import EMAIL_RE, SHORT_STRINGS, UID_RE, StringKind

__all__ = [
    "ALL_FAMILIES",
    "BLOCK_TYPES",
    "DOCUMENT_ID_KIND",
    "EMAIL_RE",
    "ID_KIND",
    "KINDS",
    "SHORT_STRINGS",
    "TIMESTAMP_KIND",
    "UID_RE",
    "BlocksKind",
    "BooleanKind",
    "Converter",
    "DateKind",
    "DateTimeKind",
    "FloatKind",
    "IntegerKind",
    "InvalidValue",
    "JsonKind",
    "Kind",
    "LinkKind",
    "StringKind",
    "TimeKind",
    "ValueDialect",
    "describe",
]

KINDS: dict[str, Kind] = {
    "string": StringKind(),
    "text": StringKind(),
    "richtext": StringKind(),
    "email": StringKind(),
    "password": StringKind(),
    "uid": StringKind(),
    "enumeration": StringKind(),
    "integer": IntegerKind(),
    "biginteger": IntegerKind(big=True),
    "float": FloatKind(),
    "decimal": FloatKind(decimal=True),
    "boolean": BooleanKind(),
    "date": DateKind(),
    "datetime": DateTimeKind(),
    "timestamp": DateTimeKind(),
    "time": TimeKind(),
    "json": JsonKind(),
    "blocks": BlocksKind(),
    "relation": LinkKind("relation"),
    "media": LinkKind("media"),
    "component": LinkKind("component"),
    "dynamiczone": LinkKind("dynamiczone"),
}

# System fields that every content type has, with the kind used to filter and sort them.
ID_KIND = IntegerKind(big=False)
DOCUMENT_ID_KIND = StringKind()
TIMESTAMP_KIND = DateTimeKind()
