"""The admin panel in a real browser: bytes, time to a usable list, typing latency.

Copies the blog app (tests/fixtures/blog) to a scratch folder, seeds N articles through the
document service (bench/admin_list.py's seeding: drafts, every third published, some
changed after, a few French) and one article whose dynamic zone holds 30 entries, makes
the first administrator, then serves the app with `folio serve` and drives a headless
Chromium (/usr/bin/chromium, as the end-to-end tests) through the panel:

- JavaScript sent for the first page, gzip as transferred (the encoded body sizes of every
  script the page loads): the sign-in page signed out, the list page signed in;
- the list page with N articles: time from the navigation's start until its table shows
  its rows and its search box can be typed into (cold: a new browser context, nothing
  cached; warm: the same context again), and the list API call's time to first byte as
  the browser saw it (Resource Timing: responseStart - requestStart; loopback, so this is
  the server's time plus a little), and the same call from Python on a kept-alive
  connection;
- typing into a text field of the article with the 30-entry zone (its title, and a field
  inside the zone's 15th entry): per keystroke, from the keydown event's timestamp to the
  start of the next frame (requestAnimationFrame: handlers and re-render done) and to
  just after that frame (its style, layout and paint), with Chromium's frame-rate limit
  off so that no wait for a display refresh is counted; plus the Event Timing API's
  entries at or above 16 ms (keydown, keypress, input, keyup) over the same keystrokes,
  with the ordinary frame rate.

    .venv/bin/python bench/admin_ui.py [--articles 10000] [--runs 5] [--keys 60]
        [--database-url postgresql://...]   (an empty database; default SQLite)

The panel served is FOLIO_ADMIN_ASSETS when set, else the package's build, rebuilt into a
temporary folder from admin/ when its manifest says it is stale.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import importlib.util
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.api.serving import CLEARED, serving  # noqa: E402

from folio.app import load_app  # noqa: E402
from folio.auth.principal import OPEN  # noqa: E402
from folio.http.app import build_asgi  # noqa: E402

_spec = importlib.util.spec_from_file_location("admin_list", ROOT / "bench" / "admin_list.py")
assert _spec and _spec.loader
admin_list = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(admin_list)

ARTICLE = "api::article.article"
LIST_PAGE = f"/admin/content-manager/collection-types/{ARTICLE}"
LIST_API = f"/admin/api/content-manager/collection-types/{ARTICLE}"
EMAIL, PASSWORD = "bench@example.com", "Bench-Pass1"
CHROMIUM = os.environ.get("FOLIO_E2E_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
UNTHROTTLED = ["--disable-gpu-vsync", "--disable-frame-rate-limit"]

# set up before the page's own scripts: when the list's rows and its search box are there
LIST_READY = """
(() => {
  const check = () => {
    if (window.__ready) return;
    const rows = document.querySelectorAll('table tbody tr');
    const search = document.querySelector('input[type=search]');
    if (rows.length >= 10 && search && !search.disabled && search.offsetParent !== null) {
      window.__ready = performance.now();
      requestAnimationFrame(() => { window.__painted = performance.now(); });
    }
  };
  new MutationObserver(check).observe(document, {subtree: true, childList: true, attributes: true});
})();
"""

# per keystroke: keydown's timestamp -> next animation frame -> just after that frame
KEY_TIMING = """
(() => {
  window.__keys = [];
  window.addEventListener('keydown', (e) => {
    const t0 = e.timeStamp;
    requestAnimationFrame(() => {
      const frame = performance.now();
      const ch = new MessageChannel();
      ch.port1.onmessage = () => window.__keys.push([frame - t0, performance.now() - t0]);
      ch.port2.postMessage(0);
    });
  }, true);
  window.__events = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (['keydown', 'keypress', 'keyup', 'input', 'beforeinput'].includes(e.name)) {
        window.__events.push([e.name, e.duration, e.processingEnd - e.processingStart]);
      }
    }
  }).observe({type: 'event', durationThreshold: 16, buffered: true});
})();
"""


def panel_assets() -> str | None:
    """FOLIO_ADMIN_ASSETS, or a fresh build when the package's is stale, or None."""
    if os.environ.get("FOLIO_ADMIN_ASSETS"):
        return os.environ["FOLIO_ADMIN_ASSETS"]
    admin = ROOT / "admin"
    manifest = ROOT / "src/folio/http/admin/app/manifest.json"
    node = shutil.which("node")
    if node is None or not (admin / "node_modules" / "esbuild").exists():
        return None
    digest = subprocess.run(
        [node, "build.mjs", "--digest"], cwd=admin, capture_output=True, text=True, check=True
    ).stdout.strip()
    built = json.loads(manifest.read_text()).get("source") if manifest.exists() else None
    if digest == built:
        return None
    out = tempfile.mkdtemp(prefix="folio-admin-bench-build-")
    subprocess.run([node, "build.mjs", "--out", out], cwd=admin, check=True)
    return out


