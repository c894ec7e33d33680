"""The Content Manager's list view: search, filters, sort, pages and page size, the locale
switcher, each row's status, and the bulk actions (publish, unpublish, delete), on 23
articles (and one in French) made through REST."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import Server, axe
from tests.e2e.panel import LIST, admin, button, confirm, label, rx

COUNT = 23


@pytest.fixture(scope="module")
def articles(server: Server) -> list[dict[str, Any]]:
    made = [
        server.create("articles", {"title": f"Item {i:02}", "views": i}, "?status=draft")
        for i in range(1, COUNT + 1)
    ]
    server.create(
        "articles", {"title": "Article en français", "views": 1}, "?locale=fr&status=draft"
    )
    return made


def _rows(page: Page) -> Locator:
    return page.get_by_role("table").get_by_role("row").filter(has_text=re.compile(r"Item \d\d"))


def _row(page: Page, title: str) -> Locator:
    return page.get_by_role("table").get_by_role("row").filter(has_text=title)


def _titles(page: Page) -> list[str]:
    return re.findall(r"Item \d\d", " ".join(_rows(page).all_inner_texts()))


def _bulk(page: Page) -> Locator:
    return page.get_by_role("region", name=rx("bulk actions"))


def _search(page: Page) -> Locator:
    return page.get_by_role("searchbox").or_(page.get_by_label(rx("^search"))).first


def _pick(control: Locator, pattern: re.Pattern[str]) -> None:
    """Selects the option of a native select whose text matches."""
    texts: list[str] = control.locator("option").all_inner_texts()
    found = [t for t in texts if pattern.search(t)]
    assert found, f"no option matching {pattern.pattern} among {texts}"
    control.select_option(label=found[0])


def _sort_by(page: Page, column: str) -> Locator:
    header = page.get_by_role("columnheader", name=label(column))
    header.get_by_role("button").first.click()
    return header


@pytest.mark.usefixtures("articles")
def test_search_filter_sort_and_pages(signed_in_page: Page) -> None:
    page = signed_in_page
    admin(page, LIST.removeprefix("/admin"))
    expect(page.get_by_role("heading", level=1)).to_have_text(rx("articles?"))
    expect(_rows(page)).to_have_count(10)
    axe(page, "list view")

    # sorted by the main field by default; by title the other way, then back
    header = page.get_by_role("columnheader", name=label("title"))
    expect(header).to_have_attribute("aria-sort", "ascending")
    expect(_rows(page).first).to_contain_text("Item 01")
    header = _sort_by(page, "title")
    expect(header).to_have_attribute("aria-sort", "descending")
    expect(page).to_have_url(re.compile(r"sort=title(:|%3A)DESC", re.I))
    expect(_rows(page).first).to_contain_text("Item 23")
    header = _sort_by(page, "title")
    expect(header).to_have_attribute("aria-sort", "ascending")
    expect(_rows(page).first).to_contain_text("Item 01")

    # pages: 10 a page, 3 pages
    pages = page.get_by_role("navigation", name=rx("pagination"))
    expect(pages.get_by_role("link", name=rx("go to page 3", exact=True))).to_be_visible()
    pages.get_by_role("link", name=rx("go to next page")).click()
    expect(page).to_have_url(re.compile(r"page=2"))
    expect(_rows(page).first).to_contain_text("Item 11")
    expect(_rows(page)).to_have_count(10)
    pages.get_by_role("link", name=rx("go to page 3", exact=True)).click()
    expect(_rows(page)).to_have_count(3)
    assert _titles(page) == ["Item 21", "Item 22", "Item 23"]

    # a larger page shows them all
    _pick(
        page.get_by_label(rx("entries per page", "page size", "per page")),
        re.compile(r"^(25|50|100)$"),
    )
    expect(_rows(page)).to_have_count(COUNT)
    axe(page, "list view, every row")

    # full-text search
    _search(page).fill("Item 07")
    _search(page).press("Enter")
    expect(_rows(page)).to_have_count(1)
    expect(_rows(page).first).to_contain_text("Item 07")
    expect(page).to_have_url(re.compile(r"_q=Item"))
    _search(page).fill("nothing like this")
    _search(page).press("Enter")
    expect(_rows(page)).to_have_count(0)
    expect(page.get_by_text(rx("no (content|entr(y|ies)|documents?|results?)"))).to_be_visible()
    _search(page).fill("")
    _search(page).press("Enter")
    expect(_rows(page)).to_have_count(COUNT)

    # a filter built from the attribute's kind: views > 20
    button(page, "filters?", exact=True).first.click()
    _pick(page.get_by_label(rx("^field", "^attribute")), re.compile(r"^views$", re.I))
    _pick(page.get_by_label(rx("^operator", "^condition")), re.compile(r"greater than|\$gt", re.I))
    page.get_by_label(rx("^value")).fill("20")
    axe(page, "filter form")
    button(page, "add filter", "apply", "add").first.click()
    expect(_rows(page)).to_have_count(3)
    expect(page).to_have_url(re.compile(r"filters"))
    assert sorted(_titles(page)) == ["Item 21", "Item 22", "Item 23"]
    # the filter is shown and can be removed
    page.get_by_role(
        "button", name=rx("remove.*views", "views.*remove", "clear filters?")
    ).first.click()
    expect(_rows(page)).to_have_count(COUNT)


@pytest.mark.usefixtures("articles")
def test_locale_switcher(signed_in_page: Page) -> None:
    page = signed_in_page
    admin(page, LIST.removeprefix("/admin"))
    expect(_rows(page).first).to_be_visible()
    _pick(page.get_by_label(rx("locale")), re.compile(r"french|\bfr\b", re.I))
    expect(page).to_have_url(re.compile(r"locale=fr"))
    expect(
        page.get_by_role("table").get_by_role("row").filter(has_text="Article en français")
    ).to_be_visible()
    expect(_rows(page)).to_have_count(0)
    axe(page, "list view in French")


@pytest.mark.usefixtures("articles")
def test_bulk_publish_unpublish_and_delete(signed_in_page: Page, server: Server) -> None:
    page = signed_in_page
    admin(page, LIST.removeprefix("/admin") + "?pageSize=50&sort=title:ASC")
    expect(_rows(page)).to_have_count(COUNT)
    chosen = ["Item 01", "Item 02", "Item 03"]
    for title in chosen:
        expect(_row(page, title)).to_contain_text(rx("draft"))
        _row(page, title).get_by_role("checkbox").check()
    axe(page, "list view with a selection")

    button(_bulk(page), "publish").click()
    confirm(page, "publish", "confirm", "yes")
    for title in chosen:
        expect(_row(page, title)).to_contain_text(rx("published"))
    expect(_row(page, "Item 04")).to_contain_text(rx("draft"))
    published = server.call("GET", "/api/articles?pagination[pageSize]=100").body["data"]
    assert sorted(a["title"] for a in published) == chosen

    for title in chosen[:2]:
        _row(page, title).get_by_role("checkbox").check()
    button(_bulk(page), "unpublish").click()
    confirm(page, "unpublish", "confirm", "yes")
    for title in chosen[:2]:
        expect(_row(page, title)).to_contain_text(rx("draft"))
    expect(_row(page, "Item 03")).to_contain_text(rx("published"))
    published = server.call("GET", "/api/articles?pagination[pageSize]=100").body["data"]
    assert [a["title"] for a in published] == ["Item 03"]

    for title in ("Item 02", "Item 03"):
        _row(page, title).get_by_role("checkbox").check()
    button(_bulk(page), "delete").click()
    confirm(page, "delete", "confirm", "yes")
    expect(_rows(page)).to_have_count(COUNT - 2)
    expect(_row(page, "Item 02")).to_have_count(0)
    drafts = server.call("GET", "/api/articles?status=draft&pagination[pageSize]=100").body
    assert drafts["meta"]["pagination"]["total"] == COUNT - 2


@pytest.mark.usefixtures("articles")
def test_list_settings_are_kept_per_type(signed_in_page: Page) -> None:
    page = signed_in_page
    admin(page, LIST.removeprefix("/admin"))
    page.get_by_role("link", name=rx("configure the view")).click()
    expect(page).to_have_url(re.compile(r"/configurations/list"))
    axe(page, "list settings")
    _pick(page.get_by_label(rx("^default sort attribute")), re.compile(r"^views$", re.I))
    _pick(page.get_by_label(rx("^default sort order")), re.compile(r"^descending$", re.I))
    _pick(page.get_by_label(rx("^entries per page")), re.compile(r"^20$"))
    _pick(page.get_by_label(rx("^add a column")), re.compile(r"^views$", re.I))
    page.get_by_role("button", name=rx("add", exact=True)).click()
    page.get_by_role("button", name=rx("save", exact=True)).click()
    expect(page).not_to_have_url(re.compile(r"/configurations/list"))  # back to the list

    page.reload()
    expect(page.get_by_role("columnheader", name=label("views"))).to_have_attribute(
        "aria-sort", "descending"
    )
    expect(_rows(page)).to_have_count(20)
    expect(_rows(page).first).to_contain_text("Item 23")
    # another type keeps its own
    admin(page, "/content-manager/collection-types/api::tag.tag")
    expect(page.get_by_role("columnheader", name=label("views"))).to_have_count(0)
