"""A localized article edited through every widget of the edit view (string, text, email,
password, uid generated from the title, enumeration, boolean, the four numbers, date,
datetime, time, JSON with a parse error then fixed, markdown with its preview, blocks,
media picked and uploaded, relations connected and reordered by keyboard, a single and a
repeatable component, a dynamic zone), saved as a draft, published, unpublished, made in
a second locale filled from the first, and deleted; validation errors shown beside the
fields they refuse. What was saved is read back through REST (and seen again in the form).

The tests of this module run in order and share the article they make."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import Server, axe, wait_until
from tests.e2e.panel import (
    ARTICLE,
    LIST,
    action,
    button,
    choose,
    confirm,
    dialog,
    doc_id_from,
    field,
    fill_code,
    group,
    image_file,
    keyboard_move,
    label,
    png,
    rest_upload,
    rx,
    status_shown,
)

CREATE = f"/admin/content-manager/collection-types/{ARTICLE}/create?locale=en"
BIG = "9007199254740993"  # beyond JavaScript's safe integers: must survive as written


@pytest.fixture(scope="module")
def related(server: Server) -> dict[str, Any]:
    """What the article links to: tags, a category, an author and a file in the library."""
    tags = {name: server.create("tags", {"name": name}) for name in ("alpha", "beta", "gamma")}
    category = server.create("categories", {"name": "News"})
    author = server.create("authors", {"name": "Grace Hopper"})
    library = rest_upload(server.base, "library-cover.png", png(rgb=(20, 120, 200)))
    return {"tags": tags, "category": category, "author": author, "file": library}


@pytest.fixture(scope="module")
def made() -> dict[str, str]:
    """The article the tests of this module share (its documentId, once saved)."""
    return {}


def entry(scope: Page | Locator, title: str) -> Locator:
    """An entry of a component list or zone ("Link 1", "Quote 2"), opened."""
    box = scope.get_by_role("group", name=rx(re.escape(title), exact=True)).first
    toggle = box.get_by_role("button", name=re.compile(rf"^\s*{re.escape(title)}", re.I)).first
    if toggle.get_attribute("aria-expanded") == "false":
        toggle.click()
    return box


def read(server: Server, document_id: str, locale: str = "en", status: str = "draft") -> Any:
    """The article as REST gives it, with everything populated."""
    populate = "&".join(
        f"populate[{name}]=true"
        for name in ("cover", "gallery", "category", "tags", "author", "seo", "links")
    )
    r = server.call(
        "GET",
        f"/api/articles/{document_id}?locale={locale}&status={status}&{populate}"
        "&populate[blocks][populate]=*",
    )
    return r


def _blocks_editor(page: Page) -> Locator:
    return page.get_by_role("textbox", name=label("content")).first


def _blocks_toolbar(page: Page) -> Locator:
    return page.get_by_role("toolbar", name=re.compile(r"\bcontent\b", re.I)).first


def _block_tool(page: Page, *names: str) -> Locator:
    return _blocks_toolbar(page).get_by_role("button", name=rx(*names)).first


def _write_blocks(page: Page) -> None:
    """A heading, a two-item bulleted list, a paragraph with bold text and a quote with
    italic text, through the editor's toolbar and keyboard."""
    editor = _blocks_editor(page)
    editor.click()
    style = _blocks_toolbar(page).get_by_role("combobox", name=rx("block type", "style"))
    if style.count():
        style.first.select_option(label=_option_like(style.first, r"heading 2|h2"))
    else:
        _block_tool(page, "heading 2", "heading").click()
    editor.focus()
    page.keyboard.type("Chapter one")
    page.keyboard.press("Enter")
    _block_tool(page, "bulleted list", "bullet list", "unordered list").click()
    editor.focus()
    page.keyboard.type("first point")
    page.keyboard.press("Enter")
    page.keyboard.type("second point")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")  # an empty item ends the list
    page.keyboard.type("Plain and ")
    page.keyboard.press("Control+B")
    page.keyboard.type("strong")
    page.keyboard.press("Control+B")
    page.keyboard.press("Enter")
    if style.count():
        style.first.select_option(label=_option_like(style.first, r"^quote"))
    else:
        _block_tool(page, "quote").click()
    editor.focus()
    page.keyboard.type("Wise ")
    page.keyboard.press("Control+I")
    page.keyboard.type("words")
    page.keyboard.press("Control+I")


