"""Two Folio hosts behind one imagined load balancer: two `folio serve` processes, each with
an app directory of its own and its own port, sharing what several hosts share in
production: one PostgreSQL database, one Redis server (rate limits, change messages) and one
S3-compatible object store (uploads, in a private bucket: every answer signs its URLs).

What must hold: a write acknowledged by one host is read through the other at once; a file
uploaded through one is served through the other; the sign-in limit counts the attempts
made through both; a token revoked through one stops working on both (each host keeps
credentials for an hour here, so only the change message can make that happen); a host
killed (SIGKILL) right after acknowledging writes has lost none of them.

Needs FOLIO_TEST_DATABASE_URL (PostgreSQL), a Redis server on 127.0.0.1:6379 and the
SeaweedFS binary of the dev dependencies (tests/s3server.py); skipped without them."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.authapp import ADMIN_KEY, reference_permissions
from tests.api.serving import CLEARED, FOLIO, free_port
from tests.conftest import FIXTURES, PG_URL, reset_postgres

REDIS = ("127.0.0.1", 6379)
JWT_SECRET = "multihost-jwt-" + "c" * 40
TOKEN_SALT = "multihost-salt-" + "d" * 40
SIGN_IN_MAX = 6
# generous: a change is in force within a second, a busy machine may take longer
DEADLINE = 30.0
START = 120.0


def _redis_up() -> bool:
    try:
        with socket.create_connection(REDIS, timeout=1):
            return True
    except OSError:
        return False


pytestmark = [
    pytest.mark.skipif(not PG_URL, reason="needs FOLIO_TEST_DATABASE_URL (PostgreSQL)"),
    # under FOLIO_REDIS_REQUIRED=1 (CI) a missing Redis fails the tests instead
    pytest.mark.skipif(
        not _redis_up() and os.environ.get("FOLIO_REDIS_REQUIRED") != "1",
        reason="needs a Redis server on 127.0.0.1:6379",
    ),
]


@dataclass
class Host:
    name: str
    app: Path
    base: str
    proc: subprocess.Popen[bytes]
    log: Path

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.base, headers=headers, timeout=30)

    def admin(self, method: str, path: str, body: Any = None) -> httpx.Response:
        with self.client(ADMIN_KEY) as c:
            return c.request(method, path, json=body)


def host_app(root: Path, name: str, plugins: dict[str, Any], prefix: str) -> Path:
    """One host's app directory: the same models, permissions, secrets and shared services
    as every other host's (as a deployment copies them), nothing else in common."""
    app = root / name
    shutil.copytree(FIXTURES / "blog", app)
    config = app / "config"
    (config / "permissions.json").write_text(json.dumps(reference_permissions()))
    admin = {"auth": {"keys": [ADMIN_KEY]}, "apiToken": {"salt": TOKEN_SALT}}
    (config / "admin.json").write_text(json.dumps(admin))
    up = {
        "jwtSecret": JWT_SECRET,
        "cacheSeconds": 3600,
        "ratelimit": {"max": SIGN_IN_MAX, "interval": 600_000},
    }
    (config / "plugins.json").write_text(
        json.dumps({**plugins, "users-permissions": {"config": up}})
    )
    server = {
        "rateLimit": {"redis": f"redis://{REDIS[0]}:{REDIS[1]}/0", "prefix": prefix},
        "broadcast": {"channel": f"{prefix}:changes"},
    }
    (config / "server.json").write_text(json.dumps(server))
    return app


def start_host(root: Path, name: str, app: Path) -> Host:
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    assert PG_URL
    env["DATABASE_URL"] = PG_URL
    env.pop("REDIS_URL", None)  # each host's server.json names it
    port = free_port()
    log = root / f"{name}.log"
    proc = subprocess.Popen(
        [*FOLIO, "serve", str(app), "--port", str(port), "--workers", "2"],
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        # a process group of its own: killing the host kills its supervisor and workers
        start_new_session=True,
    )
    host = Host(name, app, f"http://127.0.0.1:{port}", proc, log)
    deadline = time.monotonic() + START
    while True:
        try:
            if httpx.get(host.base + "/_health/ready", timeout=2).status_code == 204:
                return host
        except httpx.HTTPError:
            pass
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline, f"{name} did not start: {log.read_text()}"
        time.sleep(0.1)


def stop_host(host: Host) -> None:
    if host.proc.poll() is None:
        host.proc.send_signal(signal.SIGTERM)
        try:
            host.proc.wait(60)
        except subprocess.TimeoutExpired:
            host.proc.kill()
            host.proc.wait()


@dataclass
class Cluster:
    a: Host
    b: Host
    store: Any
    bucket: str
    full: str  # a full-access token's key


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    from tests import s3server

    store = s3server.shared()  # the store ships with the dev dependencies: no skipping
    root = tmp_path_factory.mktemp("multihost")
    assert PG_URL
    reset_postgres(PG_URL)
    bucket = store.bucket()
    plugins = store.plugins(bucket, ACL="private", signedUrlExpires=600)
    prefix = f"folio-test-{secrets.token_hex(4)}"
    a_app = host_app(root, "host-a", plugins, prefix)
    b_app = host_app(root, "host-b", plugins, prefix)
    # the first host syncs the schema; the second finds it in place
    a = start_host(root, "host-a", a_app)
    hosts = [a]
    try:
        b = start_host(root, "host-b", b_app)
        hosts.append(b)
        r = a.admin("POST", "/admin/api-tokens", {"name": "writer", "type": "full-access"})
        assert r.status_code == 201, r.text
        yield Cluster(a, b, store, bucket, r.json()["data"]["accessKey"])
    finally:
        for host in hosts:
            stop_host(host)


