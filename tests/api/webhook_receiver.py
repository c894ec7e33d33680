"""A webhook receiver for the tests, run as its own process: it records every request it
gets (path, headers, body, the status it answered) as a JSON line in a file, and answers
as it is told by `POST /_control` (per path: fail the next N requests, answer a status,
hang for some seconds).

    python webhook_receiver.py --port 8123 --log requests.jsonl"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOCK = threading.Lock()
# path ("*": any) -> {"fail": n, "status": code, "hang": seconds}
BEHAVIOUR: dict[str, dict[str, Any]] = {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as most receivers
    # headers and body go out in two writes: without this, each answer's body waits for
    # the client's delayed acknowledgement of its headers (40 ms)
    disable_nagle_algorithm = True
    log_file: Any = None

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _answer(self, status: int, body: bytes = b"") -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._answer(200, b"ok")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path == "/_control":
            order = json.loads(body)
            with LOCK:
                BEHAVIOUR[order.pop("path", "*")] = order
            self._answer(200, b"ok")
            return
        with LOCK:
            rule = BEHAVIOUR.get(self.path, BEHAVIOUR.get("*", {}))
            status = int(rule.get("status", 200))
            if rule.get("fail", 0) > 0:
                rule["fail"] -= 1
                status = int(rule.get("failStatus", 500))
            hang = float(rule.get("hang", 0))
        record = {
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body.decode("utf-8", "replace"),
            "status": status,
            "at": time.time(),
        }
        with LOCK:
            self.log_file.write(json.dumps(record) + "\n")
            self.log_file.flush()
        if hang:
            time.sleep(hang)
        self._answer(status, b"ok" if status < 300 else b"receiver says no")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    with open(args.log, "a", encoding="utf-8") as log:
        Handler.log_file = log
        server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
        server.daemon_threads = True
        server.serve_forever()


if __name__ == "__main__":
    main()
