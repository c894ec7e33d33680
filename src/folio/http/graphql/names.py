"""The names of the generated schema, spelled as the reference spells them (clients,
generated code and persisted queries depend on them)."""

from __future__ import annotations

import re

from folio.schema.model import Component, ContentType

# words as the reference splits names: runs of capitals, capitalised words, lower-case
# runs and digit runs ("i18n-locale" -> i, 18, n, locale)
_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def words(text: str) -> list[str]:
    return _WORDS.findall(text)


def camel(text: str) -> str:
    parts = words(text)
    if not parts:
        return ""
    return parts[0].lower() + "".join(p[:1].upper() + p[1:].lower() for p in parts[1:])


def pascal(text: str) -> str:
    name = camel(text)
    return name[:1].upper() + name[1:]


def _prefixed(ct: ContentType, name: str) -> str:
    """A plugin's types carry the plugin's name (`plugin::upload.file` -> upload-file)."""
    if ct.uid.startswith("plugin::"):
        plugin = ct.uid.split("::", 1)[1].split(".", 1)[0]
        return f"{plugin}-{name}"
    return name


def type_name(ct: ContentType) -> str:
    return pascal(_prefixed(ct, ct.singular))


def singular_field(ct: ContentType) -> str:
    return camel(_prefixed(ct, ct.singular))


def plural_field(ct: ContentType) -> str:
    return camel(_prefixed(ct, ct.plural))


def component_name(comp: Component) -> str:
    category, _, name = comp.uid.partition(".")
    return "Component" + pascal(category) + pascal(name)


def enum_name(owner: str, attribute: str) -> str:
    """`ENUM_<TYPE>_<ATTRIBUTE>` in capitals (Article.status2 -> ENUM_ARTICLE_STATUS2)."""
    return f"ENUM_{'_'.join(w.upper() for w in words(owner))}_{attribute.upper()}"


_NAME = re.compile(r"^[_A-Za-z][_0-9A-Za-z]*$")


def enum_value_name(value: str) -> str:
    """An enumeration value as a GraphQL name (values that are not names are spelled
    with underscores, prefixed when they start with a digit)."""
    if _NAME.match(value):
        return value
    name = re.sub(r"[^_0-9A-Za-z]", "_", value)
    return name if _NAME.match(name) else f"_{name}"
