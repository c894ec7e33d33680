"""Error bodies as the reference answers them: the requests recorded in
`tests/fixtures/reference/error-and-scalar-probes.json` are replayed, in their order, on a
fresh app and each answer is compared with the reference's, whole; where Folio knowingly
answers otherwise, the test pins Folio's own answer and says why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import Api

PROBES = json.loads(
    (Path(__file__).parent.parent / "fixtures/reference/error-and-scalar-probes.json").read_text()
)["probes"]


def send(api: Api, probe: dict[str, Any]) -> tuple[int, Any]:
    """Sends a recorded request; its status and decoded answer."""
    if "raw" in probe:
        r = api.client.request(
            probe["method"],
            probe["path"],
            content=probe["raw"].encode(),
            headers={"Content-Type": probe["contentType"]},
        )
    else:
        r = api.client.request(probe["method"], probe["path"], json=probe.get("body"))
    assert r.status_code < 500, r.text
    return r.status_code, r.json()


def replay(api: Api, wanted: Any, departures: dict[str, Any]) -> list[str]:
    """Replays every probe (the earlier ones shape the data the later ones see); checks
    those `wanted(probe)` selects against the reference's answer, or against
    `departures[name]` (a status and answer) where Folio answers otherwise. Returns the
    names checked."""
    checked = []
    for probe in PROBES:
        status, answer = send(api, probe)
        if not wanted(probe):
            continue
        checked.append(probe["name"])
        if probe["name"] in departures:
            assert (status, answer) == departures[probe["name"]], probe["name"]
            continue
        assert status == probe["status"], (probe["name"], answer)
        if probe["answer"] is not None:
            assert answer == probe["answer"], probe["name"]
    return checked


def envelope(message: str, details: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return 400, {
        "data": None,
        "error": {"status": 400, "name": "ValidationError", "message": message, "details": details},
    }


def field(path: list[str], message: str, value: Any) -> tuple[int, dict[str, Any]]:
    """A single field problem, whose message is also the error's."""
    entry = {"path": path, "message": message, "name": "ValidationError", "value": value}
    return envelope(message, {"errors": [entry]})


def no_value(message: str) -> tuple[int, dict[str, Any]]:
    """The reference's answer without the whole written `data` it echoes as the value."""
    return envelope(
        message, {"errors": [{"path": [], "message": message, "name": "ValidationError"}]}
    )


GRAPHQL_BAD_JSON = (
    400,
    {
        "errors": [
            {
                "message": "Invalid JSON in the request body: invalid literal, expected 'null': "
                "line 1 column 1 (char 0)",
                "extensions": {"code": "BAD_REQUEST"},
            }
        ]
    },
)
NO_BODY = (
    400,
    {
        "errors": [
            {
                "message": "POST body missing, invalid Content-Type, or JSON object has no keys.",
                "extensions": {"code": "BAD_REQUEST"},
            }
        ]
    },
)
ZONE = "shared.quote, shared.rich-text, shared.media"
UNKNOWN_CATEGORY = (
    "1 relation(s) of type api::category.category associated with this entity do not exist"
)
UNKNOWN_TAGS = "2 relation(s) of type api::tag.tag associated with this entity do not exist"

# Where Folio answers otherwise, and why.
DEPARTURES: dict[str, Any] = {
    # the field is named in `details.errors` (the reference gives empty details)
    "bad date": field(["publishDate"], "Invalid format, expected yyyy-MM-dd", "2024-13-45"),
    "bad datetime": field(
        ["eventAt"], "Invalid format, expected a timestamp or an ISO date", "yesterday"
    ),
    "bad time": field(["startTime"], "Invalid time format, expected HH:mm:ss.SSS", "25:99"),
    # one problem, naming the zone's own components (the reference adds an "Invalid
    # relations" entry and lists every component of the app)
    "zone unknown component": field(
        ["blocks", "0", "__component"],
        f"shared.nope is not one of the components allowed in blocks: {ZONE}",
        "shared.nope",
    ),
    "zone missing __component": envelope(
        "blocks[0].__component is a required field",
        {
            "errors": [
                {
                    "path": ["blocks", "0", "__component"],
                    "message": "blocks[0].__component is a required field",
                    "name": "ValidationError",
                }
            ]
        },
    ),
    # the reference echoes the whole written data, rewritten, as the entry's value
    "relation unknown numeric id": no_value(UNKNOWN_CATEGORY),
    "two unknown numeric ids": no_value(UNKNOWN_TAGS),
    # the entry that is wrong, where the reference says "Invalid relations"
    "relation bad entry": field(
        ["tags", "0"], "A relation entry must be a documentId or an object with a documentId", True
    ),
    # each file that is missing, by its path (the reference counts them, or looks a
    # non-number up as a documentId of no locale)
    "media unknown id": field(["cover"], "File with id 999999 not found", 999999),
    "media bad value": field(["cover"], "File with id abc not found", "abc"),
    "media many unknown": envelope(
        "2 errors occurred",
        {
            "errors": [
                {
                    "path": ["gallery", str(i)],
                    "message": f"File with id {n} not found",
                    "name": "ValidationError",
                    "value": n,
                }
                for i, n in enumerate((999998, 999999))
            ]
        },
    ),
    # an object cast to a string the way Python's JSON writes it
    "score obj": field(
        ["score"],
        "score must be a `number` type, but the final value was: `NaN` "
        '(cast from the value `{"a":1}`).',
        None,
    ),
    # the parser's reason (the reference's body parser answers one fixed message)
    "non-JSON body REST": (
        400,
        {
            "data": None,
            "error": {
                "status": 400,
                "name": "SyntaxError",
                "message": "Invalid JSON in the request body: invalid literal, expected 'null': "
                "line 1 column 1 (char 0)",
                "details": {},
            },
        },
    ),
    # GraphQL answers `{errors}` whatever the problem (the reference's body parser
    # answers the REST envelope before its GraphQL server sees the request)
    "non-JSON body GraphQL": GRAPHQL_BAD_JSON,
    # a body of another type is no body (nothing runs either way; the reference words it
    # as a blocked cross-site request)
    "text/plain GraphQL": NO_BODY,
    "form body GraphQL": NO_BODY,
    # the reference echoes the whole written data as the entry's value
    "GraphQL relation unknown numeric id": (
        200,
        {
            "errors": [
                {
                    "message": UNKNOWN_TAGS,
                    "path": ["createArticle"],
                    "extensions": {
                        "code": "BAD_USER_INPUT",
                        "error": {
                            "name": "ValidationError",
                            "message": UNKNOWN_TAGS,
                            "details": {
                                "errors": [
                                    {"path": [], "message": UNKNOWN_TAGS, "name": "ValidationError"}
                                ]
                            },
                        },
                    },
                }
            ],
            "data": {"createArticle": None},
        },
    ),
}


