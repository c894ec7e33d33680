"""The custom scalars of the generated schema. Values are checked by the document service,
as REST values are: a scalar only makes sure a value has a form it can carry."""

from __future__ import annotations

from typing import Any

from graphql import GraphQLError, GraphQLScalarType, ValueNode
from graphql.language import IntValueNode, ObjectValueNode, StringValueNode
from graphql.pyutils import Undefined
from graphql.utilities import value_from_ast_untyped


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

TIME = _string_scalar("Time", "A time string with format HH:mm:ss.SSS", "a time")

DATE = _string_scalar(
    "Date",
    "A date string, such as 2007-12-03, compliant with the `full-date` format outlined in "
    "section 5.6 of the RFC 3339 profile of the ISO 8601 standard for representation of "
    "dates and times using the Gregorian calendar.",
    "a date",
)


def _long_value(value: Any) -> int:
    if isinstance(value, bool):
        raise GraphQLError(f"Long cannot represent a non-integer value: {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.lstrip("-").isdecimal():
        return int(value)
    raise GraphQLError(f"Long cannot represent a non-integer value: {value!r}")


def _long_literal(node: ValueNode, _variables: dict[str, Any] | None = None) -> int:
    if isinstance(node, IntValueNode | StringValueNode):
        return _long_value(node.value)
    raise GraphQLError("Long cannot represent a non-integer value", node)


LONG = GraphQLScalarType(
    "Long",
    serialize=_long_value,
    parse_value=_long_value,
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
