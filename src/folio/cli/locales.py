"""`folio locale list | add | remove | default`: the configured locales, kept in
`config/i18n.json` so that they live in version control with the app."""

from __future__ import annotations

import asyncio
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


def remove_locale(app_dir: Path, code: str, force: bool = False) -> str | None:
    """Removes a locale from the configuration. A locale that still has content is kept
    unless `force`, which first deletes that content (every version in the locale, drafts
    and published, of every localized type) in one transaction. Returns what was deleted,
    if anything."""
    config = _read(app_dir)
    if code == config["defaultLocale"]:
        raise LocaleError(f"{code} is the default locale: make another locale the default first")
    kept = [loc for loc in config["locales"] if loc["code"] != code]
    if len(kept) == len(config["locales"]):
        raise LocaleError(f"locale {code} is not configured")
    counts = asyncio.run(_content(app_dir, code, delete=False))
    held = _describe(counts)
    deleted = None
    if held:
        if not force:
            raise LocaleError(
                f"locale {code} still has content ({held}): nothing changed. "
                f"`folio locale remove {code} --force` deletes that content (every version in "
                f"{code}, drafts and published) in one transaction, then removes the locale"
            )
        deleted = _describe(asyncio.run(_content(app_dir, code, delete=True)))
    config["locales"] = kept
    _write(app_dir, config)
    return deleted


def _describe(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} of {uid}" for uid, n in sorted(counts.items()) if n)


async def _content(app_dir: Path, code: str, delete: bool) -> dict[str, int]:
    from folio.app import load_app

    folio = load_app(app_dir)
    await folio.start(bootstrap=False)
    try:
        if delete:
            return await folio.documents.delete_locale(code)
        return await folio.documents.locale_content(code)
    finally:
        await folio.close()


def set_default(app_dir: Path, code: str) -> None:
    config = _read(app_dir)
    if not any(loc["code"] == code for loc in config["locales"]):
        raise LocaleError(f"locale {code} is not configured: add it first")
    config["defaultLocale"] = code
    _write(app_dir, config)
