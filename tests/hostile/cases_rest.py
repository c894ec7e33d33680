"""REST and auth requests built to blow up memory or the database: a populate that fans
out through a category's 400 articles, a thousand `$or` branches, huge identifiers and
emails on the auth routes, pages of 100 KB rows that the read memo may misweigh, and a
registration race between two accounts that claim each other's username and email."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from .harness import Case, Context
from .seed import MEMO_ROWS, MEMO_VIEWS

POPULATE = (
    "/api/categories?pagination[pageSize]=1&populate[articles][filters][id][$lt]=402"
    "&populate[articles][fields][0]=title"
    "&populate[articles][populate][category][populate][articles][fields][0]=title"
    "&populate[articles][populate][category][populate][articles][populate][category]"
    "[populate][articles][fields][0]=title"
)


def populate_fanout(ctx: Context) -> None:
    r = ctx.session.get(POPULATE)
    if r is not None:
        ctx.notes.append(f"answer {len(r.content) / 1e6:.1f} MB")


def or_filters(ctx: Context) -> None:
    query = "&".join(["filters[$or][][title][$eq]=x"] * 1000)
    ctx.session.get(f"/api/articles?{query}")
    indexed = "&".join(f"filters[$or][{i}][title][$eq]=x{i}" for i in range(1000))
    ctx.session.get(f"/api/articles?{indexed}")


HUGE = b"a" * 900_000


def auth_huge(ctx: Context) -> None:
    """500 sign-ins with a 900 KB identifier each (each different), then as many
    registrations and password-reset requests with a 900 KB email (the rate limit answers
    from the eleventh on; 2,000 of each moved 5.4 GB for no more evidence)."""
    bodies = {
        "/api/auth/local": (b'{"identifier": "%06d', b'", "password": "Secret-123"}'),
        "/api/auth/local/register": (
            b'{"username": "huge%06d", "email": "%06d',
            b'@x.io", "password": "Secret-123"}',
        ),
        "/api/auth/forgot-password": (b'{"email": "%06d', b'@x.io"}'),
    }
    for path, (head, tail) in bodies.items():

        def send(i: int, path: str = path, head: bytes = head, tail: bytes = tail) -> None:
            body = head % ((i,) * head.count(b"%")) + HUGE + tail
            ctx.session.post(path, content=body, headers={"Content-Type": "application/json"})

        with ThreadPoolExecutor(4) as pool:
            list(pool.map(send, range(500)))


def read_memo(ctx: Context) -> None:
    """150 different pages of the same 96 rows (sorted by views, one tiny row every 12th,
    the others 100 KB): each a page the memo keeps."""
    total = 0

    def page(j: int) -> int:
        r = ctx.session.get(
            f"/api/articles?filters[views][$gte]={MEMO_VIEWS}"
            f"&filters[views][$lt]={MEMO_VIEWS + MEMO_ROWS + j}"
            f"&sort=views:asc&pagination[pageSize]={MEMO_ROWS}"
        )
        if r is None or r.status_code != 200:
            return 0
        rows = r.json()["data"]
        ctx.check(len(rows) == MEMO_ROWS, f"page {j} has {len(rows)} rows")
        return len(r.content)

    with ThreadPoolExecutor(2) as pool:
        total = sum(pool.map(page, range(150)))
    ctx.notes.append(f"{total / 1e6:.0f} MB of pages read")


def register_race(ctx: Context) -> None:
    """20 pairs: `{username: v@x.io, email: att@x.io}` and `{username: victim, email:
    v@x.io}` at once, each pair from its own address (the rate limit is per address)."""
    both = 0
    one = 0
    for i in range(20):
        bodies = [
            {"username": f"v{i}@x.io", "email": f"att{i}@x.io", "password": "Secret-123"},
            {"username": f"victim{i}", "email": f"v{i}@x.io", "password": "Secret-123"},
        ]
        barrier = threading.Barrier(2)
        codes: list[int] = []

        def send(
            body: dict[str, str],
            address: str,
            barrier: threading.Barrier = barrier,
            codes: list[int] = codes,
        ) -> None:
            barrier.wait()
            r = ctx.session.post("/api/auth/local/register", json=body, local_address=address)
            if r is not None:
                codes.append(r.status_code)

        threads = [
            threading.Thread(target=send, args=(b, f"127.0.{i + 1}.{k + 1}"))
            for k, b in enumerate(bodies)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        ok = sum(1 for c in codes if c == 200)
        both += ok == 2
        one += ok == 1
    ctx.check(both == 0, f"{both} of 20 pairs both registered")
    ctx.notes.append(f"{one} pairs with one account, {20 - one - both} with none")


CASES = [
    Case("rest-populate", populate_fanout),
    Case("rest-or-1000", or_filters),
    Case("auth-huge-input", auth_huge),
    Case("read-memo", read_memo),
    Case("register-race", register_race),
]
