"""What the OpenAPI document offers a reader to try: each content type's read parameters
with examples the server accepts once an OpenAPI client has written them (Swagger UI writes
a deep object one level deep, `filters[title]={"$contains":"a"}`, and an exploded array as
repeated keys, `fields=title&fields=slug`), a write body that passes validation, and the
operations' summaries in English ("Create an Article", "Find Categories")."""

from __future__ import annotations

from typing import Any

from folio.schema.model import Attribute, ContentType, Registry, Schema

# attribute types a `$contains` filter and a sort read as text
TEXT_TYPES = ("string", "text", "email", "uid", "richtext", "enumeration")
# types whose values the `fields` parameter may name
FIELD_TYPES_SKIPPED = ("password",)


def article(noun: str) -> str:
    """`a` or `an` before `noun`, by how it is said: an Article, a User, an Hour."""
    word = noun.lower()
    if word.startswith(("hour", "honest", "honor", "honour", "heir")):
        return "an"
    if word.startswith(("uni", "use", "usu", "uti", "ure", "eu", "ewe", "one", "once")):
        return "a"
    return "an" if word[:1] in ("a", "e", "i", "o", "u") else "a"


def a(noun: str) -> str:
    return f"{article(noun)} {noun}"


def plural_display(ct: ContentType) -> str:
    """`Categories` for `Category`: the display name with its last word in the plural the
    model's `pluralName` gives (`blog-posts` for `Blog Post`)."""
    words = ct.display_name.split()
    singular_end = ct.singular.split("-")[-1].lower()
    plural_end = ct.plural.split("-")[-1]
    if words and words[-1].lower() == singular_end and plural_end != singular_end:
        last = words[-1]
        cased = plural_end.capitalize() if last[:1].isupper() else plural_end
        return " ".join([*words[:-1], cased])
    if words and ct.plural.lower().startswith(words[-1].lower()):
        return " ".join([*words[:-1], words[-1] + ct.plural[len(words[-1]) :]])
    return ct.display_name


def summaries(ct: ContentType) -> dict[str, str]:
    """One summary per operation of a content type's routes."""
    name = ct.display_name
    if ct.is_single:
        return {
            "get": f"Find the {name}",
            "put": f"Create or update the {name}",
            "delete": f"Delete the {name} (every version, or one locale's)",
        }
    return {
        "list": f"Find {plural_display(ct)}",
        "post": f"Create {a(name)}",
        "get": f"Find {a(name)} by its documentId",
        "put": f"Update {a(name)}",
        "delete": f"Delete {a(name)} (every version, or one locale's)",
    }


def _text_attribute(schema: Schema) -> Attribute | None:
    return next(
        (
            attr
            for attr in schema.attributes.values()
            if attr.type in TEXT_TYPES and not attr.is_hidden and attr.kind.scalar
        ),
        None,
    )


def field_names(schema: Schema) -> list[str]:
    """What `fields` may name: the scalar attributes a document answers."""
    return [
        attr.name
        for attr in schema.attributes.values()
        if attr.kind.scalar and not attr.is_hidden and attr.type not in FIELD_TYPES_SKIPPED
    ]


def read_parameters(schema: Schema, many: bool) -> list[dict[str, Any]]:
    """`fields` (and, for lists, `filters` and `sort`) of one type, with examples."""
    names = field_names(schema)
    text = _text_attribute(schema)
    fields: dict[str, Any] = {
        "name": "fields",
        "in": "query",
        "description": "the attributes to answer (documentId and id always are); also "
        "written fields[0]=title&fields[1]=slug",
        "style": "form",
        "explode": True,
        "schema": {"type": "array", "items": {"type": "string", "enum": names}},
    }
    if names:
        fields["example"] = names[:2]
    params = [fields]
    if not many:
        return params
    key = text.name if text is not None else "id"
    condition: dict[str, Any] = {"$contains": "a"} if text is not None else {"$gt": 0}
    params.append(
        {
            "name": "filters",
            "in": "query",
            "description": "conditions on attributes, with $eq, $ne, $lt, $lte, $gt, $gte, $in, "
            "$notIn, $contains, $notContains, $containsi, $startsWith, $endsWith, $null, "
            "$notNull, $between and their case-insensitive forms; $and, $or and $not combine "
            "them, and a relation's attributes are reached through it: "
            "filters[title][$containsi]=news, filters[category][name][$eq]=News. A member "
            "may also be given as JSON, as OpenAPI clients write a deep object: "
            'filters[title]={"$contains":"a"}',
            "style": "deepObject",
            "explode": True,
            "schema": {"type": "object", "additionalProperties": True},
            "example": {key: condition},
        }
    )
    params.append(
        {
            "name": "sort",
            "in": "query",
            "description": "attributes to order by, each with :asc or :desc: "
            "sort=title:asc,publishDate:desc or sort[0]=title:asc",
            "schema": {"type": "string"},
            "example": f"{key}:asc",
        }
    )
    return params


def _value(schema: Schema, attr: Attribute, registry: Registry, verb: str) -> Any:
    """A value of `attr` that validation accepts (None: leave the attribute out); text
    says what wrote it (`verb`), so that a unique one written by a create and by an update
    of another document differ."""
    t = attr.type
    low = attr.minimum
    if t in ("string", "text", "richtext"):
        text = f"{a(schema.display_name)} {verb} from the API documentation"
        value = text[:1].upper() + text[1:]
        if attr.max_length is not None:
            value = value[: attr.max_length]
        if attr.min_length is not None and len(value) < attr.min_length:
            value = value.ljust(attr.min_length, ".")
        return value
    if t == "email":
        return "someone@example.com"
    if t == "uid":
        return f"{verb}-from-the-api-documentation"
    if t == "enumeration":
        return attr.enum[0] if attr.enum else None
    if t in ("integer", "biginteger"):
        number = int(low) if low is not None and low > 1 else 1
        return str(number) if t == "biginteger" else number
    if t in ("float", "decimal"):
        return low if low is not None and low > 1.5 else 1.5
    if t == "boolean":
        return True
    if t == "date":
        return "2024-01-02"
    if t in ("datetime", "timestamp"):
        return "2024-01-02T10:00:00.000Z"
    if t == "time":
        return "10:00:00.000"
    if t == "json":
        return {"example": True}
    if t == "blocks":
        return [{"type": "paragraph", "children": [{"type": "text", "text": "Hello"}]}]
    if t == "password":
        return "An example password 1"
    if t == "component" and attr.component in registry.components and not attr.repeatable:
        return example_data(registry.components[attr.component], registry, verb)
    return None


def example_data(schema: Schema, registry: Registry, verb: str = "written") -> dict[str, Any]:
    """`data` of a write that validation accepts: the required attributes (and the first
    text one) with plausible values; relations, media and zones are left out."""
    text = _text_attribute(schema)
    out: dict[str, Any] = {}
    for attr in schema.attributes.values():
        if not (attr.required or attr is text) or (attr.type == "uid" and not attr.required):
            continue
        value = _value(schema, attr, registry, verb)
        if value is not None:
            out[attr.name] = value
    return out
