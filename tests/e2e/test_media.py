"""The media library page: several files uploaded at once, search, grid and list views, a
file's name, alternative text and caption edited, a file deleted; each checked through
REST's upload routes."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import Server, axe
from tests.e2e.panel import admin, dialog, image_file, rx


def _files(page: Page) -> Locator:
    return page.get_by_role("list", name=rx("^files$")).get_by_role("listitem")


def _stored(server: Server) -> list[dict[str, Any]]:
    r = server.call("GET", "/api/upload/files")
    assert r.status == 200, r.body
    return list(r.body)


def test_upload_edit_and_delete_files(signed_in_page: Page, server: Server) -> None:
    page = signed_in_page
    admin(page, "/plugins/upload")
    expect(page.get_by_role("heading", level=1)).to_have_text(rx("media library"))
    axe(page, "media library, empty")

    page.get_by_label(rx("^upload files")).first.set_input_files(
        [image_file("cat.png", (90, 60, 30)), image_file("dog.png", (30, 60, 90))]
    )
    expect(_files(page)).to_have_count(2)
    assert sorted(f["name"] for f in _stored(server)) == ["cat.png", "dog.png"]
    axe(page, "media library, grid")

    page.get_by_label(rx("^search files")).fill("cat")
    expect(_files(page)).to_have_count(1)
    expect(_files(page).first).to_contain_text("cat.png")
    page.get_by_label(rx("^search files")).fill("")
    expect(_files(page)).to_have_count(2)

    page.get_by_role("button", name=rx("list view")).click()
    expect(page.get_by_role("table").get_by_role("row").filter(has_text="dog.png")).to_be_visible()
    axe(page, "media library, list")
    page.get_by_role("button", name=rx("grid view")).click()

    page.get_by_role(
        "button", name=rx("^cat\\.png.*details", "details of cat\\.png", "^edit cat\\.png")
    ).first.click()
    details = dialog(page)
    expect(details).to_be_visible()
    axe(page, "file details")
    details.get_by_label(rx("^file name")).fill("kitty.png")
    details.get_by_label(rx("^alternative text")).fill("A sleeping cat")
    details.get_by_label(rx("^caption")).fill("On the sofa")
    details.get_by_role("button", name=rx("save", exact=True)).click()
    expect(page.get_by_text("kitty.png").first).to_be_visible()
    kitty = next(f for f in _stored(server) if f["name"] == "kitty.png")
    assert kitty["alternativeText"] == "A sleeping cat" and kitty["caption"] == "On the sofa"
    if details.is_visible():
        details.get_by_role("button", name=rx("close", "cancel", exact=True)).first.click()
    expect(details).to_be_hidden()

    page.get_by_role(
        "button", name=rx("^kitty\\.png.*details", "details of kitty\\.png", "^edit kitty\\.png")
    ).first.click()
    details = dialog(page)
    details.get_by_role("button", name=rx("delete", exact=True)).click()
    confirmation = page.get_by_role("alertdialog").or_(
        page.get_by_role("dialog", name=rx("delete"))
    )
    confirmation.last.get_by_role(
        "button", name=rx("delete the file", "delete", "confirm")
    ).last.click()
    expect(_files(page)).to_have_count(1)
    expect(_files(page).first).to_contain_text("dog.png")
    assert [f["name"] for f in _stored(server)] == ["dog.png"]
