#!/usr/bin/env python3
"""GraphQL benchmark: a page of articles with a dynamic zone, a component and nested relations.

Runs against a server already seeded by the side-by-side harness (../shared/bench/seed.py), Folio or
the reference, with the same base URL and tokens file ({"full", "read"}):

  python3 bench/graphql_zone.py --base http://127.0.0.1:1400 --tokens /tmp/benchapp/tokens.json \
      --label folio --out /tmp/graphql-zone-folio.json [--pid SERVER_PID]

1. Gives the first 200 published articles (sorted by slug) a dynamic zone `blocks` (quote, rich text,
   quote) and a `seo` component, through REST `PUT /api/articles/:documentId` with the full token
   (each answer must be 200). Idempotent: re-running rewrites the same content.
2. Verifies one `POST /graphql` of QUERY (200, no `errors`, non-empty `data.articles`; prints a sample).
3. Runs wrk (1 thread, 16 connections, --timeout 10s): 3 s warm-up (discarded), then 10 s measured.

Writes requests/s, latency p50/p90/p99/max, non-2xx and socket errors and bytes per request to --out;
with --pid also the server process tree's CPU seconds per 1000 requests (measured run plus the
requests in flight when wrk stops, until the server is idle again), as run.py does.
Standard library only, plus `wrk`.
"""
import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse

QUERY = ('{ articles(pagination:{pageSize:25}, sort:"slug:asc") { documentId title '
         'blocks { __typename ... on ComponentSharedQuote { title body } ... on ComponentSharedRichText { body } } '
         'seo { metaTitle } '
         'category { name articles(pagination:{limit:5}) { title tags { name } } } '
         'tags { name articles(pagination:{limit:3}) { title author { name } } } '
         'author { name profile { handle } } } }')
N_ZONE = 200

LUA_DONE = r'''
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRKJSON {"requests":%d,"duration_us":%d,"bytes":%d,"err_connect":%d,' ..
    '"err_read":%d,"err_write":%d,"err_status":%d,"err_timeout":%d,' ..
    '"lat_max_us":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency.max, latency:percentile(50), latency:percentile(90), latency:percentile(99)))
end
'''


def request(conn, method, path, body=None, token=None):
    h = {"Accept": "application/json"}
    if token:
        h["Authorization"] = "Bearer " + token
    if body is not None:
        body = json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    conn.request(method, path, body=body, headers=h)
    r = conn.getresponse()
    raw = r.read()
    try:
        return r.status, json.loads(raw), raw
    except ValueError:
        return r.status, None, raw


def zone(i):
    return {
        "blocks": [
            {"__component": "shared.quote", "title": "Quote %d" % i,
             "body": "Simplicity is prerequisite for reliability (article %d)." % i},
            {"__component": "shared.rich-text",
             "body": "## Section %d\n\nSome **rich** text with a [link](https://example.com/%d) and a list:\n\n"
                     "- one\n- two\n- three\n" % (i, i)},
            {"__component": "shared.quote", "title": "Second quote %d" % i,
             "body": "Premature optimization is the root of all evil (article %d)." % i},
        ],
        "seo": {"metaTitle": "Article %d" % i, "metaDescription": "Meta description of article %d." % i},
    }


def add_zones(conn, full):
    ids, page = [], 1
    while len(ids) < N_ZONE:
        st, js, raw = request(conn, "GET", "/api/articles?fields[0]=slug&sort=slug:asc"
                                           "&pagination[pageSize]=100&pagination[page]=%d" % page)
        if st != 200 or not js.get("data"):
            sys.exit("cannot list articles: %s %s" % (st, raw[:300]))
        ids += [d["documentId"] for d in js["data"]]
        page += 1
    t0 = time.perf_counter()
    for i, doc in enumerate(ids[:N_ZONE]):
        st, _, raw = request(conn, "PUT", "/api/articles/" + doc, {"data": zone(i)}, token=full)
        if st != 200:
            sys.exit("PUT /api/articles/%s -> %s %s" % (doc, st, raw[:500].decode(errors="replace")))
    dt = time.perf_counter() - t0
    print("zone + seo written to %d articles in %.1f s" % (N_ZONE, dt), flush=True)
    return round(dt, 2)


def verify(conn):
    st, js, raw = request(conn, "POST", "/graphql", {"query": QUERY})
    arts = ((js or {}).get("data") or {}).get("articles")
    ok = st == 200 and isinstance(js, dict) and not js.get("errors") and bool(arts)
    sample = raw[:600].decode(errors="replace")
    print("verify: %s %s, %d B | %s" % (st, "OK" if ok else "FAILED", len(raw), sample), flush=True)
    info = {"status": st, "bytes": len(raw)}
    info["sample" if ok else "response"] = sample if ok else raw.decode(errors="replace")
    return ok, info


