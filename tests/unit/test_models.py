"""Loading models: a good app loads with its attributes; a bad model stops start-up with a
ConfigError naming the file, the attribute and the problem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from folio.errors import ConfigError
from folio.schema.loader import load_registry

THING_FILE = "src/api/thing/content-types/thing/schema.json"
OTHER_FILE = "src/api/other/content-types/other/schema.json"


def thing(attributes: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "kind": "collectionType",
        "collectionName": "things",
        "info": {"singularName": "thing", "pluralName": "things", "displayName": "Thing"},
        "options": {"draftAndPublish": False},
        "pluginOptions": {},
        "attributes": attributes,
        **extra,
    }


def write(app: Path, files: dict[str, Any]) -> Path:
    for rel, content in files.items():
        path = app / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2))
    return app


def load_error(tmp_path: Path, files: dict[str, Any]) -> str:
    app = write(tmp_path / "app", files)
    with pytest.raises(ConfigError) as info:
        load_registry(app)
    return str(info.value)


def assert_names(message: str, *parts: str) -> None:
    for part in parts:
        assert part in message, f"{part!r} not in {message!r}"


def test_a_good_model_loads(tmp_path: Path) -> None:
    app = write(
        tmp_path / "app",
        {
            THING_FILE: thing(
                {
                    "title": {"type": "string", "required": True, "maxLength": 80},
                    "slug": {"type": "uid", "targetField": "title"},
                    "count": {"type": "integer", "min": 0, "max": 10, "default": 1},
                    "kind": {"type": "enumeration", "enum": ["a", "b"], "default": "a"},
                    "price": {"type": "decimal"},
                    "isOn": {"type": "boolean", "default": False},
                    "secret": {"type": "password"},
                    "hidden": {"type": "text", "private": True},
                    "seo": {"type": "component", "component": "shared.seo"},
                    "others": {
                        "type": "relation",
                        "relation": "oneToMany",
                        "target": "api::other.other",
                        "mappedBy": "thing",
                    },
                },
                options={"draftAndPublish": True},
                pluginOptions={"i18n": {"localized": True}},
            ),
            OTHER_FILE: {
                "kind": "singleType",
                "info": {"singularName": "other", "pluralName": "others"},
                "attributes": {
                    "thing": {
                        "type": "relation",
                        "relation": "manyToOne",
                        "target": "api::thing.thing",
                        "inversedBy": "others",
                    }
                },
            },
            "src/components/shared/seo.json": {
                "info": {"displayName": "Seo"},
                "attributes": {"metaTitle": {"type": "string"}},
            },
        },
    )
    registry = load_registry(app)
    ct = registry.content_types["api::thing.thing"]
    assert ct.table == "things"
    assert ct.singular == "thing"
    assert ct.plural == "things"
    assert ct.draft_and_publish is True
    assert ct.localized is True
    assert not ct.is_single
    assert list(ct.attributes) == [
        "title",
        "slug",
        "count",
        "kind",
        "price",
        "isOn",
        "secret",
        "hidden",
        "seo",
        "others",
    ]
    title = ct.attributes["title"]
    assert title.type == "string"
    assert title.required is True
    assert title.max_length == 80
    assert title.column == "title"
    count = ct.attributes["count"]
    assert (count.minimum, count.maximum, count.default) == (0, 10, 1)
    assert ct.attributes["kind"].enum == ("a", "b")
    assert ct.attributes["isOn"].column == "is_on"
    assert ct.attributes["secret"].is_hidden
    assert ct.attributes["hidden"].is_hidden
    assert not title.is_hidden
    assert ct.attributes["seo"].component == "shared.seo"
    assert ct.attributes["others"].target == "api::other.other"
    other = registry.content_types["api::other.other"]
    assert other.is_single
    assert other.table == "others"
    assert registry.by_route["things"] is ct
    assert registry.by_route["other"] is other
    assert "shared.seo" in registry.components


def test_the_blog_fixture_loads() -> None:
    app = Path(__file__).parent.parent / "fixtures" / "blog"
    registry = load_registry(app)
    assert set(registry.content_types) >= {
        "api::article.article",
        "api::category.category",
        "api::event.event",
        "api::global.global",
        "api::about.about",
    }
    article = registry.content_types["api::article.article"]
    assert article.attributes["bigCount"].column == "big_count"
    assert article.attributes["featured"].default is False


def test_bad_json(tmp_path: Path) -> None:
    message = load_error(tmp_path, {THING_FILE: '{"kind": "collectionType", "info": {'})
    assert_names(message, THING_FILE, "JSON")


def test_json_that_is_not_an_object(tmp_path: Path) -> None:
    message = load_error(tmp_path, {THING_FILE: "[1, 2]"})
    assert_names(message, THING_FILE, "object")


def test_bad_json_in_a_component(tmp_path: Path) -> None:
    message = load_error(
        tmp_path,
        {THING_FILE: thing({"a": {"type": "string"}}), "src/components/shared/bad.json": "{,}"},
    )
    assert_names(message, "src/components/shared/bad.json", "JSON")


def test_unknown_type(tmp_path: Path) -> None:
    message = load_error(tmp_path, {THING_FILE: thing({"title": {"type": "strin"}})})
    assert_names(message, THING_FILE, "title", "unknown type", "strin")


def test_missing_type(tmp_path: Path) -> None:
    message = load_error(tmp_path, {THING_FILE: thing({"title": {"required": True}})})
    assert_names(message, THING_FILE, "title", "type")


def test_bad_relation_target(tmp_path: Path) -> None:
    message = load_error(
        tmp_path,
        {
            THING_FILE: thing(
                {"owner": {"type": "relation", "relation": "manyToOne", "target": "api::nope.nope"}}
            )
        },
    )
    assert_names(message, THING_FILE, "owner", "api::nope.nope", "does not exist")


def test_bad_relation_kind(tmp_path: Path) -> None:
    message = load_error(
        tmp_path,
        {
            THING_FILE: thing(
                {
                    "owner": {
                        "type": "relation",
                        "relation": "manyToFew",
                        "target": "api::thing.thing",
                    }
                }
            )
        },
    )
    assert_names(message, THING_FILE, "owner", "relation")


def test_bad_inverse_side(tmp_path: Path) -> None:
    message = load_error(
        tmp_path,
        {
            THING_FILE: thing(
                {
                    "parent": {
                        "type": "relation",
                        "relation": "manyToOne",
                        "target": "api::thing.thing",
                        "inversedBy": "kids",
                    }
                }
            )
        },
    )
    assert_names(message, THING_FILE, "parent", "kids")


def test_missing_component(tmp_path: Path) -> None:
    message = load_error(
        tmp_path, {THING_FILE: thing({"seo": {"type": "component", "component": "shared.nope"}})}
    )
    assert_names(message, THING_FILE, "seo", "shared.nope", "does not exist")


def test_missing_component_in_a_dynamic_zone(tmp_path: Path) -> None:
    message = load_error(
        tmp_path,
        {THING_FILE: thing({"blocks": {"type": "dynamiczone", "components": ["shared.nope"]}})},
    )
    assert_names(message, THING_FILE, "blocks", "shared.nope", "does not exist")


@pytest.mark.parametrize("enum", [[], "a,b", [1, 2], None])
def test_bad_enum(tmp_path: Path, enum: Any) -> None:
    spec: dict[str, Any] = {"type": "enumeration"}
    if enum is not None:
        spec["enum"] = enum
    message = load_error(tmp_path, {THING_FILE: thing({"state": spec})})
    assert_names(message, THING_FILE, "state", "enum")


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        ({"type": "integer", "min": "5"}, "min"),
        ({"type": "float", "max": "big"}, "max"),
        ({"type": "decimal", "min": True}, "min"),
    ],
)
def test_bad_min_or_max(tmp_path: Path, spec: dict[str, Any], key: str) -> None:
    message = load_error(tmp_path, {THING_FILE: thing({"count": spec})})
    assert_names(message, THING_FILE, "count", f"`{key}`", "number")


@pytest.mark.parametrize(
    "name", ["id", "documentId", "createdAt", "updatedAt", "publishedAt", "locale"]
)
def test_reserved_attribute_name(tmp_path: Path, name: str) -> None:
    message = load_error(tmp_path, {THING_FILE: thing({name: {"type": "string"}})})
    assert_names(message, THING_FILE, f"`{name}`", "reserved")


@pytest.mark.parametrize(
    ("spec", "shown"),
    [
        ({"type": "integer", "default": "abc"}, "default"),
        ({"type": "integer", "default": 1.5}, "default"),
        ({"type": "boolean", "default": "yes"}, "default"),
        ({"type": "enumeration", "enum": ["a", "b"], "default": "c"}, "default"),
        ({"type": "email", "default": "not-an-email"}, "default"),
        ({"type": "date", "default": "tomorrow"}, "default"),
        ({"type": "integer", "min": 5, "default": 1}, "default"),
    ],
)
def test_default_not_valid(tmp_path: Path, spec: dict[str, Any], shown: str) -> None:
    message = load_error(tmp_path, {THING_FILE: thing({"value": spec})})
    assert_names(message, THING_FILE, "value", shown, "not valid")


def test_non_boolean_flag(tmp_path: Path) -> None:
    message = load_error(
        tmp_path, {THING_FILE: thing({"title": {"type": "string", "required": "yes"}})}
    )
    assert_names(message, THING_FILE, "title", "required")


def test_bad_kind(tmp_path: Path) -> None:
    message = load_error(tmp_path, {THING_FILE: thing({}, kind="bagType")})
    assert_names(message, THING_FILE, "kind", "bagType")


def test_bad_api_names(tmp_path: Path) -> None:
    message = load_error(
        tmp_path,
        {THING_FILE: thing({}, info={"singularName": "Thing Item", "pluralName": "things"})},
    )
    assert_names(message, THING_FILE, "singularName")


def test_duplicate_route_names(tmp_path: Path) -> None:
    other = thing({}, collectionName="others")
    message = load_error(tmp_path, {THING_FILE: thing({}), OTHER_FILE: other})
    assert_names(message, "things")


def test_every_problem_is_reported(tmp_path: Path) -> None:
    message = load_error(
        tmp_path,
        {
            THING_FILE: thing(
                {
                    "first": {"type": "strin"},
                    "second": {"type": "integer", "min": "x"},
                    "ok": {"type": "string"},
                }
            )
        },
    )
    assert_names(message, "first", "second")
    assert "`ok`" not in message
