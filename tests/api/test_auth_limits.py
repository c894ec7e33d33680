"""What the sign-in, sign-up and password routes take and keep: credentials longer than
their maximum are refused before anything is counted under them, looked up or hashed, and
the rate limiter's windows are bounded in number (the oldest give way)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from folio.auth.ratelimit import MemoryRateLimiter
from tests.api.authapp import auth_api, bearer, make_auth_app, register
from tests.conftest import Api, failed

HUGE = 900 * 1024


def limits(**ratelimit: Any) -> dict[str, Any]:
    return {"users-permissions": {"config": {"ratelimit": {"interval": 60000, **ratelimit}}}}


@pytest.fixture
def api(backend: str, tmp_path: Path) -> Iterator[Api]:
    yield from auth_api(backend, make_auth_app(tmp_path, limits(max=1000)))


def windows(api: Api) -> int:
    """How many windows the app's limiter keeps."""
    limiter = api.folio.rate_limiter
    assert isinstance(limiter, MemoryRateLimiter)
    return len(limiter)


def test_a_huge_identifier_is_refused_and_enters_no_window(backend: str, tmp_path: Path) -> None:
    for api in auth_api(backend, make_auth_app(tmp_path, limits(max=3))):
        seen = []
        for i in range(5):
            identifier = str(i) * HUGE  # a new identifier each time
            seen.append(api.post("/api/auth/local", {"identifier": identifier, "password": "x"}))
        assert [r.status_code for r in seen] == [400, 400, 400, 429, 429]
        error = failed(seen[0])
        assert error["message"] == "identifier must be at most 255 characters"
        assert "value" not in error["details"]["errors"][0]  # not echoed back
        assert len(seen[0].content) < 1000
        assert seen[0].headers["X-RateLimit-Remaining"] == "2"
        # counted under the client's address only: one window, whatever was sent
        assert windows(api) == 1
        # a sign-in of normal size enters its identifier's window as before
        api.post("/api/auth/local", {"identifier": "someone", "password": "whatever1"})
        assert windows(api) == 2


def test_every_account_route_refuses_oversized_credentials(api: Api) -> None:
    jwt = register(api, "alice")["jwt"]
    long_name, long_password = "a" * 256, "p" * 257
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("/api/auth/local", {"identifier": long_name, "password": "secret123"}, "identifier"),
        ("/api/auth/local", {"identifier": "alice", "password": long_password}, "password"),
        (
            "/api/auth/local/register",
            {"username": "bob", "email": long_name + "@example.com", "password": "secret123"},
            "email",
        ),
        (
            "/api/auth/local/register",
            {"username": long_name, "email": "bob@example.com", "password": "secret123"},
            "username",
        ),
        ("/api/auth/forgot-password", {"email": "x" * HUGE + "@example.com"}, "email"),
        ("/api/auth/send-email-confirmation", {"email": "x" * HUGE}, "email"),
        (
            "/api/auth/reset-password",
            {"code": "c", "password": long_password, "passwordConfirmation": "secret123"},
            "password",
        ),
    ]
    for path, body, field in cases:
        error = failed(api.post(path, body))
        assert error["details"]["errors"][0]["path"] == [field], (path, error)
        most = "256 bytes" if field == "password" else "255 characters"
        assert error["message"] == f"{field} must be at most {most}", path
    error = failed(
        api.post(
            "/api/auth/change-password",
            {
                "currentPassword": "p" * HUGE,
                "password": "secret456",
                "passwordConfirmation": "secret456",
            },
            headers=bearer(jwt),
        )
    )
    assert error["message"] == "currentPassword must be at most 256 bytes"
    # nothing was created or changed: alice still signs in, bob does not exist
    r = api.post("/api/auth/local", {"identifier": "alice", "password": "secret123"})
    assert r.status_code == 200, r.text
    r = api.post("/api/auth/local", {"identifier": "bob", "password": "secret123"})
    assert failed(r)["message"] == "Invalid identifier or password"
    # at the maximum, the values are taken
    r = api.post(
        "/api/auth/local/register",
        {"username": "b" * 255, "email": "c" * 243 + "@example.com", "password": "secret123"},
    )
    assert r.status_code == 200, r.text
    r = api.post("/api/auth/local", {"identifier": "b" * 255, "password": "secret123"})
    assert r.status_code == 200, r.text


def test_the_limiter_keeps_a_bounded_number_of_windows(backend: str, tmp_path: Path) -> None:
    """With room for 5 windows, the oldest gives way to a new one: the first email's
    window (full after one request) is forgotten once 5 other emails have come."""
    for api in auth_api(backend, make_auth_app(tmp_path, limits(max=1, maxEntries=5))):

        def forgot(email: str, api: Api = api) -> int:
            return int(api.post("/api/auth/forgot-password", {"email": email}).status_code)

        assert [forgot("first@example.com") for _ in range(2)] == [200, 429]
        for i in range(4):
            assert forgot(f"other{i}@example.com") == 200
        assert windows(api) == 5
        assert forgot("first@example.com") == 429  # its window is still kept
        assert forgot("another@example.com") == 200
        assert windows(api) == 5
        assert forgot("first@example.com") == 200  # the oldest window gave way


def test_a_bad_window_count_setting_stops_start_up(tmp_path: Path) -> None:
    from folio.errors import ConfigError

    app = make_auth_app(tmp_path, limits(maxEntries=0))
    with pytest.raises(ConfigError, match=r"ratelimit\.maxEntries"):
        next(auth_api("sqlite", app))
