"""Health, readiness and graceful shutdown, as a load balancer in front of several hosts
needs them.

`/_health` says the process is up; `/_health/ready` that it takes requests and its database
answers, and 503 from the moment it is told to stop. On SIGTERM a `folio serve` process
(one worker, or a supervisor of several) stops taking new connections, lets the requests
under way finish, and exits 0. The slow request of these tests is an app policy that holds
its request until the test lets it go (a file appears), so that nothing depends on how
fast the machine is."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.serving import CLEARED, FOLIO, free_port
from tests.conftest import FIXTURES, PG_URL, Api, make_api, open_access, reset_postgres

WAIT = 60.0

# holds `GET /api/articles` while the request carries `X-Hold: <name>`: writes
# `.tmp/<name>.held`, then waits for `.tmp/<name>.go`
HOLDING_INDEX = """
import asyncio
from pathlib import Path


def register(app):
    tmp = Path(app.settings.app_dir) / ".tmp"

    async def hold(ctx, config, app):
        name = ctx.request.headers.get("x-hold")
        if name:
            (tmp / f"{name}.held").write_text("")
            for _ in range(1200):
                if (tmp / f"{name}.go").exists():
                    break
                await asyncio.sleep(0.05)
        return True

    app.hooks.policies["hold"] = hold
    app.hooks.route("api::article.article.find", policies=["hold"])
"""


def holding_app(tmp_path: Path, server: dict[str, Any] | None = None) -> Path:
    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    open_access(app)
    (app / "src" / "index.py").write_text(HOLDING_INDEX)
    (app / ".tmp").mkdir(exist_ok=True)
    if server is not None:
        (app / "config" / "server.json").write_text(json.dumps(server))
    return app


def _env(backend: str, app: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    if backend == "postgres":
        assert PG_URL
        reset_postgres(PG_URL)
        env["DATABASE_URL"] = PG_URL
    return env


@contextmanager
def server_process(
    app: Path, backend: str, workers: int = 1
) -> Iterator[tuple[str, int, subprocess.Popen[bytes]]]:
    port = free_port()
    log = (app.parent / "server.log").open("wb")
    proc = subprocess.Popen(
        [*FOLIO, "serve", str(app), "--port", str(port), "--workers", str(workers)],
        env=_env(backend, app),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + WAIT
        while True:
            try:
                if httpx.get(base + "/_health/ready", timeout=2).status_code == 204:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None, (app.parent / "server.log").read_text()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        yield base, port, proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()


class Held:
    """A request held by the app's policy, sent from a thread of its own."""

    def __init__(self, app: Path, base: str, name: str) -> None:
        self.app = app
        self.name = name
        self.response: httpx.Response | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._send, args=(base,), daemon=True)
        self.thread.start()
        wait_for(lambda: (app / ".tmp" / f"{name}.held").exists(), "the request is held")

    def _send(self, base: str) -> None:
        try:
            self.response = httpx.get(
                base + "/api/articles", headers={"X-Hold": self.name}, timeout=WAIT
            )
        except BaseException as exc:
            self.error = exc

    def release(self) -> httpx.Response:
        (self.app / ".tmp" / f"{self.name}.go").write_text("")
        self.thread.join(WAIT)
        assert self.error is None, self.error
        assert self.response is not None
        return self.response