def _option_like(select: Locator, pattern: str) -> str:
    texts: list[str] = select.locator("option").all_inner_texts()
    found = [t for t in texts if re.search(pattern, t, re.I)]
    assert found, texts
    return found[0]


def _texts(nodes: list[dict[str, Any]]) -> str:
    return "".join(n.get("text", "") + _texts(n.get("children", [])) for n in nodes)


def test_create_an_article_with_every_kind(
    signed_in_page: Page, server: Server, related: dict[str, Any], made: dict[str, str]
) -> None:
    page = signed_in_page
    page.goto(CREATE)
    title = field(page, "title")
    expect(title).to_be_visible()
    axe(page, "edit view, empty")

    # strings, uid generated from the title
    title.fill("Hello Panel World")
    expect(field(page, "slug")).to_have_value("hello-panel-world")
    field(page, "subtitle").fill("Short one")
    field(page, "productCode").fill("ABC-12")
    field(page, "description").fill("A first article\nover two lines.")
    field(page, "contactEmail").fill("editor@example.com")
    field(page, "secret").fill("Hidden-Value-1")
    choose(field(page, "status2"), "writing")
    field(page, "featured").check()
    # numbers
    field(page, "views").fill("42")
    field(page, "bigCount").fill(BIG)
    field(page, "rating").fill("4.25")
    field(page, "score").fill("0.5")
    # dates and times
    field(page, "publishDate").fill("2026-11-27")
    field(page, "eventAt").fill("2026-11-27T10:30")
    field(page, "startTime").fill("09:15")

    # markdown with its preview
    body = page.get_by_role("textbox", name=label("body")).first
    body.fill("# Big news\n\nSome **bold** words.")
    page.get_by_role("tab", name=rx("preview")).first.click()
    expect(page.get_by_role("heading", name="Big news")).to_be_visible()
    axe(page, "markdown preview")
    page.get_by_role("tab", name=rx("write", "markdown", "edit")).first.click()

    # media: one picked from the library, two uploaded into the gallery
    page.get_by_role("button", name=rx("add cover from the library")).click()
    picker = dialog(page)
    expect(picker).to_be_visible()
    axe(page, "media picker")
    picker.get_by_label(rx("^library-cover\\.png")).first.check()
    chosen = rx("choose this file", "finish", "select", "done")
    picker.get_by_role("button", name=chosen).last.click()
    expect(picker).to_be_hidden()
    expect(page.get_by_role("button", name=rx("replace cover from the library"))).to_be_visible()
    files = page.get_by_role("list", name=rx("chosen files"))
    expect(files.filter(has_text="library-cover.png")).to_have_count(1)
    page.get_by_label(label("gallery")).set_input_files(
        [
            image_file("gallery-one.png", (10, 200, 10)),
            image_file("gallery-two.png", (200, 200, 10)),
        ]
    )
    gallery = files.filter(has_text="gallery-one.png")
    expect(gallery).to_contain_text("gallery-two.png")
    gallery.get_by_role("button", name=rx("move gallery-two\\.png (earlier|up|left)")).click()
    expect(gallery.get_by_role("listitem").first).to_contain_text("gallery-two.png")

    # relations: a category, two tags reordered by keyboard
    category = page.get_by_role("combobox", name=label("category"))
    category.fill("New")
    page.get_by_role("option", name=rx("^News")).first.click()
    tags = page.get_by_role("combobox", name=label("tags"))
    for name in ("alpha", "beta"):
        tags.fill(name[:3])
        page.get_by_role("option", name=rx(f"^{name}")).first.click()
    # the third by keyboard only: the first match, chosen with the arrow key and Enter
    tags.fill("gam")
    expect(page.get_by_role("option", name=rx("^gamma"))).to_be_visible()
    tags.press("ArrowDown")
    tags.press("Enter")
    connected = page.get_by_role("list", name=rx("connected")).filter(has_text="alpha")
    expect(connected.get_by_role("listitem")).to_have_count(3)
    connected.get_by_role("button", name=rx("^(disconnect|remove) gamma")).click()
    expect(connected.get_by_role("listitem")).to_have_count(2)
    keyboard_move(connected.get_by_role("button", name=rx("^drag beta")), -1)
    expect(connected.get_by_role("listitem").first).to_contain_text("beta")
    axe(page, "relations")

    # a single component
    seo = group(page, "seo")
    seo.get_by_role("button", name=rx("^add")).first.click()
    field(entry(seo, "Seo"), "metaTitle").fill("Meta of the article")

    # a repeatable component: three entries, reordered, one removed
    links = group(page, "links")
    for i, text in enumerate(("first link", "second link", "third link"), start=1):
        links.get_by_role("button", name=rx("add an entry", "^add")).last.click()
        field(entry(links, f"Link {i}"), "label").fill(text)
    links.get_by_role("button", name=rx("move link 3 up")).click()  # third before second
    links.get_by_role("button", name=rx("remove link 1")).click()  # the first goes
    expect(links.get_by_role("group", name=re.compile(r"^Link \d$"))).to_have_count(2)
    # an entry collapses and opens again
    first = links.get_by_role("group", name="Link 1")
    toggle = first.get_by_role("button", name=re.compile(r"^\s*Link 1")).first
    if toggle.get_attribute("aria-expanded") == "false":
        toggle.click()
    expect(field(first, "label")).to_be_visible()
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(field(first, "label")).to_be_hidden()
    toggle.click()
    expect(field(first, "label")).to_have_value("third link")
    axe(page, "components")

    # a dynamic zone: a quote and a rich text, swapped; a third added and removed
    zone = group(page, "blocks")
    for kind in ("Quote", "Rich text", "Quote"):
        zone.get_by_role("button", name=rx("add a component")).first.click()
        if kind == "Rich text":
            axe(page, "dynamic zone's component picker")
        zone.get_by_role("button", name=rx(kind, exact=True)).first.click()
    field(entry(zone, "Quote 1"), "title").fill("A quotation")
    entry(zone, "Rich text 2").get_by_role("textbox", name=label("body")).first.fill("*zone* text")
    zone.get_by_role("button", name=rx("remove quote 3")).click()
    zone.get_by_role("button", name=rx("move rich text 2 up")).click()
    expect(zone.get_by_role("group", name=rx("^rich text 1$"))).to_be_visible()
    axe(page, "dynamic zone")

    action(page, "save")
    expect(page).not_to_have_url(re.compile(r"/create"))
    status_shown(page, "draft")
    made["id"] = doc_id_from(page)

    r = read(server, made["id"])
    assert r.status == 200, r.body
    a = r.body["data"]
    assert a["title"] == "Hello Panel World" and a["slug"] == "hello-panel-world"
    assert a["subtitle"] == "Short one" and a["productCode"] == "ABC-12"
    assert a["description"] == "A first article\nover two lines."
    assert a["contactEmail"] == "editor@example.com"
    assert "secret" not in a  # private
    assert a["status2"] == "writing" and a["featured"] is True
    assert a["views"] == 42 and str(a["bigCount"]) == BIG
    assert float(a["rating"]) == 4.25 and a["score"] == 0.5
    assert a["publishDate"] == "2026-11-27"
    assert a["eventAt"].startswith("2026-11-27T")
    assert a["startTime"].startswith("09:15")
    assert a["body"] == "# Big news\n\nSome **bold** words."
    assert a["cover"]["name"] == "library-cover.png"
    assert [f["name"] for f in a["gallery"]] == ["gallery-two.png", "gallery-one.png"]
    assert a["category"]["name"] == "News"
    assert [t["name"] for t in a["tags"]] == ["beta", "alpha"]
    assert a["seo"]["metaTitle"] == "Meta of the article"
    assert [link["label"] for link in a["links"]] == ["third link", "second link"]
    assert [b["__component"] for b in a["blocks"]] == ["shared.rich-text", "shared.quote"]
    assert a["blocks"][0]["body"] == "*zone* text"
    assert a["blocks"][1]["title"] == "A quotation"

    # the form shows it all again after a reload
    page.reload()
    expect(field(page, "title")).to_have_value("Hello Panel World")
    expect(field(page, "bigCount")).to_have_value(BIG)
    expect(field(page, "featured")).to_be_checked()
    tags_shown = page.get_by_role("list", name=rx("connected")).filter(has_text="alpha")
    expect(tags_shown.get_by_role("listitem").first).to_contain_text("beta")
    axe(page, "edit view, filled")


