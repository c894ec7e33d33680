"""What a case is and how one is judged: a fresh server per case, warmed up; then the
server's CPU seconds and peak RSS over the case, every status code seen, and a normal
request answered afterwards; the case's line."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from .client import Session
from .relay import TcpProxy
from .server import MemoryWatch, Server, cpu_seconds, read_status, written_bytes

CPU_PER_REQUEST = 1.0  # server CPU seconds a hostile request may cost (on a machine of SPEED)
# the CPU seconds of a fixed piece of Python (`_probe`) on a machine of the kind the budgets
# were set on (12.5 us a `sum(range(1000))`); a slower machine's budgets grow in proportion
# (one that took 27 us spent 6.2 s of its 6 on the six large images of `upload-images`), a
# faster one's stay as they are
SPEED = 0.005
RSS_LIMIT_MB = 300.0
NORMAL_GET = "/api/articles?pagination[pageSize]=2&populate=category"
NORMAL_GRAPHQL = "{ articles(pagination: {limit: 2}) { title category { name } } }"


def _probe() -> float:
    """CPU seconds (not wall: a busy machine's waits are not counted) of a fixed loop."""
    start = time.process_time()
    for _ in range(400):
        sum(range(1000))
    return time.process_time() - start


@cache
def machine_factor() -> float:
    """How many times slower than the budgets' machine this one runs Python (at least 1)."""
    return max(1.0, min(_probe() for _ in range(7)) / SPEED)


@dataclass
class Context:
    """What a case runs against and what it reports back."""

    db: str
    server: Server
    session: Session
    work: Path
    proxy: TcpProxy | None = None
    fails: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extra_requests: int = 0  # requests sent outside the session (raw sockets)
    written_before: int = 0

    def check(self, ok: bool, why: str) -> None:
        if not ok:
            self.fails.append(why)


@dataclass
class Case:
    name: str
    run: Callable[[Context], None]
    postgres_only: bool = False
    env: dict[str, str] = field(default_factory=dict)
    max_files: int | None = None
    via_proxy: bool = False
    after_timeout: float = 30.0  # for the normal request that follows the case
    allowed_5xx: frozenset[str] = frozenset()  # the outage's 503s
    cpu_allowance: float = 0.0  # CPU seconds allowed beyond CPU_PER_REQUEST x requests


def _normal_answers(base: str, timeout: float) -> str | None:
    """None when a plain REST page and a GraphQL query answer 200, else what went wrong."""
    session = Session(base, timeout=timeout)
    try:
        r = session.get(NORMAL_GET)
        if r is None or r.status_code != 200:
            return f"normal GET then: {dict(session.statuses)}"
        r = session.graphql(NORMAL_GRAPHQL)
        if r is None or r.status_code != 200 or "errors" in r.json():
            return f"normal GraphQL then: {dict(session.statuses)} {r.text[:200] if r else ''}"
        return None
    finally:
        session.close()


def _statuses(counts: dict[str, int]) -> str:
    return ",".join(f"{k}x{v}" for k, v in sorted(counts.items())) or "-"


def run_case(
    case: Case, db: str, app: Path, url: str | None, work: Path, proxy: TcpProxy | None
) -> tuple[bool, str]:
    """Runs one case on a server of its own; (passed, the case's line)."""
    log = work / f"server-{case.name}.log"
    server_url = url
    if case.via_proxy and proxy is not None and url is not None:
        server_url = re.sub(r"@[^/]+/", f"@127.0.0.1:{proxy.port}/", url)
    server = Server(app, server_url, log, env=case.env, max_files=case.max_files)
    server.start()
    session = Session(server.base)
    ctx = Context(db, server, session, work, proxy)
    started = time.monotonic()
    try:
        warm = _normal_answers(server.base, 60)
        if warm:
            ctx.fails.append(f"before the case: {warm}")
        cpu0 = cpu_seconds(server.pid)
        exact_peak = server.reset_peak()
        ctx.written_before = written_bytes(server.pid)
        with MemoryWatch(server.pid) as watch:
            try:
                case.run(ctx)
            except Exception as e:
                ctx.fails.append(f"case raised {type(e).__name__}: {str(e)[:300]}")
        if not server.alive():
            ctx.fails.append(f"server exited ({server.proc.returncode if server.proc else '?'})")
            cpu = peak = rss = 0.0
        else:
            cpu = cpu_seconds(server.pid) - cpu0
            status = read_status(server.pid)
            peak = max(status["VmHWM"] if exact_peak else 0, watch.peak_kb) / 1024
            rss = status["VmRSS"] / 1024
            after = _normal_answers(server.base, case.after_timeout)
            if after:
                ctx.fails.append(f"after the case: {after}")
    finally:
        session.close()
        server.stop()
    requests = max(1, session.requests + ctx.extra_requests)
    server_errors = {
        k: v for k, v in session.statuses.items() if k.startswith("5") and k not in case.allowed_5xx
    }
    if server_errors:
        ctx.fails.append(f"5xx answers: {server_errors}")
    budget = (CPU_PER_REQUEST * requests + case.cpu_allowance) * machine_factor()
    if cpu > budget:
        ctx.fails.append(f"server CPU {cpu:.1f}s > {budget:g}s for {requests} requests")
    if peak > RSS_LIMIT_MB:
        ctx.fails.append(f"server peak RSS {peak:.0f} MB > {RSS_LIMIT_MB:.0f} MB")
    tracebacks = log.read_text(errors="replace").count("Traceback (most recent call last)")
    if tracebacks:
        ctx.notes.append(f"{tracebacks} tracebacks in {log}")
    passed = not ctx.fails
    line = (
        f"{db:<8} {case.name:<26} statuses={_statuses(dict(session.statuses))}"
        f" requests={requests} cpu={cpu:.2f}s peak={peak:.0f}MB rss={rss:.0f}MB"
        f" wall={time.monotonic() - started:.1f}s {'PASS' if passed else 'FAIL'}"
    )
    details = ctx.fails + ctx.notes
    if details:
        line += " | " + "; ".join(details)
    return passed, line
