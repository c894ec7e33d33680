"""One sitting of ../shared/bench across databases: the reference implementation and Folio on
MariaDB/MySQL, and Folio on SQLite and PostgreSQL (the reference on PostgreSQL too if asked),
one server process each, every target on a fresh database and seeded alike; then each
scenario is measured on every target in turn (the order rotating from one scenario to the
next), so that the noise of a shared machine falls on all of them alike. One table at the
end: requests per second and p99 of every target beside the reference on MySQL, the ratios.

    ../shared/reference/setup.sh /tmp/reference          # once
    scripts/bench-app /tmp/benchapp                      # once: the app Folio serves
    .venv/bin/python bench/mysql_sitting.py --app /tmp/benchapp --out-dir /tmp/sitting \\
        [--targets ref-mysql,folio-mysql,folio-sqlite,folio-pg,ref-pg,folio-pg-nomemo] \\
        [--articles 2000] \\
        [--only list,get-one] [--duration 10] [--warmup 3] [--quiet-wait 120]
    .venv/bin/python bench/mysql_sitting.py --table /tmp/sitting    # the table again

A target ending in `-nomemo` is that Folio target with the read memo off (FOLIO_READ_MEMO_MB=0),
on a database (or SQLite file) of its own.

Databases (dropped and created at each target's start): MySQL `folio_sitting` / `ref_sitting`
on --mysql (root, no password), PostgreSQL `folio_sitting` / `ref_sitting_pg` on --postgres;
Folio's SQLite file is in its own copy of the app directory. Each target's files (start,
seed, run results, server log) are written to --out-dir/<target>/.

The harness counts a PostgreSQL database's backends as the database's CPU (not as other
load) by their process titles; a MySQL server is one process whose threads carry no title,
so during a measurement its whole CPU is counted as the database's (run.py `db_cpu_s_per_1k`,
and not as `other_cores`), while the quiet wait before each scenario counts it as other load
(the server under test is idle then, so what the MySQL server does is someone else's work).
Other clients of the same MySQL server during a measurement are thus hidden in the database's
figure: the number of their running statements is sampled and printed in the log."""

from __future__ import annotations

import argparse
import json
import os
import runpy
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT.parent / "shared" / "bench"
REFERENCE = ROOT.parent / "shared" / "reference"
TARGETS = ["ref-mysql", "folio-mysql", "folio-sqlite", "folio-pg", "ref-pg"]
# Folio's targets with the read memo off (FOLIO_READ_MEMO_MB=0), on a database of their own
NO_MEMO = "-nomemo"
ALL_TARGETS = TARGETS + [t + NO_MEMO for t in TARGETS if t.startswith("folio-")]
MYSQL_PREFIX = "mysql:"


# ---------------------------------------------------------------- the patched harness


def _mysqld_pids() -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/comm") as f:
                if f.read().strip() in ("mariadbd", "mysqld"):
                    out.append(int(d))
        except OSError:
            continue
    return out


def _mysql_others(dbname: str) -> int:
    """Statements running on the MySQL server for other databases than ours (and not ours)."""
    sql = (
        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND NOT IN"
        " ('Sleep', 'Daemon', 'Binlog Dump') AND ID <> CONNECTION_ID()"
        f" AND COALESCE(DB, '') <> '{dbname}'"
    )
    r = subprocess.run(
        ["mysql", "-uroot", "-h127.0.0.1", "-N", "-B", "-e", sql], capture_output=True, text=True
    )
    try:
        return int(r.stdout.strip())
    except ValueError:
        return -1