def wait_for(check: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, f"not in time: {what}"
        time.sleep(0.02)


def refused(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return False
    except ConnectionRefusedError:
        return True
    except OSError:
        return False


BACKENDS = ["sqlite", *(["postgres"] if PG_URL else [])]


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("backend", BACKENDS)
def test_sigterm_finishes_the_requests_under_way_refuses_new_ones_and_exits_0(
    tmp_path: Path, backend: str, workers: int
) -> None:
    app = holding_app(tmp_path)
    with server_process(app, backend, workers) as (base, port, proc):
        held = Held(app, base, "first")
        proc.send_signal(signal.SIGTERM)
        # the socket is closed while the held request is still under way
        wait_for(lambda: refused(port), "new connections are refused")
        assert held.thread.is_alive()
        response = held.release()
        assert response.status_code == 200, response.text
        assert isinstance(response.json()["data"], list)
        assert proc.wait(WAIT) == 0
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log


@pytest.mark.parametrize("workers", [1, 2])
def test_during_the_drains_delay_readiness_says_503_and_a_second_signal_ends_it(
    tmp_path: Path, workers: int
) -> None:
    app = holding_app(tmp_path, {"shutdown": {"delaySeconds": 600, "graceSeconds": 60}})
    with server_process(app, "sqlite", workers) as (base, port, proc):
        held = Held(app, base, "first")
        assert httpx.get(base + "/_health/ready", timeout=10).status_code == 204
        proc.send_signal(signal.SIGTERM)

        def not_ready() -> bool:
            r = httpx.get(base + "/_health/ready", timeout=10)
            return r.status_code == 503

        # still taking connections (the balancer has time to see readiness fail), each
        # told to close, and the process is up
        wait_for(not_ready, "readiness answers 503")
        r = httpx.get(base + "/_health/ready", timeout=10)
        assert r.json()["error"]["name"] == "ServiceUnavailableError"
        assert r.headers["retry-after"] == "5"
        assert r.headers["connection"] == "close"
        assert httpx.head(base + "/_health/ready", timeout=10).status_code == 503
        assert httpx.get(base + "/_health", timeout=10).status_code == 204
        assert httpx.get(base + "/api/articles", timeout=10).status_code == 200
        # a second signal: the socket closes now, the held request still finishes
        proc.send_signal(signal.SIGTERM)
        wait_for(lambda: refused(port), "new connections are refused")
        assert held.release().status_code == 200
        assert proc.wait(WAIT) == 0


def test_the_grace_bounds_the_wait_for_a_request_that_does_not_end(tmp_path: Path) -> None:
    app = holding_app(tmp_path, {"shutdown": {"graceSeconds": 1}})
    with server_process(app, "sqlite") as (base, _port, proc):
        held = Held(app, base, "stuck")
        proc.send_signal(signal.SIGTERM)
        # never released: the server cuts it after the grace and still exits 0
        assert proc.wait(WAIT) == 0
        held.thread.join(WAIT)
        assert held.response is None or held.response.status_code >= 500


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    yield from make_api(app, f"sqlite:///{app / '.tmp' / 'data.db'}")


def test_health_and_readiness_need_no_credentials_and_answer_head(api: Api) -> None:
    for path in ("/_health", "/_health/ready"):
        assert api.get(path, headers={"Authorization": "Bearer nonsense"}).status_code == 204
        r = api.client.head(path)
        assert r.status_code == 204 and r.content == b""


def test_readiness_fails_once_the_app_drains_and_answers_close_the_connection(api: Api) -> None:
    app = api.client.app
    assert api.get("/_health/ready").status_code == 204
    assert "connection" not in api.get("/api/articles").headers
    app.drain()  # what the server calls on SIGTERM
    r = api.get("/_health/ready")
    assert r.status_code == 503
    assert r.json()["error"]["message"] == "The server is shutting down"
    assert r.headers["retry-after"] == "5"
    assert api.get("/_health").status_code == 204
    r = api.get("/api/articles")
    assert r.status_code == 200 and r.headers["connection"] == "close"


def _workers(supervisor: int) -> set[int]:
    """The worker processes of a supervisor (its spawned children)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[1]) == supervisor and b"spawn_main" in command:
            found.add(int(entry))
    return found


def test_a_worker_that_dies_is_replaced(tmp_path: Path) -> None:
    app = holding_app(tmp_path)
    with server_process(app, "sqlite", workers=2) as (base, _port, proc):
        wait_for(lambda: len(_workers(proc.pid)) == 2, "two workers")
        first = _workers(proc.pid)
        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        wait_for(
            lambda: len(_workers(proc.pid)) == 2 and victim not in _workers(proc.pid),
            "another worker in its place",
        )

        def answers() -> bool:
            return all(
                httpx.get(base + "/_health/ready", timeout=10).status_code == 204 for _ in range(10)
            )

        wait_for(answers, "both workers answer")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(WAIT) == 0
