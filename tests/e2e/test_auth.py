"""Accounts in the panel: the first visit to a fresh app asks for the first administrator
(and only then), sign-in and sign-out, and a wrong password answered with the server's own
message. The tests of this module run in order on one fresh server per database."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import ADMIN_EMAIL, ADMIN_FIRSTNAME, ADMIN_PASSWORD, Server, axe
from tests.e2e.panel import rx

SIGN_IN = rx("log ?in", "sign in", exact=True)
SIGN_OUT = rx("sign out", "log ?out", exact=True)


def _signed_in(page: Page) -> None:
    """The frame of a signed-in page: the main navigation and the sign-out button."""
    expect(page.get_by_role("navigation", name=rx("main"))).to_be_visible()
    expect(page.get_by_role("button", name=SIGN_OUT)).to_be_visible()


def _login_form(page: Page) -> None:
    expect(page.get_by_role("button", name=SIGN_IN)).to_be_visible()
    expect(page.get_by_label(rx("^email"))).to_be_visible()
    expect(page.get_by_label(rx("^password"))).to_be_visible()


def test_first_visit_creates_the_first_administrator(fresh_page: Page, server: Server) -> None:
    page = fresh_page
    assert server.call("GET", "/admin/api/init").body["data"]["hasAdmin"] is False
    page.goto("/admin")
    expect(page).to_have_url(re.compile(r"/admin/auth/register-admin"))
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    axe(page, "register-admin")

    page.get_by_label(rx("^first ?name")).fill(ADMIN_FIRSTNAME)
    page.get_by_label(rx("^last ?name")).fill("Lovelace")
    page.get_by_label(rx("^email")).fill(ADMIN_EMAIL)
    page.get_by_label(rx("^password")).first.fill(ADMIN_PASSWORD)
    confirmation = page.get_by_label(rx("confirm(ation)? password", "repeat password"))
    if confirmation.count():
        confirmation.fill(ADMIN_PASSWORD)
    page.get_by_role("button", name=rx("let's start", "create", "register", "sign up")).click()

    _signed_in(page)
    expect(page).not_to_have_url(re.compile(r"/auth/"))
    axe(page, "home after registration")
    assert server.call("GET", "/admin/api/init").body["data"]["hasAdmin"] is True


def test_the_register_page_is_no_longer_offered(fresh_page: Page, server: Server) -> None:
    page = fresh_page
    assert server.call("GET", "/admin/api/init").body["data"]["hasAdmin"] is True
    page.goto("/admin/auth/register-admin")
    _login_form(page)
    expect(page.get_by_label(rx("^first ?name"))).to_have_count(0)
    axe(page, "register-admin once an administrator exists")
    page.goto("/admin")
    expect(page).to_have_url(re.compile(r"/admin/auth/login"))
    _login_form(page)


def test_sign_in_and_out(fresh_page: Page, server: Server) -> None:
    page = fresh_page
    page.goto("/admin")
    _login_form(page)
    axe(page, "login")
    page.get_by_label(rx("^email")).fill(ADMIN_EMAIL)
    page.get_by_label(rx("^password")).fill(ADMIN_PASSWORD)
    page.get_by_role("button", name=SIGN_IN).click()
    _signed_in(page)
    axe(page, "home")
    page.get_by_role("navigation", name=rx("main")).get_by_role(
        "link", name=rx("your profile")
    ).click()
    expect(page.get_by_label(rx("^email")).first).to_have_value(ADMIN_EMAIL)
    axe(page, "profile")

    # the session outlives a reload
    page.reload()
    _signed_in(page)
    assert page.context.request.get(server.url("/admin/api/session")).status == 200

    page.get_by_role("button", name=SIGN_OUT).click()
    _login_form(page)
    page.reload()
    _login_form(page)
    assert page.context.request.get(server.url("/admin/api/session")).status == 401


def test_a_wrong_password_shows_the_servers_error(fresh_page: Page) -> None:
    page = fresh_page
    page.goto("/admin/auth/login")
    _login_form(page)
    page.get_by_label(rx("^email")).fill(ADMIN_EMAIL)
    page.get_by_label(rx("^password")).fill("Not-The-Password-1")
    page.get_by_role("button", name=SIGN_IN).click()
    expect(page.get_by_role("alert").filter(has_text=rx("invalid credentials"))).to_be_visible()
    _login_form(page)
    expect(page).to_have_url(re.compile(r"/admin/auth/login"))
    axe(page, "login with an error")
