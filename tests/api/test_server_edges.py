"""A real server's edges. Client addresses: `X-Forwarded-For` is believed only from the
proxies configured in `config/server.json` (`trustedProxies`), so a client cannot dodge the
sign-in rate limit by claiming other addresses, and sign-in is also limited per identifier,
so that even behind a trusted proxy, changing addresses gives no more guesses at one
account. An unexpected error: the 500 envelope, and the connection stays usable."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

from tests.api.authapp import make_auth_app
from tests.api.serving import serving

LIMITS = {"users-permissions": {"config": {"ratelimit": {"interval": 60000, "max": 3}}}}


def _sign_in(base: str, identifier: str, address: str) -> int:
    body = json.dumps({"identifier": identifier, "password": "wrong-password"}).encode()
    req = urllib.request.Request(
        base + "/api/auth/local",
        body,
        {"Content-Type": "application/json", "X-Forwarded-For": address},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def _app(tmp_path: Path, proxies: list[str] | None) -> Path:
    app = make_auth_app(tmp_path, LIMITS)
    if proxies is not None:
        (app / "config" / "server.json").write_text(json.dumps({"trustedProxies": proxies}))
    return app


def test_forwarded_addresses_are_ignored_by_default(tmp_path: Path) -> None:
    with serving(_app(tmp_path, None)) as base:
        got = [_sign_in(base, f"user{i}", f"203.0.113.{i}") for i in range(4)]
    # every request counts against the real address, whatever it claims
    assert got == [400, 400, 400, 429]


def test_a_trusted_proxy_gives_each_client_its_window(tmp_path: Path) -> None:
    with serving(_app(tmp_path, ["127.0.0.1"])) as base:
        got = [_sign_in(base, f"user{i}", f"203.0.113.{i}") for i in range(5)]
        assert got == [400] * 5
        # one account from ever new addresses: limited per identifier
        guesses = [_sign_in(base, "victim", f"198.51.100.{i}") for i in range(4)]
        assert guesses == [400, 400, 400, 429]


def test_a_bad_proxy_setting_stops_start_up(tmp_path: Path) -> None:
    from folio.config import load_settings
    from folio.errors import ConfigError

    app = _app(tmp_path, ["not-an-address"])
    try:
        load_settings(app)
    except ConfigError as exc:
        assert "trustedProxies" in str(exc) and "not-an-address" in str(exc)
    else:
        raise AssertionError("a bad proxy setting was accepted")


def test_a_500_keeps_its_envelope_and_the_connection(tmp_path: Path) -> None:
    """An unexpected failure outside the content routes (here: the upload folder is a file,
    so storing fails) answers the 500 envelope, and the next request on the same
    connection is served."""
    import http.client
    import shutil

    from tests.conftest import FIXTURES, open_access

    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", app)
    open_access(app)
    uploads = app / "public" / "uploads"
    if uploads.exists():
        shutil.rmtree(uploads)
    uploads.parent.mkdir(parents=True, exist_ok=True)
    uploads.write_text("not a folder")
    with serving(app) as base:
        host, port = base.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        boundary = "b0undary"
        body = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n'
            f"Content-Type: text/plain\r\n\r\nhello\r\n--{boundary}--\r\n"
        ).encode()
        conn.request(
            "POST",
            "/api/upload",
            body,
            {"Content-Type": f"multipart/form-data; boundary={boundary}"},
        )
        r = conn.getresponse()
        answer = json.loads(r.read())
        assert r.status == 500
        assert answer == {
            "data": None,
            "error": {
                "status": 500,
                "name": "InternalServerError",
                "message": "Internal Server Error",
                "details": {},
            },
        }
        conn.request("GET", "/api/tags")
        again = conn.getresponse()
        assert again.status == 200
        again.read()
        conn.close()
