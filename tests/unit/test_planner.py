"""The planner, table-driven: a query description in (built from the model, no HTTP), SQL
text and bound parameters out, on both dialects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from folio.auth.principal import OPEN
from folio.content.documents import QueryParser
from folio.content.filters import FilterParser
from folio.content.params import Limits, Locales
from folio.content.query import Query
from folio.content.sql.select import TypeReader
from folio.content.sql.where import compile_where
from folio.schema.loader import load_registry
from folio.store.dialects import dialect_for

REGISTRY = load_registry(Path(__file__).parents[1] / "fixtures" / "blog")
TYPES = {ct.singular: ct for ct in REGISTRY.content_types.values()}
DIALECTS = ("sqlite", "postgres")

CATEGORY_OF_ARTICLE = (
    'FROM "articles_category_lnk" tl JOIN "categories" tx ON tx.document_id = tl.target_document_id'
)
ARTICLES_OF_CATEGORY = 'FROM "articles_category_lnk" tl JOIN "articles" tx ON tx.id = tl.source_id'

# (type, filters, status, locale, SQL on both dialects, parameters); where they differ, SQL
# and parameters by dialect
Expected = str | dict[str, str]
WHERE: list[tuple[str, dict[str, Any], str, str | None, Expected, Any]] = [
    (
        "article",
        {"category": {"name": {"$eq": "c"}}},
        "published",
        "en",
        {
            "postgres": f't.id IN (SELECT tl.source_id {CATEGORY_OF_ARTICLE} WHERE tx."name" = ?)',
            # SQLite: through the name's sort index, `(name IS NULL), name`
            "sqlite": f"t.id IN (SELECT tl.source_id {CATEGORY_OF_ARTICLE} WHERE "
            '(tx."name" IS NULL) = 0 AND tx."name" >= ? AND tx."name" <= ?)',
        },
        {"postgres": ["c"], "sqlite": ["c", "c"]},
    ),
    (
        "article",
        {"seo": {"metaTitle": {"$eq": "m"}}},
        "published",
        "en",
        't.id IN (SELECT tl.entity_id FROM "articles_cmps" tl JOIN "components_shared_seos" tx '
        'ON tx.id = tl.cmp_id WHERE tl.field = ? AND tx."meta_title" = ?)',
        ["seo", "m"],
    ),
    # the inverse side, to a localized type with drafts: in the read's locale and status
    (
        "category",
        {"articles": {"title": {"$eq": "t"}}},
        "draft",
        "fr",
        f"t.document_id IN (SELECT tl.target_document_id {ARTICLES_OF_CATEGORY} WHERE "
        "tl.target_locale IS NULL AND tx.locale = ? AND tx.published_at IS NULL "
        'AND tx."title" = ?)',
        ["fr", "t"],
    ),
    (
        "category",
        {"articles": {"title": {"$eq": "t"}}},
        "published",
        None,
        f"t.document_id IN (SELECT tl.target_document_id {ARTICLES_OF_CATEGORY} WHERE "
        'tl.target_locale IS NULL AND tx.published_at IS NOT NULL AND tx."title" = ?)',
        ["t"],
    ),
    # `$null` through a relation also holds for documents without one
    (
        "article",
        {"category": {"name": {"$null": "true"}}},
        "published",
        "en",
        f'(t.id IN (SELECT tl.source_id {CATEGORY_OF_ARTICLE} WHERE tx."name" IS NULL) '
        f"OR t.id NOT IN (SELECT tl.source_id {CATEGORY_OF_ARTICLE}))",
        [],
    ),
    (
        "article",
        {"category": {"$null": "true"}},
        "published",
        "en",
        f'NOT (t.id IN (SELECT tl.source_id {CATEGORY_OF_ARTICLE} WHERE tx."id" IS NOT NULL))',
        [],
    ),
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(("singular", "filters", "status", "locale", "sql", "params"), WHERE)
def test_where(
    dialect: str,
    singular: str,
    filters: dict[str, Any],
    status: str,
    locale: str | None,
    sql: Expected,
    params: Any,
) -> None:
    node = FilterParser(REGISTRY).parse(TYPES[singular], filters)
    text, bound = compile_where(node, dialect_for(dialect), "t", status, locale)
    assert text == (sql[dialect] if isinstance(sql, dict) else sql)
    assert bound == (params[dialect] if isinstance(params, dict) else params)


PARSER = QueryParser(REGISTRY, Locales("en", frozenset({"en", "fr"})), Limits())


def _query(singular: str, params: dict[str, Any]) -> Query:
    return PARSER.parse(TYPES[singular], params, OPEN)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("status", ["published", "draft"])
def test_a_related_sort_reads_the_related_rows_in_the_reads_status(
    dialect: str, status: str
) -> None:
    query = _query("category", {"sort": "articles.title:desc", "status": status})
    plan = TypeReader(TYPES["category"], dialect_for(dialect)).find_statements(query, "en")
    flag = "IS NOT NULL" if status == "published" else "IS NULL"
    subquery = (
        f'(SELECT x0."title" {ARTICLES_OF_CATEGORY.replace("tl", "l0").replace("tx", "x0")} '
        f"WHERE l0.target_document_id = t.document_id AND l0.target_locale IS NULL AND "
        f"x0.published_at {flag} ORDER BY l0.inv_position LIMIT 1)"
    )
    assert f"{subquery} DESC" in plan.page
    if dialect == "sqlite":
        assert plan.page_params[-2:] == [25, 0]
    else:
        # PostgreSQL: a first page's bounds are written in (one plan kept for its runs),
        # in the statement that finds the page's ids before their rows are read
        assert "LIMIT 25) w ON w.id = t.id" in plan.page and 25 not in plan.page_params


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_first_pages_have_their_bounds_written_in_on_postgres(dialect: str) -> None:
    reader = TypeReader(TYPES["article"], dialect_for(dialect))

    def page(n: int) -> Any:
        query = _query("article", {"pagination": {"pageSize": "10", "page": str(n)}})
        return reader.find_statements(query, "en")

    first, second, tenth, eleventh = page(1), page(2), page(10), page(11)
    assert eleventh.page_params[-2:] == [10, 100]
    if dialect == "sqlite":
        assert second.page.endswith("LIMIT ? OFFSET ?") and second.page_params[-2:] == [10, 10]
        assert first.page.endswith("LIMIT ? OFFSET ?") and first.page_params[-2:] == [10, 0]
    else:
        # PostgreSQL: a later page's ids first, from the list index, then their rows only;
        # the first ten pages of a size are statements of their own, the others share one
        assert first.page.endswith("LIMIT 10") and first.page_params[-2:] == ["en", "en"]
        assert second.page.endswith("LIMIT 10 OFFSET 10) w ON w.id = t.id ORDER BY t.id ASC")
        assert tenth.page.endswith("LIMIT 10 OFFSET 90) w ON w.id = t.id ORDER BY t.id ASC")
        assert second.page_params == tenth.page_params == first.page_params
        assert eleventh.page.endswith("LIMIT ? OFFSET ?) w ON w.id = t.id ORDER BY t.id ASC")
    offset = reader.find_statements(_query("article", {"pagination": {"start": "5"}}), "en")
    assert offset.page_params[-2:] == [25, 5]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_page_of_one_version_set(dialect: str) -> None:
    query = _query("article", {"locale": "fr", "status": "draft", "pagination": {"page": "2"}})
    plan = TypeReader(TYPES["article"], dialect_for(dialect)).find_statements(query, "fr")
    flag = "(t.published_at IS NULL) = 1" if dialect == "sqlite" else "t.published_at IS NULL"
    bounds = "LIMIT ? OFFSET ?" if dialect == "sqlite" else "LIMIT 25 OFFSET 25"
    assert f"WHERE t.locale = ? AND {flag} ORDER BY t.id ASC {bounds}" in plan.page
    if dialect == "sqlite":
        assert plan.page_params == ["fr", 25, 25] and not plan.counted
    else:
        # PostgreSQL: the count is a column of the page, computed once (one round trip),
        # unless the snapshot it was last counted in is still the database's (none yet)
        assert f'(SELECT COUNT(*) FROM "articles" t WHERE t.locale = ? AND {flag})' in plan.page
        assert "pg_current_snapshot()" in plan.page
        assert plan.page_params == [None, 0, "fr", "fr"] and plan.counted
    assert plan.count.endswith(f"WHERE t.locale = ? AND {flag}")
    assert plan.count_params == ["fr"]
