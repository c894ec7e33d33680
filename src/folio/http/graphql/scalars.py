"""The custom scalars of the generated schema. Values are checked by the document service,
as REST values are: a scalar only makes sure a value has a form it can carry (`Time` and
`Long` refuse, as the reference's do, what is not a time or an integer) and answers values in
the reference's forms (`Time` with milliseconds, a `Long` beyond JavaScript's exact integers
as a string)."""

from __future__ import annotations

import json
import re
from datetime import time
from typing import Any

from graphql import GraphQLError, GraphQLScalarType, ValueNode
from graphql.language import (
    FloatValueNode,
    IntValueNode,
    ObjectValueNode,
    StringValueNode,
    print_ast,
)
from graphql.pyutils import Undefined
from graphql.utilities import value_from_ast_untyped

from folio.schema.values import TIME_MESSAGE


def _untyped(node: ValueNode, variables: dict[str, Any] | None = None) -> Any:
    return value_from_ast_untyped(node, variables)


def _string_scalar(name: str, description: str, what: str) -> GraphQLScalarType:
    def parse_value(value: Any) -> str:
        if not isinstance(value, str):
            raise GraphQLError(f"{name} cannot represent a non string value: {value!r}")
        return value

    def parse_literal(node: ValueNode, _variables: dict[str, Any] | None = None) -> str:
        if not isinstance(node, StringValueNode):
            raise GraphQLError(f"{name} cannot represent a non string value", node)
        return node.value

    def serialize(value: Any) -> str:
        if isinstance(value, str):
            return value
        raise GraphQLError(f"{name} cannot represent {what}: {value!r}")

    return GraphQLScalarType(
        name,
        serialize=serialize,
        parse_value=parse_value,
        parse_literal=parse_literal,
        description=description,
    )


JSON = GraphQLScalarType(
    "JSON",
    serialize=lambda value: value,
    parse_value=lambda value: value,
    parse_literal=_untyped,
    description=(
        "The `JSON` scalar type represents JSON values as specified by "
        "[ECMA-404](http://www.ecma-international.org/publications/files/ECMA-ST/"
        "ECMA-404.pdf)."
    ),
)

DATETIME = _string_scalar(
    "DateTime",
    "A date-time string at UTC, such as 2007-12-03T10:15:30Z, compliant with the "
    "`date-time` format outlined in section 5.6 of the RFC 3339 profile of the ISO 8601 "
    "standard for representation of dates and times using the Gregorian calendar.",
    "a date-time",
)

# the reference's pattern: two-digit hours, minutes and seconds, up to three fraction digits
_TIME_RE = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,3})?$")
_ANY_TIME_RE = re.compile(r"^(\d{2}:\d{2}:\d{2})(?:\.(\d+))?")


def _time_value(value: Any) -> str:
    # not a GraphQLError: graphql-core then gives the message after the expected type's
    # name ("Expected value of type 'Time', found ...; Invalid time format ..."), as the
    # reference words it
    if not isinstance(value, str):
        raise ValueError(f"Expected a string, got a {_js_type(value)}")
    if not _TIME_RE.match(value):
        raise ValueError(TIME_MESSAGE)
    return value


def _js_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    return "number" if isinstance(value, int | float) else "object"


def _time_literal(node: ValueNode, _variables: dict[str, Any] | None = None) -> str:
    if not isinstance(node, StringValueNode):
        raise ValueError("Time cannot represent non string type")
    return _time_value(node.value)


def _time_output(value: Any) -> str:
    """`HH:mm:ss.SSS` whatever the database answered (`09:30:00` from PostgreSQL's `time`,
    a `time` object, six fraction digits): the reference always sends milliseconds."""
    text = value.isoformat() if isinstance(value, time) else value
    if isinstance(text, str):
        match = _ANY_TIME_RE.match(text)
        if match:
            return f"{match[1]}.{(match[2] or '')[:3].ljust(3, '0')}"
    raise GraphQLError(f"Time cannot represent a time: {value!r}")


TIME = GraphQLScalarType(
    "Time",
    serialize=_time_output,
    parse_value=_time_value,
    parse_literal=_time_literal,
    description="A time string with format HH:mm:ss.SSS",
)

