"""GraphQL's `Long` and `Time` as the reference reads and answers them: the GraphQL probes of
`tests/fixtures/reference/error-and-scalar-probes.json` replayed in order and compared with
the reference's answers (a `Long` is a number while JavaScript holds it exactly, its digits as
a string beyond; a `Time` always has milliseconds; inputs accept a `Long` as a number or a
string and a `Time` with or without milliseconds, and refuse anything else before running)."""

from __future__ import annotations

from typing import Any

from tests.api.test_error_bodies import PROBES, replay, send
from tests.conftest import Api


def rows(*values: Any) -> tuple[int, dict[str, Any]]:
    return 200, {"data": {"articles": [{"bigCount": v} for v in values]}}


BIG = "9007199254740993"
# Where Folio answers otherwise, and why.
DEPARTURES: dict[str, Any] = {
    # a JSON number is read exactly (the reference's JavaScript rounds it to ...992), so
    # the filters that follow find two such rows where the reference finds one
    "Long variable 9007199254740993": (
        200,
        {"data": {"createArticle": {"bigCount": BIG, "startTime": None}}},
    ),
    "Long filter variable as string": rows(BIG, BIG),
    "Long filter variable as number": rows(BIG, BIG),
    "Long filter literal number": rows(BIG, BIG),
    # graphql-core shows a Python value in this message
    "Long variable refused True": (
        400,
        {
            "errors": [
                {
                    "message": 'Variable "$b" got invalid value True; Expected type "Long". '
                    "Cannot convert true to a BigInt",
                    "locations": [{"line": 1, "column": 10}],
                    "extensions": {"code": "BAD_USER_INPUT"},
                }
            ]
        },
    ),
    # the same error, with its location
    "Long literal refused true": (
        400,
        {
            "errors": [
                {
                    "message": "BigInt cannot represent value: true",
                    "locations": [{"line": 1, "column": 55}],
                    "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"},
                }
            ]
        },
    ),
}


def is_scalar_probe(probe: dict[str, Any]) -> bool:
    return probe["name"].startswith(("Long ", "Time "))


def test_long_and_time_as_the_reference(api: Api) -> None:
    checked = replay(api, is_scalar_probe, DEPARTURES)
    assert len(checked) > 30


def test_long_beyond_javascript_integers_is_a_string(api: Api) -> None:
    """What REST stored is answered by GraphQL in the reference's forms."""
    for big, time in (("9007199254740993", "09:30:00"), ("12", "23:59:59.999")):
        api.create("articles", {"title": big, "bigCount": big, "startTime": time})
    api.create("articles", {"title": "none"})
    r = api.post("/graphql", {"query": '{ articles(sort: "title") { title bigCount startTime } }'})
    assert r.json() == {
        "data": {
            "articles": [
                {"title": "12", "bigCount": 12, "startTime": "23:59:59.999"},
                {"title": "9007199254740993", "bigCount": BIG, "startTime": "09:30:00.000"},
                {"title": "none", "bigCount": None, "startTime": None},
            ]
        }
    }
    # REST answers every biginteger as a string, the time as stored
    rest = api.get("/api/articles?sort=title&fields[0]=bigCount&fields[1]=startTime").json()
    assert [(a["bigCount"], a["startTime"]) for a in rest["data"]] == [
        ("12", "23:59:59.999"),
        (BIG, "09:30:00"),
        (None, None),
    ]


def test_refused_scalars_write_nothing(api: Api) -> None:
    for probe in PROBES:
        if is_scalar_probe(probe) and "refused" in probe["name"]:
            status, answer = send(api, probe)
            assert status == 400 and "data" not in answer, probe["name"]
    assert api.get("/api/articles").json()["data"] == []
