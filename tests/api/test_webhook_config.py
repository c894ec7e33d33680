"""config/webhooks.json and server.webhooks: what is read, and the one-line problems that
stop start-up, naming the file and the key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from folio.app import load_app
from folio.errors import ConfigError
from folio.webhooks.settings import DeliverySettings


def _write(app: Path, name: str, value: Any) -> None:
    (app / "config" / name).write_text(json.dumps(value))


def _problem(app: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_app(app)
    return str(caught.value)


HOOK = {"name": "site", "url": "https://example.com/hook"}


@pytest.mark.parametrize(
    ("hooks", "message"),
    [
        (
            [{**HOOK, "urll": "x"}],
            "config/webhooks.json: `webhooks[0]`: unknown key `urll`; did you mean `url`?",
        ),
        ([{"name": "site"}], "config/webhooks.json: webhooks[0].url is required"),
        (
            [{**HOOK, "url": "example.com/hook"}],
            "config/webhooks.json: webhooks[0].url must be a valid URL",
        ),
        (
            [{**HOOK, "events": ["entry.created"]}],
            "config/webhooks.json: webhooks[0].events has an unknown event 'entry.created'",
        ),
        (
            [{**HOOK, "headers": {"X-Number": 5}}],
            "config/webhooks.json: webhooks[0].headers X-Number must be a string (got 5)",
        ),
        (
            [{**HOOK, "enabled": "yes"}],
            "config/webhooks.json: webhooks[0].enabled must be true or false (got 'yes')",
        ),
        (
            [HOOK, {**HOOK, "url": "https://example.com/other"}],
            "config/webhooks.json: webhooks[1].name 'site' is used by an earlier webhook",
        ),
        (
            [{**HOOK, "secret": "short"}],
            "config/webhooks.json: webhooks[0].secret must be a string of 8 to 512",
        ),
    ],
)
def test_problems_of_config_webhooks(app_dir: Path, hooks: Any, message: str) -> None:
    _write(app_dir, "webhooks.json", {"webhooks": hooks})
    assert _problem(app_dir).startswith(message)


@pytest.mark.parametrize(
    ("server", "message"),
    [
        (
            {"maxAttempts": 0},
            "config/server: webhooks.maxAttempts must be a whole number of at least 1 (got 0)",
        ),
        (
            {"timeout": "soon"},
            "config/server: webhooks.timeout must be a number of at least 0.01 (got 'soon')",
        ),
        (
            {"backoff": 10, "maxBackoff": 5},
            "config/server: webhooks.maxBackoff must be at least backoff (5.0 < 10.0)",
        ),
        (
            {"defaultHeaders": {"Content-Length": "3"}},
            "config/server: webhooks.defaultHeaders cannot set Content-Length",
        ),
        (
            {"retries": 3},
            "config/server.json: `webhooks`: unknown key `retries`",
        ),
    ],
)
def test_problems_of_delivery_settings(app_dir: Path, server: Any, message: str) -> None:
    _write(app_dir, "server.json", {"webhooks": server})
    assert _problem(app_dir).startswith(message)


def test_settings_read_and_the_reference_s_keys_taken(app_dir: Path) -> None:
    _write(
        app_dir,
        "server.json",
        {
            "webhooks": {
                "defaultHeaders": {"X-From": "server"},
                "populateRelations": False,
                "timeout": "2.5",
                "maxAttempts": 3,
                "backoff": 1,
                "maxBackoff": 60,
                "pollInterval": 0.5,
                "retentionDays": 2,
            }
        },
    )
    hooks = app_dir / "config" / "webhooks.py"
    hooks.write_text(
        "def config(env):\n"
        "    return {'webhooks': [{'name': 'site', 'url': env('SITE_HOOK'),\n"
        "            'secret': env('SITE_SECRET'), 'events': ['entry.publish'],\n"
        "            'enabled': env.bool('SITE_ON', True)}]}\n"
    )
    import os

    os.environ.update(SITE_HOOK="https://example.com/h", SITE_SECRET="from-the-environment")
    try:
        folio = load_app(app_dir)
    finally:
        del os.environ["SITE_HOOK"], os.environ["SITE_SECRET"]
    assert folio.webhooks.settings == DeliverySettings(
        default_headers={"X-From": "server"},
        timeout=2.5,
        max_attempts=3,
        backoff=1.0,
        max_backoff=60.0,
        poll_interval=0.5,
        retention_days=2.0,
    )
    [hook] = folio.webhooks.configured
    assert (hook.key, hook.url, hook.secret, hook.events, hook.enabled) == (
        "config:site",
        "https://example.com/h",
        "from-the-environment",
        ("entry.publish",),
        True,
    )


def test_a_python_config_with_a_problem_names_its_file(app_dir: Path) -> None:
    (app_dir / "config" / "webhooks.py").write_text(
        "config = {'webhooks': [{'name': 'x', 'url': 'nope'}]}\n"
    )
    assert _problem(app_dir) == "config/webhooks.py: webhooks[0].url must be a valid URL"
