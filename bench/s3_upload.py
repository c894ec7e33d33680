"""A large upload through Folio into an S3-compatible store, beside direct uploads of the
same file with the store's own kind of clients, in one sitting.

Starts a SeaweedFS store (tests/s3server.py) and writes a file of random bytes, then, for
each round, uploads it:

- with curl (`--aws-sigv4`: one signed PUT streamed from disk, C code: what the store takes
  at best from one connection);
- with boto3's `upload_file` (8 MiB parts, 10 threads: what `aws s3 cp` does), when a Python
  with boto3 is given (`--boto3-python`; the project does not depend on boto3);
- with Folio's S3 provider alone (`S3Provider.put` of the file, in this process);
- through Folio's HTTP upload (`POST /api/upload`, a `folio serve` process, one worker): the
  whole request (the body streamed to disk, the file streamed to the store, the record),
  with the server's resident memory sampled every 10 ms (its growth over the idle server,
  warmed up by one small upload) and the CPU time it used (on a busy machine, what the
  wall-clock figures cannot separate from the other processes' load);
- the same through a second server running another source tree of Folio (`--baseline-src`:
  the `src` directory of an earlier commit, e.g. from `git archive`), for a before/after in
  the same sitting.

    .venv/bin/python bench/s3_upload.py [--size-mb 200] [--rounds 3] [--part-mb 8]
        [--queue 4] [--boto3-python /path/to/python] [--baseline-src /path/to/old/src]

Prints each round's seconds and MB/s, the medians, Folio's ratio to the direct uploads, and
the server's peak memory growth."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from tests.s3server import REGION, S3Server, free_ports, running  # noqa: E402

from folio.files.providers.s3 import S3Provider  # noqa: E402
from folio.files.providers.s3_options import read_options  # noqa: E402

MB = 1024 * 1024
BOTO3 = """
import sys, boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
endpoint, key, secret, bucket, path, name = sys.argv[1:7]
s3 = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=key,
                  aws_secret_access_key=secret, region_name="us-east-1",
                  config=Config(s3={"addressing_style": "path"}))
s3.upload_file(path, bucket, name, Config=TransferConfig())
"""


def write_file(path: Path, size: int) -> None:
    with path.open("wb") as out:
        left = size
        while left:
            n = min(left, 8 * MB)
            out.write(os.urandom(n))
            left -= n


def timed(run: Callable[[], Any]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


# ---------------------------------------------------------------------- direct uploads


def curl_put(store: S3Server, bucket: str, path: Path, name: str) -> None:
    subprocess.run(
        [
            "curl",
            "--silent",
            "--show-error",
            "--fail",
            "--aws-sigv4",
            f"aws:amz:{REGION}:s3",
            "--user",
            f"{store.access_key}:{store.secret_key}",
            "-H",
            "x-amz-content-sha256: UNSIGNED-PAYLOAD",
            "--upload-file",
            str(path),
            f"{store.endpoint}/{bucket}/{name}",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def boto3_put(python: str, store: S3Server, bucket: str, path: Path, name: str) -> None:
    args = [store.endpoint, store.access_key, store.secret_key, bucket, str(path), name]
    subprocess.run([python, "-c", BOTO3, *args], check=True)


def provider_put(provider: S3Provider, path: Path, name: str) -> None:
    async def run() -> None:
        try:
            await provider.put(name, path, "application/octet-stream")
        finally:
            await provider.close()

    asyncio.run(run())


# ---------------------------------------------------------------------- Folio over HTTP


def _tree(pid: int) -> list[int]:
    """`pid` and its descendants."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        one = todo.pop()
        out.append(one)
        todo.extend(children.get(one, []))
    return out


