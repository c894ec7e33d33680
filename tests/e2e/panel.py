"""What the end-to-end tests do in the panel, as a user would: find controls by role and
accessible name (case-insensitive patterns, so that a wording's small variants pass), fill
fields, run the edit view's actions, answer confirmation dialogs. Also a few helpers that
arrange data through the server (REST uploads) and a tiny PNG encoder."""

from __future__ import annotations

import json
import re
import struct
import urllib.request
import uuid
import zlib
from typing import Any

from playwright.sync_api import FilePayload, Locator, Page, expect

from tests.e2e.conftest import axe

ARTICLE = "api::article.article"
LIST = f"/admin/content-manager/collection-types/{ARTICLE}"


def rx(*alternatives: str, exact: bool = False) -> re.Pattern[str]:
    """A case-insensitive pattern matching any of the alternatives (regular expressions),
    anywhere in the name, or the whole name when `exact`."""
    body = "|".join(alternatives)
    return re.compile(rf"^\s*(?:{body})\s*$" if exact else f"(?:{body})", re.IGNORECASE)


def label(name: str) -> re.Pattern[str]:
    """An attribute's label: its name as written or humanized ("publishDate", "Publish
    date", "publish_date"), at the start of the accessible name."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).split()
    body = r"[\s_-]?".join(re.escape(w) for w in words)
    return re.compile(rf"^\s*{body}(?![a-z0-9])", re.IGNORECASE)


def admin(page: Page, path: str = "") -> None:
    """Opens a panel address (path under /admin) and waits for the page's main heading."""
    page.goto("/admin" + path)
    expect(page.get_by_role("heading", level=1).first).to_be_visible()


def field(scope: Page | Locator, name: str) -> Locator:
    """The control of an attribute, by its label (the first one in the scope)."""
    return scope.get_by_label(label(name)).first


def group(scope: Page | Locator, name: str) -> Locator:
    """A field made of several controls (component, zone, media, relation list), by the
    name of its fieldset or group."""
    return scope.get_by_role("group", name=label(name)).first


def button(scope: Page | Locator, *names: str, exact: bool = True) -> Locator:
    return scope.get_by_role("button", name=rx(*names, exact=exact))


def dialog(page: Page) -> Locator:
    return page.get_by_role("dialog").or_(page.get_by_role("alertdialog")).last


def confirm(page: Page, *names: str) -> None:
    """Answers the open confirmation dialog with its confirming button."""
    box = dialog(page)
    expect(box).to_be_visible()
    axe(page, "confirmation dialog")
    box.get_by_role("button", name=rx(*(names or ("confirm", "yes")), exact=False)).last.click()
    expect(box).to_be_hidden()


def action(page: Page, name: str) -> None:
    """Runs a document action (Save, Publish, Unpublish, Discard changes, Delete): its
    button, or the item of the "More actions" menu."""
    pattern = rx(name, exact=True)
    direct = page.get_by_role("button", name=pattern)
    if direct.count() and direct.first.is_visible():
        direct.first.click()
        return
    page.get_by_role(
        "button", name=rx("more actions", "more document actions", "more")
    ).first.click()
    page.get_by_role("menuitem", name=pattern).first.click()


def status_shown(page: Page, status: str) -> None:
    """The document's status (Draft, Published, Modified) is shown in the edit view's
    header ("Status: Draft" to a screen reader)."""
    # (in the page's <header>: connected relations carry status badges of their own)
    header = page.get_by_role("main").locator("header")
    badge = header.get_by_text(re.compile(rf"^\s*status:\s*{status}\s*$", re.I))
    expect(badge).to_be_visible()


def choose(control: Locator, option: str) -> None:
    """Picks an option of a native select, or of a combobox that opens a listbox."""
    if control.evaluate("el => el.tagName") == "SELECT":
        control.select_option(label=option)
        return
    control.click()
    control.page.get_by_role("option", name=rx(re.escape(option), exact=True)).first.click()


def fill_code(editor: Locator, text: str) -> None:
    """Replaces the text of a code editor (a textarea, or a contenteditable editor) as a
    user types it."""
    editor.click()
    editor.press("Control+A")
    editor.press("Delete")
    editor.page.keyboard.insert_text(text)


def keyboard_move(handle: Locator, steps: int) -> None:
    """Moves a list item with its handle: Space lifts it, the arrow keys move it, Space
    drops it (negative steps move it up)."""
    handle.focus()
    handle.press("Space")
    key = "ArrowUp" if steps < 0 else "ArrowDown"
    for _ in range(abs(steps)):
        handle.page.keyboard.press(key)
    handle.page.keyboard.press("Space")


def doc_id_from(page: Page) -> str:
    """The documentId in the address of an edit view."""
    match = re.search(r"/collection-types/[^/]+/([^/?#]+)", page.url)
    assert match and match[1] != "create", page.url
    return match[1]


# ---------------------------------------------------------------------- data


def png(width: int = 4, height: int = 3, rgb: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """A small valid PNG of one colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def image_file(name: str, rgb: tuple[int, int, int] = (200, 30, 30)) -> FilePayload:
    """A file for `set_input_files`."""
    return {"name": name, "mimeType": "image/png", "buffer": png(rgb=rgb)}


def rest_upload(base: str, name: str, data: bytes, mime: str = "image/png") -> dict[str, Any]:
    """A file uploaded through REST (POST /api/upload, the app's public role may)."""
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{name}"\r\n'
            f"Content-Type: {mime}\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    req = urllib.request.Request(
        base + "/api/upload",
        data=body,
        method="POST",
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        files = json.loads(r.read())
    return dict(files[0])