def zone_entries(n: int) -> list[dict[str, Any]]:
    """Quotes and markdown texts, alternately."""
    out: list[dict[str, Any]] = []
    for i in range(n):
        if i % 2 == 0:
            quote = {"__component": "shared.quote", "title": f"Quote {i}", "body": "Said. " * 8}
            out.append(quote)
        else:
            text = f"## Part {i}\n\n" + "Text. " * 30
            out.append({"__component": "shared.rich-text", "body": text})
    return out


async def prepare(app_dir: Path, url: str, articles: int) -> str:
    """Seeds the database and makes the administrator; the zone article's documentId."""
    folio = load_app(app_dir, url)
    app = build_asgi(folio)
    stop = await admin_list.lifespan(app)
    try:
        began = time.perf_counter()
        print(f"seeding {articles} articles ({url.split(':')[0]})", flush=True)
        await admin_list.seed(folio, articles)
        ct = folio.registry.content_types[ARTICLE]
        doc = await folio.documents.create(
            ct,
            {"title": "A long page", "blocks": zone_entries(30)},
            {"status": "draft"},
            OPEN,
        )
        print(f"  seeded in {time.perf_counter() - began:.0f} s", flush=True)
        if url.startswith("postgres"):
            await admin_list.vacuum_analyze(url)
        client = admin_list.Client(app)
        status, body, _ = await client.call(
            "POST",
            "/admin/api/register-admin",
            {"email": EMAIL, "password": PASSWORD, "firstname": "Bench"},
        )
        assert status == 201, body
        return str(doc["documentId"])
    finally:
        await stop()


def scripts_of(page: Any) -> list[dict[str, Any]]:
    """Records each script (and stylesheet) the page loads with its transferred size."""
    seen: list[dict[str, Any]] = []

    def finished(request: Any) -> None:
        if request.resource_type not in ("script", "stylesheet"):
            return
        response = request.response()
        sizes = request.sizes()
        seen.append(
            {
                "url": request.url,
                "type": request.resource_type,
                "encoded": sizes["responseBodySize"],
                "encoding": (response.headers.get("content-encoding") if response else None),
            }
        )

    page.on("requestfinished", finished)
    return seen


def report_bytes(what: str, seen: list[dict[str, Any]]) -> None:
    js = [s for s in seen if s["type"] == "script"]
    css = [s for s in seen if s["type"] == "stylesheet"]
    total = sum(s["encoded"] for s in js)
    styles = sum(s["encoded"] for s in css)
    encodings = sorted({str(s["encoding"]) for s in js})
    print(
        f"  {what}: JavaScript {total / 1024:.1f} KB transferred in {len(js)} files "
        f"(content-encoding {', '.join(encodings)}); CSS {styles / 1024:.1f} KB"
    )
    for s in sorted(js, key=lambda s: -s["encoded"]):
        print(f"      {s['encoded'] / 1024:7.1f} KB  {s['url'].rsplit('/', 1)[-1]}")


_SESSION: list[Any] = []