def is_error_probe(probe: dict[str, Any]) -> bool:
    return probe["path"] != "/graphql" or probe["name"].startswith(("GraphQL", "non-JSON"))


def is_graphql_body_probe(probe: dict[str, Any]) -> bool:
    return probe["path"] == "/graphql" and "raw" in probe


def test_error_bodies_match_the_reference(api: Api) -> None:
    checked = replay(api, is_error_probe, DEPARTURES)
    assert len(checked) > 50


def test_graphql_body_problems_answer_errors(api: Api) -> None:
    """Whatever is wrong with a /graphql body, the answer is `{errors}` with HTTP 400."""
    for probe in filter(is_graphql_body_probe, PROBES):
        status, answer = send(api, probe)
        assert status == 400, probe["name"]
        assert list(answer) == ["errors"], (probe["name"], answer)
        assert [e["extensions"]["code"] for e in answer["errors"]] == ["BAD_REQUEST"]


def test_field_problem_entries(api: Api) -> None:
    """`value` is left out only where nothing was given; list indexes are strings; a
    problem in a component is worded with its whole path."""
    r = api.post("/api/categories", {"data": {"slug": "s"}})
    assert r.json()["error"]["details"]["errors"] == [
        {"path": ["name"], "message": "name must be defined.", "name": "ValidationError"}
    ]
    r = api.post("/api/categories", {"data": {"name": None}})
    [entry] = r.json()["error"]["details"]["errors"]
    assert "value" in entry and entry["value"] is None
    r = api.post("/api/articles", {"data": {"title": "a", "links": [{"url": "/a"}, {"url": 5}]}})
    assert r.json()["error"]["details"]["errors"] == [
        {
            "path": ["links", "1", "url"],
            "message": "links[1].url must be a `string` type, but the final value was: `5`.",
            "name": "ValidationError",
            "value": 5,
        }
    ]


def test_invalid_keys_name_their_place(api: Api) -> None:
    def details(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        error = api.post("/api/articles", {"data": {"title": "a", **data}}).json()["error"]
        return error["message"], error["details"]

    assert details({"createdAt": "2020-01-01T00:00:00.000Z"}) == (
        "Invalid key createdAt",
        {"key": "createdAt", "path": "createdAt", "source": "body"},
    )
    assert details({"id": 1}) == ("Invalid key id", {"key": "id", "source": "body"})
    assert details({"nope": 1}) == (
        "Invalid key nope",
        {"key": "nope", "path": None, "source": "body"},
    )
    # inside a component, a repeatable one, a zone entry, and a component in a zone entry
    assert details({"seo": {"nope": 1}})[0] == "Invalid key nope at seo"
    assert details({"links": [{"url": "/a"}, {"nope": 1}]})[1] == {
        "key": "nope",
        "path": "links",
        "source": "body",
    }
    assert details({"blocks": [{"__component": "shared.quote", "nope": 1}]})[0] == (
        "Invalid key nope at blocks"
    )
    # nothing was written
    assert api.get("/api/articles").json()["data"] == []


def test_unknown_relations(api: Api) -> None:
    """A relation to an unknown document says `locale "null"` where its target is not
    localized, the locale looked in where it is; unknown numeric ids are counted."""
    missing = "nonexistentdocid00000000"

    def message(plural: str, data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        error = api.post(f"/api/{plural}", {"data": data}).json()["error"]
        return error["message"], error["details"]

    assert message("articles", {"title": "a", "category": missing}) == (
        f'Document with id "{missing}", locale "null" not found',
        {},
    )
    assert message("events", {"name": "e", "articles": [missing]}) == (
        f'Document with id "{missing}", locale "en" not found',
        {},
    )
    to_fr = {"connect": [{"documentId": missing, "locale": "fr"}]}
    assert message("events", {"name": "e", "articles": to_fr})[0] == (
        f'Document with id "{missing}", locale "fr" not found'
    )
    assert message("articles", {"title": "a", "tags": [999998, 999999, 999999]})[0] == (
        UNKNOWN_TAGS
    )
    # a known id beside unknown ones: only the unknown ones are counted
    api.create("tags", {"name": "t"})
    known = api.get("/api/tags").json()["data"][0]["id"]
    text = message("articles", {"title": "a", "tags": {"set": [known, 999999]}})
    assert text[0] == "1 relation(s) of type api::tag.tag associated with this entity do not exist"
    assert message("articles", {"title": "a", "category": 999999})[0] == UNKNOWN_CATEGORY
    assert api.get("/api/articles").json()["data"] == []