def run_harness(script: str, argv: list[str]) -> None:
    """Runs one of the harness's scripts with a --db-name of the form mysql:NAME understood as
    the MySQL server's process (see the module's docstring)."""
    sys.path.insert(0, str(HARNESS))
    import common  # type: ignore[import-not-found]

    pg_backends = common.db_backend_cpu
    pg_wait_quiet = common.wait_quiet
    measuring = {"on": True}

    def db_cpu(dbname: str | None) -> dict[int, float]:
        if dbname and dbname.startswith(MYSQL_PREFIX):
            if not measuring["on"]:
                return {}
            return {p: common.proc_cpu_s(p) for p in _mysqld_pids()}
        return dict(pg_backends(dbname))

    def wait_quiet(*args: Any, **kw: Any) -> Any:
        measuring["on"] = False
        try:
            return pg_wait_quiet(*args, **kw)
        finally:
            measuring["on"] = True

    common.db_backend_cpu = db_cpu
    common.wait_quiet = wait_quiet
    dbname = next((argv[i + 1] for i, x in enumerate(argv[:-1]) if x == "--db-name"), "")
    samples: list[int] = []
    stop = threading.Event()
    if dbname.startswith(MYSQL_PREFIX):

        def sample() -> None:
            while not stop.wait(2.0):
                samples.append(_mysql_others(dbname[len(MYSQL_PREFIX) :]))

        threading.Thread(target=sample, daemon=True).start()
    sys.argv = [str(HARNESS / script), *argv]
    os.chdir(HARNESS)
    try:
        runpy.run_path(str(HARNESS / script), run_name="__main__")
    finally:
        stop.set()
        if samples:
            busy = [s for s in samples if s > 0]
            print(
                f"other clients' running statements on the MySQL server: {len(busy)} of "
                f"{len(samples)} samples, at most {max(samples)}",
                flush=True,
            )


# ---------------------------------------------------------------- one target


def sh(cmd: list[str], env: dict[str, str] | None = None, check: bool = True) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if check and r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: {r.stderr.strip() or r.stdout.strip()}")
    return r.stdout


def fresh_mysql(db: str) -> None:
    sh(
        [
            "mysql",
            "-uroot",
            "-h127.0.0.1",
            "-e",
            f"DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db} CHARACTER SET utf8mb4",
        ]
    )


def fresh_pg(db: str) -> None:
    env = {**os.environ, "PGPASSWORD": "postgres"}
    base = ["psql", "-U", "postgres", "-h", "127.0.0.1", "-qc"]
    sh([*base, f"DROP DATABASE IF EXISTS {db} WITH (FORCE)"], env)
    sh([*base, f"CREATE DATABASE {db}"], env)


def plan(a: argparse.Namespace, target: str, out: Path) -> dict[str, Any]:
    """How to start `target`: its shell command, port, tokens file and database name for run.py."""
    folio = f"{ROOT / '.venv' / 'bin' / 'folio'} serve"
    if target.startswith("ref-"):
        mysql = target == "ref-mysql"
        db, port = ("ref_sitting", 1337) if mysql else ("ref_sitting_pg", 1338)
        env = "DATABASE_CLIENT=mysql " if mysql else ""
        cmd = f"{env}{REFERENCE / 'start.sh'} {a.reference} {db} {port}"
        return {
            "cmd": cmd,
            "port": port,
            "tokens": f"{a.reference}/tokens-{db}.json",
            "db_name": MYSQL_PREFIX + db if mysql else db,
            "prepare": None,  # start.sh makes the database afresh
        }
    memo = "" if not target.endswith(NO_MEMO) else "FOLIO_READ_MEMO_MB=0 "
    target = target.removesuffix(NO_MEMO)
    suffix = "_nomemo" if memo else ""
    app = out / "app"
    shutil.rmtree(app, ignore_errors=True)
    shutil.copytree(a.app, app, ignore=shutil.ignore_patterns(".tmp", "tokens.json", "*.db*"))
    port = {"folio-mysql": 1401, "folio-sqlite": 1402, "folio-pg": 1403}[target] + (
        10 if memo else 0
    )
    log = out / "server.log"
    db = "folio_sitting" + suffix
    if target == "folio-mysql":
        url = a.mysql.rstrip("/") + "/" + db
        prepare, db_name = (lambda: fresh_mysql(db)), MYSQL_PREFIX + db
    elif target == "folio-pg":
        url = a.postgres.rstrip("/") + "/" + db
        prepare, db_name = (lambda: fresh_pg(db)), db
    else:
        url, prepare, db_name = "", None, ""
    env = memo + (f"DATABASE_URL={url} " if url else "")
    return {
        "cmd": f"{env}exec {folio} {app} --port {port} > {log} 2>&1",
        "port": port,
        "tokens": str(app / "tokens.json"),
        "db_name": db_name,
        "prepare": prepare,
    }


