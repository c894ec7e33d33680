"""What counting sign-ins in Redis adds to a sign-in, against counting them in memory.

Copies the blog app (tests/fixtures/blog) twice to a scratch folder: one app counting in
memory, one in Redis (server.json `rateLimit.redis`, a key prefix of the run's own, removed
at the end), both on one SQLite database with one user, and a limit no request reaches. It
then calls the two ASGI applications directly (no sockets), in turns, so that both meet the
same machine load, and prints the median, 95th percentile and best time of:

- "counting": the user service's count of one sign-in attempt alone (two windows: the
  address's and the account's; one EVALSHA in Redis), in memory, in Redis with hiredis and
  in Redis with redis-py's own parser, and (for comparison) the two windows counted in two
  round trips;
- "sign-in, refused early": POST /api/auth/local without a password (counted, then refused
  before the password hash: everything a sign-in does but scrypt);
- "sign-in": POST /api/auth/local with the right password (scrypt included).

The figure that matters is the difference of the medians (and of the 95th percentiles)
between the memory and Redis rows of the same request.

    .venv/bin/python bench/limiter.py [--requests 2000] [--sign-ins 200]
        [--redis redis://127.0.0.1:6379/0] [--loop uvloop|asyncio]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from asgi_scope import http_scope  # noqa: E402
from redis._parsers import _AsyncRESP2Parser  # noqa: E402

from folio.app import Folio, load_app  # noqa: E402
from folio.auth.ratelimit import RedisRateLimiter  # noqa: E402
from folio.content.accounts.attempts import Attempt  # noqa: E402
from folio.http.app import build_asgi  # noqa: E402

PASSWORD = "bench-pass-1"
LIMITS = {"users-permissions": {"config": {"ratelimit": {"interval": 3600000, "max": 10**9}}}}
# each app's lifespan state, given to its requests as a server does
STATES: dict[int, dict[str, Any]] = {}
PUBLIC = {
    "roles": {"public": {"permissions": ["plugin::users-permissions.auth.*", "api::*"]}},
}


async def call(app: Any, method: str, target: str, body: Any = None) -> tuple[int, Any]:
    payload = json.dumps(body).encode() if body is not None else b""
    headers = [(b"host", b"localhost")]
    if body is not None:
        headers += [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(payload)).encode()),
        ]
    sent = False
    status = 0
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)
        sent = True
        return {"type": "http.request", "body": payload, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    scope = http_scope(method, target, headers)
    scope["state"] = dict(STATES.get(id(app), {}))  # what the app's start-up keeps
    await app(scope, receive, send)
    raw = b"".join(chunks)
    return status, (json.loads(raw) if raw else None)


async def lifespan(app: Any) -> Callable[[], Awaitable[None]]:
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    started: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    await queue.put({"type": "lifespan.startup"})

    async def receive() -> dict[str, Any]:
        return await queue.get()

    async def send(message: dict[str, Any]) -> None:
        await started.put(message)

    state = STATES[id(app)] = {}
    scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": state}
    task = asyncio.create_task(app(scope, receive, send))
    message = await started.get()
    if message["type"] != "lifespan.startup.complete":
        raise SystemExit(f"start-up failed: {message}")

    async def stop() -> None:
        await queue.put({"type": "lifespan.shutdown"})
        await started.get()
        await task

    return stop


def make_app(scratch: Path, name: str, server: dict[str, Any]) -> Path:
    app = scratch / name
    shutil.copytree(ROOT / "tests" / "fixtures" / "blog", app)
    (app / "config" / "plugins.json").write_text(json.dumps(LIMITS))
    (app / "config" / "permissions.json").write_text(json.dumps(PUBLIC))
    # change messages kept in the process for all three apps, so that they differ only by
    # their limiter (with Redis configured, "auto" would also subscribe to it)
    (app / "config" / "server.json").write_text(
        json.dumps({**server, "broadcast": {"via": "local"}})
    )
    return app


Timed = tuple[list[float], list[float]]  # wall-clock and this process's CPU, seconds


def row(name: str, timed: Timed) -> tuple[float, float, float]:
    """Prints median, p95 and best wall-clock time and the median CPU time of this process
    (microseconds), and returns the medians and the p95."""
    times, cpu = sorted(timed[0]), timed[1]
    median = statistics.median(times) * 1e6
    p95 = times[int(len(times) * 0.95) - 1] * 1e6
    cpu_median = statistics.median(cpu) * 1e6
    print(f"  {name:44} {median:9.1f} {p95:9.1f} {times[0] * 1e6:9.1f} {cpu_median:9.1f}")
    return median, p95, cpu_median


def versus(got: tuple[float, float, float], base: tuple[float, float, float]) -> None:
    print(
        f"  {'':44} {got[0] - base[0]:+9.1f} {got[1] - base[1]:+9.1f} {'':9} "
        f"{got[2] - base[2]:+9.1f}   vs memory"
    )


async def timed_turns(
    cases: dict[str, Callable[[], Awaitable[Any]]], rounds: int
) -> dict[str, Timed]:
    """Each case once per round, in turns (the order rotating), timed: wall-clock time, and
    the CPU time of this process (what waiting on Redis or on a busy machine leaves out)."""
    out: dict[str, Timed] = {name: ([], []) for name in cases}
    names = list(cases)
    for n in range(rounds):
        for name in names[n % len(names) :] + names[: n % len(names)]:
            began, began_cpu = time.perf_counter(), time.process_time()
            await cases[name]()
            out[name][0].append(time.perf_counter() - began)
            out[name][1].append(time.process_time() - began_cpu)
    return out


def redis_limiter(folio: Folio) -> RedisRateLimiter:
    limiter = folio.rate_limiter
    assert isinstance(limiter, RedisRateLimiter), "the Redis app does not count in Redis"
    return limiter


async def run(args: argparse.Namespace) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="folio-limiter-"))
    prefix = f"folio-bench:{uuid.uuid4().hex[:8]}"
    url = f"sqlite:///{scratch / 'data.db'}"
    memory = load_app(make_app(scratch, "memory", {}), url)
    shared = load_app(
        make_app(scratch, "redis", {"rateLimit": {"redis": args.redis, "prefix": prefix}}), url
    )
    plain = load_app(
        make_app(scratch, "plain", {"rateLimit": {"redis": args.redis, "prefix": prefix}}), url
    )
    assert plain.limiters.redis is not None
    plain.limiters.redis.options["parser_class"] = _AsyncRESP2Parser
    apps = {"memory": build_asgi(memory), "redis": build_asgi(shared), "plain": build_asgi(plain)}
    stops = [await lifespan(app) for app in apps.values()]
    try:
        body = {"username": "bench", "email": "bench@example.com", "password": PASSWORD}
        status, answer = await call(apps["memory"], "POST", "/api/auth/local/register", body)
        assert status == 200, answer
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"Redis {args.redis}, {args.loop} event loop; load average {load}")

        # ---------------------------------------------------------------- counting alone
        given = {"identifier": "bench", "password": PASSWORD}
        attempt = Attempt("127.0.0.1")

        def counting(folio: Folio) -> Callable[[], Awaitable[None]]:
            return lambda: folio.users.limits.count("auth.callback", attempt, given)

        two_trips = redis_limiter(shared)

        async def separately() -> None:
            await two_trips.hit("auth.callback:127.0.0.1")
            await two_trips.hit("auth.callback:identifier:bench")

        cases = {
            "memory": counting(memory),
            "redis (hiredis), one EVALSHA": counting(shared),
            "redis (python parser), one EVALSHA": counting(plain),
            "redis (hiredis), two round trips": separately,
        }
        for case in cases.values():  # connections opened, the script loaded
            await case()
        print(f"\ncounting one sign-in attempt ({args.requests} each), microseconds")
        print(f"  {'':44} {'median':>9} {'p95':>9} {'best':>9} {'cpu':>9}")
        times = await timed_turns(cases, args.requests)
        base = row("memory", times["memory"])
        for name in list(cases)[1:]:
            versus(row(name, times[name]), base)

        # ---------------------------------------------------------------- whole requests
        for title, request, rounds in (
            ("sign-in, refused early (no password)", {"identifier": "bench"}, args.requests),
            ("sign-in (scrypt included)", given, args.sign_ins),
        ):
            cases = {
                name: (
                    lambda app=app, request=request: call(app, "POST", "/api/auth/local", request)
                )
                for name, app in apps.items()
            }
            expected = 200 if "password" in request else 400
            for name, case in cases.items():
                status, answer = await case()
                assert status == expected, (name, status, answer)
            print(f"\n{title} ({rounds} each), microseconds")
            print(f"  {'':44} {'median':>9} {'p95':>9} {'best':>9} {'cpu':>9}")
            times = await timed_turns(cases, rounds)
            base = row("memory", times["memory"])
            for name, label in (("redis", "redis (hiredis)"), ("plain", "redis (python parser)")):
                versus(row(label, times[name]), base)
    finally:
        for stop in stops:
            await stop()
        limiter = redis_limiter(shared)
        await limiter.reset()
        for folio in (memory, shared, plain):
            await folio.limiters.close()
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--sign-ins", type=int, default=200)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument(
        "--loop", choices=("uvloop", "asyncio"), default="uvloop", help="the server's is uvloop"
    )
    args = parser.parse_args()
    if args.loop == "uvloop":
        import uvloop

        uvloop.run(run(args))
    else:
        asyncio.run(run(args))


if __name__ == "__main__":
    main()