def _editor(page: Page, name: str) -> Locator:
    """The code or rich-text editor of a field (a textbox named by the field's label)."""
    editor = page.get_by_role("textbox", name=label(name)).first
    expect(editor).to_be_visible()
    return editor


def test_json_field_shows_parse_errors(
    signed_in_page: Page, server: Server, made: dict[str, str]
) -> None:
    page = signed_in_page
    page.goto(f"{LIST}/{made['id']}?locale=en")
    expect(field(page, "title")).to_have_value("Hello Panel World")
    meta = _editor(page, "meta")
    # JSON: a parse error is shown, then fixed
    fill_code(meta, '{"tags": ["a", "b"],')
    expect(page.get_by_text(re.compile(r"line \d+", re.I)).first).to_be_visible()
    fill_code(meta, '{"tags": ["a", "b"], "n": 1}')
    expect(page.get_by_text(re.compile(r"line \d+", re.I))).to_have_count(0)

    axe(page, "JSON editor")
    action(page, "save")
    wait_until(
        lambda: read(server, made["id"]).body["data"]["meta"] == {"tags": ["a", "b"], "n": 1}
    )
    page.reload()
    expect(_editor(page, "meta")).to_contain_text('"n": 1')


def test_blocks_editor(signed_in_page: Page, server: Server, made: dict[str, str]) -> None:
    page = signed_in_page
    page.goto(f"{LIST}/{made['id']}?locale=en")
    expect(field(page, "title")).to_have_value("Hello Panel World")
    _editor(page, "content")
    # blocks
    _write_blocks(page)
    axe(page, "blocks editor")

    action(page, "save")
    wait_until(lambda: bool(read(server, made["id"]).body["data"]["content"]))
    a = read(server, made["id"]).body["data"]
    kinds = [b["type"] for b in a["content"]]
    heading = next(b for b in a["content"] if b["type"] == "heading")
    assert _texts(heading["children"]) == "Chapter one"
    bullets = next(b for b in a["content"] if b["type"] == "list")
    assert bullets["format"] == "unordered"
    assert [_texts(i["children"]) for i in bullets["children"]] == ["first point", "second point"]
    paragraph = next(b for b in a["content"] if b["type"] == "paragraph" and _texts(b["children"]))
    assert {"type": "text", "text": "strong", "bold": True} in paragraph["children"], kinds
    quote = next(b for b in a["content"] if b["type"] == "quote")
    assert _texts(quote["children"]) == "Wise words"
    assert {"type": "text", "text": "words", "italic": True} in quote["children"], quote
    page.reload()
    expect(_blocks_editor(page).get_by_role("heading", name="Chapter one")).to_be_visible()
    expect(_blocks_editor(page).get_by_role("listitem")).to_have_count(2)


