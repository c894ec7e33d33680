"""The media library page: several files uploaded at once, search, grid and list views, a
file's name, alternative text and caption edited, a file deleted; each checked through
REST's upload routes."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import FilePayload, Locator, Page, expect

from tests.e2e.conftest import Server, axe, wait_until
from tests.e2e.panel import admin, dialog, image_file, png, rx


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


def test_type_filter_replace_focal_point_and_usage(signed_in_page: Page, server: Server) -> None:
    page = signed_in_page
    admin(page, "/plugins/upload")
    count = len(_stored(server)) + 2
    notes = FilePayload(name="notes.txt", mimeType="text/plain", buffer=b"some notes\n")
    page.get_by_label(rx("^upload files")).first.set_input_files(
        [image_file("bird.png", (200, 10, 10)), notes]
    )
    expect(_files(page)).to_have_count(count)
    assert len(_stored(server)) == count

    # filter by type
    page.get_by_label(rx("^type$")).select_option(label="Other files")
    expect(_files(page)).to_have_count(1)
    expect(_files(page).first).to_contain_text("notes.txt")
    page.get_by_label(rx("^type$")).select_option(label="Images")
    expect(_files(page)).to_have_count(count - 1)
    axe(page, "media library, images only")
    page.get_by_label(rx("^type$")).select_option(label="All types")
    expect(_files(page)).to_have_count(count)

    # where a file is used
    bird = next(f for f in _stored(server) if f["name"] == "bird.png")
    server.create("articles", {"title": "Birds of a feather", "cover": bird["id"]}, "?status=draft")
    page.get_by_role("button", name=rx("^bird\\.png.*details", "^edit bird\\.png")).first.click()
    details = dialog(page)
    used = details.get_by_role("list", name=rx("entries using this file"))
    expect(used).to_contain_text("Birds of a feather")

    # a focal point, then the bytes replaced under the same id
    details.get_by_label(rx("^focal point x")).fill("25")
    details.get_by_label(rx("^focal point y")).fill("75")
    save = details.get_by_role("button", name=rx("save", exact=True))
    save.click()
    expect(save).to_be_disabled()  # saved: nothing left to save
    server.admin_sign_in()
    wait_until(
        lambda: (
            (server.call("GET", f"/admin/api/upload/files/{bird['id']}").body["data"] or {}).get(
                "focalPoint"
            )
            == {"x": 25, "y": 75}
        )
    )
    bigger = FilePayload(name="bird-large.png", mimeType="image/png", buffer=png(16, 12))
    details.get_by_label(rx("^replace the file")).set_input_files(bigger)
    expect(details).to_contain_text(re.compile(r"16\s*\W\s*12"))
    wait_until(lambda: _file(server, bird["id"]).get("width") == 16, what="width 16 stored")
    replaced = _file(server, bird["id"])
    assert replaced["id"] == bird["id"] and replaced["height"] == 12
    axe(page, "file details with its usage")


def _file(server: Server, file_id: int) -> dict[str, Any]:
    r = server.call("GET", f"/api/upload/files/{file_id}")
    assert r.status == 200, r.body
    return dict(r.body)


# what a browser dispatches when files are dragged from the desktop onto the page
DROP = """([name, bytes]) => {
    const data = new DataTransfer();
    data.items.add(new File([new Uint8Array(bytes)], name, {type: 'image/png'}));
    const target = document.querySelector('main');
    for (const type of ['dragenter', 'dragover', 'drop']) {
        const init = {bubbles: true, cancelable: true, dataTransfer: data};
        target.dispatchEvent(new DragEvent(type, init));
    }
}"""


def test_drop_files_and_delete_several(signed_in_page: Page, server: Server) -> None:
    page = signed_in_page
    admin(page, "/plugins/upload")
    before = len(_stored(server))
    expect(_files(page)).to_have_count(before)
    # a file dropped onto the page is uploaded
    page.evaluate(DROP, ["dropped.png", list(png(rgb=(1, 2, 3)))])
    expect(_files(page)).to_have_count(before + 1)
    assert "dropped.png" in [f["name"] for f in _stored(server)]

    # every file of the page selected, then deleted at once
    page.get_by_label(rx("^select all files")).check()
    page.get_by_role("button", name=rx("delete the selected files")).click()
    asked = page.get_by_role("alertdialog").or_(page.get_by_role("dialog")).last
    axe(page, "bulk deletion of files")
    asked.get_by_role("button", name=rx("^delete", "confirm")).last.click()
    expect(page.get_by_text(rx("media library is empty"))).to_be_visible()
    assert _stored(server) == []