def harness(script: str, *args: str, log: Path) -> int:
    cmd = [sys.executable, __file__, "--harness", script, "--", *args]
    with log.open("a") as f:
        f.write(f"\n$ {' '.join(cmd)}\n")
        f.flush()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert p.stdout is not None
        for line in p.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            f.write(line)
            f.flush()
        return p.wait()


def kill_tree(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    for _ in range(300):
        if not Path(f"/proc/{pid}").exists():
            return
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return
        if state == "Z":
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)


def start_target(a: argparse.Namespace, target: str) -> dict[str, Any]:
    """Starts `target` on a fresh database and seeds it; answers what run.py needs."""
    out = Path(a.out_dir) / target
    out.mkdir(parents=True, exist_ok=True)
    p = plan(a, target, out)
    if p["prepare"]:
        p["prepare"]()
    log = out / "harness.log"
    base = f"http://127.0.0.1:{p['port']}"
    qw = ["--quiet-wait", str(a.quiet_wait)]
    start = out / "start.json"
    rc = harness(
        "start.py", "--cmd", p["cmd"], "--url", base + "/api/articles", "--out", str(start),
        *qw, log=log,
    )  # fmt: skip
    if rc:
        raise SystemExit(f"{target}: did not start (see {log})")
    pid = int(json.loads(start.read_text())["pid"])
    running = {**p, "pid": pid, "base": base, "out": out, "log": log, "start": start}
    db = ["--db-name", p["db_name"]] if p["db_name"] else []
    for _ in range(100):  # the reference writes its tokens at bootstrap; Folio too
        if Path(p["tokens"]).exists():
            break
        time.sleep(0.2)
    seed = out / "seed.json"
    rc = harness(
        "seed.py", "--base", base, "--tokens", p["tokens"], "--articles", str(a.articles),
        "--pid", str(pid), *db, "--out", str(seed), *qw, log=log,
    )  # fmt: skip
    if rc:
        kill_tree(pid)
        raise SystemExit(f"{target}: seeding failed (see {log})")
    running["seed"] = seed
    return running


def measure(a: argparse.Namespace, target: str, t: dict[str, Any], scenario: str) -> None:
    """run.py for one scenario of one running target (run-<scenario>.json)."""
    db = ["--db-name", t["db_name"]] if t["db_name"] else []
    harness(
        "run.py", "--base", t["base"], "--tokens", t["tokens"], "--label", target,
        "--out", str(t["out"] / f"run-{scenario}.json"), "--pid", str(t["pid"]),
        "--start-info", str(t["start"]), "--seed-info", str(t["seed"]), *db,
        "--duration", str(a.duration), "--warmup", str(a.warmup),
        "--quiet-wait", str(a.quiet_wait), "--retries", str(a.retries), "--only", scenario,
        log=t["log"],
    )  # fmt: skip


def merge(out: Path, scenarios: list[str]) -> None:
    """The per-scenario results of one target as one run.py result (run.json)."""
    merged: dict[str, Any] | None = None
    for n in scenarios:
        f = out / f"run-{n}.json"
        if not f.exists():
            continue
        r = json.loads(f.read_text())
        if merged is None:
            merged = r
        else:
            merged["scenarios"].update(r["scenarios"])
            merged["host"]["loadavg_end"] = r["host"]["loadavg_end"]
            merged["server"].update(
                {k: v for k, v in r["server"].items() if k in ("rss_mb_after_run", "vmhwm_mb_end")}
            )
    if merged is not None:
        (out / "run.json").write_text(json.dumps(merged, indent=2))


def sitting(a: argparse.Namespace, targets: list[str]) -> None:
    """Every target started and seeded, then each scenario measured on every target in
    turn (the order rotating from one scenario to the next), so that the machine's noise
    falls on all of them alike; the servers are stopped at the end."""
    sys.path.insert(0, str(HARNESS))
    scenarios = a.only.split(",") if a.only else _harness_scenarios()
    running: dict[str, dict[str, Any]] = {}
    try:
        for t in targets:
            print(f"==== start {t}  ({time.strftime('%H:%M:%S')}, load {_load()})", flush=True)
            running[t] = start_target(a, t)
        for k, n in enumerate(scenarios):
            order = targets[k % len(targets) :] + targets[: k % len(targets)]
            for t in order:
                print(f"==== {n} on {t}  ({time.strftime('%H:%M:%S')}, load {_load()})", flush=True)
                measure(a, t, running[t], n)
    finally:
        for r in running.values():
            kill_tree(r["pid"])
            merge(r["out"], scenarios)


