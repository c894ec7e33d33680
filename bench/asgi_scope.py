"""The ASGI scope of one HTTP request, for the benchmarks that call the application in
their own process (no sockets): bench/inprocess.py, bench/admin_list.py."""

from __future__ import annotations

from typing import Any


def http_scope(method: str, target: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    """The scope of a request for `target` (a path with its query string) from a local
    client."""
    path, _, query = target.partition("?")
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 1400),
        "state": {},
    }