def test_publish_then_unpublish(signed_in_page: Page, server: Server, made: dict[str, str]) -> None:
    page = signed_in_page
    page.goto(f"{LIST}/{made['id']}?locale=en")
    expect(field(page, "title")).to_have_value("Hello Panel World")
    action(page, "publish")
    status_shown(page, "published")
    assert read(server, made["id"], status="published").status == 200

    # a change after publishing makes it "modified"; discard brings the published one back
    field(page, "subtitle").fill("Changed")
    action(page, "save")
    status_shown(page, "modified")
    axe(page, "edit view, modified")
    action(page, "discard changes")
    confirm(page, "discard", "confirm", "yes")
    expect(field(page, "subtitle")).to_have_value("Short one")
    status_shown(page, "published")

    action(page, "unpublish")
    confirm(page, "unpublish", "confirm", "yes")
    status_shown(page, "draft")
    assert read(server, made["id"], status="published").status == 404
    assert read(server, made["id"]).status == 200


def test_another_locale_filled_from_the_first(
    signed_in_page: Page, server: Server, made: dict[str, str]
) -> None:
    page = signed_in_page
    page.goto(f"{LIST}/{made['id']}?locale=en")
    expect(field(page, "title")).to_have_value("Hello Panel World")
    choose(page.get_by_label(rx("^locale")).first, _french(page))
    expect(page).to_have_url(re.compile(r"locale=fr"))
    expect(field(page, "title")).to_have_value("")
    page.get_by_role("button", name=rx("fill in from another locale", "fill in from")).first.click()
    box = dialog(page)
    axe(page, "fill from another locale")
    source = box.get_by_role("combobox")
    if source.count():
        choose(source.first, _english(source.first))
    box.get_by_role("button", name=rx("fill in", "yes", "confirm")).last.click()
    expect(box).to_be_hidden()
    expect(field(page, "title")).to_have_value("Hello Panel World")
    field(page, "title").fill("Bonjour le panneau")
    expect(field(page, "slug")).to_have_value("bonjour-le-panneau")
    # a field that is the same in every locale is marked as shared
    expect(page.get_by_text(rx("shared across locales")).first).to_be_visible()
    action(page, "save")
    status_shown(page, "draft")
    axe(page, "edit view, French")

    fr = read(server, made["id"], locale="fr").body["data"]
    assert fr["title"] == "Bonjour le panneau" and fr["locale"] == "fr"
    assert fr["views"] == 42 and fr["seo"]["metaTitle"] == "Meta of the article"
    assert [t["name"] for t in fr["tags"]] == ["beta", "alpha"]  # shared
    assert read(server, made["id"], locale="en").body["data"]["title"] == "Hello Panel World"


