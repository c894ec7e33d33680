"""`folio locale list | add | remove | default`: the configured locales, kept in
`config/i18n.json` so that they live in version control with the app."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from folio.config import load_settings

CODE_RE = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$")


class LocaleError(Exception):
    pass


def _path(app_dir: Path) -> Path:
    if (app_dir / "config" / "i18n.py").is_file():
        raise LocaleError("config/i18n.py is a Python file: edit it by hand")
    return app_dir / "config" / "i18n.json"


def _read(app_dir: Path) -> dict[str, Any]:
    settings = load_settings(app_dir)
    return {
        "defaultLocale": settings.default_locale,
        "locales": [{"code": loc.code, "name": loc.name} for loc in settings.locales],
    }


def _write(app_dir: Path, config: dict[str, Any]) -> None:
    path = _path(app_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(config, option=orjson.OPT_INDENT_2) + b"\n")


def list_locales(app_dir: Path) -> list[str]:
    config = _read(app_dir)
    return [
        f"{loc['code']}\t{loc['name']}"
        + ("\t(default)" if loc["code"] == config["defaultLocale"] else "")
        for loc in config["locales"]
    ]


def add_locale(app_dir: Path, code: str, name: str | None) -> None:
    if not CODE_RE.match(code):
        raise LocaleError(f"{code!r} is not a locale code (like en, fr or pt-BR)")
    config = _read(app_dir)
    if any(loc["code"] == code for loc in config["locales"]):
        raise LocaleError(f"locale {code} is already configured")
    config["locales"].append({"code": code, "name": name or f"{code}"})
    _write(app_dir, config)


def remove_locale(app_dir: Path, code: str) -> None:
    config = _read(app_dir)
    if code == config["defaultLocale"]:
        raise LocaleError(f"{code} is the default locale: make another locale the default first")
    kept = [loc for loc in config["locales"] if loc["code"] != code]
    if len(kept) == len(config["locales"]):
        raise LocaleError(f"locale {code} is not configured")
    config["locales"] = kept
    _write(app_dir, config)


def set_default(app_dir: Path, code: str) -> None:
    config = _read(app_dir)
    if not any(loc["code"] == code for loc in config["locales"]):
        raise LocaleError(f"locale {code} is not configured: add it first")
    config["defaultLocale"] = code
    _write(app_dir, config)
