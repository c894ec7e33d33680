"""The admin panel end to end: a real `folio serve` process per test module, on PostgreSQL
when FOLIO_TEST_DATABASE_URL is set, else on SQLite, on a copy of the blog fixture,
serving the built panel, driven by one headless Chromium for the whole session (Python
Playwright, sync API).

Every page a test opens is watched: a console error, an uncaught exception, a request to any
host but the server (aborted) or a 5xx answer fails the test. `axe(page)` runs axe-core on
the page as it is and fails on serious or critical violations.

Without Chromium, the built panel or axe-core the tests are skipped with the reason, unless
FOLIO_E2E_REQUIRED=1 (CI), which turns each skip into a failure.

    FOLIO_TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/<a database of yours> \
        .venv/bin/python -m pytest -p no:cacheprovider tests/e2e

The panel served is FOLIO_ADMIN_ASSETS when set, else the package's build when its manifest
matches admin/'s sources, else those sources built into a temporary folder (Node.js).
FOLIO_E2E_CHROMIUM names another Chromium; FOLIO_E2E_AXE=warn prints axe-core's findings
instead of failing (outside CI only). A failing test leaves a screenshot beside its
server's log in pytest's temporary folder (--basetemp to keep it at hand)."""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.api.serving import CLEARED, serving
from tests.conftest import BACKENDS, FIXTURES, PG_URL, open_access

ROOT = Path(__file__).parents[2]
ADMIN_SRC = ROOT / "admin"
PACKAGED_PANEL = ROOT / "src" / "folio" / "http" / "admin" / "app"
AXE_JS = ADMIN_SRC / "node_modules" / "axe-core" / "axe.min.js"
REQUIRED = os.environ.get("FOLIO_E2E_REQUIRED") == "1"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# how long a user waits for something to show up before the test gives up (a busy machine,
# with other test processes beside the browser, is slow; a failure only waits this long)
TIMEOUT_MS = 30_000

try:
    import playwright  # noqa: F401
except ImportError:  # a dev dependency (scripts/setup --dev): without it nothing here runs
    if not REQUIRED:
        collect_ignore_glob = ["test_*.py"]

ADMIN_EMAIL = "ada@example.com"
ADMIN_PASSWORD = "Analytical-Engine-1843"
ADMIN_FIRSTNAME = "Ada"


def unavailable(reason: str) -> None:
    """Skips the test, or fails it when the run must not skip (FOLIO_E2E_REQUIRED=1)."""
    if REQUIRED:
        pytest.fail(f"{reason} (FOLIO_E2E_REQUIRED=1: the end-to-end tests must run)")
    pytest.skip(reason)


