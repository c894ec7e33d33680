"""The find query language of GET /api/:plural: filters, sort, pagination and fields, and the
query-string encodings they arrive in.

Every test here only reads, so the module seeds one blog per database through the API and
shares it: five published English articles, one draft-only article, one French article, four
categories and three tags, with a few relations and a component. Tests that write belong in
another module (the per-test `api` fixture resets the PostgreSQL schema)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pytest

from tests.conftest import BACKENDS, FIXTURES, Api, database_url, make_api

# --------------------------------------------------------------------------- dataset

HW = "Hello World"
HA = "hello again"
ZS = "Zebra Story"
AP = "apple pie"
BA = "Banana"
ALL = [HW, HA, ZS, AP, BA]  # creation order, which is the default order of a list
SHORT = {"HW": HW, "HA": HA, "ZS": ZS, "AP": AP, "BA": BA}

ARTICLES: list[dict[str, Any]] = [
    {
        "title": HW,
        "slug": "hello-world",
        "description": "First post",
        "body": "# Hello **bold**",
        "featured": True,
        "views": 10,
        "rating": 4.5,
        "score": 1.25,
        "bigCount": "9007199254740993",
        "publishDate": "2024-01-15",
        "eventAt": "2024-01-15T10:00:00.000Z",
        "startTime": "10:00:00",
        "contactEmail": "hello@example.com",
        "status2": "idea",
        "meta": {"tag": "alpha", "n": 1},
    },
    {
        "title": HA,
        "slug": "hello-again",
        "description": "Second POST",
        "body": "_italic_ 100%",
        "featured": False,
        "views": 20,
        "rating": 3.75,
        "score": -2.5,
        "bigCount": "-5",
        "publishDate": "2024-02-10",
        "eventAt": "2024-02-10T23:59:59.999Z",
        "startTime": "23:59:59",
        "contactEmail": "Again@Example.org",
        "status2": "writing",
        "meta": {"tag": "Beta"},
    },
    {
        "title": ZS,
        "slug": "zebra_story",
        "description": "about zebras",
        "body": "plain [text]",
        "featured": True,
        "views": 5,
        "rating": 2,
        "score": 0,
        "bigCount": "0",
        "publishDate": "2024-03-05",
        "eventAt": "2023-06-01T00:00:00.000Z",
        "startTime": "08:30:00.5",
        "contactEmail": "zebra@zoo.test",
        "status2": "review",
        "meta": [1, 2, 3],
    },
    {"title": AP},
    {
        "title": BA,
        "slug": "banana",
        "description": "yellow",
        "body": "back\\slash",
        "featured": False,
        "views": 20,
        "score": 100.5,
        "bigCount": "123",
        "publishDate": "2023-12-31",
        "status2": "idea",
    },
]
DRAFT_ONLY = {"title": "Draft Only", "views": 1}
FRENCH = {"title": "Bonjour", "views": 10}

LIST_KEYS = [
    "id",
    "documentId",
    "title",
    "slug",
    "description",
    "body",
    "content",
    "featured",
    "views",
    "rating",
    "score",
    "bigCount",
    "publishDate",
    "eventAt",
    "startTime",
    "contactEmail",
    "status2",
    "meta",
    "createdAt",
    "updatedAt",
    "publishedAt",
    "locale",
]


@dataclass
class Blog:
    api: Api
    docs: dict[str, dict[str, Any]]  # the published English articles by title, as listed

    def get(self, query: str, plural: str = "articles") -> Any:
        return self.api.get(f"/api/{plural}?{query}" if query else f"/api/{plural}")

    def titles(self, query: str) -> list[str]:
        r = self.get(query)
        assert r.status_code == 200, f"{query}: {r.status_code} {r.text}"
        return [doc["title"] for doc in r.json()["data"]]

    def ids(self) -> dict[str, Any]:
        return {short: self.docs[title]["id"] for short, title in SHORT.items()}

    def document_ids(self) -> dict[str, str]:
        return {short: self.docs[title]["documentId"] for short, title in SHORT.items()}


def seed(api: Api) -> dict[str, dict[str, Any]]:
    categories = {
        name: api.create("categories", {"name": name, **({"slug": slug} if slug else {})})
        for name, slug in [("News", "news"), ("Tech", "tech"), ("Café", None), ("art", "art")]
    }
    tags = {name: api.create("tags", {"name": name}) for name in ["t1", "t2", "t10"]}
    links: dict[str, dict[str, Any]] = {
        HW: {"category": "Tech", "tags": ["t1", "t2"], "seo": {"metaTitle": "Meta HW"}},
        HA: {"category": "News", "tags": ["t2"]},
        BA: {"tags": ["t10"]},
    }
    for data in ARTICLES:
        extra = dict(links.get(data["title"], {}))
        if "category" in extra:
            extra["category"] = categories[extra["category"]]["documentId"]
        if "tags" in extra:
            extra["tags"] = [tags[name]["documentId"] for name in extra["tags"]]
        api.create("articles", {**data, **extra})
    api.create("articles", DRAFT_ONLY, "?status=draft")
    api.create("articles", FRENCH, "?locale=fr")
    r = api.get("/api/articles")
    assert r.status_code == 200, r.text
    listed = r.json()["data"]
    assert [doc["title"] for doc in listed] == ALL
    return {doc["title"]: doc for doc in listed}


@pytest.fixture(scope="module", params=BACKENDS)
def blog(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Blog]:
    app_dir = tmp_path_factory.mktemp("query") / "app"
    shutil.copytree(FIXTURES / "blog", app_dir)
    for api in make_api(app_dir, database_url(str(request.param), app_dir)):
        yield Blog(api, seed(api))


# --------------------------------------------------------------------------- helpers


def error_body(status: int, name: str, message: str, details: dict[str, Any]) -> dict[str, Any]:
    return {
        "data": None,
        "error": {"status": status, "name": name, "message": message, "details": details},
    }


def invalid_key(key: str, path: str | None, param: str) -> dict[str, Any]:
    # the message names the enclosing path only when the key is nested under it
    message = f"Invalid key {key}" + (f" at {path}" if path and path != key else "")
    details = {"key": key, "path": path, "source": "query", "param": param}
    return error_body(400, "ValidationError", message, details)


def assert_rejected(r: Any, mention: str) -> None:
    """A 400 ValidationError whose message names the offending part of the query."""
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["data"] is None
    error = body["error"]
    assert error["status"] == 400
    assert error["name"] == "ValidationError"
    assert isinstance(error["message"], str) and error["message"]
    assert mention in error["message"], error["message"]


def case(query: str, expected: list[str]) -> Any:
    return pytest.param(query, expected, id=query)


# --------------------------------------------------------------------------- filters per type


STRING_CASES = [
    case("filters[title][$eq]=Hello%20World", [HW]),
    case("filters[title][$eq]=hello%20world", []),
    case("filters[title][$eqi]=hello%20world", [HW]),
    case("filters[title][$eqi]=HELLO%20AGAIN", [HA]),
    case("filters[title][$ne]=Banana", [HW, HA, ZS, AP]),
    case("filters[title][$nei]=banana", [HW, HA, ZS, AP]),
    case("filters[title][$lt]=Hello%20World", [BA]),
    case("filters[title][$lte]=Hello%20World", [HW, BA]),
    case("filters[title][$gt]=Zebra%20Story", [HA, AP]),
    case("filters[title][$gte]=Zebra%20Story", [HA, ZS, AP]),
    case("filters[title][$in][0]=Banana&filters[title][$in][1]=apple%20pie", [AP, BA]),
    case("filters[title][$notIn][0]=Banana&filters[title][$notIn][1]=apple%20pie", [HW, HA, ZS]),
    case("filters[title][$contains]=ello", [HW, HA]),
    case("filters[title][$contains]=Hello", [HW]),
    case("filters[title][$contains]=hello", [HA]),
    case("filters[title][$notContains]=Hello", [HA, ZS, AP, BA]),
    case("filters[title][$containsi]=HELLO", [HW, HA]),
    case("filters[title][$notContainsi]=hello", [ZS, AP, BA]),
    case("filters[title][$null]=true", []),
    case("filters[title][$notNull]=true", ALL),
    case("filters[title][$between][0]=B&filters[title][$between][1]=Z", [HW, BA]),
    case("filters[title][$startsWith]=Hel", [HW]),
    case("filters[title][$startsWith]=hel", [HA]),
    case("filters[title][$startsWithi]=hel", [HW, HA]),
    case("filters[title][$endsWith]=Story", [ZS]),
    case("filters[title][$endsWith]=story", []),
    case("filters[title][$endsWithi]=STORY", [ZS]),
]

TEXT_CASES = [
    case("filters[description][$eq]=yellow", [BA]),
    case("filters[description][$eqi]=second%20post", [HA]),
    case("filters[description][$ne]=yellow", [HW, HA, ZS]),
    case("filters[description][$nei]=YELLOW", [HW, HA, ZS]),
    case("filters[description][$lt]=Second%20POST", [HW]),
    case("filters[description][$lte]=Second%20POST", [HW, HA]),
    case("filters[description][$gt]=about%20zebras", [BA]),
    case("filters[description][$gte]=about", [ZS, BA]),
    case(
        "filters[description][$in][0]=yellow&filters[description][$in][1]=about%20zebras", [ZS, BA]
    ),
    case("filters[description][$notIn][0]=yellow", [HW, HA, ZS]),
    case("filters[description][$contains]=post", [HW]),
    case("filters[description][$notContains]=post", [HA, ZS, BA]),
    case("filters[description][$containsi]=post", [HW, HA]),
    case("filters[description][$notContainsi]=post", [ZS, BA]),
    case("filters[description][$startsWith]=about", [ZS]),
    case("filters[description][$startsWithi]=SECOND", [HA]),
    case("filters[description][$endsWith]=POST", [HA]),
    case("filters[description][$endsWithi]=post", [HW, HA]),
    case("filters[description][$between][0]=A&filters[description][$between][1]=Z", [HW, HA]),
    case("filters[description][$null]=true", [AP]),
    case("filters[description][$notNull]=true", [HW, HA, ZS, BA]),
]

RICHTEXT_CASES = [
    case("filters[body][$eq]=plain%20%5Btext%5D", [ZS]),
    case("filters[body][$eq]=back%5Cslash", [BA]),
    case("filters[body][$eqi]=_ITALIC_%20100%25", [HA]),
    case("filters[body][$ne]=plain%20%5Btext%5D", [HW, HA, BA]),
    case("filters[body][$nei]=PLAIN%20%5BTEXT%5D", [HW, HA, BA]),
    case("filters[body][$contains]=**", [HW]),
    case("filters[body][$notContains]=*", [HA, ZS, BA]),
    case("filters[body][$containsi]=hello", [HW]),
    case("filters[body][$notContainsi]=HELLO", [HA, ZS, BA]),
    case("filters[body][$startsWith]=%23", [HW]),
    case("filters[body][$startsWithi]=PLAIN%20%5B", [ZS]),
    case("filters[body][$endsWith]=%25", [HA]),
    case("filters[body][$endsWithi]=SLASH", [BA]),
    case("filters[body][$in][0]=back%5Cslash", [BA]),
    case("filters[body][$null]=true", [AP]),
    case("filters[body][$notNull]=true", [HW, HA, ZS, BA]),
]

EMAIL_CASES = [
    case("filters[contactEmail][$eq]=hello@example.com", [HW]),
    case("filters[contactEmail][$eqi]=again@example.org", [HA]),
    case("filters[contactEmail][$ne]=hello@example.com", [HA, ZS]),
    case("filters[contactEmail][$nei]=HELLO@EXAMPLE.COM", [HA, ZS]),
    case("filters[contactEmail][$lt]=b", [HA]),
    case("filters[contactEmail][$contains]=@example", [HW]),
    case("filters[contactEmail][$containsi]=@EXAMPLE", [HW, HA]),
    case("filters[contactEmail][$notContainsi]=EXAMPLE", [ZS]),
    case("filters[contactEmail][$startsWith]=A", [HA]),
    case("filters[contactEmail][$endsWith]=.test", [ZS]),
    case("filters[contactEmail][$endsWithi]=@EXAMPLE.ORG", [HA]),
    case(
        "filters[contactEmail][$in][0]=zebra@zoo.test&filters[contactEmail][$in][1]=hello@example.com",
        [HW, ZS],
    ),
    case("filters[contactEmail][$null]=true", [AP, BA]),
    case("filters[contactEmail][$notNull]=true", [HW, HA, ZS]),
]

UID_CASES = [
    case("filters[slug][$eq]=zebra_story", [ZS]),
    case("filters[slug][$eqi]=HELLO-WORLD", [HW]),
    case("filters[slug][$nei]=BANANA", [HW, HA, ZS]),
    case("filters[slug][$gt]=hello-again", [HW, ZS]),
    case("filters[slug][$startsWith]=hello-", [HW, HA]),
    case("filters[slug][$contains]=_", [ZS]),
    case("filters[slug][$notIn][0]=banana", [HW, HA, ZS]),
    case("filters[slug][$null]=true", [AP]),
]

ENUMERATION_CASES = [
    case("filters[status2][$eq]=idea", [HW, BA]),
    case("filters[status2][$eq]=bogus", []),
    case("filters[status2][$eqi]=IDEA", [HW, BA]),
    case("filters[status2][$ne]=idea", [HA, ZS]),
    case("filters[status2][$lt]=review", [HW, BA]),
    case("filters[status2][$between][0]=idea&filters[status2][$between][1]=review", [HW, ZS, BA]),
    case("filters[status2][$in][0]=writing&filters[status2][$in][1]=review", [HA, ZS]),
    case("filters[status2][$notIn][0]=idea", [HA, ZS]),
    case("filters[status2][$startsWith]=re", [ZS]),
    case("filters[status2][$contains]=it", [HA]),
    case("filters[status2][$null]=true", [AP]),
]

INTEGER_CASES = [
    case("filters[views][$eq]=10", [HW]),
    case("filters[views]=20", [HA, BA]),
    case("filters[views][$ne]=20", [HW, ZS]),
    case("filters[views][$lt]=10", [ZS]),
    case("filters[views][$lt]=-1", []),
    case("filters[views][$lte]=10", [HW, ZS]),
    case("filters[views][$gt]=10", [HA, BA]),
    case("filters[views][$gte]=10", [HW, HA, BA]),
    case("filters[views][$in][0]=5&filters[views][$in][1]=20", [HA, ZS, BA]),
    case("filters[views][$in]=20", [HA, BA]),
    case("filters[views][$notIn][0]=5&filters[views][$notIn][1]=20", [HW]),
    case("filters[views][$between][0]=5&filters[views][$between][1]=10", [HW, ZS]),
    case("filters[views][$between][0]=10&filters[views][$between][1]=5", []),
    case("filters[views][$null]=true", [AP]),
    case("filters[views][$notNull]=true", [HW, HA, ZS, BA]),
    case("filters[views][$startsWith]=2", [HA, BA]),
    case("filters[views][$contains]=0", [HW, HA, BA]),
    # number spellings the reference accepts
    case("filters[views][$eq]=%2010", [HW]),
    case("filters[views][$eq]=10.0", [HW]),
    case("filters[views][$gt]=1e1", [HA, BA]),
]

BIGINTEGER_CASES = [
    case("filters[bigCount][$eq]=9007199254740993", [HW]),
    case("filters[bigCount][$eq]=9007199254740992", []),
    case("filters[bigCount][$gt]=9007199254740992", [HW]),
    case("filters[bigCount][$ne]=0", [HW, HA, BA]),
    case("filters[bigCount][$lt]=0", [HA]),
    case("filters[bigCount][$lte]=0", [HA, ZS]),
    case("filters[bigCount][$gt]=0", [HW, BA]),
    case("filters[bigCount][$gte]=123", [HW, BA]),
    case("filters[bigCount][$in][0]=-5&filters[bigCount][$in][1]=0", [HA, ZS]),
    case("filters[bigCount][$notIn][0]=0", [HW, HA, BA]),
    case("filters[bigCount][$between][0]=-10&filters[bigCount][$between][1]=200", [HA, ZS, BA]),
    case("filters[bigCount][$startsWith]=9007", [HW]),
    case("filters[bigCount][$startsWith]=-", [HA]),
    case("filters[bigCount][$null]=true", [AP]),
]

FLOAT_CASES = [
    case("filters[score][$eq]=1.25", [HW]),
    case("filters[score][$eq]=-2.50", [HA]),
    case("filters[score][$ne]=1.25", [HA, ZS, BA]),
    case("filters[score][$lt]=0", [HA]),
    case("filters[score][$lte]=0", [HA, ZS]),
    case("filters[score][$gt]=1.25", [BA]),
    case("filters[score][$gt]=1e1", [BA]),
    case("filters[score][$gte]=1.25", [HW, BA]),
    case("filters[score][$in][0]=0&filters[score][$in][1]=100.5", [ZS, BA]),
    case("filters[score][$notIn][0]=0", [HW, HA, BA]),
    case("filters[score][$between][0]=-3&filters[score][$between][1]=1.5", [HW, HA, ZS]),
    case("filters[score][$startsWith]=100", [BA]),
    case("filters[score][$null]=true", [AP]),
]

DECIMAL_CASES = [
    case("filters[rating][$eq]=4.5", [HW]),
    case("filters[rating][$eq]=4.50", [HW]),
    case("filters[rating][$ne]=4.5", [HA, ZS]),
    case("filters[rating][$gt]=4", [HW]),
    case("filters[rating][$gte]=3.75", [HW, HA]),
    case("filters[rating][$lt]=3.75", [ZS]),
    case("filters[rating][$lte]=3.75", [HA, ZS]),
    case("filters[rating][$between][0]=2&filters[rating][$between][1]=4", [HA, ZS]),
    case("filters[rating][$in][0]=2&filters[rating][$in][1]=4.5", [HW, ZS]),
    case("filters[rating][$notIn][0]=2", [HW, HA]),
    case("filters[rating][$startsWith]=4", [HW]),
    case("filters[rating][$null]=true", [AP, BA]),
    case("filters[rating][$notNull]=true", [HW, HA, ZS]),
]

DATE_CASES = [
    case("filters[publishDate][$eq]=2024-01-15", [HW]),
    case("filters[publishDate][$ne]=2024-01-15", [HA, ZS, BA]),
    case("filters[publishDate][$lt]=2024-02-01", [HW, BA]),
    case("filters[publishDate][$lte]=2024-02-10", [HW, HA, BA]),
    case("filters[publishDate][$gt]=2024-02-10", [ZS]),
    case("filters[publishDate][$gte]=2024-02-10", [HA, ZS]),
    case(
        "filters[publishDate][$between][0]=2024-01-01&filters[publishDate][$between][1]=2024-02-28",
        [HW, HA],
    ),
    case(
        "filters[publishDate][$in][0]=2024-01-15&filters[publishDate][$in][1]=2023-12-31",
        [HW, BA],
    ),
    case("filters[publishDate][$notIn][0]=2024-01-15", [HA, ZS, BA]),
    case("filters[publishDate][$startsWith]=2024-0", [HW, HA, ZS]),
    case("filters[publishDate][$contains]=-12-", [BA]),
    case("filters[publishDate][$null]=true", [AP]),
    case("filters[publishDate][$notNull]=true", [HW, HA, ZS, BA]),
]

DATETIME_CASES = [
    case("filters[eventAt][$eq]=2024-01-15T10:00:00.000Z", [HW]),
    case("filters[eventAt][$eq]=2024-01-15T10:00:00Z", [HW]),
    case("filters[eventAt][$eq]=2024-01-15T12:00:00%2B02:00", [HW]),
    case("filters[eventAt][$ne]=2024-01-15T10:00:00.000Z", [HA, ZS]),
    case("filters[eventAt][$lt]=2024-01-01", [ZS]),
    case("filters[eventAt][$lte]=2024-01-15T10:00:00.000Z", [HW, ZS]),
    case("filters[eventAt][$gt]=2024-02-10T23:59:59.998Z", [HA]),
    case("filters[eventAt][$gt]=2024-02-10", [HA]),
    case("filters[eventAt][$gte]=2024-02-10T23:59:59.999Z", [HA]),
    case(
        "filters[eventAt][$between][0]=2024-01-01&filters[eventAt][$between][1]=2024-12-31",
        [HW, HA],
    ),
    case(
        "filters[eventAt][$in][0]=2023-06-01T00:00:00.000Z&filters[eventAt][$in][1]=2024-01-15T10:00:00.000Z",
        [HW, ZS],
    ),
    case("filters[eventAt][$notIn][0]=2023-06-01T00:00:00.000Z", [HW, HA]),
    case("filters[eventAt][$startsWith]=2024", [HW, HA]),
    case("filters[eventAt][$null]=true", [AP, BA]),
    case("filters[eventAt][$notNull]=true", [HW, HA, ZS]),
]

TIME_CASES = [
    case("filters[startTime][$eq]=10:00:00", [HW]),
    case("filters[startTime][$eq]=10:00:00.000", [HW]),
    case("filters[startTime][$eq]=08:30:00.500", [ZS]),
    case("filters[startTime][$ne]=10:00:00", [HA, ZS]),
    case("filters[startTime][$lt]=10:00:00", [ZS]),
    case("filters[startTime][$lte]=10:00:00", [HW, ZS]),
    case("filters[startTime][$gt]=10:00:00", [HA]),
    case("filters[startTime][$gt]=08:30:00", [HW, HA, ZS]),
    case("filters[startTime][$gte]=08:30:00.5", [HW, HA, ZS]),
    case(
        "filters[startTime][$between][0]=08:00:00&filters[startTime][$between][1]=12:00:00",
        [HW, ZS],
    ),
    case("filters[startTime][$in][0]=10:00:00&filters[startTime][$in][1]=23:59:59", [HW, HA]),
    case("filters[startTime][$notIn][0]=10:00:00", [HA, ZS]),
    case("filters[startTime][$startsWith]=08", [ZS]),
    case("filters[startTime][$null]=true", [AP, BA]),
]

BOOLEAN_CASES = [
    case("filters[featured]=true", [HW, ZS]),
    case("filters[featured]=t", [HW, ZS]),
    case("filters[featured]=1", [HW, ZS]),
    case("filters[featured]=false", [HA, AP, BA]),
    case("filters[featured]=f", [HA, AP, BA]),
    case("filters[featured]=0", [HA, AP, BA]),
    case("filters[featured][$eq]=true", [HW, ZS]),
    case("filters[featured][$eq]=f", [HA, AP, BA]),
    case("filters[featured][$ne]=true", [HA, AP, BA]),
    case("filters[featured][$in][0]=false&filters[featured][$in][1]=0", [HA, AP, BA]),
    case("filters[featured][$notIn][0]=true", [HA, AP, BA]),
    case("filters[featured][$null]=true", []),
    # ordering: false < true
    case("filters[featured][$lt]=true", [HA, AP, BA]),
    case("filters[featured][$lte]=false", [HA, AP, BA]),
    case("filters[featured][$gt]=false", [HW, ZS]),
    case("filters[featured][$gte]=true", [HW, ZS]),
    case("filters[featured][$between][0]=false&filters[featured][$between][1]=true", ALL),
    case("filters[featured][$notNull]=true", ALL),
]

JSON_CASES = [
    case("filters[meta][$null]=true", [AP, BA]),
    case("filters[meta][$notNull]=true", [HW, HA, ZS]),
    case("filters[meta][$contains]=alpha", [HW]),
    case("filters[meta][$contains]=beta", []),
    case("filters[meta][$containsi]=beta", [HA]),
    case("filters[meta][$notContains]=alpha", [HA, ZS]),
    case("filters[meta][$notContainsi]=BETA", [HW, ZS]),
    case("filters[content][$null]=true", ALL),
    case("filters[content][$notNull]=true", []),
]

NULL_FLAG_CASES = [
    case("filters[views][$null]=true", [AP]),
    case("filters[views][$null]=t", [AP]),
    case("filters[views][$null]=1", [AP]),
    case("filters[views][$null]=false", [HW, HA, ZS, BA]),
    case("filters[views][$null]=f", [HW, HA, ZS, BA]),
    case("filters[views][$null]=0", [HW, HA, ZS, BA]),
    case("filters[views][$notNull]=true", [HW, HA, ZS, BA]),
    case("filters[views][$notNull]=t", [HW, HA, ZS, BA]),
    case("filters[views][$notNull]=1", [HW, HA, ZS, BA]),
    case("filters[views][$notNull]=false", [AP]),
    case("filters[views][$notNull]=f", [AP]),
    case("filters[views][$notNull]=0", [AP]),
]


@pytest.mark.parametrize("query, expected", STRING_CASES)
def test_filter_string(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("query, expected", TEXT_CASES)
def test_filter_text(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("query, expected", RICHTEXT_CASES)
def test_filter_richtext(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("query, expected", EMAIL_CASES)
def test_filter_email(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("query, expected", UID_CASES)
def test_filter_uid(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("query, expected", ENUMERATION_CASES)
def test_filter_enumeration(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("query, expected", INTEGER_CASES)
def test_filter_integer(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("query, expected", BIGINTEGER_CASES)
def test_filter_biginteger(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("query, expected", FLOAT_CASES)
def test_filter_float(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("query, expected", DECIMAL_CASES)
def test_filter_decimal(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("query, expected", DATE_CASES)
def test_filter_date(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("query, expected", DATETIME_CASES)
def test_filter_datetime(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("query, expected", TIME_CASES)
def test_filter_time(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("query, expected", BOOLEAN_CASES)
def test_filter_boolean(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("query, expected", JSON_CASES)
def test_filter_json_and_blocks(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("query, expected", NULL_FLAG_CASES)
def test_null_operators_take_boolean_flags(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


# --------------------------------------------------------------------------- system fields

ID_CASES = [
    case("filters[id][$eq]={HW}", [HW]),
    case("filters[id]={HA}", [HA]),
    case("filters[id][$ne]={HW}", [HA, ZS, AP, BA]),
    case("filters[id][$lt]={HA}", [HW]),
    case("filters[id][$lte]={HA}", [HW, HA]),
    case("filters[id][$gt]={ZS}", [AP, BA]),
    case("filters[id][$gte]={ZS}", [ZS, AP, BA]),
    case("filters[id][$in][0]={HW}&filters[id][$in][1]={BA}", [HW, BA]),
    case("filters[id][$in]={ZS}", [ZS]),
    case("filters[id][0]={HA}&filters[id][1]={AP}", [HA, AP]),
    case("filters[id][$notIn][0]={HW}", [HA, ZS, AP, BA]),
    case("filters[id][$between][0]={HA}&filters[id][$between][1]={AP}", [HA, ZS, AP]),
    case("filters[id][$null]=true", []),
    case("filters[id][$notNull]=true", ALL),
]

DOCUMENT_ID_CASES = [
    case("filters[documentId][$eq]={HW}", [HW]),
    case("filters[documentId]={HA}", [HA]),
    case("filters[documentId][$eq]=nope", []),
    case("filters[documentId][$ne]={HW}", [HA, ZS, AP, BA]),
    case("filters[documentId][$in][0]={ZS}&filters[documentId][$in][1]={AP}", [ZS, AP]),
    case("filters[documentId][$notIn][0]={ZS}&filters[documentId][$notIn][1]={AP}", [HW, HA, BA]),
    case("filters[documentId][$startsWith]={BA:.12}", [BA]),
    case("filters[documentId][$contains]={HW:.20}", [HW]),
    case("filters[documentId][$null]=true", []),
    case("filters[documentId][$notNull]=true", ALL),
]


@pytest.mark.parametrize("template, expected", ID_CASES)
def test_filter_id(blog: Blog, template: str, expected: list[str]) -> None:
    assert blog.titles(template.format(**blog.ids())) == expected


@pytest.mark.parametrize("template, expected", DOCUMENT_ID_CASES)
def test_filter_document_id(blog: Blog, template: str, expected: list[str]) -> None:
    assert blog.titles(template.format(**blog.document_ids())) == expected


def test_filter_document_id_case_insensitive_operators(blog: Blog) -> None:
    doc_id = blog.docs[ZS]["documentId"]
    assert blog.titles(f"filters[documentId][$eq]={doc_id.upper()}") == []
    assert blog.titles(f"filters[documentId][$eqi]={doc_id.upper()}") == [ZS]
    assert blog.titles(f"filters[documentId][$nei]={doc_id.upper()}") == [HW, HA, AP, BA]
    assert blog.titles(f"filters[documentId][$endsWith]={doc_id[-12:]}") == [ZS]
    assert blog.titles(f"filters[documentId][$endsWithi]={doc_id[-12:].upper()}") == [ZS]
    assert blog.titles(f"filters[documentId][$containsi]={doc_id[4:20].upper()}") == [ZS]
    assert blog.titles(f"filters[documentId][$notContains]={doc_id}") == [HW, HA, AP, BA]


@pytest.mark.parametrize("name", ["createdAt", "updatedAt", "publishedAt"])
def test_filter_timestamps(blog: Blog, name: str) -> None:
    stamps = [blog.docs[title][name] for title in ALL]
    first, last = min(stamps), max(stamps)
    f = f"filters[{name}]"
    assert blog.titles(f"{f}[$gt]=2020-01-01T00:00:00.000Z") == ALL
    assert blog.titles(f"{f}[$gt]=2020-01-01") == ALL
    assert blog.titles(f"{f}[$lt]=2020-01-01") == []
    assert blog.titles(f"{f}[$between][0]=2020-01-01&{f}[$between][1]=2999-12-31") == ALL
    assert blog.titles(f"{f}[$gte]={first}") == ALL
    assert blog.titles(f"{f}[$lte]={last}") == ALL
    assert blog.titles(f"{f}[$lt]={first}") == []
    assert blog.titles(f"{f}[$gt]={last}") == []
    at_first = [title for title in ALL if blog.docs[title][name] == first]
    assert blog.titles(f"{f}[$eq]={first}") == at_first
    assert blog.titles(f"{f}[$ne]={first}") == [t for t in ALL if t not in at_first]
    assert blog.titles(f"{f}[$in][0]={first}&{f}[$in][1]={last}") == [
        title for title in ALL if blog.docs[title][name] in (first, last)
    ]
    assert blog.titles(f"{f}[$startsWith]={first[:4]}") == [
        title for title in ALL if blog.docs[title][name].startswith(first[:4])
    ]
    assert blog.titles(f"{f}[$null]=true") == []
    assert blog.titles(f"{f}[$notNull]=true") == ALL


def test_filter_published_at_in_drafts(blog: Blog) -> None:
    drafts = [*ALL, DRAFT_ONLY["title"]]
    assert blog.titles("status=draft&filters[publishedAt][$null]=true") == drafts
    assert blog.titles("status=draft&filters[publishedAt][$notNull]=true") == []
    assert blog.titles("status=draft&filters[views][$eq]=1") == ["Draft Only"]
    assert blog.titles("filters[title][$eq]=Draft%20Only") == []


@pytest.mark.parametrize(
    "query, expected",
    [
        # without `locale=`, a locale filter chooses among every locale (as the reference)
        case("filters[locale][$eq]=en", ALL),
        case("filters[locale]=en", ALL),
        case("filters[locale][$eq]=fr", ["Bonjour"]),
        case("filters[locale][$ne]=en", ["Bonjour"]),
        case("filters[locale][$eqi]=EN", ALL),
        case("filters[locale][$nei]=FR", ALL),
        case("filters[locale][$in][0]=en&filters[locale][$in][1]=fr", [*ALL, "Bonjour"]),
        case("filters[locale][$notIn][0]=en", ["Bonjour"]),
        case("filters[locale][$startsWith]=e", ALL),
        case("filters[locale][$containsi]=N", ALL),
        case("filters[locale][$null]=true", []),
        case("filters[locale][$notNull]=true", [*ALL, "Bonjour"]),
        case("locale=fr&filters[locale][$eq]=fr", ["Bonjour"]),
        case("locale=fr&filters[locale][$eq]=en", []),
        case("locale=fr&filters[views][$eq]=10", ["Bonjour"]),
        case("locale=de&filters[views][$eq]=10", []),
    ],
)
def test_filter_locale(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


# --------------------------------------------------------------------------- filter syntax


@pytest.mark.parametrize(
    "query, expected",
    [
        # implicit $eq and implicit $in
        case("filters[title]=Hello%20World", [HW]),
        case("filters[title]=Hello+World", [HW]),
        case("filters[title][0]=Banana&filters[title][1]=apple%20pie", [AP, BA]),
        case("filters[title][$eq][0]=Banana&filters[title][$eq][1]=apple%20pie", [AP, BA]),
        # $in / $notIn with a single scalar
        case("filters[title][$in]=Banana", [BA]),
        case("filters[title][$in]=single", []),
        case("filters[title][$notIn]=Banana", [HW, HA, ZS, AP]),
        # "null" is a string, not SQL NULL
        case("filters[title][$eq]=null", []),
        # several operators on one field are combined
        case("filters[views][$gte]=10&filters[views][$lt]=20", [HW]),
        case("filters[title][$containsi]=e&filters[title][$notContains]=o", [AP]),
    ],
)
def test_filter_shorthands(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize(
    "query, expected",
    [
        case("filters[$or][0][title][$eq]=Banana&filters[$or][1][views][$eq]=5", [ZS, BA]),
        case("filters[$or][0][title]=Banana&filters[$or][1][title]=Zebra%20Story", [ZS, BA]),
        case("filters[$and][0][views][$gte]=10&filters[$and][1][views][$lte]=20", [HW, HA, BA]),
        case("filters[$and][0][featured]=true&filters[$and][1][views][$lt]=10", [ZS]),
        case("filters[$not][title][$eq]=Banana", [HW, HA, ZS, AP]),
        case("filters[title][$not][$eq]=Banana", [HW, HA, ZS, AP]),
        case("filters[$not][views][$null]=true", [HW, HA, ZS, BA]),
        case("filters[$not][featured]=true&filters[$not][views]=20", ALL),
        case("filters[title][$not][$containsi]=hello", [ZS, AP, BA]),
    ],
)
def test_logical_groups(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize(
    "query, expected",
    [
        # an $or group and a sibling condition are combined with AND
        case(
            "filters[$or][0][title][$eq]=Banana&filters[$or][1][views][$eq]=5"
            "&filters[featured][$eq]=true",
            [ZS],
        ),
        case(
            "filters[$or][0][views]=5&filters[$or][1][views]=20"
            "&filters[$and][0][featured]=false&filters[status2][$ne]=writing",
            [BA],
        ),
        # depth 2: (views >= 10 AND featured) OR title = Banana
        case(
            "filters[$or][0][$and][0][views][$gte]=10&filters[$or][0][$and][1][featured]=true"
            "&filters[$or][1][title][$eq]=Banana",
            [HW, BA],
        ),
        # depth 2: (views 5 or 10) AND (featured or idea)
        case(
            "filters[$and][0][$or][0][views]=5&filters[$and][0][$or][1][views]=10"
            "&filters[$and][1][$or][0][featured]=true&filters[$and][1][$or][1][status2]=idea",
            [HW, ZS],
        ),
        # depth 3: (idea OR review) AND NOT views < 10
        case(
            "filters[$and][0][$or][0][status2]=idea&filters[$and][0][$or][1][status2]=review"
            "&filters[$and][1][$not][views][$lt]=10",
            [HW, BA],
        ),
        # depth 4: NOT ((featured AND views < 10) OR title starts with "h")
        case(
            "filters[$not][$or][0][$and][0][featured]=true"
            "&filters[$not][$or][0][$and][1][views][$lt]=10"
            "&filters[$not][$or][1][title][$startsWith]=h",
            [HW, AP, BA],
        ),
        # NOT (views >= 10 OR views is null) OR slug = banana
        case(
            "filters[$or][0][$not][$or][0][views][$gte]=10"
            "&filters[$or][0][$not][$or][1][views][$null]=true"
            "&filters[$or][1][slug][$eq]=banana",
            [ZS, BA],
        ),
    ],
)
def test_nested_logical_groups(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize(
    "query, expected",
    [
        case("filters[views][$ne]=20", [HW, ZS]),
        case("filters[views][$notIn][0]=5", [HW, HA, BA]),
        case("filters[description][$nei]=yellow", [HW, HA, ZS]),
        case("filters[description][$notContains]=post", [HA, ZS, BA]),
        case("filters[description][$notContainsi]=post", [ZS, BA]),
        case("filters[$not][views][$eq]=20", [HW, ZS]),
        case("filters[views][$not][$eq]=20", [HW, ZS]),
    ],
)
def test_negations_never_match_null(blog: Blog, query: str, expected: list[str]) -> None:
    """SQL semantics, as the reference: a row whose field is null matches no comparison."""
    assert blog.titles(query) == expected


def test_contains_is_case_sensitive_and_containsi_is_not(blog: Blog) -> None:
    assert blog.titles("filters[title][$contains]=HELLO") == []
    assert blog.titles("filters[title][$contains]=Hello") == [HW]
    assert blog.titles("filters[title][$contains]=hello") == [HA]
    assert blog.titles("filters[title][$containsi]=HELLO") == [HW, HA]
    assert blog.titles("filters[title][$containsi]=hElLo") == [HW, HA]
    assert blog.titles("filters[title][$notContains]=hello") == [HW, ZS, AP, BA]
    assert blog.titles("filters[title][$notContainsi]=HELLO") == [ZS, AP, BA]
    assert blog.titles("filters[title][$startsWith]=h") == [HA]
    assert blog.titles("filters[title][$startsWithi]=H") == [HW, HA]
    assert blog.titles("filters[title][$endsWith]=IE") == []
    assert blog.titles("filters[title][$endsWithi]=IE") == [AP]


@pytest.mark.parametrize(
    "query, expected",
    [
        case("filters[title][$contains]=%25", []),
        case("filters[title][$contains]=_", []),
        case("filters[title][$containsi]=%25", []),
        case("filters[title][$startsWith]=%25", []),
        case("filters[title][$endsWithi]=_", []),
        case("filters[title][$eqi]=hello_world", []),
        case("filters[title][$eqi]=%25", []),
        case("filters[title][$contains]=*", []),
        case("filters[title][$contains]=%3F", []),
        case("filters[title][$contains]=%5BH%5D", []),
        case("filters[body][$contains]=%25", [HA]),
        case("filters[body][$contains]=0%25", [HA]),
        case("filters[body][$containsi]=%25", [HA]),
        case("filters[body][$contains]=_", [HA]),
        case("filters[body][$startsWith]=_", [HA]),
        case("filters[body][$contains]=*", [HW]),
        case("filters[body][$contains]=%5Bt", [ZS]),
        case("filters[body][$contains]=%5C", [BA]),
        case("filters[body][$containsi]=%5CS", [BA]),
        case("filters[body][$contains]=%3F", []),
        case("filters[slug][$contains]=_", [ZS]),
    ],
)
def test_pattern_characters_match_literally(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


# --------------------------------------------------------------------------- filter errors


@pytest.mark.parametrize(
    "query, key, path",
    [
        ("filters[nope][$eq]=1", "nope", None),
        ("filters[nope]=1", "nope", None),
        ("filters[password]=x", "password", None),
        ("filters[$or][0][nope]=1", "nope", None),
        ("filters[$and][0][$not][nope][$eq]=1", "nope", None),
        ("filters[title][$foo]=1", "$foo", "title"),
        ("filters[title][$EQ]=Banana", "$EQ", "title"),
        ("filters[title][eq]=Banana", "eq", "title"),
        ("filters[$or][0][title][$foo]=1", "$foo", "title"),
        ("filters[createdBy][id][$eq]=1", "createdBy", "createdBy"),
    ],
)
def test_filter_invalid_key(blog: Blog, query: str, key: str, path: str | None) -> None:
    r = blog.get(query)
    assert r.status_code == 400
    assert r.json() == invalid_key(key, path, "filters")


def test_filters_must_be_an_object(blog: Blog) -> None:
    r = blog.get("filters=abc")
    assert r.status_code == 400
    assert r.json() == error_body(
        400, "ValidationError", "The filters parameter must be an object or an array", {}
    )


@pytest.mark.parametrize(
    "query, mention",
    [
        ("filters[views][$gt]=abc", "views"),
        ("filters[views][$eq]=abc", "views"),
        ("filters[views]=abc", "views"),
        ("filters[views][$gt]=", "views"),
        ("filters[views][$eq]=null", "views"),
        ("filters[views][$lt]=Infinity", "views"),
        ("filters[views][$in][0]=5&filters[views][$in][1]=abc", "views"),
        ("filters[rating][$gt]=abc", "rating"),
        ("filters[score][$lt]=x", "score"),
        ("filters[bigCount][$eq]=abc", "bigCount"),
        ("filters[id][$eq]=abc", "id"),
        ("filters[id]=abc", "id"),
        ("filters[featured]=notabool", "featured"),
        ("filters[featured][$eq]=notabool", "featured"),
        ("filters[featured][$in][0]=true&filters[featured][$in][1]=maybe", "featured"),
        ("filters[views][$null]=maybe", "views"),
        ("filters[title][$or][0]=x", "$or"),
        ("filters[title][$or][0][$eq]=x", "$or"),
        ("filters[title][$and][0][$eq]=x", "$and"),
        ("filters[$eq]=x", "$eq"),
        ("filters[title][$between][0]=a", "$between"),
        ("filters[title][$between]=a", "$between"),
        (
            "filters[views][$between][0]=1&filters[views][$between][1]=10"
            "&filters[views][$between][2]=30",
            "$between",
        ),
        ("filters[0]=abc", "filters"),
        ("filters[$and]=x", "$and"),
        ("filters[$or]=x", "$or"),
        ("filters[$not]=x", "$not"),
    ],
)
def test_filter_bad_value_is_a_validation_error(blog: Blog, query: str, mention: str) -> None:
    assert_rejected(blog.get(query), mention)


@pytest.mark.parametrize(
    "query, message",
    [
        ("filters[publishDate][$gt]=notadate", "Invalid format, expected yyyy-MM-dd"),
        ("filters[publishDate][$eq]=notadate", "Invalid format, expected yyyy-MM-dd"),
        ("filters[eventAt][$gt]=notadate", "Invalid format, expected a timestamp or an ISO date"),
        ("filters[startTime][$eq]=nottime", "Invalid time format, expected HH:mm:ss.SSS"),
        (
            "filters[createdAt][$lt]=yesterday",
            "Invalid format, expected a timestamp or an ISO date",
        ),
    ],
)
def test_filter_bad_temporal_value(blog: Blog, query: str, message: str) -> None:
    r = blog.get(query)
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["name"] == "ValidationError"
    assert message in error["message"]


# --------------------------------------------------------------------------- sort


@pytest.mark.parametrize(
    "query, expected",
    [
        case("sort=title", [BA, HW, ZS, AP, HA]),
        case("sort=title:asc", [BA, HW, ZS, AP, HA]),
        case("sort=title:ASC", [BA, HW, ZS, AP, HA]),
        case("sort=title:desc", [HA, AP, ZS, HW, BA]),
        case("sort=title:DESC", [HA, AP, ZS, HW, BA]),
        case("sort[0]=title:desc", [HA, AP, ZS, HW, BA]),
        case("sort[title]=asc", [BA, HW, ZS, AP, HA]),
        case("sort[title]=DESC", [HA, AP, ZS, HW, BA]),
        case("sort=views", [ZS, HW, HA, BA, AP]),
        case("sort=views:desc", [AP, HA, BA, HW, ZS]),
        case("sort[views]=desc", [AP, HA, BA, HW, ZS]),
        case("sort[0][views]=desc", [AP, HA, BA, HW, ZS]),
        case("sort=views:desc:asc", [AP, HA, BA, HW, ZS]),
        case("sort[0]=views:desc&sort[1]=title", [AP, BA, HA, HW, ZS]),
        case("sort[0]=views:desc&sort[1]=title:desc", [AP, HA, BA, HW, ZS]),
        case("sort=views:desc,title", [AP, BA, HA, HW, ZS]),
        case("sort=views:desc,title:desc", [AP, HA, BA, HW, ZS]),
        case("sort=title,views:desc", [BA, HW, ZS, AP, HA]),
        case("sort[0][views]=desc&sort[1][title]=asc", [AP, BA, HA, HW, ZS]),
        case("sort=id:desc", [BA, AP, ZS, HA, HW]),
        case("sort=id", ALL),
        case("sort=locale", ALL),
        case("sort=", ALL),
        case("sort=:desc", ALL),
        case("sort[0]=", ALL),
    ],
)
def test_sort_forms(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize(
    "query, expected",
    [
        case("sort=slug", [BA, HA, HW, ZS, AP]),
        case("sort=description", [HW, HA, ZS, BA, AP]),
        case("sort=body", [HW, HA, BA, ZS, AP]),
        case("sort=contactEmail", [HA, HW, ZS, AP, BA]),
        case("sort=status2", [HW, BA, ZS, HA, AP]),
        case("sort=featured", [HA, AP, BA, HW, ZS]),
        case("sort=featured:desc", [HW, ZS, HA, AP, BA]),
        case("sort=bigCount", [HA, ZS, BA, HW, AP]),
        case("sort=bigCount:desc", [AP, HW, BA, ZS, HA]),
        case("sort=score", [HA, ZS, HW, BA, AP]),
        case("sort=score:desc", [AP, BA, HW, ZS, HA]),
        case("sort=rating", [ZS, HA, HW, AP, BA]),
        case("sort=rating:desc", [AP, BA, HW, HA, ZS]),
        case("sort=publishDate", [BA, HW, HA, ZS, AP]),
        case("sort=publishDate:desc", [AP, ZS, HA, HW, BA]),
        case("sort=eventAt", [ZS, HW, HA, AP, BA]),
        case("sort=eventAt:desc", [AP, BA, HA, HW, ZS]),
        case("sort=startTime", [ZS, HW, HA, AP, BA]),
        case("sort=startTime:desc", [AP, BA, HA, HW, ZS]),
    ],
)
def test_sort_each_type_with_nulls_last_ascending_first_descending(
    blog: Blog, query: str, expected: list[str]
) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize("name", ["createdAt", "updatedAt", "publishedAt", "documentId"])
def test_sort_system_fields(blog: Blog, name: str) -> None:
    by_value = sorted(ALL, key=lambda t: (blog.docs[t][name], blog.docs[t]["id"]))
    assert blog.titles(f"sort={name}") == by_value
    by_value_desc = sorted(ALL, key=lambda t: (blog.docs[t][name], -blog.docs[t]["id"]))
    assert blog.titles(f"sort={name}:desc") == by_value_desc[::-1]


@pytest.mark.parametrize("query", ["sort=meta", "sort=content", "sort=meta:desc"])
def test_sort_json_is_allowed(blog: Blog, query: str) -> None:
    assert sorted(blog.titles(query)) == sorted(ALL)


def test_sort_with_filters_and_pagination(blog: Blog) -> None:
    r = blog.get(
        "filters[views][$notNull]=true&sort=views:desc&pagination[page]=2&pagination[pageSize]=2"
    )
    assert r.status_code == 200
    assert [d["title"] for d in r.json()["data"]] == [HW, ZS]
    assert r.json()["meta"] == {
        "pagination": {"page": 2, "pageSize": 2, "pageCount": 2, "total": 4}
    }


@pytest.mark.parametrize(
    "query, key",
    [
        ("sort=nope", "nope"),
        ("sort=nope:desc", "nope"),
        ("sort[0]=nope", "nope"),
        ("sort[nope]=asc", "nope"),
        ("sort=views:desc,nope", "nope"),
        ("sort[0]=title&sort[1]=nope:desc", "nope"),
        ("sort=password", "password"),
        ("sort=title%20desc", "title desc"),
    ],
)
def test_sort_unknown_key(blog: Blog, query: str, key: str) -> None:
    r = blog.get(query)
    assert r.status_code == 400
    assert r.json() == invalid_key(key, None, "sort")


@pytest.mark.parametrize(
    "key", ["category", "tags", "author", "seo", "links", "cover", "gallery", "blocks", "createdBy"]
)
def test_sort_on_a_non_scalar_key(blog: Blog, key: str) -> None:
    r = blog.get(f"sort={key}")
    assert r.status_code == 400
    assert r.json() == invalid_key(key, key, "sort")


@pytest.mark.parametrize(
    "query",
    ["sort=title:sideways", "sort=title:", "sort[title]=sideways", "sort=views:up,title"],
)
def test_sort_invalid_order(blog: Blog, query: str) -> None:
    r = blog.get(query)
    assert r.status_code == 400
    assert r.json() == error_body(
        400, "ValidationError", "Invalid order. order can only be one of asc|desc|ASC|DESC", {}
    )


# --------------------------------------------------------------------------- pagination


def page(page: int, size: int, count: int | None = None, total: int | None = None) -> Any:
    meta: dict[str, int] = {"page": page, "pageSize": size}
    if count is not None and total is not None:
        meta["pageCount"] = count
        meta["total"] = total
    return {"pagination": meta}


def offset(start: int, limit: int, total: int | None = None) -> Any:
    meta: dict[str, int] = {"start": start, "limit": limit}
    if total is not None:
        meta["total"] = total
    return {"pagination": meta}


P = "pagination"


@pytest.mark.parametrize(
    "query, expected, meta",
    [
        pytest.param("", ALL, page(1, 25, 1, 5), id="defaults"),
        pytest.param(f"{P}[page]=2&{P}[pageSize]=2", [ZS, AP], page(2, 2, 3, 5)),
        pytest.param(f"{P}[page]=3&{P}[pageSize]=2", [BA], page(3, 2, 3, 5)),
        pytest.param(f"{P}[pageSize]=2", [HW, HA], page(1, 2, 3, 5)),
        pytest.param(f"{P}[page]=2", [], page(2, 25, 1, 5)),
        pytest.param(f"{P}[page]=100", [], page(100, 25, 1, 5)),
        pytest.param(f"{P}[start]=0&{P}[limit]=2", [HW, HA], offset(0, 2, 5)),
        pytest.param(f"{P}[start]=1&{P}[limit]=2", [HA, ZS], offset(1, 2, 5)),
        pytest.param(f"{P}[limit]=2", [HW, HA], offset(0, 2, 5)),
        pytest.param(f"{P}[start]=2", [ZS, AP, BA], offset(2, 25, 5)),
        pytest.param(f"{P}[start]=100", [], offset(100, 25, 5)),
        # withCount
        pytest.param(f"{P}[withCount]=false", ALL, page(1, 25)),
        pytest.param(f"{P}[withCount]=0", ALL, page(1, 25)),
        pytest.param(f"{P}[withCount]=f", ALL, page(1, 25)),
        pytest.param(f"{P}[withCount]=true", ALL, page(1, 25, 1, 5)),
        pytest.param(f"{P}[withCount]=t", ALL, page(1, 25, 1, 5)),
        pytest.param(f"{P}[withCount]=1", ALL, page(1, 25, 1, 5)),
        pytest.param(f"{P}[page]=2&{P}[pageSize]=2&{P}[withCount]=false", [ZS, AP], page(2, 2)),
        pytest.param(f"{P}[start]=1&{P}[limit]=2&{P}[withCount]=false", [HA, ZS], offset(1, 2)),
        pytest.param(f"{P}[withCount]=true&{P}[limit]=2", [HW, HA], offset(0, 2, 5)),
        # clamping
        pytest.param(f"{P}[page]=0", ALL, page(1, 25, 1, 5)),
        pytest.param(f"{P}[page]=-1", ALL, page(1, 25, 1, 5)),
        pytest.param(f"{P}[page]=", ALL, page(1, 25, 1, 5)),
        pytest.param(f"{P}[pageSize]=0", [HW], page(1, 1, 5, 5)),
        pytest.param(f"{P}[pageSize]=-5", [HW], page(1, 1, 5, 5)),
        pytest.param(f"{P}[pageSize]=100", ALL, page(1, 100, 1, 5)),
        pytest.param(f"{P}[pageSize]=101", ALL, page(1, 100, 1, 5)),
        pytest.param(f"{P}[pageSize]=1000", ALL, page(1, 100, 1, 5)),
        pytest.param(f"{P}[limit]=1000", ALL, offset(0, 100, 5)),
        pytest.param(f"{P}[limit]=-1", [HW], offset(0, 1, 5)),
        pytest.param(f"{P}[limit]=0", [HW], offset(0, 1, 5)),
        pytest.param(f"{P}[limit]=", [HW], offset(0, 1, 5)),
        pytest.param(f"{P}[start]=-1", ALL, offset(0, 25, 5)),
        # number spellings and ignored shapes
        pytest.param(f"{P}[pageSize]=1e1", ALL, page(1, 10, 1, 5)),
        pytest.param(f"{P}[limit]=%202", [HW, HA], offset(0, 2, 5)),
        pytest.param(f"{P}=5", ALL, page(1, 25, 1, 5)),
        pytest.param(f"{P}[foo]=1", ALL, page(1, 25, 1, 5)),
        # the count follows the filters
        pytest.param(
            f"filters[views][$gte]=10&{P}[page]=2&{P}[pageSize]=2", [BA], page(2, 2, 2, 3)
        ),
        pytest.param("filters[title][$eq]=nope", [], page(1, 25, 0, 0)),
    ],
)
def test_pagination(blog: Blog, query: str, expected: list[str], meta: Any) -> None:
    r = blog.get(query)
    assert r.status_code == 200, r.text
    assert [d["title"] for d in r.json()["data"]] == expected
    assert r.json()["meta"] == meta


def test_empty_collection(blog: Blog) -> None:
    r = blog.get("", plural="authors")
    assert r.status_code == 200
    assert r.json() == {
        "data": [],
        "meta": {"pagination": {"page": 1, "pageSize": 25, "pageCount": 0, "total": 0}},
    }
    r = blog.get(f"{P}[start]=0", plural="authors")
    assert r.json() == {"data": [], "meta": {"pagination": {"start": 0, "limit": 25, "total": 0}}}


@pytest.mark.parametrize(
    "query",
    [
        f"{P}[page]=1&{P}[limit]=2",
        f"{P}[start]=0&{P}[pageSize]=2",
        f"{P}[page]=1&{P}[start]=0",
        f"{P}[pageSize]=2&{P}[limit]=2",
        f"{P}[page]=2&{P}[pageSize]=2&{P}[start]=0&{P}[limit]=2",
    ],
)
def test_pagination_modes_cannot_be_mixed(blog: Blog, query: str) -> None:
    r = blog.get(query)
    assert r.status_code == 400
    assert r.json() == error_body(
        400,
        "PaginationError",
        "Cannot use both page & offset pagination in the same query",
        {},
    )


@pytest.mark.parametrize("value", ["abc", "yes", "TRUE", "2"])
def test_pagination_invalid_with_count(blog: Blog, value: str) -> None:
    r = blog.get(f"{P}[withCount]={value}")
    assert r.status_code == 400
    assert r.json() == error_body(
        400,
        "ValidationError",
        'Invalid withCount parameter. Expected "t","1","true","false","0","f"',
        {},
    )


@pytest.mark.parametrize(
    "query, mention",
    [
        (f"{P}[page]=abc", "page"),
        (f"{P}[start]=abc", "start"),
        (f"{P}[pageSize]=abc", "pageSize"),
        (f"{P}[limit]=abc", "limit"),
        (f"{P}[page]=1.5", "page"),
        (f"{P}[pageSize]=1.5", "pageSize"),
        (f"{P}[limit]=2.7", "limit"),
        (f"{P}[start]=1.5", "start"),
    ],
)
def test_pagination_non_integer(blog: Blog, query: str, mention: str) -> None:
    assert_rejected(blog.get(query), mention)


# --------------------------------------------------------------------------- fields


@pytest.mark.parametrize(
    "query, keys",
    [
        ("fields[0]=title&fields[1]=views", ["title", "views"]),
        ("fields[0]=views&fields[1]=title", ["views", "title"]),
        ("fields=title", ["title"]),
        ("fields=title,views", ["title", "views"]),
        ("fields=views,title", ["views", "title"]),
        ("fields=title&fields=views", ["title", "views"]),
        ("fields[]=title&fields[]=bigCount", ["title", "bigCount"]),
        ("fields[0]=id", []),
        ("fields[0]=documentId", []),
        ("fields[0]=title&fields[1]=id", ["title"]),
        ("fields[0]=createdAt", ["createdAt"]),
        ("fields[0]=updatedAt", ["updatedAt"]),
        ("fields[0]=publishedAt", ["publishedAt"]),
        ("fields[0]=locale", ["locale"]),
        ("fields[0]=meta&fields[1]=content", ["meta", "content"]),
        (
            "fields=eventAt,startTime,publishDate,featured,rating,score,slug,status2",
            [
                "eventAt",
                "startTime",
                "publishDate",
                "featured",
                "rating",
                "score",
                "slug",
                "status2",
            ],
        ),
    ],
)
def test_fields_select_and_order(blog: Blog, query: str, keys: list[str]) -> None:
    r = blog.get(query)
    assert r.status_code == 200, r.text
    data = r.json()["data"]
    assert len(data) == 5
    for doc in data:
        assert list(doc) == ["id", "documentId", *keys]
        full = next(d for d in blog.docs.values() if d["documentId"] == doc["documentId"])
        assert doc == {k: full[k] for k in doc}


@pytest.mark.parametrize("query", ["fields=*", "fields[0]=*"])
def test_fields_star_selects_everything(blog: Blog, query: str) -> None:
    r = blog.get(query)
    assert r.status_code == 200
    assert r.json()["data"] == [blog.docs[t] for t in ALL]
    assert list(r.json()["data"][0]) == LIST_KEYS


def test_fields_with_other_parameters(blog: Blog) -> None:
    r = blog.get(
        "fields[0]=views&filters[views][$notNull]=true&sort=views:desc"
        "&pagination[start]=1&pagination[limit]=2"
    )
    assert r.status_code == 200
    assert r.json() == {
        "data": [
            {"id": blog.docs[BA]["id"], "documentId": blog.docs[BA]["documentId"], "views": 20},
            {"id": blog.docs[HW]["id"], "documentId": blog.docs[HW]["documentId"], "views": 10},
        ],
        "meta": {"pagination": {"start": 1, "limit": 2, "total": 4}},
    }


def test_fields_on_find_one(blog: Blog) -> None:
    doc = blog.docs[HW]
    r = blog.api.get(f"/api/articles/{doc['documentId']}?fields[0]=title")
    assert r.status_code == 200
    assert r.json() == {
        "data": {"id": doc["id"], "documentId": doc["documentId"], "title": HW},
        "meta": {},
    }
    r = blog.api.get(f"/api/articles/{doc['documentId']}?fields=nope")
    assert r.status_code == 400
    assert r.json() == invalid_key("nope", None, "fields")


@pytest.mark.parametrize(
    "query, key, path",
    [
        ("fields[0]=nope", "nope", None),
        ("fields=nope", "nope", None),
        ("fields[0]=title&fields[1]=nope", "nope", None),
        ("fields=title,nope", "nope", None),
        ("fields[0]=password", "password", None),
        ("fields[0]=", "", None),
        ("fields[0]=category", "category", "category"),
        ("fields[0]=tags", "tags", "tags"),
        ("fields[0]=seo", "seo", "seo"),
        ("fields[0]=cover", "cover", "cover"),
        ("fields[0]=blocks", "blocks", "blocks"),
        ("fields[0]=createdBy", "createdBy", "createdBy"),
    ],
)
def test_fields_invalid_key(blog: Blog, query: str, key: str, path: str | None) -> None:
    r = blog.get(query)
    assert r.status_code == 400
    assert r.json() == invalid_key(key, path, "fields")


def test_fields_must_be_a_string_or_an_array(blog: Blog) -> None:
    r = blog.get("fields[title]=1")
    assert r.status_code == 400
    assert r.json() == error_body(
        400,
        "ValidationError",
        "Invalid fields parameter. Expected a string or an array of strings",
        {},
    )


# --------------------------------------------------------------------------- query-string encodings


@pytest.mark.parametrize(
    "query, expected",
    [
        case("filters%5Btitle%5D%5B%24eq%5D=Banana", [BA]),
        case("filters%5btitle%5d%5b%24eq%5d=Banana", [BA]),
        case("filters%5Btitle%5D=Hello%20World", [HW]),
        case("filters[title][%24eq]=Hello+World", [HW]),
        case("filters[title][$eq]=Hello+World", [HW]),
        case("filters[title][$eq]=Hello%20World", [HW]),
        case("filters[title][$eq]=Hello%2BWorld", []),
        case("filters[title][$in][]=Banana&filters[title][$in][]=apple+pie", [AP, BA]),
        case("filters[title][$in]=Banana&filters[title][$in]=apple%20pie", [AP, BA]),
        case("filters[%24or][0][title]=Banana&filters[%24or][1][views]=5", [ZS, BA]),
        case("sort=views%3Adesc&sort=title", [AP, BA, HA, HW, ZS]),
        case("sort%5B0%5D=title%3Adesc", [HA, AP, ZS, HW, BA]),
        case("pagination%5BpageSize%5D=2&pagination%5Bpage%5D=3", [BA]),
    ],
)
def test_query_string_encodings(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


# --------------------------------------------------------------------------- other types


def names(blog: Blog, plural: str, query: str) -> list[str]:
    r = blog.get(query, plural)
    assert r.status_code == 200, f"{query}: {r.status_code} {r.text}"
    return [doc["name"] for doc in r.json()["data"]]


@pytest.mark.parametrize(
    "plural, query, expected",
    [
        ("categories", "sort=name", ["Café", "News", "Tech", "art"]),
        ("categories", "sort=name:desc", ["art", "Tech", "News", "Café"]),
        ("categories", "filters[name][$eq]=Caf%C3%A9", ["Café"]),
        ("categories", "filters[name][$containsi]=E", ["News", "Tech"]),
        ("categories", "filters[slug][$null]=true", ["Café"]),
        ("categories", "filters[slug][$ne]=news", ["Tech", "art"]),
        ("categories", "filters[publishedAt][$notNull]=true", ["News", "Tech", "Café", "art"]),
        ("categories", "sort=slug:desc&pagination[limit]=2", ["Café", "Tech"]),
        ("tags", "filters[name][$startsWith]=t1", ["t1", "t10"]),
        ("tags", "sort=name:desc", ["t2", "t10", "t1"]),
        ("tags", "filters[$or][0][name]=t2&filters[$or][1][name]=t10", ["t2", "t10"]),
        ("tags", "filters[$not][name][$in][0]=t1&filters[$not][name][$in][1]=t2", ["t10"]),
    ],
)
def test_categories_and_tags(blog: Blog, plural: str, query: str, expected: list[str]) -> None:
    assert names(blog, plural, query) == expected


def test_tags_pagination_and_fields(blog: Blog) -> None:
    r = blog.get("pagination[pageSize]=2&pagination[page]=2&fields=name", "tags")
    assert r.status_code == 200
    assert [list(d) for d in r.json()["data"]] == [["id", "documentId", "name"]]
    assert r.json()["meta"] == page(2, 2, 2, 3)


@pytest.mark.parametrize("param", ["filters[locale][$eq]=en", "sort=locale", "fields=locale"])
def test_locale_is_not_a_field_of_an_unlocalized_type(blog: Blog, param: str) -> None:
    r = blog.get(param, "categories")
    name = param.split("=")[0].split("[")[0]
    assert r.status_code == 400
    assert r.json() == invalid_key("locale", None, name)


@pytest.mark.parametrize(
    "query, expected",
    [
        case("filters[category][name][$eq]=News", [HA]),
        case("filters[category][name]=Tech", [HW]),
        case("filters[category][name][$in][0]=News&filters[category][name][$in][1]=Tech", [HW, HA]),
        case("filters[category][name][$containsi]=E", [HW, HA]),
        case("filters[category][slug][$eq]=tech", [HW]),
        case("filters[tags][name][$eq]=t2", [HW, HA]),
        case("filters[tags][name][$startsWith]=t1", [HW, BA]),
        case("filters[seo][metaTitle][$eq]=Meta%20HW", [HW]),
        case("filters[category][name][$eq]=Tech&filters[tags][name][$eq]=t1", [HW]),
        case("filters[$or][0][category][name]=News&filters[$or][1][title]=Banana", [HA, BA]),
    ],
)
def test_deep_filters(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected


@pytest.mark.parametrize(
    "plural, query, expected",
    [
        ("categories", "filters[articles][title][$eq]=hello%20again", ["News"]),
        ("categories", "filters[articles][views][$gte]=10", ["News", "Tech"]),
        ("tags", "filters[articles][title][$eq]=Banana", ["t10"]),
        ("tags", "filters[articles][featured]=true", ["t1", "t2"]),
    ],
)
def test_deep_filters_from_the_inverse_side(
    blog: Blog, plural: str, query: str, expected: list[str]
) -> None:
    assert names(blog, plural, query) == expected


def test_deep_filter_unknown_nested_key(blog: Blog) -> None:
    r = blog.get("filters[category][nope][$eq]=x")
    assert r.status_code == 400
    assert r.json() == invalid_key("nope", "category", "filters")


def test_sort_on_a_relation_field(blog: Blog) -> None:
    assert blog.titles("sort=category.name") == [HA, HW, ZS, AP, BA]
    assert blog.titles("sort=category.name:desc") == [ZS, AP, BA, HW, HA]
    r = blog.get("sort=category.nope")
    assert r.status_code == 400
    assert r.json() == invalid_key("nope", "category", "sort")


# --------------------------------------------------------------------------- statement budget


@pytest.mark.parametrize(
    "query, status, budget",
    [
        ("", 200, 2),
        (
            "filters[$or][0][views][$gte]=10&filters[$or][1][title][$containsi]=e&sort=views:desc",
            200,
            2,
        ),
        ("filters[category][name][$eq]=News&filters[tags][name][$eq]=t2", 200, 2),
        ("pagination[page]=2&pagination[pageSize]=2&fields=title,views", 200, 2),
        ("pagination[start]=1&pagination[limit]=2", 200, 2),
        ("pagination[withCount]=false", 200, 1),
        ("pagination[start]=1&pagination[limit]=2&pagination[withCount]=false", 200, 1),
        ("filters[title][$eq]=nope&pagination[withCount]=false", 200, 1),
        ("filters[nope]=1", 400, 0),
        ("sort=title:sideways", 400, 0),
        ("pagination[page]=1&pagination[limit]=2", 400, 0),
    ],
)
def test_statement_budget(blog: Blog, query: str, status: int, budget: int) -> None:
    """A list runs one statement for the page and one for the count; a refused query none.
    (The app's own timers, its upkeep and its change polling, run statements of their own
    now and then, which the counter sees too: the fewest of three runs is the request's.)"""
    counts = []
    for _ in range(3):
        before = blog.api.statements()
        r = blog.get(query)
        assert r.status_code == status, r.text
        counts.append(blog.api.statements() - before)
        if counts[-1] <= budget:
            break
    assert min(counts) <= budget, counts


def test_case_insensitive_matches_of_ascii_and_other_letters(api: Api, backend: str) -> None:
    """An ASCII pattern (read with ASCII case folding on PostgreSQL) and a pattern with other
    letters (read with full lowercasing) find the same documents as the reference's ILIKE."""
    for title in ["Café CRÈME", "ÉTÉ à Paris", "Naïve Abacus", "plain abc"]:
        api.create("tags", {"name": title})

    def names(query: str) -> list[str]:
        r = api.get(f"/api/tags?{query}&sort=name")
        assert r.status_code == 200, r.text
        return [doc["name"] for doc in r.json()["data"]]

    assert names("filters[name][$containsi]=AB") == ["Naïve Abacus", "plain abc"]
    assert names("filters[name][$containsi]=caf") == ["Café CRÈME"]
    assert names("filters[name][$containsi]=PARIS") == ["ÉTÉ à Paris"]
    assert names("filters[name][$notContainsi]=ab") == ["Café CRÈME", "ÉTÉ à Paris"]
    assert names("filters[name][$startsWithi]=PLAIN") == ["plain abc"]
    assert names("filters[name][$eqi]=PLAIN%20ABC") == ["plain abc"]
    assert names("filters[name][$endsWithi]=US") == ["Naïve Abacus"]
    if backend == "postgres":
        # SQLite's LIKE folds ASCII letters only; PostgreSQL folds every letter
        assert names("filters[name][$containsi]=été") == ["ÉTÉ à Paris"]
        assert names("filters[name][$containsi]=crème") == ["Café CRÈME"]
        assert names("filters[name][$containsi]=NAÏVE") == ["Naïve Abacus"]


# --------------------------------------------------------------------------- JSON-written members

JSON_CASES = [
    # a field's member written as a JSON object (Swagger UI's deep-object form)
    case("filters[title]=" + quote('{"$contains":"ello"}'), [HW, HA]),
    # the members of a logical operator written as a JSON list
    case(
        "filters[$or]=" + quote('[{"title":{"$eq":"Banana"}},{"title":{"$eq":"apple pie"}}]'),
        [AP, BA],
    ),
    # an operator's value stays the text it is, JSON-looking or not
    case("filters[title][$eq]=" + quote('["Banana"]'), []),
    case("filters[title][$contains]=" + quote("[1]"), []),
]


@pytest.mark.parametrize("query, expected", JSON_CASES)
def test_filter_members_written_as_json(blog: Blog, query: str, expected: list[str]) -> None:
    assert blog.titles(query) == expected