def rss(pid: int) -> int:
    """The resident memory of `pid` and its descendants, in bytes."""
    total = 0
    for one in _tree(pid):
        try:
            for line in Path(f"/proc/{one}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) `pid` and its descendants have used."""
    total = 0
    for one in _tree(pid):
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


class Sampler:
    """The peak of a process tree's resident memory while it runs."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss(self.pid))
            time.sleep(0.01)

    def __enter__(self) -> Sampler:
        self.cpu = cpu_seconds(self.pid)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss(self.pid))
        self.cpu = cpu_seconds(self.pid) - self.cpu


def folio_app(app: Path, plugins: dict[str, Any]) -> Path:
    """The blog app with `plugins` (their upload size limit raised), uploads open to all."""
    shutil.copytree(ROOT / "tests" / "fixtures" / "blog", app)
    plugins.setdefault("upload", {}).setdefault("config", {})["sizeLimit"] = 1024 * MB
    (app / "config" / "plugins.json").write_text(json.dumps(plugins))
    permissions = {"roles": {"public": {"permissions": ["plugin::upload.content-api.*"]}}}
    (app / "config" / "permissions.json").write_text(json.dumps(permissions))
    return app


class Server:
    def __init__(self, app: Path, src: str = "") -> None:
        [port] = free_ports(1)
        self.base = f"http://127.0.0.1:{port}"
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "FOLIO_ENV")}
        if src:
            # this source tree's folio package first
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
        self.log = (app.parent / "server.log").open("wb")
        self.process = subprocess.Popen(
            [
                *(sys.executable, "-m", "folio.cli.main", "serve", str(app)),
                *("--port", str(port), "--workers", "1", "--no-request-log"),
            ],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.base + "/_health").status_code == 204:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


def http_upload(base: str, path: Path, name: str) -> dict[str, Any]:
    with path.open("rb") as f, httpx.Client(timeout=600) as client:
        r = client.post(
            base + "/api/upload", files={"files": (name, f, "application/octet-stream")}
        )
    if r.status_code != 201:
        raise RuntimeError(f"upload: {r.status_code} {r.text[:300]}")
    record: dict[str, Any] = r.json()[0]
    return record


# ---------------------------------------------------------------------- the sitting


@contextlib.contextmanager
def scratch_dir() -> Iterator[Path]:
    where = Path(tempfile.mkdtemp(prefix="folio-s3-bench-"))
    try:
        yield where
    finally:
        shutil.rmtree(where, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--part-mb", type=int, default=8)
    parser.add_argument("--queue", type=int, default=4)
    parser.add_argument("--boto3-python", default="")
    parser.add_argument("--baseline-src", default="")
    args = parser.parse_args()
    size = args.size_mb * MB
    with scratch_dir() as scratch, running(scratch / "store") as store:
        bucket = store.bucket()
        path = scratch / "upload.bin"
        write_file(path, size)
        options = store.provider_options(bucket)
        options["providerConfig"] = {
            "multipart": {"partSize": args.part_mb * MB, "queueSize": args.queue}
        }
        s3_plugins = store.plugins(bucket)
        s3_plugins["upload"]["config"]["providerOptions"]["providerConfig"] = options[
            "providerConfig"
        ]
        server = Server(folio_app(scratch / "app", s3_plugins))
        # the same upload into the local provider (a link of the received file): what the
        # HTTP side costs alone
        local = Server(folio_app(scratch / "local", {}))
        baseline = None
        if args.baseline_src:
            baseline = Server(folio_app(scratch / "baseline", s3_plugins), args.baseline_src)
        times: dict[str, list[float]] = {}
        growth: list[int] = []
        growth_baseline: list[int] = []
        cpu: dict[str, list[float]] = {}
        try:
            warm = scratch / "app" / "config" / "plugins.json"
            for one in (server, local, baseline):
                if one is not None:
                    http_upload(one.base, warm, "warm.json")
            for n in range(args.rounds):
                runs: dict[str, Callable[[], Any]] = {
                    "curl PUT (direct)": lambda n=n: curl_put(store, bucket, path, f"curl{n}"),
                    "Folio S3Provider.put": lambda n=n: provider_put(
                        S3Provider(read_options(options)), path, f"provider{n}.bin"
                    ),
                }
                if args.boto3_python:
                    runs["boto3 upload_file (direct)"] = lambda n=n: boto3_put(
                        args.boto3_python, store, bucket, path, f"boto{n}"
                    )
                runs["Folio POST /api/upload, local"] = lambda n=n: http_upload(
                    local.base, path, f"local{n}.bin"
                )
                for label, run in runs.items():
                    times.setdefault(label, []).append(timed(run))
                idle = rss(server.process.pid)
                with Sampler(server.process.pid) as sampler:
                    started = time.perf_counter()
                    record = http_upload(server.base, path, f"http{n}.bin")
                    took = time.perf_counter() - started
                times.setdefault("Folio POST /api/upload", []).append(took)
                cpu.setdefault("Folio POST /api/upload", []).append(sampler.cpu)
                growth.append(sampler.peak - idle)
                key = f"{record['hash']}{record['ext']}"
                if key not in store.keys(bucket):
                    raise RuntimeError(f"{key} is not in the bucket")
                if baseline is not None:
                    idle = rss(baseline.process.pid)
                    with Sampler(baseline.process.pid) as sampler:
                        started = time.perf_counter()
                        http_upload(baseline.base, path, f"base{n}.bin")
                        took = time.perf_counter() - started
                    times.setdefault("Folio POST /api/upload, baseline", []).append(took)
                    cpu.setdefault("Folio POST /api/upload, baseline", []).append(sampler.cpu)
                    growth_baseline.append(sampler.peak - idle)
        finally:
            for one in (server, local, baseline):
                if one is not None:
                    one.stop()
    print(f"{args.size_mb} MB, parts of {args.part_mb} MiB x {args.queue}, {args.rounds} rounds")
    medians = {}
    for label, values in times.items():
        medians[label] = statistics.median(values)
        shown = ", ".join(f"{v:.2f}" for v in values)
        rate = args.size_mb / medians[label]
        print(f"  {label:30} {medians[label]:6.2f} s  {rate:7.1f} MB/s   ({shown})")
    mine = [k for k in medians if k.startswith("Folio") and "local" not in k]
    for label in [k for k in medians if "direct" in k]:
        for one in mine:
            print(f"  {one} / {label}: {medians[one] / medians[label]:.2f}x")
    for label, seconds in cpu.items():
        print(
            f"  server CPU during {label}: median {statistics.median(seconds):.2f} s "
            f"({', '.join(f'{v:.2f}' for v in seconds)})"
        )
    for label, values in (("", growth), (" (baseline)", growth_baseline)):
        if values:
            print(
                f"  server RSS growth during the upload{label}: peak {max(values) / MB:.1f} MB "
                f"(rounds: {', '.join(f'{g / MB:.1f}' for g in values)})"
            )


if __name__ == "__main__":
    main()
