"""The suite's app and the `folio serve` processes the cases run against, with what /proc
tells of them (CPU seconds, resident and peak memory, bytes written)."""

from __future__ import annotations

import json
import os
import resource
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.api.serving import listens

ROOT = Path(__file__).resolve().parents[2]
FOLIO = str(ROOT / ".venv" / "bin" / "folio")
# the reference app's models (identical to the blog fixture's, which stand in for them
# where the shared folder is not beside the checkout)
REFERENCE_APPS = [ROOT.parent / "shared" / "reference" / "app", Path("/work/shared/reference/app")]
CLEARED = ("DATABASE_URL", "FOLIO_ENV", "NODE_ENV", "FOLIO_TEST_DATABASE_URL")
PG_ADMIN = ["psql", "-U", "postgres", "-h", "127.0.0.1", "-Atq"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def postgres_answers() -> bool:
    if shutil.which("psql") is None:
        return False
    done = subprocess.run([*PG_ADMIN, "-c", "select 1"], capture_output=True, timeout=20)
    return done.returncode == 0


def psql(sql: str) -> None:
    subprocess.run([*PG_ADMIN, "-c", sql], check=True, capture_output=True, timeout=60)


def make_app(directory: Path) -> Path:
    """The reference models, the public role allowed to read every type, use the auth
    routes and upload files."""
    app = directory / "app"
    source = next((p for p in REFERENCE_APPS if (p / "src" / "api").is_dir()), None)
    if source is None:
        shutil.copytree(ROOT / "tests" / "fixtures" / "blog", app)
    else:
        for part in ("api", "components"):
            shutil.copytree(
                source / "src" / part,
                app / "src" / part,
                ignore=shutil.ignore_patterns("*.js", "*.ts"),
            )
        shutil.copytree(ROOT / "tests" / "fixtures" / "blog" / "config", app / "config")
    from folio.schema.loader import load_registry

    reads = []
    for ct in load_registry(app).content_types.values():
        if ct.uid.startswith("api::"):
            reads += [f"{ct.uid}.find"] + ([] if ct.is_single else [f"{ct.uid}.findOne"])
    public = [
        *reads,
        "plugin::users-permissions.auth.*",
        "plugin::upload.content-api.find",
        "plugin::upload.content-api.findOne",
        "plugin::upload.content-api.upload",
    ]
    permissions = {"roles": {"public": {"permissions": sorted(public)}}}
    (app / "config" / "permissions.json").write_text(json.dumps(permissions, indent=2))
    return app


def read_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM in kB."""
    out: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def written_bytes(pid: int) -> int:
    """Bytes the process handed to write calls (files and sockets alike)."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    return 0


class Server:
    """One `folio serve` process; `start()` returns once `/_health` answers."""

    def __init__(
        self,
        app: Path,
        database_url: str | None,
        log: Path,
        env: dict[str, str] | None = None,
        args: list[str] | None = None,
        max_files: int | None = None,
    ) -> None:
        self.app = app
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.env = {k: v for k, v in os.environ.items() if k not in CLEARED}
        self.env["FOLIO_ENV"] = "development"
        if database_url:
            self.env["DATABASE_URL"] = database_url
        self.env.update(env or {})
        self.args = args or []
        self.max_files = max_files
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def _limits(self) -> None:
        if self.max_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (self.max_files, self.max_files))

    def start(self) -> Server:
        """Starts the server, on another free port if the one chosen was taken meanwhile."""
        for attempt in range(3):
            try:
                return self._start()
            except RuntimeError as e:
                if "already in use" not in str(e) or attempt == 2:
                    raise
                self.port = free_port()
                self.base = f"http://127.0.0.1:{self.port}"
        raise AssertionError("unreachable")

    def _start(self) -> Server:
        cmd = [FOLIO, "serve", str(self.app), "--port", str(self.port), "--no-request-log"]
        offset = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [*cmd, *self.args],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                preexec_fn=self._limits if self.max_files else None,
            )
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(self.base + "/_health", timeout=5) as r:
                    if r.status == 204:
                        if listens(self.proc.pid, self.port):
                            return self
                        # another server took the port chosen (the test suite runs beside
                        # these cases) and answered: this one cannot bind it
                        self.stop()
                        raise RuntimeError(f"port {self.port} already in use by another process")
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                tail = self.log.read_bytes()[offset:].decode(errors="replace")[-3000:]
                raise RuntimeError(f"server did not start:\n{tail}")
            time.sleep(0.1)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)

    def reset_peak(self) -> bool:
        """Starts VmHWM over from the current RSS (Linux's clear_refs 5)."""
        try:
            Path(f"/proc/{self.pid}/clear_refs").write_text("5")
            return True
        except OSError:
            return False


class MemoryWatch:
    """Samples the server's VmRSS every 20 ms on a thread of its own: the peak of a case
    where the kernel's own peak cannot be reset."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.peak_kb = max(self.peak_kb, read_status(self.pid)["VmRSS"])
            except (OSError, KeyError):
                return
            self._stop.wait(0.02)

    def __enter__(self) -> MemoryWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