def _harness_scenarios() -> list[str]:
    import run  # type: ignore[import-not-found]

    return list(run.SCENARIOS)


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# ---------------------------------------------------------------- the table


def table(out_dir: Path) -> str:
    runs: dict[str, dict[str, Any]] = {}
    for t in ALL_TARGETS:
        f = out_dir / t / "run.json"
        if f.exists():
            runs[t] = json.loads(f.read_text())
    if not runs:
        return "no results"
    ref = runs.get("ref-mysql")
    names: list[str] = []
    for r in runs.values():
        names += [n for n in r["scenarios"] if n not in names]
    lines = []
    for t, r in runs.items():
        lines.append(
            f"- {t}: {r['when']}, load {r['host']['loadavg_start']} -> {r['host']['loadavg_end']}"
            f", cold start {r['server'].get('cold_start_s')} s"
            f", seeding {(r.get('seed') or {}).get('req_per_s')} req/s"
        )
    head = "| scenario |"
    rule = "|---|"
    for t in runs:
        head += f" {t} req/s | p99 ms |"
        rule += "---:|---:|"
        if ref is not None and t != "ref-mysql":
            head += " x ref-mysql | p99 ref/it |"
            rule += "---:|---:|"
    lines += ["", head, rule]
    for n in names:
        row = f"| {n} |"
        r0 = ref["scenarios"].get(n) if ref else None
        for t, r in runs.items():
            e = r["scenarios"].get(n)
            if not e or not e.get("ok"):
                row += f" {'missing' if not e else 'FAILED'} | |"
                if ref is not None and t != "ref-mysql":
                    row += " | |"
                continue
            flag = "*" if e.get("disturbed") else ""
            row += f" {e['rps']:.1f}{flag} | {e['p99_ms']:.1f} |"
            if ref is not None and t != "ref-mysql":
                if r0 and r0.get("ok") and r0["rps"] and e["p99_ms"]:
                    row += f" {e['rps'] / r0['rps']:.1f} | {r0['p99_ms'] / e['p99_ms']:.1f} |"
                else:
                    row += " - | - |"
        lines.append(row)
    lines += ["", "`*`: other processes used more than 0.4 cores during every attempt."]
    lines += ["", "other load (cores) per scenario, and db CPU s/1k requests:", ""]
    for t, r in runs.items():
        cells = []
        for n, e in r["scenarios"].items():
            if e.get("ok"):
                cells.append(
                    f"{n} {e['other_cores']:.2f}/{e.get('db_cpu_s_per_1k')}"
                    f" (load {e['loadavg_before'].split()[0]}, {e['attempts']} att.)"
                )
        lines.append(f"- {t}: " + "; ".join(cells))
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--harness":
        rest = sys.argv[3:]
        run_harness(sys.argv[2], rest[1:] if rest[:1] == ["--"] else rest)
        return
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--app", type=Path, help="the app directory of scripts/bench-app")
    ap.add_argument("--reference", default="/tmp/reference", help="setup.sh's directory")
    ap.add_argument("--out-dir", default="/tmp/sitting")
    ap.add_argument("--targets", default=",".join(TARGETS[:4]))
    ap.add_argument("--articles", type=int, default=2000)
    ap.add_argument("--only", help="comma-separated scenarios (default: all)")
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--quiet-wait", type=float, default=120)
    ap.add_argument("--retries", type=int, default=1, help="run.py's retries of a disturbed run")
    ap.add_argument("--mysql", default="mysql://root@127.0.0.1:3306")
    ap.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432")
    ap.add_argument("--table", type=Path, help="print the table of an earlier sitting and exit")
    a = ap.parse_args()
    if a.table:
        print(table(a.table))
        return
    if not a.app:
        ap.error("--app is required")
    if urlsplit(a.mysql).path not in ("", "/"):
        ap.error("--mysql is the server's URL, without a database")
    targets = a.targets.split(",")
    for t in targets:
        if t not in ALL_TARGETS:
            ap.error(f"unknown target {t}: one of {', '.join(ALL_TARGETS)}")
    sitting(a, targets)
    print(table(Path(a.out_dir)))


if __name__ == "__main__":
    main()