def _french(select: Locator | Page) -> str:
    control = select if isinstance(select, Locator) else select.get_by_label(rx("^locale")).first
    return _option_like(control, r"french|\bfr\b")


def _english(select: Locator) -> str:
    return _option_like(select, r"english|\ben\b")


def test_validation_errors_beside_the_fields(signed_in_page: Page, server: Server) -> None:
    page = signed_in_page
    page.goto(CREATE)
    expect(field(page, "title")).to_be_visible()
    # too long: the field takes no more than its maximum, or the server refuses it
    subtitle = field(page, "subtitle")
    subtitle.fill("x" * 25)
    if len(subtitle.input_value()) > 20:
        action(page, "save")
        expect(subtitle).to_have_accessible_description(rx("at most 20 characters"))
        expect(subtitle).to_have_attribute("aria-invalid", "true")
        expect(page).to_have_url(re.compile(r"/create"))
    else:
        expect(subtitle).to_have_value("x" * 20)
    # too short, not matching a pattern, and a pattern inside a repeatable component
    subtitle.fill("abc")
    field(page, "productCode").fill("not a code")
    links = group(page, "links")
    links.get_by_role("button", name=rx("add an entry", "^add")).last.click()
    link_url = field(entry(links, "Link 1"), "url")
    link_url.fill("nowhere")
    action(page, "save")
    expect(field(page, "subtitle")).to_have_accessible_description(rx("at least 5 characters"))
    expect(field(page, "productCode")).to_have_accessible_description(rx("must match"))
    expect(field(page, "subtitle")).to_have_attribute("aria-invalid", "true")
    expect(link_url).to_have_accessible_description(rx("must match"))
    expect(link_url).to_have_attribute("aria-invalid", "true")
    expect(page).to_have_url(re.compile(r"/create"))
    axe(page, "edit view with errors")

    # fixed, saved as a draft without a title; publishing asks for the title
    field(page, "subtitle").fill("short")
    field(page, "productCode").fill("XYZ-1")
    link_url.fill("https://example.com/")
    action(page, "save")
    expect(page).not_to_have_url(re.compile(r"/create"))
    action(page, "publish")
    expect(field(page, "title")).to_have_accessible_description(rx("title"))
    expect(field(page, "title")).to_have_attribute("aria-invalid", "true")
    status_shown(page, "draft")
    r = server.call("GET", f"/api/articles/{doc_id_from(page)}?status=published")
    assert r.status == 404


def test_unsaved_changes_guard(signed_in_page: Page, made: dict[str, str]) -> None:
    page = signed_in_page
    page.goto(f"{LIST}/{made['id']}?locale=en")
    expect(field(page, "title")).to_have_value("Hello Panel World")
    field(page, "title").fill("Not kept")
    asked: list[str] = []

    def answer(accept: bool) -> Any:
        def handler(d: Any) -> None:
            asked.append(d.message)
            d.accept() if accept else d.dismiss()

        return handler

    back = page.get_by_role("link", name=rx("back to article"))
    page.once("dialog", answer(False))
    back.click()
    expect(field(page, "title")).to_have_value("Not kept")
    assert asked and re.search("unsaved", asked[0], re.I), asked
    expect(page).to_have_url(re.compile(re.escape(made["id"])))
    axe(page, "edit view with unsaved changes")
    page.once("dialog", answer(True))
    back.click()
    expect(page).to_have_url(re.compile(rf"/collection-types/{re.escape(ARTICLE)}(\?|$)"))
    assert len(asked) == 2


