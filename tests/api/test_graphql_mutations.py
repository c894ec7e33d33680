"""GraphQL mutations over HTTP: create/update/delete of collection and single types (scalars,
relations, media, components, dynamic zones, drafts, locales), validation errors and their
shapes, the upload mutations and the users-permissions mutations.

The expectations are the reference's answers (`tests/fixtures/reference/graphql-probes.md`)
except where the spec wins (`/work/shared/reference/KNOWN-DIFFERENCES.md`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.authapp import bearer
from tests.api.gql_helpers import World, data_of, make_world, refused, upload_png

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
ZONE_MEMBERS = "ComponentSharedQuote, ComponentSharedRichText, ComponentSharedMedia"


@pytest.fixture
def w(backend: str, tmp_path: Path) -> Iterator[World]:
    yield from make_world(backend, tmp_path)


def validation(message: str, path: list[str], value: Any) -> dict[str, Any]:
    """`extensions` of a ValidationError about one field."""
    return {
        "code": "BAD_USER_INPUT",
        "error": {
            "name": "ValidationError",
            "message": message,
            "details": {
                "errors": [
                    {"path": path, "message": message, "name": "ValidationError", "value": value}
                ]
            },
        },
    }


def tag_ids(w: World, *names: str) -> dict[str, str]:
    out = {}
    for name in names:
        q = "mutation($n: String!) { createTag(data: {name: $n}) { documentId } }"
        out[name] = w.data(q, {"n": name})["createTag"]["documentId"]
    return out


def tag_rows(w: World) -> dict[str, int]:
    """Tag names -> database ids (REST shows `id` in lists)."""
    r = w.api.get("/api/tags?pagination[limit]=100", headers=w.full)
    return {t["name"]: t["id"] for t in r.json()["data"]}


def article(w: World, document_id: str, fields: str, args: str = "") -> Any:
    return w.data(f'{{ article(documentId: "{document_id}"{args}) {{ {fields} }} }}')["article"]


# --------------------------------------------------------------------------- scalars


def test_create_with_scalars_answers_the_selected_fields(w: World) -> None:
    q = """mutation($d: ArticleInput!) { createArticle(data: $d) {
        documentId title description body featured views rating score publishDate eventAt
        startTime contactEmail status2 meta content locale createdAt updatedAt publishedAt } }"""
    data = {
        "title": "Scalars",
        "description": "d",
        "body": "# b",
        "featured": True,
        "views": 7,
        "rating": 4.5,
        "score": 1.25,
        "publishDate": "2024-02-29",
        "eventAt": "2024-03-01T10:20:30.000Z",
        "startTime": "10:20:30.123",
        "contactEmail": "a@example.com",
        "status2": "writing",
        "meta": {"a": [1, 2], "b": None},
        "content": [{"type": "paragraph", "children": [{"type": "text", "text": "hi"}]}],
    }
    got = w.data(q, {"d": data})["createArticle"]
    assert re.fullmatch(r"[a-z0-9]{24}", got["documentId"])
    for key, value in data.items():
        assert got[key] == value, key
    assert got["locale"] == "en"
    assert ISO.match(got["createdAt"]) and ISO.match(got["publishedAt"])
    assert got["createdAt"] == got["updatedAt"]
    # the same document read back, published
    back = article(w, got["documentId"], "title views status2 meta publishedAt")
    assert back == {
        "title": "Scalars",
        "views": 7,
        "status2": "writing",
        "meta": {"a": [1, 2], "b": None},
        "publishedAt": got["publishedAt"],
    }


def test_create_category_as_the_reference_answers(w: World) -> None:
    got = w.data(
        'mutation { createCategory(data: {name: "x"}) '
        "{ documentId name slug createdAt updatedAt publishedAt } }"
    )["createCategory"]
    assert got["name"] == "x" and got["slug"] is None
    # no draft & publish, yet publishedAt is set
    assert ISO.match(got["publishedAt"]) and got["createdAt"] == got["updatedAt"]


def test_update_changes_only_the_given_fields(w: World) -> None:
    doc = w.data(
        'mutation { createArticle(data: {title: "U", views: 1, description: "keep"}) '
        "{ documentId } }"
    )["createArticle"]["documentId"]
    got = w.data(
        f'mutation {{ updateArticle(documentId: "{doc}", data: {{views: 2, featured: true}}) '
        "{ documentId title views description featured } }"
    )["updateArticle"]
    assert got == {
        "documentId": doc,
        "title": "U",
        "views": 2,
        "description": "keep",
        "featured": True,
    }
    # unknown documentId: null, no error (the reference)
    assert w.data('mutation { updateTag(documentId: "nope", data: {name: "x"}) { name } }') == {
        "updateTag": None
    }
    assert w.data(
        'mutation { updateArticle(documentId: "nope", data: {title: "x"}) { title } }'
    ) == {"updateArticle": None}


def test_delete_answers_the_document_id_and_removes_the_document(w: World) -> None:
    doc = w.data('mutation { createCategory(data: {name: "gone"}) { documentId } }')[
        "createCategory"
    ]["documentId"]
    assert w.data(f'mutation {{ deleteCategory(documentId: "{doc}") {{ documentId }} }}') == {
        "deleteCategory": {"documentId": doc}
    }
    assert w.data(f'{{ category(documentId: "{doc}") {{ name }} }}') == {"category": None}
    assert w.api.get(f"/api/categories/{doc}").status_code == 404


# --------------------------------------------------------------------------- validation


def test_unique_violation_and_missing_required_field(w: World) -> None:
    w.data('mutation { createCategory(data: {name: "x"}) { documentId } }')
    error = w.error('mutation { createCategory(data: {name: "x"}) { documentId } }')
    assert error == {
        "message": "This attribute must be unique",
        "path": ["createCategory"],
        "extensions": validation("This attribute must be unique", ["name"], "x"),
    }
    r = w.gql('mutation { createCategory(data: {slug: "y"}) { documentId } }')
    assert r.json()["data"] == {"createCategory": None}
    error = r.json()["errors"][0]
    assert error["message"] == "name must be defined."
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert [e["path"] for e in error["extensions"]["error"]["details"]["errors"]] == [["name"]]
    message = "title must be a `string` type, but the final value was: `null`."
    for data in ("{}", "{title: null}"):
        error = w.error(f"mutation {{ createArticle(data: {data}) {{ documentId }} }}")
        assert error == {
            "message": message,
            "path": ["createArticle"],
            "extensions": validation(message, ["title"], None),
        }
    error = w.error(
        'mutation { createArticle(data: {title: "x", contactEmail: "nope"}) { title } }'
    )
    assert error["extensions"] == validation(
        "contactEmail must be a valid email", ["contactEmail"], "nope"
    )


def test_a_failed_write_changes_nothing(w: World) -> None:
    tags = tag_ids(w, "t1", "t2")
    doc = w.data(
        'mutation($t: [ID]) { createArticle(data: {title: "Keep", views: 1, tags: $t}) '
        "{ documentId } }",
        {"t": [tags["t1"]]},
    )["createArticle"]["documentId"]
    before = article(w, doc, "title views tags { name }")
    drafts_before = article(w, doc, "title views", ", status: DRAFT")
    bad = [
        # an unknown relation beside good fields
        {"title": "Changed", "views": 2, "tags": [tags["t2"], "nope"]},
        # an invalid value beside good fields
        {"title": "Changed", "views": 2, "contactEmail": "nope"},
        # a required field cleared
        {"title": None, "views": 2},
    ]
    for data in bad:
        r = w.gql(
            f'mutation($d: ArticleInput!) {{ updateArticle(documentId: "{doc}", data: $d) '
            "{ title } }",
            {"d": data},
        )
        assert r.status_code == 200 and r.json()["data"] == {"updateArticle": None}, r.text
        assert r.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
        assert article(w, doc, "title views tags { name }") == before
        assert article(w, doc, "title views", ", status: DRAFT") == drafts_before
    count = "query { categories_connection { pageInfo { total } } }"
    w.data('mutation { createCategory(data: {name: "only"}) { documentId } }')
    w.gql('mutation { createCategory(data: {name: "only"}) { documentId } }')
    assert w.data(count)["categories_connection"]["pageInfo"]["total"] == 1
    # a create that fails on a relation creates nothing
    r = w.gql('mutation { createArticle(data: {title: "Orphan", tags: ["nope"]}) { title } }')
    assert r.json()["data"] == {"createArticle": None}
    found = w.data('{ articles(status: DRAFT, filters: {title: {eq: "Orphan"}}) { title } }')
    assert found == {"articles": []}


# --------------------------------------------------------------------------- relations


def test_relation_writes_by_document_id_row_id_and_clears(w: World) -> None:
    tags = tag_ids(w, "t1", "t2", "t3")
    rows = tag_rows(w)
    news = w.data('mutation { createCategory(data: {name: "News"}) { documentId } }')[
        "createCategory"
    ]["documentId"]
    doc = w.data(
        f'mutation {{ createArticle(data: {{title: "Alpha", category: "{news}", '
        f'tags: ["{tags["t1"]}"]}}) {{ documentId category {{ name }} tags {{ name }} }} }}'
    )["createArticle"]
    assert doc["category"] == {"name": "News"} and doc["tags"] == [{"name": "t1"}]
    doc_id = doc["documentId"]

    def update(data: str, fields: str = "tags { name }") -> Any:
        q = f'mutation {{ updateArticle(documentId: "{doc_id}", data: {data}) {{ {fields} }} }}'
        return w.data(q)["updateArticle"]

    # a list of documentIds replaces the set
    assert update(f'{{tags: ["{tags["t2"]}", "{tags["t3"]}"]}}') == {
        "tags": [{"name": "t2"}, {"name": "t3"}]
    }
    # a single documentId (list input coercion)
    assert update(f'{{tags: "{tags["t1"]}"}}') == {"tags": [{"name": "t1"}]}
    # numeric row ids: an Int literal and a digit-only string
    assert update(f"{{tags: [{rows['t2']}]}}") == {"tags": [{"name": "t2"}]}
    assert update(f'{{tags: ["{rows["t3"]}"]}}') == {"tags": [{"name": "t3"}]}
    # omitted: untouched
    assert update("{views: 11}", "views tags { name }") == {
        "views": 11,
        "tags": [{"name": "t3"}],
    }
    # [] and null clear
    assert update("{tags: []}") == {"tags": []}
    update(f'{{tags: ["{tags["t1"]}"]}}')
    assert update("{tags: null}") == {"tags": []}
    # to-one: null disconnects, a documentId or a row id sets it
    assert update("{category: null}", "category { name }") == {"category": None}
    assert update(f'{{category: "{news}"}}', "category { name }") == {"category": {"name": "News"}}
    update("{category: null}", "category { name }")
    cat_row = w.api.get("/api/categories", headers=w.full).json()["data"][0]["id"]
    assert update(f"{{category: {cat_row}}}", "category { name }") == {"category": {"name": "News"}}
    # the inverse side sees the writes
    assert w.data(f'{{ tag(documentId: "{tags["t1"]}") {{ articles {{ title }} }} }}') == {
        "tag": {"articles": []}
    }
    update(f'{{tags: ["{tags["t1"]}"]}}')
    assert w.data(f'{{ tag(documentId: "{tags["t1"]}") {{ articles {{ title }} }} }}') == {
        "tag": {"articles": [{"title": "Alpha"}]}
    }


def test_unknown_relation_targets_are_bad_user_input(w: World) -> None:
    tag_ids(w, "t1")
    doc = w.data('mutation { createArticle(data: {title: "A"}) { documentId } }')["createArticle"][
        "documentId"
    ]
    message = 'Document with id "nope", locale "null" not found'
    error = w.error(
        f'mutation {{ updateArticle(documentId: "{doc}", data: {{tags: ["nope"]}}) '
        "{ tags { name } } }"
    )
    assert error["message"] == message and error["path"] == ["updateArticle"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert error["extensions"]["error"]["name"] == "ValidationError"
    assert error["extensions"]["error"]["message"] == message
    for value in ("9999", '"nope"'):
        error = w.error(
            f'mutation {{ updateArticle(documentId: "{doc}", data: {{category: {value}}}) '
            "{ title } }"
        )
        assert error["extensions"]["code"] == "BAD_USER_INPUT", error
    error = w.error(
        f'mutation {{ updateArticle(documentId: "{doc}", data: {{tags: [9999]}}) {{ title }} }}'
    )
    assert error["extensions"]["code"] == "BAD_USER_INPUT"


def test_relation_operation_objects_are_refused_before_execution(w: World) -> None:
    tags = tag_ids(w, "t1")
    doc = w.data('mutation { createArticle(data: {title: "A"}) { documentId } }')["createArticle"][
        "documentId"
    ]
    q = (
        f'mutation {{ updateArticle(documentId: "{doc}", '
        f'data: {{tags: {{connect: ["{tags["t1"]}"]}}}}) {{ tags {{ name }} }} }}'
    )
    errors = refused(w.gql(q), 400, "GRAPHQL_VALIDATION_FAILED")
    assert errors[0]["message"] == (
        f'ID cannot represent a non-string and non-integer value: {{connect: ["{tags["t1"]}"]}}'
    )
    q = (
        f'mutation($d: ArticleInput!) {{ updateArticle(documentId: "{doc}", data: $d) '
        "{ tags { name } } }"
    )
    for value, at in (
        ({"connect": [tags["t1"]]}, "d.tags"),
        ([{"documentId": tags["t1"]}], "d.tags[0]"),
        ({"set": [tags["t1"]]}, "d.tags"),
    ):
        errors = refused(w.gql(q, {"d": {"tags": value}}), 400, "BAD_USER_INPUT")
        assert len(errors) == 1
        assert errors[0]["message"].startswith('Variable "$d" got invalid value '), errors
        assert f'at "{at}"; ID cannot represent value: ' in errors[0]["message"], errors
    assert article(w, doc, "tags { name }") == {"tags": []}


# --------------------------------------------------------------------------- media


def test_media_fields_take_row_ids_digit_strings_and_document_ids(w: World) -> None:
    a, b, c = (upload_png(w.api, w.full, n) for n in ("a.png", "b.png", "c.png"))
    q = """mutation($d: ArticleInput!) { createArticle(data: $d) {
        documentId cover { documentId url name mime } gallery { name } } }"""
    got = w.data(q, {"d": {"title": "M1", "cover": a["id"], "gallery": [b["id"], c["id"]]}})
    m1 = got["createArticle"]
    assert m1["cover"] == {
        "documentId": a["documentId"],
        "url": a["url"],
        "name": "a.png",
        "mime": "image/png",
    }
    assert m1["gallery"] == [{"name": "b.png"}, {"name": "c.png"}]
    got = w.data(q, {"d": {"title": "M2", "cover": a["documentId"], "gallery": [b["documentId"]]}})
    assert got["createArticle"]["cover"]["name"] == "a.png"
    assert got["createArticle"]["gallery"] == [{"name": "b.png"}]
    got = w.data(q, {"d": {"title": "M3", "cover": str(b["id"])}})
    assert (
        got["createArticle"]["cover"]["name"] == "b.png" and got["createArticle"]["gallery"] == []
    )
    for data in ({"title": "M4", "cover": 9999}, {"title": "M5", "gallery": [a["id"], 9999]}):
        error = w.error(q, {"d": data})
        assert error["extensions"]["code"] == "BAD_USER_INPUT"
        assert error["path"] == ["createArticle"]
    got = w.data(
        f'mutation {{ updateArticle(documentId: "{m1["documentId"]}", data: {{cover: null}}) '
        "{ cover { name } gallery { name } } }"
    )
    assert got == {
        "updateArticle": {"cover": None, "gallery": [{"name": "b.png"}, {"name": "c.png"}]}
    }


# --------------------------------------------------------------------------- drafts


def test_status_draft_creates_a_draft_and_the_default_publishes(w: World) -> None:
    draft = w.data(
        'mutation { createArticle(status: DRAFT, data: {title: "d"}) '
        "{ documentId title publishedAt } }"
    )["createArticle"]
    assert draft["title"] == "d" and draft["publishedAt"] is None
    d = draft["documentId"]
    got = w.data(
        f'{{ article(documentId: "{d}", status: DRAFT) {{ title publishedAt }} '
        f'pub: article(documentId: "{d}") {{ title }} }}'
    )
    assert got == {"article": {"title": "d", "publishedAt": None}, "pub": None}
    # publishedAt in data is ignored: status decides
    got = w.data(
        'mutation { createArticle(data: {title: "pn", publishedAt: null}) { publishedAt } }'
    )
    assert ISO.match(got["createArticle"]["publishedAt"])
    got = w.data(
        'mutation { createArticle(status: DRAFT, data: {title: "pd", '
        'publishedAt: "2020-01-01T00:00:00.000Z"}) { publishedAt } }'
    )
    assert got["createArticle"]["publishedAt"] is None
    # update(status: DRAFT) changes only the draft
    p = w.data(
        'mutation { createArticle(data: {title: "P1", views: 1}) { documentId publishedAt } }'
    )["createArticle"]
    assert ISO.match(p["publishedAt"])
    got = w.data(
        f'mutation {{ updateArticle(documentId: "{p["documentId"]}", status: DRAFT, '
        'data: {title: "P1 edited"}) { title publishedAt } }'
    )
    assert got == {"updateArticle": {"title": "P1 edited", "publishedAt": None}}
    both = (
        f'{{ p: article(documentId: "{p["documentId"]}") {{ title views }} '
        f'd: article(documentId: "{p["documentId"]}", status: DRAFT) {{ title views }} }}'
    )
    assert w.data(both) == {
        "p": {"title": "P1", "views": 1},
        "d": {"title": "P1 edited", "views": 1},
    }
    # the default update writes the draft and publishes it (the pending edit too)
    got = w.data(
        f'mutation {{ updateArticle(documentId: "{p["documentId"]}", data: {{views: 2}}) '
        "{ title views publishedAt } }"
    )["updateArticle"]
    assert got["title"] == "P1 edited" and got["views"] == 2 and ISO.match(got["publishedAt"])
    assert w.data(both) == {
        "p": {"title": "P1 edited", "views": 2},
        "d": {"title": "P1 edited", "views": 2},
    }
    # and publishes a never-published draft
    got = w.data(f'mutation {{ updateArticle(documentId: "{d}", data: {{views: 5}}) {{ title }} }}')
    assert got == {"updateArticle": {"title": "d"}}
    assert article(w, d, "title views") == {"title": "d", "views": 5}
    # status is ignored on a type without draft & publish
    got = w.data('mutation { createTag(status: DRAFT, data: {name: "td"}) { publishedAt } }')
    assert ISO.match(got["createTag"]["publishedAt"])


# --------------------------------------------------------------------------- locales


def test_locale_on_create_update_and_delete(w: World) -> None:
    got = w.data(
        'mutation { createArticle(locale: "fr", data: {title: "fr1"}) '
        "{ documentId title locale publishedAt } }"
    )["createArticle"]
    assert got["locale"] == "fr" and got["title"] == "fr1" and ISO.match(got["publishedAt"])
    doc = got["documentId"]
    assert w.data('{ articles(locale: "fr") { documentId title locale } }') == {
        "articles": [{"documentId": doc, "title": "fr1", "locale": "fr"}]
    }
    assert w.data("{ articles { title } }") == {"articles": []}
    # update with a locale that has no version yet creates it
    for code in ("de", "en"):
        got = w.data(
            f'mutation {{ updateArticle(documentId: "{doc}", locale: "{code}", '
            f'data: {{title: "{code}1"}}) {{ documentId title locale }} }}'
        )
        assert got == {"updateArticle": {"documentId": doc, "title": f"{code}1", "locale": code}}
    versions = (
        f'{{ fr: article(documentId: "{doc}", locale: "fr") {{ title }} '
        f'de: article(documentId: "{doc}", locale: "de") {{ title }} '
        f'en: article(documentId: "{doc}") {{ title }} '
        f'frd: article(documentId: "{doc}", locale: "fr", status: DRAFT) {{ title }} }}'
    )
    assert w.data(versions) == {
        "fr": {"title": "fr1"},
        "de": {"title": "de1"},
        "en": {"title": "en1"},
        "frd": {"title": "fr1"},
    }
    # an update in one locale leaves the others alone
    w.data(
        f'mutation {{ updateArticle(documentId: "{doc}", locale: "fr", data: {{views: 3}}) '
        "{ views } }"
    )
    assert article(w, doc, "views", ', locale: "de"') == {"views": None}
    # delete with a locale deletes only that version (draft and published)
    assert w.data(
        f'mutation {{ deleteArticle(documentId: "{doc}", locale: "fr") {{ documentId }} }}'
    ) == {"deleteArticle": {"documentId": doc}}
    assert w.data(versions) == {
        "fr": None,
        "de": {"title": "de1"},
        "en": {"title": "en1"},
        "frd": None,
    }
    # without a locale: the whole document, every locale (spec; KNOWN-DIFFERENCES 4)
    assert w.data(f'mutation {{ deleteArticle(documentId: "{doc}") {{ documentId }} }}') == {
        "deleteArticle": {"documentId": doc}
    }
    assert w.data(versions) == {"fr": None, "de": None, "en": None, "frd": None}
    assert w.data('{ articles(locale: "*", status: DRAFT) { title } }') == {"articles": []}


def test_unknown_locales_and_locale_in_data_are_refused(w: World) -> None:
    errors = refused(
        w.gql('mutation { createArticle(locale: "xx", data: {title: "x"}) { documentId } }'),
        400,
        "GRAPHQL_VALIDATION_FAILED",
    )
    assert errors[0]["message"] == (
        'Expected value of type "I18NLocaleCode", found "xx"; Unknown locale supplied'
    )
    errors = refused(
        w.gql('mutation { createArticle(data: {title: "x", locale: "fr"}) { documentId } }'),
        400,
        "GRAPHQL_VALIDATION_FAILED",
    )
    assert errors[0]["message"] == 'Field "locale" is not defined by type "ArticleInput".'
    # via a variable the reference lets it through; the spec refuses an unknown locale
    r = w.gql(
        'mutation($l: I18NLocaleCode) { createArticle(locale: $l, data: {title: "x"}) '
        "{ documentId } }",
        {"l": "xx"},
    )
    assert r.status_code in (200, 400), r.text
    assert "errors" in r.json(), r.text
    assert w.data('{ articles(locale: "*", status: DRAFT) { title } }') == {"articles": []}


# --------------------------------------------------------------------------- single types


def test_single_type_update_creates_it_and_delete_removes_it(w: World) -> None:
    message = "siteName must be a `string` type, but the final value was: `null`."
    error = w.error('mutation { updateGlobal(data: {siteDescription: "d"}) { siteName } }')
    assert error == {
        "message": message,
        "path": ["updateGlobal"],
        "extensions": validation(message, ["siteName"], None),
    }
    assert w.data("{ global { siteName } }") == {"global": None}
    got = w.data(
        'mutation { updateGlobal(data: {siteName: "S"}) '
        "{ documentId siteName siteDescription locale publishedAt } }"
    )["updateGlobal"]
    assert got["siteName"] == "S" and got["siteDescription"] is None and got["locale"] == "en"
    assert ISO.match(got["publishedAt"])
    doc = got["documentId"]
    got = w.data(
        'mutation { updateGlobal(data: {siteDescription: "desc"}) '
        "{ documentId siteName siteDescription } }"
    )
    assert got == {"updateGlobal": {"documentId": doc, "siteName": "S", "siteDescription": "desc"}}
    # another locale: required fields apply to the new version
    error = w.error(
        'mutation { updateGlobal(locale: "fr", data: {siteDescription: "fr d"}) { siteName } }'
    )
    assert error["extensions"] == validation(message, ["siteName"], None)
    got = w.data(
        'mutation { updateGlobal(locale: "fr", data: {siteName: "S fr"}) '
        "{ documentId siteName locale } }"
    )
    assert got == {"updateGlobal": {"documentId": doc, "siteName": "S fr", "locale": "fr"}}
    assert w.data(
        '{ global(locale: "fr") { siteName } de: global(locale: "de") { siteName } }'
    ) == {
        "global": {"siteName": "S fr"},
        "de": None,
    }
    # status: DRAFT writes only the draft
    got = w.data(
        'mutation { updateGlobal(status: DRAFT, data: {siteName: "S draft"}) '
        "{ siteName publishedAt } }"
    )
    assert got == {"updateGlobal": {"siteName": "S draft", "publishedAt": None}}
    assert w.data("{ p: global { siteName } d: global(status: DRAFT) { siteName } }") == {
        "p": {"siteName": "S"},
        "d": {"siteName": "S draft"},
    }
    # delete with a locale: only that version
    assert w.data('mutation { deleteGlobal(locale: "fr") { documentId } }') == {
        "deleteGlobal": {"documentId": doc}
    }
    assert w.data('{ global(locale: "fr") { siteName } en: global { siteName } }') == {
        "global": None,
        "en": {"siteName": "S"},
    }
    assert w.data("mutation { deleteGlobal { documentId } }") == {
        "deleteGlobal": {"documentId": doc}
    }
    assert w.data("{ global { siteName } d: global(status: DRAFT) { siteName } }") == {
        "global": None,
        "d": None,
    }
    error = w.error("mutation { deleteGlobal { documentId } }")
    assert error == {
        "message": "Document not found",
        "path": ["deleteGlobal"],
        "extensions": {
            "code": "NOT_FOUND_ERROR",
            "error": {"name": "NotFoundError", "message": "Document not found", "details": {}},
        },
    }


def test_single_type_without_draft_and_publish_ignores_status(w: World) -> None:
    got = w.data(
        'mutation { updateAbout(data: {title: "A", blocks: [{__typename: "ComponentSharedQuote", '
        'title: "q"}, {__typename: "ComponentSharedRichText", body: "r"}]}) { documentId title '
        "publishedAt blocks { __typename ... on ComponentSharedQuote { title } "
        "... on ComponentSharedRichText { body } } } }"
    )["updateAbout"]
    assert got["title"] == "A" and ISO.match(got["publishedAt"])
    doc = got["documentId"]
    assert got["blocks"] == [
        {"__typename": "ComponentSharedQuote", "title": "q"},
        {"__typename": "ComponentSharedRichText", "body": "r"},
    ]
    got = w.data(
        'mutation { updateAbout(status: DRAFT, data: {title: "A2"}) { title publishedAt } }'
    )
    assert got["updateAbout"]["title"] == "A2" and ISO.match(got["updateAbout"]["publishedAt"])
    assert w.data("{ p: about { title } d: about(status: DRAFT) { title } }") == {
        "p": {"title": "A2"},
        "d": {"title": "A2"},
    }
    assert w.data("mutation { deleteAbout { documentId } }") == {"deleteAbout": {"documentId": doc}}
    assert w.data("{ about { title } }") == {"about": None}


# --------------------------------------------------------------------------- components

UPDATE_COMPONENTS = """mutation($d: ArticleInput!) { updateArticle(documentId: "%s", data: $d) {
    seo { id metaTitle metaDescription } links { id label url }
    blocks { __typename ... on ComponentSharedQuote { id title body }
             ... on ComponentSharedRichText { id body } } } }"""
DRAFT_COMPONENTS = """{ article(documentId: "%s", status: DRAFT) {
    seo { id metaTitle metaDescription } links { id label url } } }"""


def test_components_update_in_place_by_id(w: World) -> None:
    created = w.data(
        """mutation($d: ArticleInput!) { createArticle(data: $d) {
            documentId seo { id metaTitle } links { id label url } } }""",
        {
            "d": {
                "title": "Comp",
                "seo": {"metaTitle": "M", "metaDescription": "D"},
                "links": [{"label": "a", "url": "http://a"}, {"label": "b", "url": "http://b"}],
            }
        },
    )["createArticle"]
    doc = created["documentId"]
    assert created["seo"]["metaTitle"] == "M"
    assert [(x["label"], x["url"]) for x in created["links"]] == [
        ("a", "http://a"),
        ("b", "http://b"),
    ]
    draft = w.data(DRAFT_COMPONENTS % doc)["article"]
    seo_id = draft["seo"]["id"]
    link_ids = [x["id"] for x in draft["links"]]
    # seo with the draft's id: updated in place, keys not sent kept
    w.data(UPDATE_COMPONENTS % doc, {"d": {"seo": {"id": seo_id, "metaTitle": "new"}}})
    draft = w.data(DRAFT_COMPONENTS % doc)["article"]
    assert draft["seo"] == {"id": seo_id, "metaTitle": "new", "metaDescription": "D"}
    assert article(w, doc, "seo { metaTitle metaDescription }") == {
        "seo": {"metaTitle": "new", "metaDescription": "D"}
    }
    # an id that is not this document's component: refused, nothing written
    error = w.error(
        UPDATE_COMPONENTS % doc, {"d": {"title": "x", "seo": {"id": 9999, "metaTitle": "x"}}}
    )
    assert error == {
        "message": "Some of the provided components in seo are not related to the entity",
        "path": ["updateArticle"],
        "extensions": {
            "code": "APPLICATION_ERROR",
            "error": {
                "name": "ApplicationError",
                "message": "Some of the provided components in seo are not related to the entity",
                "details": {},
            },
        },
    }
    assert article(w, doc, "title seo { metaTitle }", ", status: DRAFT") == {
        "title": "Comp",
        "seo": {"metaTitle": "new"},
    }
    # without an id: a new component replaces the old one
    w.data(UPDATE_COMPONENTS % doc, {"d": {"seo": {"metaTitle": "noid"}}})
    draft = w.data(DRAFT_COMPONENTS % doc)["article"]
    assert draft["seo"]["metaTitle"] == "noid" and draft["seo"]["metaDescription"] is None
    # repeatable: keep the first by id with a new label, drop the second, add one
    got = w.data(
        UPDATE_COMPONENTS % doc,
        {"d": {"links": [{"id": link_ids[0], "label": "a2"}, {"label": "c", "url": "http://c"}]}},
    )["updateArticle"]
    assert [(x["label"], x["url"]) for x in got["links"]] == [("a2", "http://a"), ("c", "http://c")]
    draft = w.data(DRAFT_COMPONENTS % doc)["article"]
    assert draft["links"][0] == {"id": link_ids[0], "label": "a2", "url": "http://a"}
    assert draft["links"][1]["id"] not in link_ids
    # omitted: untouched; null clears a single component; [] clears a repeatable one
    got = w.data(UPDATE_COMPONENTS % doc, {"d": {"title": "renamed"}})["updateArticle"]
    assert [x["label"] for x in got["links"]] == ["a2", "c"] and got["seo"]["metaTitle"] == "noid"
    got = w.data(UPDATE_COMPONENTS % doc, {"d": {"seo": None, "links": []}})["updateArticle"]
    assert got["seo"] is None and got["links"] == []


# --------------------------------------------------------------------------- dynamic zones

CREATE_BLOCKS = """mutation($d: ArticleInput!) { createArticle(data: $d) { documentId
    blocks { __typename ... on ComponentSharedQuote { id title body }
             ... on ComponentSharedRichText { id body } ... on ComponentSharedMedia { id } } } }"""


def test_dynamic_zone_entries_name_their_graphql_type(w: World) -> None:
    got = w.data(
        CREATE_BLOCKS,
        {
            "d": {
                "title": "Zone",
                "blocks": [
                    {"__typename": "ComponentSharedQuote", "title": "Q", "body": "qb"},
                    {"__typename": "ComponentSharedRichText", "body": "rt"},
                ],
            }
        },
    )["createArticle"]
    doc = got["documentId"]
    assert [{k: v for k, v in b.items() if k != "id"} for b in got["blocks"]] == [
        {"__typename": "ComponentSharedQuote", "title": "Q", "body": "qb"},
        {"__typename": "ComponentSharedRichText", "body": "rt"},
    ]
    read = (
        f'{{ article(documentId: "{doc}") {{ blocks {{ __typename '
        "... on ComponentSharedQuote { title body } ... on ComponentSharedRichText { body } } } }"
    )
    assert w.data(read)["article"]["blocks"] == [
        {"__typename": "ComponentSharedQuote", "title": "Q", "body": "qb"},
        {"__typename": "ComponentSharedRichText", "body": "rt"},
    ]
    # as a literal in the document
    got = w.data(
        'mutation { createArticle(data: {title: "Z2", blocks: [{__typename: '
        '"ComponentSharedQuote", title: "L"}]}) { blocks { __typename '
        "... on ComponentSharedQuote { title } } } }"
    )
    assert got == {
        "createArticle": {"blocks": [{"__typename": "ComponentSharedQuote", "title": "L"}]}
    }
    # a single object is a one-element list
    got = w.data(
        CREATE_BLOCKS,
        {
            "d": {
                "title": "Z3",
                "blocks": {"__typename": "ComponentSharedQuote", "title": "s"},
            }
        },
    )["createArticle"]["blocks"]
    assert [(b["__typename"], b["title"], b["body"]) for b in got] == [
        ("ComponentSharedQuote", "s", None)
    ]
    # update: replace, omit (untouched), []
    update = (
        f'mutation($d: ArticleInput!) {{ updateArticle(documentId: "{doc}", data: $d) '
        "{ blocks { __typename ... on ComponentSharedRichText { body } } } }"
    )
    got = w.data(
        update, {"d": {"blocks": [{"__typename": "ComponentSharedRichText", "body": "only"}]}}
    )
    assert got == {
        "updateArticle": {"blocks": [{"__typename": "ComponentSharedRichText", "body": "only"}]}
    }
    got = w.data(update, {"d": {"title": "Zone renamed"}})
    assert got == {
        "updateArticle": {"blocks": [{"__typename": "ComponentSharedRichText", "body": "only"}]}
    }
    assert w.data(update, {"d": {"blocks": []}}) == {"updateArticle": {"blocks": []}}


@pytest.mark.parametrize(
    "block",
    [
        {"__component": "shared.quote", "title": "Q"},
        {"__typename": "ComponentSharedNope", "title": "Q"},
        {"title": "Q"},
        "ComponentSharedQuote",
    ],
    ids=["rest-__component", "unknown-type", "no-type", "not-an-object"],
)
def test_dynamic_zone_entries_without_a_known_type_are_refused(w: World, block: Any) -> None:
    r = w.gql(CREATE_BLOCKS, {"d": {"title": "x", "blocks": [block]}})
    errors = refused(r, 400, "BAD_USER_INPUT")
    assert len(errors) == 1
    message = errors[0]["message"]
    assert message.startswith('Variable "$d" got invalid value '), message
    assert message.endswith(
        'at "d.blocks[0]"; Expected type "ArticleBlocksDynamicZoneInput". '
        f"Component not found. expected one of: {ZONE_MEMBERS}"
    ), message
    assert w.data("{ articles(status: DRAFT) { title } }") == {"articles": []}


def test_dynamic_zone_literal_and_null_entries_are_refused(w: World) -> None:
    errors = refused(
        w.gql(
            'mutation { createArticle(data: {title: "x", blocks: ["ComponentSharedQuote"]}) '
            "{ documentId } }"
        ),
        400,
        "GRAPHQL_VALIDATION_FAILED",
    )
    assert errors[0]["message"].startswith(
        'Expected value of type "ArticleBlocksDynamicZoneInput!", found "ComponentSharedQuote"'
    )
    errors = refused(
        w.gql(CREATE_BLOCKS, {"d": {"title": "x", "blocks": [None]}}), 400, "BAD_USER_INPUT"
    )
    assert errors[0]["message"] == (
        'Variable "$d" got invalid value null at "d.blocks[0]"; Expected non-nullable type '
        '"ArticleBlocksDynamicZoneInput!" not to be null.'
    )


def test_a_component_outside_the_zone_is_refused_not_dropped(w: World) -> None:
    """The reference drops it silently (Article) or stores it and breaks reads (About);
    KNOWN-DIFFERENCES: Folio refuses it."""
    r = w.gql(
        CREATE_BLOCKS,
        {"d": {"title": "x", "blocks": [{"__typename": "ComponentSharedSeo", "metaTitle": "Q"}]}},
    )
    body = r.json()
    assert "errors" in body and r.status_code in (200, 400), r.text
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT", body
    # a literal is refused when the document is validated, a variable when it is coerced
    r = w.gql(
        'mutation { updateAbout(data: {title: "A", '
        'blocks: [{__typename: "ComponentSharedMedia"}]}) { title } }'
    )
    assert refused(r, 400, "GRAPHQL_VALIDATION_FAILED")
    r = w.gql(
        "mutation($d: AboutInput!) { updateAbout(data: $d) { title } }",
        {"d": {"title": "A", "blocks": [{"__typename": "ComponentSharedMedia"}]}},
    )
    assert "errors" in r.json() and r.status_code in (200, 400), r.text
    assert r.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT", r.text
    assert w.data("{ articles(status: DRAFT) { title } }") == {"articles": []}
    assert w.data("{ about { title } }") == {"about": None}


# --------------------------------------------------------------------------- upload


def test_update_and_delete_upload_files_by_numeric_id(w: World) -> None:
    up = upload_png(w.api, w.full, "c.png")
    got = w.data(
        'mutation($id: ID!) { updateUploadFile(id: $id, info: {alternativeText: "x", name: "n"}) '
        "{ documentId name alternativeText caption } }",
        {"id": up["id"]},
    )
    assert got == {
        "updateUploadFile": {
            "documentId": up["documentId"],
            "name": "n",
            "alternativeText": "x",
            "caption": None,
        }
    }
    got = w.data(
        f'mutation {{ updateUploadFile(id: "{up["id"]}", info: {{caption: "c"}}) '
        "{ name caption } }"
    )
    assert got == {"updateUploadFile": {"name": "n", "caption": "c"}}
    r = w.api.get(f"/api/upload/files/{up['id']}", headers=w.full)
    assert (r.json()["name"], r.json()["alternativeText"], r.json()["caption"]) == ("n", "x", "c")
    error = w.error('mutation { updateUploadFile(id: "9999", info: {name: "n"}) { name } }')
    assert error["path"] == ["updateUploadFile"]
    assert error["extensions"]["code"] == "NOT_FOUND_ERROR"
    assert (
        w.gql('mutation { updateUploadFile(id: "9999", info: {name: "n"}) { name } }').json()[
            "data"
        ]
        is None
    )
    got = w.data(f"mutation {{ deleteUploadFile(id: {up['id']}) {{ documentId name url }} }}")
    assert got == {
        "deleteUploadFile": {"documentId": up["documentId"], "name": "n", "url": up["url"]}
    }
    assert w.api.get(f"/api/upload/files/{up['id']}", headers=w.full).status_code == 404
    # again: nothing to delete (a not-found answer, as a REST DELETE of nothing)
    r = w.gql(f"mutation {{ deleteUploadFile(id: {up['id']}) {{ name }} }}")
    assert r.json()["data"] == {"deleteUploadFile": None}, r.text


def test_deleting_a_file_detaches_it(w: World) -> None:
    a, b = upload_png(w.api, w.full, "a.png"), upload_png(w.api, w.full, "b.png")
    doc = w.data(
        "mutation($d: ArticleInput!) { createArticle(data: $d) { documentId } }",
        {"d": {"title": "G", "cover": a["id"], "gallery": [a["id"], b["id"]]}},
    )["createArticle"]["documentId"]
    w.data(f"mutation {{ deleteUploadFile(id: {a['id']}) {{ name }} }}")
    assert article(w, doc, "cover { name } gallery { name }") == {
        "cover": None,
        "gallery": [{"name": "b.png"}],
    }


# --------------------------------------------------------------------------- users-permissions

REGISTER = (
    "mutation($i: UsersPermissionsRegisterInput!) { register(input: $i) "
    "{ jwt user { id documentId username email confirmed blocked } } }"
)
LOGIN = (
    "mutation($i: UsersPermissionsLoginInput!) { login(input: $i) "
    "{ jwt user { id username email } } }"
)
ME = "{ me { id documentId username email confirmed blocked role { id name description type } } }"


def test_register_login_and_me(w: World) -> None:
    user = {"username": "bob", "email": "Bob@Example.com", "password": "Passw0rd!"}
    got = w.data(REGISTER, {"i": user}, caller="public")["register"]
    assert got["user"]["username"] == "bob" and got["user"]["email"] == "bob@example.com"
    assert got["user"]["confirmed"] is True and got["user"]["blocked"] is False
    assert re.fullmatch(r"\d+", got["user"]["id"])
    jwt = got["jwt"]
    me = data_of(w.api.post("/graphql", {"query": ME}, headers=bearer(jwt)))["me"]
    assert me == {
        **got["user"],
        "role": {
            "id": me["role"]["id"],
            "name": "Authenticated",
            "description": "Default role given to authenticated user.",
            "type": "authenticated",
        },
    }
    for clash in ({"username": "bob2"}, {"email": "other@example.com"}):
        error = w.error(REGISTER, {"i": {**user, **clash}}, caller="public")
        assert error["message"] == "Email or Username are already taken"
        assert error["extensions"]["code"] == "APPLICATION_ERROR"
        assert error["path"] == ["register"]
    error = w.error(
        REGISTER,
        {"i": {**user, "username": "carl", "email": "carl@example.com", "password": "x"}},
        caller="public",
    )
    assert error["extensions"] == validation(
        "password must be at least 6 characters", ["password"], "x"
    )
    error = w.error(REGISTER, {"i": {**user, "username": "carl", "email": "nope"}}, caller="public")
    assert error["extensions"] == validation("email must be a valid email", ["email"], "nope")
    # login by email or username
    for identifier in ("bob@example.com", "bob"):
        got = w.data(
            LOGIN, {"i": {"identifier": identifier, "password": "Passw0rd!"}}, caller="public"
        )
        assert got["login"]["user"] == {
            "id": me["id"],
            "username": "bob",
            "email": "bob@example.com",
        }
        session = bearer(got["login"]["jwt"])
        assert data_of(
            w.api.post("/graphql", {"query": "{ me { username } }"}, headers=session)
        ) == {"me": {"username": "bob"}}
    for bad in (
        {"identifier": "bob", "password": "wrong"},
        {"identifier": "nobody@example.com", "password": "wrong"},
    ):
        r = w.gql(LOGIN, {"i": bad}, caller="public")
        assert r.json()["data"] is None
        assert r.json()["errors"] == [
            {
                "message": "Invalid identifier or password",
                "path": ["login"],
                "extensions": {
                    "code": "BAD_USER_INPUT",
                    "error": {
                        "name": "ValidationError",
                        "message": "Invalid identifier or password",
                        "details": {},
                    },
                },
            }
        ]
    error = w.error(LOGIN, {"i": {"identifier": "bob", "password": ""}}, caller="public")
    assert error["message"] == "password is a required field"
    assert error["extensions"]["code"] == "BAD_USER_INPUT"


def test_change_password(w: World) -> None:
    w.data(
        REGISTER,
        {"i": {"username": "erin", "email": "erin@example.com", "password": "Passw0rd!"}},
        caller="public",
    )
    jwt = w.data(LOGIN, {"i": {"identifier": "erin", "password": "Passw0rd!"}}, caller="public")[
        "login"
    ]["jwt"]
    h = bearer(jwt)

    def change(current: str, new: str, confirm: str, headers: dict[str, str] = h) -> Any:
        q = (
            f'mutation {{ changePassword(currentPassword: "{current}", password: "{new}", '
            f'passwordConfirmation: "{confirm}") {{ jwt user {{ username }} }} }}'
        )
        return w.api.post("/graphql", {"query": q}, headers=headers)

    checks = [
        (("wrong", "NewPassw0rd!", "NewPassw0rd!"), "The provided current password is invalid"),
        (("Passw0rd!", "NewPassw0rd!", "Other!"), "Passwords do not match"),
        (
            ("Passw0rd!", "Passw0rd!", "Passw0rd!"),
            "Your new password must be different than your current password",
        ),
    ]
    for args, message in checks:
        r = change(*args)
        assert r.status_code == 200 and r.json()["data"] == {"changePassword": None}, r.text
        assert r.json()["errors"][0]["message"] == message
        assert r.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    r = change("Passw0rd!", "NewPassw0rd!", "NewPassw0rd!", {})
    assert r.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    got = data_of(change("Passw0rd!", "NewPassw0rd!", "NewPassw0rd!"))["changePassword"]
    assert got["user"] == {"username": "erin"} and got["jwt"]
    r = w.gql(LOGIN, {"i": {"identifier": "erin", "password": "Passw0rd!"}}, caller="public")
    assert r.json()["errors"][0]["message"] == "Invalid identifier or password"
    w.data(LOGIN, {"i": {"identifier": "erin", "password": "NewPassw0rd!"}}, caller="public")


def test_forgot_and_reset_password(w: World) -> None:
    w.data(
        REGISTER,
        {"i": {"username": "frank", "email": "frank@example.com", "password": "Passw0rd!"}},
        caller="public",
    )
    sent = w.api.folio.mailer.sent  # type: ignore[attr-defined]
    before = len(sent)
    got = w.data('mutation { forgotPassword(email: "nobody@example.com") { ok } }', caller="public")
    assert got == {"forgotPassword": {"ok": True}} and len(sent) == before
    got = w.data('mutation { forgotPassword(email: "frank@example.com") { ok } }', caller="public")
    assert got == {"forgotPassword": {"ok": True}} and len(sent) == before + 1
    assert sent[-1][0] == "frank@example.com"
    code = re.findall(r"[0-9a-f]{128}", sent[-1][2])[0]
    error = w.error('mutation { forgotPassword(email: "nope") { ok } }', caller="public")
    assert error["extensions"] == validation("email must be a valid email", ["email"], "nope")
    error = w.error(
        'mutation { resetPassword(password: "a12345678", passwordConfirmation: "a12345678", '
        'code: "bad") { jwt } }',
        caller="public",
    )
    assert error["message"] == "Incorrect code provided"
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    got = w.data(
        'mutation { resetPassword(password: "a12345678", passwordConfirmation: "a12345678", '
        f'code: "{code}") {{ jwt user {{ username }} }} }}',
        caller="public",
    )["resetPassword"]
    assert got["user"] == {"username": "frank"} and got["jwt"]
    w.data(LOGIN, {"i": {"identifier": "frank", "password": "a12345678"}}, caller="public")


USER_FIELDS = "{ data { documentId username email confirmed blocked provider role { name } } }"


def test_users_crud_mutations_with_a_full_access_token(w: World) -> None:
    role = w.data(
        '{ usersPermissionsRoles(filters: {type: {eq: "authenticated"}}) { documentId } }'
    )
    role_id = role["usersPermissionsRoles"][0]["documentId"]
    create = (
        "mutation($d: UsersPermissionsUserInput!) "
        f"{{ createUsersPermissionsUser(data: $d) {USER_FIELDS} }}"
    )
    carol = {
        "username": "carol",
        "email": "carol@example.com",
        "password": "Passw0rd!",
        "role": role_id,
    }
    r = w.gql(create, {"d": carol})
    assert r.status_code == 200, r.text  # the reference leaks its REST 201 here
    got = data_of(r)["createUsersPermissionsUser"]["data"]
    assert {k: v for k, v in got.items() if k != "documentId"} == {
        "username": "carol",
        "email": "carol@example.com",
        "confirmed": False,
        "blocked": False,
        "provider": "local",
        "role": {"name": "Authenticated"},
    }
    error = w.error(create, {"d": {**carol, "username": "carol2"}})
    assert error["message"] == "Email already taken"
    assert error["extensions"]["code"] == "APPLICATION_ERROR"
    error = w.error(create, {"d": {**carol, "email": "carol2@example.com"}})
    assert error["extensions"]["code"] == "APPLICATION_ERROR"
    users = w.api.get("/api/users", headers=w.full).json()
    carol_id = next(u["id"] for u in users if u["username"] == "carol")
    update = (
        "mutation($id: ID!, $d: UsersPermissionsUserInput!) { updateUsersPermissionsUser(id: $id, "
        "data: $d) { data { documentId username email blocked } } }"
    )
    got = w.data(update, {"id": carol_id, "d": {"username": "carol_renamed", "blocked": True}})
    assert got == {
        "updateUsersPermissionsUser": {
            "data": {
                "documentId": got["updateUsersPermissionsUser"]["data"]["documentId"],
                "username": "carol_renamed",
                "email": "carol@example.com",
                "blocked": True,
            }
        }
    }
    error = w.error(update, {"id": 9999, "d": {"username": "x"}})
    assert error["message"] == "User not found"
    assert error["extensions"]["code"] == "NOT_FOUND_ERROR"
    got = w.data(
        f"mutation {{ deleteUsersPermissionsUser(id: {carol_id}) {{ data {{ username }} }} }}"
    )
    assert got == {"deleteUsersPermissionsUser": {"data": {"username": "carol_renamed"}}}
    assert w.api.get(f"/api/users/{carol_id}", headers=w.full).status_code == 404
    r = w.gql(
        f"mutation {{ deleteUsersPermissionsUser(id: {carol_id}) {{ data {{ username }} }} }}"
    )
    assert r.status_code == 200, r.text  # never the reference's empty 204
    assert r.json()["errors"][0]["extensions"]["code"] == "NOT_FOUND_ERROR"