DATE = _string_scalar(
    "Date",
    "A date string, such as 2007-12-03, compliant with the `full-date` format outlined in "
    "section 5.6 of the RFC 3339 profile of the ISO 8601 standard for representation of "
    "dates and times using the Gregorian calendar.",
    "a date",
)


# beyond this a JavaScript number loses digits
_SAFE_INTEGER = 2**53 - 1


def _long_input(value: Any) -> int:
    """An integer given as a number or as a string of digits (a client whose numbers are
    doubles sends large ones as strings)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if value == "":
        raise GraphQLError("BigInt cannot represent value: ")
    shown = value if isinstance(value, str) else json.dumps(value)
    # a ValueError is worded after the expected type's name, as the reference does
    raise ValueError(f"Cannot convert {shown} to a BigInt")


def _long_literal(node: ValueNode, _variables: dict[str, Any] | None = None) -> int:
    if isinstance(node, IntValueNode | StringValueNode):
        return _long_input(node.value)
    if isinstance(node, FloatValueNode):
        raise ValueError(f"Cannot convert {node.value} to a BigInt")
    raise GraphQLError(f"BigInt cannot represent value: {print_ast(node)}", node)


def _long_output(value: Any) -> int | str:
    """A number while JavaScript can hold it exactly, otherwise its digits as a string,
    as the reference sends a `Long` (`9007199254740991`, `"9007199254740992"`)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise GraphQLError(f"BigInt cannot represent value: {value!r}")
    try:
        number = int(value)
    except ValueError:
        raise GraphQLError(f"BigInt cannot represent value: {value!r}") from None
    return number if -_SAFE_INTEGER <= number <= _SAFE_INTEGER else str(number)


LONG = GraphQLScalarType(
    "Long",
    serialize=_long_output,
    parse_value=_long_input,
    parse_literal=_long_literal,
    description=("The `BigInt` scalar type represents non-fractional signed whole numeric values."),
)


def zone_input(name: str, members: dict[str, str]) -> GraphQLScalarType:
    """The input of a dynamic zone entry: an object naming its component by GraphQL type
    in `__typename` (`members`: type name -> component uid), as the reference reads it; a
    `__component` given as well wins."""
    expected = ", ".join(members)

    def parse_value(value: Any) -> dict[str, Any]:
        # not a GraphQLError: the message is given after the expected type's name
        if not isinstance(value, dict):
            raise ValueError(f"Component not found. expected one of: {expected}")
        uid = members.get(str(value.get("__typename")))
        if uid is None:
            raise ValueError(f"Component not found. expected one of: {expected}")
        entry = {k: v for k, v in value.items() if k != "__typename"}
        entry.setdefault("__component", uid)
        return entry

    def parse_literal(node: ValueNode, variables: dict[str, Any] | None = None) -> Any:
        if not isinstance(node, ObjectValueNode):
            return Undefined  # "Expected value of type ..., found ..."
        return parse_value(value_from_ast_untyped(node, variables))

    return GraphQLScalarType(
        name, serialize=lambda value: value, parse_value=parse_value, parse_literal=parse_literal
    )


def locale_code(codes: frozenset[str]) -> GraphQLScalarType:
    """`I18NLocaleCode`: a configured locale code (or `*`, every locale); written in the
    document, another code is refused when the document is validated, as the reference
    refuses it."""

    def parse_value(value: Any) -> str:
        if not isinstance(value, str):
            raise GraphQLError(f"I18NLocaleCode cannot represent a non string value: {value!r}")
        return value

    def parse_literal(node: ValueNode, _variables: dict[str, Any] | None = None) -> str:
        if not isinstance(node, StringValueNode):
            raise GraphQLError("I18NLocaleCode cannot represent a non string value", node)
        if node.value != "*" and node.value not in codes:
            # not a GraphQLError: the message is given after the expected type's name
            raise ValueError("Unknown locale supplied")
        return node.value

    return GraphQLScalarType(
        "I18NLocaleCode",
        serialize=parse_value,
        parse_value=parse_value,
        parse_literal=parse_literal,
        description="A string used to identify an i18n locale",
    )


SCALARS = (JSON, DATETIME, TIME, DATE, LONG)