def signed_in(browser: Any, base: str) -> Any:
    """A new browser context (nothing cached) holding the administrator's session, signed
    in once for the whole run (sign-in is rate limited)."""
    if not _SESSION:
        context = browser.new_context()
        r = context.request.post(
            base + "/admin/api/login", data={"email": EMAIL, "password": PASSWORD}
        )
        assert r.status == 200, r.text()
        _SESSION.append(context.storage_state())
        context.close()
    return browser.new_context(viewport={"width": 1280, "height": 900}, storage_state=_SESSION[0])


def list_timing(page: Any, base: str) -> tuple[float, float, float]:
    """(ready, painted, API time to first byte), ms from the navigation's start."""
    page.goto(base + LIST_PAGE, wait_until="commit")
    page.wait_for_function("() => window.__painted !== undefined", timeout=30_000)
    ready, painted = page.evaluate("() => [window.__ready, window.__painted]")
    ttfb = page.evaluate(
        """(api) => {
            const e = performance.getEntriesByType('resource')
                .filter(r => r.name.includes(api) && !r.name.includes('/configuration/'));
            return e.length ? e[e.length - 1].responseStart - e[e.length - 1].requestStart : -1;
        }""",
        LIST_API,
    )
    return ready, painted, ttfb


def api_times(base: str, cookie: str, n: int) -> list[float]:
    """The list call from Python on one kept-alive connection, ms each."""
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port)
    times = []
    for _ in range(n):
        began = time.perf_counter()
        conn.request("GET", LIST_API + "?page=1&pageSize=10", headers={"Cookie": cookie})
        r = conn.getresponse()
        r.read()
        times.append((time.perf_counter() - began) * 1000)
        assert r.status == 200
    conn.close()
    return times


def summary(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, math.ceil(len(values) * 0.95) - 1)]
    median = statistics.median(values)
    return f"median {median:6.1f} ms, p95 {p95:6.1f} ms, max {values[-1]:6.1f} ms"


def typing(browser: Any, base: str, doc: str, keys: int, inside_zone: bool) -> dict[str, Any]:
    context = signed_in(browser, base)
    page = context.new_page()
    page.add_init_script(KEY_TIMING)
    page.goto(f"{base}{LIST_PAGE}/{doc}?locale=en")
    if inside_zone:
        toggle = page.get_by_role("button", name="Quote 15", exact=False).first
        toggle.wait_for()
        if toggle.get_attribute("aria-expanded") == "false":
            toggle.click()
        target = page.get_by_role("group", name="Quote 15").get_by_role("textbox").first
    else:
        target = page.get_by_label("title", exact=False).first
    target.wait_for()
    target.click()
    page.keyboard.press("End")
    page.evaluate("() => { window.__keys = []; window.__events = []; }")
    text = ("the quick brown fox jumps over the lazy dog " * 4)[:keys]
    page.keyboard.type(text, delay=40)
    page.wait_for_function(f"() => window.__keys.length >= {keys}", timeout=30_000)
    page.wait_for_timeout(300)
    result = page.evaluate("() => ({keys: window.__keys, events: window.__events})")
    context.close()
    return dict(result)


def event_timing(got: dict[str, Any], keys: int) -> str:
    """The Event Timing entries at or above 16 ms among the keystrokes' events (each
    entry's duration runs to the next frame's presentation, in steps of 8 ms)."""
    slow = got["events"]
    if not slow:
        return f"none of the {keys} keystrokes' events reached 16 ms"
    worst = max(e[1] for e in slow)
    handlers = max(e[2] for e in slow)
    return (
        f"{len(slow)} events at or above 16 ms over {keys} keystrokes, the longest "
        f"{worst:.0f} ms (its handlers {handlers:.1f} ms at most)"
    )


