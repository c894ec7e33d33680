"""Deliveries that lose nothing, with real `folio serve` processes: a server killed with
SIGKILL in the middle of 500 writes and started again delivers every committed event
(duplicates allowed, and reported); two servers on one database deliver each event once."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from folio.app import load_app
from tests.api.serving import CLEARED, FOLIO, _started, free_port
from tests.api.test_webhooks import configure
from tests.api.webhook_helpers import Receiver, receiver
from tests.conftest import database_url


class Server:
    """`folio serve` on a fixed port, which can be killed and started again."""

    def __init__(self, app: Path, url: str, log: Path) -> None:
        self.app = app
        self.base = f"http://127.0.0.1:{free_port()}"
        self.env = {k: v for k, v in os.environ.items() if k not in CLEARED}
        self.env["DATABASE_URL"] = url
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [*FOLIO, "serve", str(self.app), "--port", self.base.rsplit(":", 1)[1]],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        if not _started(self.base, self.proc, 60):
            self.stop()
            raise AssertionError("the server did not start: " + self.log.read_text()[-3000:])

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


@contextmanager
def servers(app: Path, url: str, n: int) -> Iterator[list[Server]]:
    started = [Server(app, url, app.parent / f"server-{i}.log") for i in range(n)]
    try:
        for server in started:
            server.start()
        yield started
    finally:
        for server in started:
            server.stop()


def create_tag(base: str, name: str) -> str | None:
    """The documentId of a new tag, or None when the server did not answer."""
    body = json.dumps({"data": {"name": name}}).encode()
    request = urllib.request.Request(
        base + "/api/tags", body, {"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            assert r.status == 201
            return str(json.load(r)["data"]["documentId"])
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def committed_events(app: Path, url: str) -> list[Any]:
    """Every event in the outbox."""

    async def read() -> list[Any]:
        folio = load_app(app, url)
        await folio.start(bootstrap=False)
        try:
            return await folio.documents.events_since(0, 1_000_000)
        finally:
            await folio.close()

    return asyncio.run(read())


def received_ids(rec: Receiver) -> Counter[int]:
    """Event id -> how many times the receiver got it (answered 2xx)."""
    return Counter(
        int(r["headers"]["x-folio-event-id"])
        for r in rec.requests("/site")
        if r["status"] < 300 and "x-folio-event-id" in r["headers"]
    )


def wait_delivered(rec: Receiver, wanted: set[int], timeout: float = 120) -> Counter[int]:
    deadline = time.monotonic() + timeout
    while True:
        got = received_ids(rec)
        if wanted <= set(got):
            return got
        if time.monotonic() > deadline:
            missing = sorted(wanted - set(got))
            raise AssertionError(f"{len(missing)} committed events never delivered: {missing[:20]}")
        time.sleep(0.1)


def test_kill_9_in_the_middle_of_500_writes_loses_no_event(
    backend: str, app_dir: Path, tmp_path: Path
) -> None:
    with receiver(tmp_path) as rec:
        configure(app_dir, rec)
        url = database_url(backend, app_dir)
        with servers(app_dir, url, 1) as [server]:
            acknowledged: list[str] = []
            lock = threading.Lock()
            total = 500
            writers = 4

            def write(k: int) -> None:
                for i in range(k, total, writers):
                    while True:
                        made = create_tag(server.base, f"t{i}")
                        if made is not None:
                            break
                        time.sleep(0.05)  # the server is down: try again
                    with lock:
                        acknowledged.append(made)

            threads = [threading.Thread(target=write, args=(k,)) for k in range(writers)]
            for thread in threads:
                thread.start()
            deadline = time.monotonic() + 120
            while len(acknowledged) < total // 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            # writes in flight, deliveries under way
            server.kill()
            killed_at = len(acknowledged)
            delivered_before = sum(received_ids(rec).values())
            server.start()
            for thread in threads:
                thread.join(timeout=180)
            assert len(acknowledged) == total
            events = committed_events(app_dir, url)
            committed = {e.id for e in events}
            created = {e.entry["documentId"] for e in events if e.event == "entry.create"}
            assert set(acknowledged) <= created
            got = wait_delivered(rec, committed)
            # an event not committed is never delivered
            assert set(got) <= committed
            duplicates = sum(n - 1 for n in got.values())
            print(
                f"\nkill -9 after {killed_at} acknowledged writes "
                f"({delivered_before} deliveries by then): {len(committed)} events committed, "
                f"all delivered, {duplicates} delivered twice or more ({backend})"
            )


def test_two_servers_on_one_database_deliver_each_event_once(
    backend: str, app_dir: Path, tmp_path: Path
) -> None:
    with receiver(tmp_path) as rec:
        configure(app_dir, rec)
        url = database_url(backend, app_dir)
        with servers(app_dir, url, 2) as pair:

            def write(server_index: int) -> None:
                for i in range(100):
                    assert create_tag(pair[server_index].base, f"s{server_index}-{i}")

            threads = [threading.Thread(target=write, args=(k,)) for k in range(2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=180)
            committed = {e.id for e in committed_events(app_dir, url)}
            assert len(committed) == 200
            got = wait_delivered(rec, committed)
            assert set(got) == committed
            assert [i for i, n in got.items() if n > 1] == []
            # and in order
            order = [int(r["headers"]["x-folio-event-id"]) for r in rec.requests("/site")]
            assert order == sorted(order)