def chromium_path() -> str | None:
    return (
        os.environ.get("FOLIO_E2E_CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )


# ---------------------------------------------------------------------- the built panel


def _source_digest() -> str | None:
    node = shutil.which("node")
    if node is None or not (ADMIN_SRC / "node_modules" / "esbuild").exists():
        return None
    done = subprocess.run(
        [node, "build.mjs", "--digest"], cwd=ADMIN_SRC, capture_output=True, text=True
    )
    return done.stdout.strip() if done.returncode == 0 else None


@pytest.fixture(scope="session")
def panel(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """The folder of built assets the servers serve: FOLIO_ADMIN_ASSETS when set, else the
    package's build when it matches the sources, else a fresh build of the sources (when
    Node.js and the admin's node_modules are there). None means the package's own build."""
    named = os.environ.get("FOLIO_ADMIN_ASSETS")
    if named:
        if not (Path(named) / "index.html").exists():
            unavailable(f"FOLIO_ADMIN_ASSETS={named} holds no built panel (index.html)")
        return Path(named)
    digest = _source_digest()
    manifest = PACKAGED_PANEL / "manifest.json"
    built = json.loads(manifest.read_text()).get("source") if manifest.exists() else None
    if digest is not None and digest != built:
        out = tmp_path_factory.mktemp("panel")
        done = subprocess.run(
            ["node", "build.mjs", "--out", str(out)],
            cwd=ADMIN_SRC,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            pytest.fail(f"the admin panel's sources do not build:\n{done.stdout}{done.stderr}")
        return out
    if not (PACKAGED_PANEL / "index.html").exists():
        unavailable("the admin panel is not built (scripts/setup builds it; needs Node.js)")
    return None


# ---------------------------------------------------------------------- the server


def _pg_admin(sql: str) -> None:
    import asyncpg

    async def run() -> None:
        assert PG_URL
        conn = await asyncpg.connect(PG_URL)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    # in a thread of its own: Playwright's sync API keeps an event loop in this one
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, run()).result()


@pytest.fixture(scope="module", params=["postgres" if "postgres" in BACKENDS else "sqlite"])
def backend(request: pytest.FixtureRequest) -> str:
    """The database of this module's server: one (the panel speaks to the API alone, which
    the API tests try on every database), PostgreSQL where there is one, else SQLite."""
    return str(request.param)


@dataclass
class Answer:
    status: int
    body: Any
    headers: Any


@dataclass
class Server:
    """A running `folio serve` process and a small HTTP client for arranging data (REST
    with the app's open permissions, or the admin API with a session of its own)."""

    base: str
    app: Path
    database: str
    log: Path
    _jar: http.cookiejar.CookieJar = field(default_factory=http.cookiejar.CookieJar)
    _csrf: str | None = None

    def url(self, path: str) -> str:
        return self.base + path

    def call(self, method: str, path: str, body: Any = None) -> Answer:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._csrf and path.startswith("/admin/"):
            headers["X-Folio-CSRF"] = self._csrf
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self._jar))
        try:
            with opener.open(req, timeout=30) as r:
                raw = r.read()
                return Answer(r.status, json.loads(raw) if raw else None, r.headers)
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                parsed = json.loads(raw) if raw else None
            except ValueError:
                parsed = raw.decode("utf-8", "replace")
            return Answer(e.code, parsed, e.headers)

    def admin_sign_in(self, email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD) -> None:
        """Signs this client in to the admin API (for arranging data through it)."""
        r = self.call("POST", "/admin/api/login", {"email": email, "password": password})
        assert r.status == 200, r.body
        self._csrf = r.body["data"]["csrfToken"]

    def create(self, plural: str, data: dict[str, Any], query: str = "") -> dict[str, Any]:
        """A document created through REST (the copy's public role may do everything)."""
        r = self.call("POST", f"/api/{plural}{query}", {"data": data})
        assert r.status == 201, r.body
        return dict(r.body["data"])

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def make_app(target: Path) -> Path:
    """A copy of the blog fixture (every attribute kind), with open REST permissions for
    arranging data, extra constrained fields on the article for the validation tests
    (password, minimum and maximum length, pattern) and a pattern for a link's url."""
    shutil.copytree(FIXTURES / "blog", target)
    open_access(target)
    schema_path = target / "src/api/article/content-types/article/schema.json"
    schema = json.loads(schema_path.read_text())
    localized = {"i18n": {"localized": True}}
    schema["attributes"]["subtitle"] = {
        "type": "string",
        "minLength": 5,
        "maxLength": 20,
        "pluginOptions": localized,
    }
    schema["attributes"]["productCode"] = {
        "type": "string",
        "regex": "^[A-Z]{3}-[0-9]+$",
        "pluginOptions": localized,
    }
    schema["attributes"]["secret"] = {
        "type": "password",
        "private": True,
        "pluginOptions": localized,
    }
    schema_path.write_text(json.dumps(schema, indent=2))
    link_path = target / "src/components/shared/link.json"
    link = json.loads(link_path.read_text())
    link["attributes"]["url"]["regex"] = "^https?://"
    link_path.write_text(json.dumps(link, indent=2))
    return target


@pytest.fixture(scope="module")
def server(
    backend: str, panel: Path | None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """A `folio serve` process on a fresh copy of the blog app, on its own SQLite file or a
    scratch PostgreSQL database (dropped afterwards)."""
    root = tmp_path_factory.mktemp(f"e2e-{backend}")
    app = make_app(root / "app")
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env.pop("FOLIO_ADMIN_ASSETS", None)
    if panel is not None:
        env["FOLIO_ADMIN_ASSETS"] = str(panel)
    scratch = None
    if backend == "postgres":
        assert PG_URL
        scratch = f"folio_e2e_{uuid.uuid4().hex[:12]}"
        _pg_admin(f'CREATE DATABASE "{scratch}"')
        database = PG_URL.rsplit("/", 1)[0] + "/" + scratch
    else:
        database = f"sqlite:///{app / '.tmp' / 'data.db'}"
    env["DATABASE_URL"] = database
    log = root / "server.log"
    try:
        with serving(app, log=log, env=env) as base:
            yield Server(base=base, app=app, database=database, log=log)
    finally:
        if scratch is not None:
            _pg_admin(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')


@dataclass(frozen=True)
class Admin:
    email: str
    password: str
    firstname: str


@pytest.fixture(scope="module")
def first_admin(server: Server) -> Admin:
    """The server's administrator, registered through the admin API unless a test of the
    module already did it through the panel (with the same credentials)."""
    init = server.call("GET", "/admin/api/init")
    if init.status != 200:
        unavailable(f"the admin API is not served yet (GET /admin/api/init: {init.status})")
    if not init.body["data"]["hasAdmin"]:
        r = server.call(
            "POST",
            "/admin/api/register-admin",
            {"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "firstname": ADMIN_FIRSTNAME},
        )
        assert r.status == 201, r.body
    return Admin(ADMIN_EMAIL, ADMIN_PASSWORD, ADMIN_FIRSTNAME)


# ---------------------------------------------------------------------- the browser


# package-scoped: Playwright's sync API runs an event loop in this thread until it stops,
# and the tests after this package call asyncio.run() here
@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    path = chromium_path()
    if path is None:
        unavailable("Chromium is not installed (.ci/run installs it: apt-get install chromium)")
    if not AXE_JS.exists():
        unavailable(f"axe-core is not installed ({AXE_JS}: cd admin && npm ci)")
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        unavailable("Playwright is not installed (scripts/setup --dev)")
    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class Watch:
    """What went wrong in the pages of one browser context: console errors, uncaught
    exceptions, requests to other hosts (aborted), server errors."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.problems: list[str] = []

    def _on_route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith(self.base + "/") or url == self.base:
            route.continue_()
        else:
            self.problems.append(f"request to another host (aborted): {url}")
            route.abort("blockedbyclient")

    def _on_console(self, msg: Any) -> None:
        if msg.type != "error":
            return
        text = msg.text
        # Chromium logs every 4xx answer as a console error; those are the API's ordinary
        # answers (401 before sign-in, 400 for a refused form) that the page shows itself
        if text.startswith("Failed to load resource: the server responded with a status of 4"):
            return
        self.problems.append(f"console error: {text} ({msg.location.get('url', '')})")

    def _on_response(self, response: Any) -> None:
        if response.status >= 500:
            self.problems.append(f"server error {response.status}: {response.url}")

    def attach(self, context: Any) -> None:
        context.route("**/*", self._on_route)
        context.on("response", self._on_response)

    def watch_page(self, page: Any) -> None:
        page.on("console", self._on_console)
        page.on("pageerror", lambda exc: self.problems.append(f"uncaught exception: {exc}"))

    def take(self) -> list[str]:
        found, self.problems = self.problems, []
        return found


def _new_context(browser: Any, server: Server) -> tuple[Any, Watch]:
    context = browser.new_context(
        base_url=server.base, viewport={"width": 1280, "height": 900}, locale="en-US"
    )
    context.set_default_timeout(TIMEOUT_MS)
    watch = Watch(server.base)
    watch.attach(context)
    context.on("page", watch.watch_page)
    return context, watch


@pytest.fixture(scope="module")
def anon_context(browser: Any, server: Server) -> Iterator[tuple[Any, Watch]]:
    """A browser context that starts signed out (its cookies are its own)."""
    context, watch = _new_context(browser, server)
    try:
        yield context, watch
    finally:
        context.close()


@pytest.fixture(scope="module")
def signed_in_context(
    browser: Any, server: Server, first_admin: Admin
) -> Iterator[tuple[Any, Watch]]:
    """A browser context holding the administrator's session, shared by the module's tests
    (signed in once, through the admin API; the panel reads the session on load)."""
    context, watch = _new_context(browser, server)
    r = context.request.post(
        server.url("/admin/api/login"),
        data={"email": first_admin.email, "password": first_admin.password},
    )
    assert r.status == 200, r.text()
    try:
        yield context, watch
    finally:
        context.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.stash[_FAILED] = report.failed
    return report


_FAILED = pytest.StashKey[bool]()


def _page(
    request: pytest.FixtureRequest, context_and_watch: tuple[Any, Watch], server: Server
) -> Iterator[Any]:
    context, watch = context_and_watch
    watch.take()
    page = context.new_page()
    try:
        yield page
    finally:
        if request.node.stash.get(_FAILED, False):
            shot = server.log.parent / f"{request.node.name}.png"
            try:
                page.screenshot(path=str(shot), full_page=True)
                print(f"screenshot: {shot}\nserver log: {server.log}")
            except Exception:  # a screenshot is a courtesy
                pass
        page.close()
    problems = watch.take()
    if problems:
        pytest.fail("the page misbehaved:\n  " + "\n  ".join(problems))


@pytest.fixture
def page(
    request: pytest.FixtureRequest, anon_context: tuple[Any, Watch], server: Server
) -> Iterator[Any]:
    """A new page in the module's signed-out context."""
    yield from _page(request, anon_context, server)


@pytest.fixture
def fresh_page(request: pytest.FixtureRequest, browser: Any, server: Server) -> Iterator[Any]:
    """A new page in a browser context of its own (no cookies), closed after the test."""
    context, watch = _new_context(browser, server)
    try:
        yield from _page(request, (context, watch), server)
    finally:
        context.close()


@pytest.fixture
def signed_in_page(
    request: pytest.FixtureRequest, signed_in_context: tuple[Any, Watch], server: Server
) -> Iterator[Any]:
    """A new page in the module's signed-in context (not yet navigated)."""
    yield from _page(request, signed_in_context, server)


# ---------------------------------------------------------------------- axe-core

_AXE_SOURCE: list[str] = []
# FOLIO_E2E_AXE=warn: violations are printed rather than failing the test (to see what else
# fails while a page is being fixed; never in CI)
AXE_WARN_ONLY = os.environ.get("FOLIO_E2E_AXE") == "warn" and not REQUIRED
SEVERE = ("serious", "critical")


def axe(page: Any, what: str = "") -> None:
    """Runs axe-core on the page as it is now; fails listing every serious or critical
    violation (rule, impact, help, the elements). The script is evaluated through the
    DevTools protocol, which the panel's Content-Security-Policy does not govern."""
    if not _AXE_SOURCE:
        _AXE_SOURCE.append(AXE_JS.read_text())
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(_AXE_SOURCE[0] + "\n;undefined")
    result = page.evaluate(
        """async () => {
            const r = await window.axe.run(document, {resultTypes: ['violations']});
            return r.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => n.target.join(' ') + ' :: ' + n.failureSummary),
            }));
        }"""
    )
    severe = [v for v in result if v["impact"] in SEVERE]
    if not severe:
        return
    lines = []
    for v in severe:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']}")
        lines.extend(f"    {n}" for n in v["nodes"][:8])
    report = f"axe-core: serious/critical violations on {what or page.url}:\n" + "\n".join(lines)
    if AXE_WARN_ONLY:
        print(report)
    else:
        pytest.fail(report)


def wait_until(predicate: Any, seconds: float = TIMEOUT_MS / 1000, what: str = "") -> None:
    """Polls a condition outside the browser (a server-side state) until it holds."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"not so after {seconds} s: {what or predicate}")
        time.sleep(0.05)