def test_delete(signed_in_page: Page, server: Server, made: dict[str, str]) -> None:
    page = signed_in_page
    page.goto(f"{LIST}/{made['id']}?locale=en")
    expect(field(page, "title")).to_have_value("Hello Panel World")
    action(page, "delete")
    confirm(page, "delete", "confirm", "yes")
    expect(page).to_have_url(re.compile(rf"/collection-types/{re.escape(ARTICLE)}(\?|$)"))
    assert read(server, made["id"], locale="en").status == 404
    # the other locale is a document of its own version: deleted with "this locale" only
    # or with every locale, as the panel chooses; either way English is gone
    expect(
        page.get_by_role("table").get_by_role("row").filter(has_text="Hello Panel World")
    ).to_have_count(0)
    axe(page, "list view after a deletion")


def test_a_single_type(signed_in_page: Page, server: Server) -> None:
    page = signed_in_page
    page.goto("/admin/content-manager/single-types/api::global.global?locale=en")
    site = field(page, "siteName")
    expect(site).to_have_value("")
    axe(page, "single type, empty")
    site.fill("Folio Blog")
    field(page, "siteDescription").fill("Notes from the panel")
    action(page, "save")
    status_shown(page, "draft")
    action(page, "publish")
    status_shown(page, "published")
    g = server.call("GET", "/api/global?locale=en").body["data"]
    assert g["siteName"] == "Folio Blog" and g["siteDescription"] == "Notes from the panel"
    page.reload()
    expect(field(page, "siteName")).to_have_value("Folio Blog")

    # a single type without Draft & Publish, with a dynamic zone
    page.goto("/admin/content-manager/single-types/api::about.about")
    field(page, "title").fill("About us")
    zone = group(page, "blocks")
    zone.get_by_role("button", name=rx("add a component")).first.click()
    zone.get_by_role("button", name=rx("quote", exact=True)).first.click()
    field(entry(zone, "Quote 1"), "body").fill("We write.")
    action(page, "save")
    expect(button(page, "save")).to_be_disabled()  # saved: nothing left to save
    expect(button(page, "publish")).to_have_count(0)
    axe(page, "single type without draft and publish")
    about = server.call("GET", "/api/about?populate=*").body["data"]
    assert about["title"] == "About us"
    assert about["blocks"][0]["body"] == "We write."


def test_relation_targets_show_their_status(signed_in_page: Page, server: Server) -> None:
    """An event (not localized) links to articles (localized, with drafts): the search
    shows each target's status, and the one-to-many list keeps its order."""
    server.create("articles", {"title": "Gazette one"}, "?status=published")
    server.create("articles", {"title": "Gazette two"}, "?status=draft")
    page = signed_in_page
    page.goto("/admin/content-manager/collection-types/api::event.event/create")
    field(page, "name").fill("Launch party")
    field(page, "capacity").fill("120")
    articles = page.get_by_role("combobox", name=label("articles"))
    articles.fill("Gazette")
    expect(page.get_by_role("option", name=rx("^gazette one.*published"))).to_be_visible()
    expect(page.get_by_role("option", name=rx("^gazette two.*draft"))).to_be_visible()
    axe(page, "relation search with statuses")
    page.get_by_role("option", name=rx("^gazette two")).click()
    articles.fill("Gazette")
    page.get_by_role("option", name=rx("^gazette one")).click()
    connected = page.get_by_role("list", name=rx("connected")).filter(has_text="Gazette")
    expect(connected.get_by_role("listitem")).to_have_count(2)
    connected.get_by_role("button", name=rx("move gazette one up")).click()
    action(page, "save")
    expect(page).not_to_have_url(re.compile(r"/create"))
    status_shown(page, "draft")
    event_id = doc_id_from(page)
    r = server.call("GET", f"/api/events/{event_id}?status=draft&populate[articles]=true")
    assert r.status == 200, r.body
    assert r.body["data"]["capacity"] == 120
    assert [a["title"] for a in r.body["data"]["articles"]] == ["Gazette one", "Gazette two"]
