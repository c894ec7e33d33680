"""The Content Manager API's pure parts: slugs of uid values, statuses of versions, the
widget each attribute kind names, and the list configuration's checks."""

from __future__ import annotations

import pytest

from folio.errors import ValidationError
from folio.http.admin.cm_documents import status_of
from folio.http.admin.cm_meta import default_config, listable, parse_config
from folio.http.admin.content import slugify
from folio.schema.kinds import KINDS
from folio.schema.model import Attribute, ContentType


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Hello World", "hello-world"),
        ("  Héllo   Wörld!  ", "hello-world"),
        ("Straße & Co", "strasse-and-co"),
        ("fooBar baz", "foo-bar-baz"),
        ("Ærø Łódź", "aero-lodz"),
        ("already-a-slug_1", "already-a-slug-1"),
        ("日本語", ""),
        ("--x--", "x"),
    ],
)
def test_slugify(text: str, slug: str) -> None:
    assert slugify(text) == slug


def test_status_of_versions() -> None:
    assert status_of("2026-01-01T00:00:00.000Z", None) == "draft"
    assert status_of("2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z") == "published"
    assert status_of("2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z") == "published"
    assert status_of("2026-01-03T00:00:00.000Z", "2026-01-02T00:00:00.000Z") == "modified"


@pytest.mark.parametrize("type_", sorted(KINDS))
def test_every_kind_names_a_widget(type_: str) -> None:
    attr = Attribute(type_, type_, KINDS[type_], {})
    widget = KINDS[type_].widget(attr)
    expected = {"timestamp": "datetime"}.get(type_, type_)
    assert widget == expected


def _type() -> ContentType:
    ct = ContentType("api::a.a", "as", "", "A", kind="collectionType", singular="a", plural="as")
    for name, type_ in (("count", "integer"), ("name", "string"), ("body", "richtext")):
        ct.attributes[name] = Attribute(name, type_, KINDS[type_], {})
    return ct


def test_default_configuration_and_its_checks() -> None:
    ct = _type()
    config = default_config(ct)
    assert config.main_field == "name" and config.sort == "name:ASC"
    assert config.columns == ("id", "count", "name")
    assert "body" not in listable(ct)
    assert parse_config(ct, {"sort": "count:desc"}).sort == "count:DESC"
    for bad in ({"columns": ["body"]}, {"sort": "body:ASC"}, {"pageSize": 3}):
        with pytest.raises(ValidationError):
            parse_config(ct, bad)