def eventually(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not check():
        assert time.monotonic() < deadline, f"not in time: {what}"
        time.sleep(0.05)


def test_a_write_through_one_host_is_read_through_the_other_at_once(cluster: Cluster) -> None:
    with cluster.a.client(cluster.full) as a, cluster.b.client(cluster.full) as b:
        for i in range(5):
            r = a.post("/api/categories", json={"data": {"name": f"Cat {i}", "slug": f"c-{i}"}})
            assert r.status_code == 201, r.text
            made = r.json()["data"]
            # the other host's first read after the acknowledgement sees it
            r = b.get(f"/api/categories/{made['documentId']}")
            assert r.status_code == 200, r.text
            assert r.json()["data"]["name"] == f"Cat {i}"
            # and an update through the other host is read back through the first
            r = b.put(f"/api/categories/{made['documentId']}", json={"data": {"name": f"Cat {i}!"}})
            assert r.status_code == 200, r.text
            r = a.get(f"/api/categories/{made['documentId']}")
            assert r.json()["data"]["name"] == f"Cat {i}!"


def test_a_file_uploaded_through_one_host_is_served_by_the_other(cluster: Cluster) -> None:
    body = secrets.token_bytes(300_000)
    with cluster.a.client(cluster.full) as a, cluster.b.client(cluster.full) as b:
        r = a.post("/api/upload", files={"files": ("notes.bin", body, "application/octet-stream")})
        assert r.status_code == 201, r.text
        [made] = r.json()
        # in the object store, on neither host's disk
        assert cluster.store.keys(cluster.bucket)
        for host in (cluster.a, cluster.b):
            assert not any((host.app / "public" / "uploads").glob("*"))
        r = b.get(f"/api/upload/files/{made['id']}")
        assert r.status_code == 200, r.text
        url = r.json()["url"]
        status, served = cluster.store.fetch(url)
        assert status == 200
        assert served == body


def test_the_sign_in_limit_counts_attempts_made_through_both_hosts(cluster: Cluster) -> None:
    wrong = {"identifier": "nobody@example.com", "password": "wrong-password"}
    hosts = [cluster.a, cluster.b]
    statuses = []
    for i in range(SIGN_IN_MAX):
        r = httpx.post(hosts[i % 2].base + "/api/auth/local", json=wrong, timeout=30)
        statuses.append(r.status_code)
    assert statuses == [400] * SIGN_IN_MAX
    # each host saw half of the attempts; together they reached the limit
    for host in hosts:
        r = httpx.post(host.base + "/api/auth/local", json=wrong, timeout=30)
        assert r.status_code == 429, r.text


def test_a_revoked_token_stops_working_on_both_hosts(cluster: Cluster) -> None:
    r = cluster.a.admin("POST", "/admin/api-tokens", {"name": "reader", "type": "read-only"})
    assert r.status_code == 201, r.text
    token_id, key = r.json()["data"]["id"], r.json()["data"]["accessKey"]
    clients = [cluster.a.client(key), cluster.b.client(key)]
    try:
        # each host (each of its workers, as requests land) now holds the credential
        for c in clients:
            for _ in range(4):
                assert c.get("/api/articles").status_code == 200
        r = cluster.b.admin("DELETE", f"/admin/api-tokens/{token_id}")
        assert r.status_code == 200, r.text
        for c in clients:
            eventually(
                lambda c=c: all(c.get("/api/articles").status_code == 401 for _ in range(4)),
                f"{c.base_url} refuses the revoked token",
            )
    finally:
        for c in clients:
            c.close()


def test_a_token_revoked_from_the_command_line_stops_working_on_every_host(
    cluster: Cluster,
) -> None:
    r = cluster.a.admin("POST", "/admin/api-tokens", {"name": "cli-made", "type": "read-only"})
    assert r.status_code == 201, r.text
    token_id, key = r.json()["data"]["id"], r.json()["data"]["accessKey"]
    clients = [cluster.a.client(key), cluster.b.client(key)]
    try:
        for c in clients:
            for _ in range(4):
                assert c.get("/api/articles").status_code == 200
        # a shell on one host: the command's process tells the servers as it ends
        env = {k: v for k, v in os.environ.items() if k not in CLEARED}
        assert PG_URL
        env["DATABASE_URL"] = PG_URL
        done = subprocess.run(
            [*FOLIO, "token", "revoke", str(token_id), "--app", str(cluster.a.app)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        for c in clients:
            eventually(
                lambda c=c: all(c.get("/api/articles").status_code == 401 for _ in range(4)),
                f"{c.base_url} refuses the token revoked from the command line",
            )
    finally:
        for c in clients:
            c.close()


def test_a_host_killed_after_acknowledging_writes_has_lost_none(
    cluster: Cluster, tmp_path: Path
) -> None:
    # a third host, killed without a chance to shut down once it acknowledged its writes
    app = host_app(tmp_path, "host-c", {}, f"folio-test-{secrets.token_hex(4)}")
    c = start_host(tmp_path, "host-c", app)
    made: list[str] = []
    try:
        with c.client(cluster.full) as client:
            for i in range(20):
                r = client.post("/api/tags", json={"data": {"name": f"kept-{i}"}})
                assert r.status_code == 201, r.text
                made.append(r.json()["data"]["documentId"])
    finally:
        # the whole host at once: supervisor and workers, no shutdown
        os.killpg(c.proc.pid, signal.SIGKILL)
        c.proc.wait()
    with cluster.b.client(cluster.full) as b:
        for document_id in made:
            r = b.get(f"/api/tags/{document_id}")
            assert r.status_code == 200, r.text
        params = {"filters[name][$startsWith]": "kept-", "pagination[pageSize]": 100}
        r = b.get("/api/tags", params=params)
        assert r.json()["meta"]["pagination"]["total"] == len(made)