def run(args: argparse.Namespace) -> None:
    from playwright.sync_api import sync_playwright

    scratch = Path(tempfile.mkdtemp(prefix="folio-admin-ui-"))
    app_dir = scratch / "app"
    shutil.copytree(ROOT / "tests" / "fixtures" / "blog", app_dir)
    url = args.database_url or f"sqlite:///{app_dir / '.tmp' / 'data.db'}"
    try:
        doc = asyncio.run(prepare(app_dir, url, args.articles))
        env = {k: v for k, v in os.environ.items() if k not in CLEARED}
        env["DATABASE_URL"] = url
        assets = panel_assets()
        if assets:
            env["FOLIO_ADMIN_ASSETS"] = assets
        print(f"panel: {assets or 'the package build'}")
        log = scratch / "server.log"
        with (
            serving(app_dir, log=log, env=env, args=["--no-request-log"]) as base,
            sync_playwright() as p,
        ):
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                measure(browser, base, args)
                print("\ntyping into an article with a 30-entry dynamic zone")
                fast = p.chromium.launch(executable_path=CHROMIUM, args=ARGS + UNTHROTTLED)
                try:
                    for inside in (False, True):
                        what = "a field of the zone's 15th entry" if inside else "its title"
                        got = typing(fast, base, doc, args.keys, inside)
                        frames = [k[0] for k in got["keys"]]
                        after = [k[1] for k in got["keys"]]
                        print(f"  {what}, {len(frames)} keystrokes (frame-rate limit off):")
                        print(f"      keydown -> next frame     {summary(frames)}")
                        print(f"      keydown -> after painting {summary(after)}")
                        print(f"      Event Timing: {event_timing(got, args.keys)}")
                finally:
                    fast.close()
                for inside in (False, True):
                    what = "a field of the zone's 15th entry" if inside else "its title"
                    got = typing(browser, base, doc, args.keys, inside)
                    print(f"  {what}, 60 Hz frames: Event Timing: {event_timing(got, args.keys)}")
            finally:
                browser.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def measure(browser: Any, base: str, args: argparse.Namespace) -> None:
    print("\nJavaScript for the first page (gzip, as transferred)")
    context = browser.new_context()
    page = context.new_page()
    seen = scripts_of(page)
    page.goto(base + "/admin/auth/login", wait_until="networkidle")
    page.get_by_role("button", name="Sign in", exact=False).first.wait_for()
    report_bytes("sign-in page", seen)
    context.close()

    context = signed_in(browser, base)
    page = context.new_page()
    seen = scripts_of(page)
    page.goto(base + LIST_PAGE, wait_until="networkidle")
    page.get_by_role("table").wait_for()
    report_bytes(f"list page ({args.articles} articles)", seen)
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in context.cookies())
    # then, in the same page, the edit view: what it loads on top (its lazy chunks)
    seen.clear()
    page.get_by_role("link", name="A long page").first.click()
    page.get_by_role("button", name="Save").first.wait_for()
    page.get_by_role("textbox", name="content").first.wait_for()
    page.get_by_role("textbox", name="meta").first.wait_for()
    page.wait_for_load_state("networkidle")
    report_bytes("then the edit view (the article with the zone), on top", seen)
    context.close()

    print(f"\nthe list page with {args.articles} articles, from navigation to rows and search box")
    for mode in ("cold", "warm"):
        readies, paints, ttfbs = [], [], []
        context = signed_in(browser, base)
        context.add_init_script(LIST_READY)
        page = context.new_page()
        if mode == "warm":
            list_timing(page, base)
        for _ in range(args.runs):
            if mode == "cold":
                page.close()
                context.close()
                context = signed_in(browser, base)
                context.add_init_script(LIST_READY)
                page = context.new_page()
            ready, painted, ttfb = list_timing(page, base)
            readies.append(ready)
            paints.append(painted)
            ttfbs.append(ttfb)
        context.close()
        print(f"  {mode:5} usable:        {summary(readies)}")
        print(f"  {mode:5} painted:       {summary(paints)}")
        print(f"  {mode:5} list API TTFB: {summary(ttfbs)}")
    times = api_times(base, cookie, 100)
    print(f"  list API from Python (keep-alive, loopback, 100 calls): {summary(times)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--articles", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keys", type=int, default=60)
    parser.add_argument("--database-url", default=None)
    run(parser.parse_args())


if __name__ == "__main__":
    main()
