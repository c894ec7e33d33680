"""`folio locale list | add | remove | default` keep config/i18n.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from folio.cli.main import main


@pytest.fixture
def app(tmp_path: Path) -> Path:
    target = tmp_path / "app"
    assert main(["new", str(target)]) == 0
    return target


def config(app: Path) -> dict[str, object]:
    return dict(json.loads((app / "config" / "i18n.json").read_text()))


def test_add_default_remove(app: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["locale", "add", "fr", "French (fr)", "--app", str(app)]) == 0
    assert main(["locale", "add", "pt-BR", "--app", str(app)]) == 0
    assert [loc["code"] for loc in config(app)["locales"]] == ["en", "fr", "pt-BR"]  # type: ignore[attr-defined]
    assert main(["locale", "default", "fr", "--app", str(app)]) == 0
    assert config(app)["defaultLocale"] == "fr"
    capsys.readouterr()
    assert main(["locale", "list", "--app", str(app)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["en\tEnglish (en)", "fr\tFrench (fr)\t(default)", "pt-BR\tpt-BR"]
    assert main(["locale", "remove", "en", "--app", str(app)]) == 0
    assert [loc["code"] for loc in config(app)["locales"]] == ["fr", "pt-BR"]  # type: ignore[attr-defined]


def test_refusals(app: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["locale", "remove", "en", "--app", str(app)]) == 1
    assert "default locale" in capsys.readouterr().err
    assert main(["locale", "add", "en", "--app", str(app)]) == 1
    assert "already" in capsys.readouterr().err
    assert main(["locale", "add", "not a code", "--app", str(app)]) == 1
    assert main(["locale", "default", "de", "--app", str(app)]) == 1
    assert main(["locale", "remove", "de", "--app", str(app)]) == 1
    assert [loc["code"] for loc in config(app)["locales"]] == ["en"]  # type: ignore[attr-defined]
