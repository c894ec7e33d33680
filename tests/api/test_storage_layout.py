"""The storage layout's read paths: a filtered and sorted page with its count in one
statement, the indexes the reads go through (covering ones on SQLite), and the indexes an
earlier layout made being replaced when the app starts on its database."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Api, database_url, running, sql_rows


@pytest.fixture
def url(backend: str, app_dir: Path) -> str:
    return database_url(backend, app_dir)


def run_sql(url: str, sql: str) -> list[tuple[Any, ...]]:
    return sql_rows(url, sql)


def index_names(url: str, table: str) -> set[str]:
    if url.startswith("sqlite"):
        sql = f"SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '{table}'"
    elif url.startswith("mysql"):
        sql = (
            "SELECT DISTINCT index_name FROM information_schema.statistics WHERE "
            f"table_schema = DATABASE() AND table_name = '{table}' AND index_name <> 'PRIMARY'"
        )
    else:
        sql = f"SELECT indexname FROM pg_indexes WHERE tablename = '{table}'"
    return {str(r[0]) for r in run_sql(url, sql)}


def drop_index(url: str, name: str, table: str) -> None:
    """An index dropped as an earlier layout would not have made it (MySQL names the
    table of the index)."""
    on = f' ON "{table}"' if url.startswith("mysql") else ""
    run_sql(url, f'DROP INDEX "{name}"{on}')


def seed(api: Api) -> None:
    news = api.create("categories", {"name": "News"})
    sport = api.create("categories", {"name": "Sport"})
    rows = [
        ("Alpha tab", "2024-01-03", news),
        ("Beta", "2024-01-05", sport),
        ("Gamma tab", None, sport),
        ("Delta TAB", "2024-01-01", None),
        ("Epsilon tab", "2024-01-03", sport),
        ("Zeta tab", "2024-01-04", news),
    ]
    for title, day, category in rows:
        data: dict[str, Any] = {"title": title, "publishDate": day}
        if category is not None:
            data["category"] = category["documentId"]
        api.create("articles", data)


def titles_and_meta(api: Api, query: str) -> tuple[list[str], dict[str, Any]]:
    r = api.get(f"/api/articles?{query}")
    assert r.status_code == 200, r.text
    body = r.json()
    return [d["title"] for d in body["data"]], body["meta"]["pagination"]


def test_filtered_sorted_pages_and_their_count(api: Api) -> None:
    seed(api)
    base = "filters[title][$containsi]=tab&sort=publishDate:desc&pagination[pageSize]=2"
    # NULL sorts as the largest value; equal dates fall back to id order
    assert titles_and_meta(api, base + "&pagination[page]=1") == (
        ["Gamma tab", "Zeta tab"],
        {"page": 1, "pageSize": 2, "pageCount": 3, "total": 5},
    )
    assert titles_and_meta(api, base + "&pagination[page]=2")[0] == ["Alpha tab", "Epsilon tab"]
    assert titles_and_meta(api, base + "&pagination[page]=3")[0] == ["Delta TAB"]
    assert titles_and_meta(api, base + "&pagination[page]=4") == (
        [],
        {"page": 4, "pageSize": 2, "pageCount": 3, "total": 5},
    )
    # several sort keys, one of them on a related field
    query = "filters[title][$containsi]=tab&sort[0]=category.name:desc&sort[1]=title"
    got, meta = titles_and_meta(api, query)
    assert got == ["Delta TAB", "Epsilon tab", "Gamma tab", "Alpha tab", "Zeta tab"]
    assert meta["total"] == 5


def test_a_filtered_page_runs_at_most_two_statements(api: Api) -> None:
    """Page and count: one statement, or the count first and then the page it calls for.
    (MySQL reads the read memo's token by a statement of its own before them.)"""
    seed(api)
    budget = 3 if api.folio.db.dialect.name == "mysql" else 2
    for query in (
        "filters[title][$containsi]=tab&sort=publishDate:desc",
        "filters[title][$containsi]=tab&sort=publishDate:desc&pagination[pageSize]=1",
        "filters[title][$containsi]=nothing&sort=publishDate:desc",
        "filters[title][$containsi]=tab",
        "filters[title][$containsi]=tab&sort=category.name",
        "filters[title][$containsi]=tab&sort=title&pagination[page]=9",
    ):
        before = api.statements()
        titles_and_meta(api, query)
        assert api.statements() - before <= budget, query


def seed_many(api: Api) -> list[dict[str, Any]]:
    """60 articles: repeated dates, some without one, every fifth title without "tab"."""
    made = []
    for n in range(60):
        day = None if n % 7 == 0 else f"2024-02-{1 + n % 9:02d}"
        title = f"Item {n:02d}" + ("" if n % 5 == 0 else " tab")
        made.append({"title": title, "publishDate": day, "views": n % 4 or None})
        api.create("articles", made[-1])
    return made


def expected(made: list[dict[str, Any]], word: str, field: str, desc: bool) -> list[str]:
    """The reference order: NULLs as the largest value, ties by creation (id) order."""
    rows = [m for m in made if word in m["title"]]
    present = [m for m in rows if m[field] is not None]
    present.sort(key=lambda m: m[field], reverse=desc)  # stable: ties stay in id order
    missing = [m for m in rows if m[field] is None]
    return [m["title"] for m in (missing + present if desc else present + missing)]


@pytest.mark.parametrize("field,param", [("publishDate", "publishDate"), ("views", "views")])
def test_sorted_pages_agree_whether_walked_or_sorted(api: Api, field: str, param: str) -> None:
    """Broad filters read the page by walking a sort index, narrow ones sort the matching
    ids: every page of either comes out in the same order, with NULLs largest."""
    made = seed_many(api)
    for word in ("tab", "Item", "Item 1", "Item 00"):  # 48, 60, 10 and 1 matches
        for desc in (False, True):
            want = expected(made, word, field, desc)
            for size in (1, 7, 25):
                got: list[str] = []
                for page in range(1, len(want) // size + 3):
                    query = (
                        f"filters[title][$contains]={word}&sort={param}:"
                        f"{'desc' if desc else 'asc'}&pagination[pageSize]={size}"
                        f"&pagination[page]={page}"
                    )
                    titles, meta = titles_and_meta(api, query)
                    assert meta["total"] == len(want), query
                    got += titles
                assert got == want, (word, desc, size)


def test_inverse_relation_with_few_fields(api: Api) -> None:
    seed(api)
    query = (
        "filters[name][$eq]=Sport&populate[articles][fields][0]=title"
        "&populate[articles][fields][1]=publishDate"
    )
    r = api.get(f"/api/categories?{query}")
    assert r.status_code == 200, r.text
    [sport] = r.json()["data"]
    assert sorted((a["title"], a["publishDate"]) for a in sport["articles"]) == [
        ("Beta", "2024-01-05"),
        ("Epsilon tab", "2024-01-03"),
        ("Gamma tab", None),
    ]
    assert all(set(a) == {"id", "documentId", "title", "publishDate"} for a in sport["articles"])


def test_sqlite_reads_through_the_covering_and_sort_indexes(app_dir: Path) -> None:
    """The count and the sorted ids come from the covering scan index; the walked page from
    the sort index of its first sort key."""
    from folio.auth.principal import OPEN
    from folio.http.rest.qs import parse_qs

    url = database_url("sqlite", app_dir)
    with running(app_dir, url) as api:
        seed(api)
        folio = api.folio
        ct = folio.registry.by_route["articles"]
        query = "filters[title][$containsi]=ab&sort=publishDate:desc"
        spec = folio.documents.query(ct, parse_qs(query), OPEN)
        plan = folio.documents._reads.reader(ct).find_statements(spec)
    names = index_names(url, "articles")
    [scan] = [n for n in names if n.startswith("articles_scan_")]
    assert len([n for n in names if n.startswith("articles_sort_")]) >= 3

    def plan_of(sql: str, params: list[Any]) -> str:
        conn = sqlite3.connect(url.split("sqlite:///", 1)[1])
        try:
            return str(conn.execute("EXPLAIN QUERY PLAN " + sql, params).fetchall())
        finally:
            conn.close()

    assert plan.walk is not None
    assert f"COVERING INDEX {scan}" in plan_of(plan.count, plan.count_params)
    assert f"COVERING INDEX {scan}" in plan_of(plan.page, plan.page_params)
    walked = plan_of(plan.walk, plan.page_params)
    assert "INDEX articles_sort_" in walked and "TEMP B-TREE FOR ORDER BY" not in walked


def test_mysql_filters_on_small_columns_read_the_index_that_carries_them(app_dir: Path) -> None:
    """MySQL: beside the narrow list index, one carries the small columns in its key; a
    list filtered on them names it (the planner would take the narrow one and look every
    row up), one filtered on a related type or a long column does not; the answers agree."""
    from tests.conftest import MYSQL_URL

    if not MYSQL_URL:
        pytest.skip("MySQL only")
    from folio.auth.principal import OPEN
    from folio.http.rest.qs import parse_qs

    url = database_url("mysql", app_dir)
    with running(app_dir, url) as api:
        seed(api)
        folio = api.folio
        ct = folio.registry.by_route["articles"]
        reader = folio.documents._reads.reader(ct)

        def page_sql(query: str) -> str:
            return str(
                reader.find_statements(folio.documents.query(ct, parse_qs(query), OPEN)).page
            )

        small = "filters[title][$containsi]=tab&filters[views][$null]=true&sort=publishDate:desc"
        got, meta = titles_and_meta(api, small)
        assert got == ["Gamma tab", "Zeta tab", "Alpha tab", "Epsilon tab", "Delta TAB"]
        assert meta["total"] == 5
        related = "filters[category][name][$eq]=News"
        assert sorted(titles_and_meta(api, related)[0]) == ["Alpha tab", "Zeta tab"]
        long_text = "filters[description][$null]=true&filters[title][$eq]=Beta"
        assert titles_and_meta(api, long_text)[0] == ["Beta"]
        hinted = {q: "USE INDEX" in page_sql(q) for q in (small, related, long_text)}
    assert hinted == {small: True, related: False, long_text: False}
    rows = run_sql(
        url,
        "SELECT index_name, GROUP_CONCAT(column_name ORDER BY seq_in_index) FROM "
        "information_schema.statistics WHERE table_schema = DATABASE() AND "
        "table_name = 'articles' AND index_name LIKE 'articles_scan_%' GROUP BY index_name",
    )
    keys = sorted(str(r[1]) for r in rows)
    assert keys[0] == "locale,published_at,id"
    assert keys[1].startswith("locale,published_at,id,created_at,updated_at,title,slug,")
    assert "publish_date" in keys[1] and "description" not in keys[1]


def test_indexes_of_an_earlier_layout_are_replaced(app_dir: Path, url: str) -> None:
    with running(app_dir, url) as api:
        seed(api)
    scan = {n for n in index_names(url, "articles") if n.startswith("articles_scan_")}
    # what the previous layout made: narrower link indexes, a list index without id, and a
    # scan index over other columns
    run_sql(url, 'CREATE INDEX "articles_tags_lnk_source_idx" ON articles_tags_lnk (source_id)')
    run_sql(url, 'CREATE INDEX "articles_cmps_entity_idx" ON articles_cmps (entity_id)')
    run_sql(url, 'CREATE INDEX IF NOT EXISTS "articles_list_idx" ON articles (locale)')
    run_sql(url, 'CREATE INDEX "articles_scan_0000000000" ON articles (locale, title)')
    with running(app_dir, url) as api:
        got, meta = titles_and_meta(api, "filters[title][$containsi]=tab&populate=category")
        assert len(got) == 5
        assert meta["total"] == 5
    assert "articles_tags_lnk_source_idx" not in index_names(url, "articles_tags_lnk")
    assert "articles_tags_lnk_source_cov_idx" in index_names(url, "articles_tags_lnk")
    assert "articles_cmps_entity_idx" not in index_names(url, "articles_cmps")
    names = index_names(url, "articles")
    assert "articles_scan_0000000000" not in names
    assert "articles_list_idx" not in names
    assert {n for n in names if n.startswith("articles_scan_")} == scan
    # PostgreSQL: per status, a narrow and a covering one; MySQL: a narrow one and one that
    # carries the small columns in its key
    assert len(scan) == (4 if url.startswith("postgres") else 2 if url.startswith("mysql") else 1)


def _source_flags_agree(url: str) -> bool:
    """Each article's category link says whether its article row is a draft."""
    rows = run_sql(
        url,
        "SELECT COUNT(*) FROM articles_category_lnk l JOIN articles a ON a.id = l.source_id "
        "WHERE l.source_draft <> CASE WHEN a.published_at IS NULL THEN 1 ELSE 0 END",
    )
    return int(rows[0][0]) == 0


def _category_articles(api: Api, status: str) -> dict[str, list[str]]:
    r = api.get(f"/api/categories?status={status}&populate[articles][fields][0]=title&sort=name")
    assert r.status_code == 200, r.text
    return {c["name"]: sorted(a["title"] for a in c["articles"]) for c in r.json()["data"]}


def test_links_of_an_earlier_layout_learn_their_source_status(app_dir: Path, url: str) -> None:
    """Links written before they carried their source row's status get it when the app
    starts, and a category's articles read the same before and after: the published
    versions in a published read, the drafts in a draft one."""
    with running(app_dir, url) as api:
        news = api.create("categories", {"name": "News"})
        sport = api.create("categories", {"name": "Sport"})
        api.create(
            "articles", {"title": "Out", "category": news["documentId"]}, "?status=published"
        )
        api.create(
            "articles", {"title": "Pending", "category": news["documentId"]}, "?status=draft"
        )
        api.create(
            "articles", {"title": "Match", "category": sport["documentId"]}, "?status=published"
        )
        published = _category_articles(api, "published")
        drafts = _category_articles(api, "draft")
        assert published == {"News": ["Out"], "Sport": ["Match"]}
        assert drafts == {"News": ["Out", "Pending"], "Sport": ["Match"]}
        assert _source_flags_agree(url)
    # the earlier layout: no status on the links, the inverse index without it
    drop_index(url, "articles_category_lnk_target_dv_idx", "articles_category_lnk")
    run_sql(url, "ALTER TABLE articles_category_lnk DROP COLUMN source_draft")
    run_sql(
        url,
        'CREATE INDEX "articles_category_lnk_target_cov_idx" ON articles_category_lnk '
        "(target_document_id, target_locale, inv_position, source_id)",
    )
    with running(app_dir, url) as api:
        assert _source_flags_agree(url)
        assert _category_articles(api, "published") == published
        assert _category_articles(api, "draft") == drafts
        # written from the inverse side, and published: the new links are told apart too
        [pending] = [
            a
            for a in api.get("/api/articles?status=draft").json()["data"]
            if a["title"] == "Pending"
        ]
        r = api.put(
            f"/api/categories/{sport['documentId']}",
            {"data": {"articles": {"connect": [pending["documentId"]]}}},
        )
        assert r.status_code == 200, r.text
        # a plain update publishes
        r = api.put(f"/api/articles/{pending['documentId']}", {"data": {"views": 3}})
        assert r.status_code == 200, r.text
        assert _source_flags_agree(url)
        assert _category_articles(api, "published") == {
            "News": ["Out"],  # an article has one category: connecting moved it
            "Sport": ["Match", "Pending"],
        }
    names = index_names(url, "articles_category_lnk")
    assert "articles_category_lnk_target_cov_idx" not in names
    assert "articles_category_lnk_target_dv_idx" in names