def tree_cpu_s(pid):
    """utime+stime of pid and all its descendants."""
    stats = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    s = f.read().rsplit(")", 1)[1].split()
                stats[int(d)] = (int(s[1]), (int(s[11]) + int(s[12])) / os.sysconf("SC_CLK_TCK"))
            except (OSError, IndexError):
                pass
    tree, todo = set(), [pid]
    while todo:
        p = todo.pop()
        tree.add(p)
        todo += [c for c, (pp, _) in stats.items() if pp == p and c not in tree]
    return sum(stats[p][1] for p in tree if p in stats)


def drain(pid):
    """Waits until the server stops burning CPU (requests abandoned by wrk are still processed)."""
    if not pid:
        time.sleep(2)
        return 0.0
    c0 = last = tree_cpu_s(pid)
    quiet, t0 = 0, time.time()
    while quiet < 3 and time.time() - t0 < 60:
        time.sleep(0.1)
        c = tree_cpu_s(pid)
        quiet = quiet + 1 if c - last <= 0.01 else 0
        last = c
    return last - c0


def run_wrk(a, lua, seconds):
    cmd = ["wrk", "-t1", "-c%d" % a.connections, "-d%ds" % seconds, "--timeout", "10s", "--latency",
           "-s", lua, a.base]
    r = subprocess.run(cmd, capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if line.startswith("WRKJSON "):
            return json.loads(line[8:])
    sys.exit("wrk failed (rc %s): %s %s" % (r.returncode, r.stdout[-800:], r.stderr[-800:]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True)
    ap.add_argument("--tokens", required=True, help='JSON file {"full": ..., "read": ...}')
    ap.add_argument("--label", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--pid", type=int, help="server PID, to record its CPU per request")
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--connections", type=int, default=16)
    a = ap.parse_args()
    with open(a.tokens) as f:
        full = json.load(f)["full"]
    u = urllib.parse.urlsplit(a.base)
    conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=60)

    out = {"label": a.label, "base": a.base, "when": time.strftime("%Y-%m-%dT%H:%M:%S"), "query": QUERY,
           "config": {"threads": 1, "connections": a.connections, "warmup_s": a.warmup, "duration_s": a.duration},
           "zone_articles": N_ZONE, "zone_write_s": add_zones(conn, full)}
    ok, info = verify(conn)
    conn.close()
    out.update(ok=ok, verify=info)
    if ok:
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
            f.write("wrk.method = 'POST'\nwrk.path = '/graphql'\n"
                    "wrk.headers['Content-Type'] = 'application/json'\n"
                    "wrk.body = [==[%s]==]\n%s" % (json.dumps({"query": QUERY}), LUA_DONE))
        try:
            run_wrk(a, f.name, a.warmup)
            drain(a.pid)
            c0 = tree_cpu_s(a.pid) if a.pid else None
            w = run_wrk(a, f.name, a.duration)
            cpu = tree_cpu_s(a.pid) - c0 + drain(a.pid) if a.pid else None
        finally:
            os.unlink(f.name)
        n, dur = w["requests"], w["duration_us"] / 1e6
        out.update({
            "requests": n, "duration_s": round(dur, 3), "rps": round(n / dur, 1),
            "p50_ms": round(w["p50_us"] / 1000, 2), "p90_ms": round(w["p90_us"] / 1000, 2),
            "p99_ms": round(w["p99_us"] / 1000, 2), "max_ms": round(w["lat_max_us"] / 1000, 2),
            "non2xx": w["err_status"],
            "socket_errors": {k[4:]: w[k] for k in ("err_connect", "err_read", "err_write", "err_timeout")},
            "bytes_per_req": round(w["bytes"] / n) if n else 0,
            "server_cpu_s_per_1k_incl_inflight": round(cpu / (n + a.connections) * 1000, 3)
            if cpu is not None else None,
        })
        print("[%s] graphql-zone %.1f req/s  p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  non2xx %d  cpu/1k %s s"
              % (a.label, out["rps"], out["p50_ms"], out["p90_ms"], out["p99_ms"], out["non2xx"],
                 out["server_cpu_s_per_1k_incl_inflight"]), flush=True)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=2)
    print("wrote", a.out)
    sys.exit(0 if ok else 2)


if __name__ == "__main__":
    main()
