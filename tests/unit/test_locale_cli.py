"""`folio locale list | add | remove | default` keep config/i18n.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from folio.cli.main import main


@pytest.fixture
def app(tmp_path: Path) -> Path:
    target = tmp_path / "app"
    assert main(["new", str(target), "--empty"]) == 0
    return target


def config(app: Path) -> dict[str, object]:
    return dict(json.loads((app / "config" / "i18n.json").read_text()))


def test_add_default_remove(app: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a new app has English (the default) and French
    assert [loc["code"] for loc in config(app)["locales"]] == ["en", "fr"]  # type: ignore[attr-defined]
    assert main(["locale", "add", "de", "German (de)", "--app", str(app)]) == 0
    assert main(["locale", "add", "pt-BR", "--app", str(app)]) == 0
    assert [loc["code"] for loc in config(app)["locales"]] == ["en", "fr", "de", "pt-BR"]  # type: ignore[attr-defined]
    assert main(["locale", "default", "de", "--app", str(app)]) == 0
    assert config(app)["defaultLocale"] == "de"
    capsys.readouterr()
    assert main(["locale", "list", "--app", str(app)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "en\tEnglish (en)",
        "fr\tFrench (fr)",
        "de\tGerman (de)\t(default)",
        "pt-BR\tpt-BR",
    ]
    assert main(["locale", "remove", "en", "--app", str(app)]) == 0
    assert [loc["code"] for loc in config(app)["locales"]] == ["fr", "de", "pt-BR"]  # type: ignore[attr-defined]


def test_refusals(app: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["locale", "remove", "en", "--app", str(app)]) == 1
    assert "default locale" in capsys.readouterr().err
    assert main(["locale", "add", "en", "--app", str(app)]) == 1
    assert "already" in capsys.readouterr().err
    assert main(["locale", "add", "not a code", "--app", str(app)]) == 1
    assert main(["locale", "default", "de", "--app", str(app)]) == 1
    assert main(["locale", "remove", "de", "--app", str(app)]) == 1
    assert [loc["code"] for loc in config(app)["locales"]] == ["en", "fr"]  # type: ignore[attr-defined]


def test_removing_a_locale_with_content_needs_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from tests.conftest import FIXTURES, make_api, open_access

    app = tmp_path / "blog"
    shutil.copytree(FIXTURES / "blog", app)
    open_access(app)
    url = f"sqlite:///{app / '.tmp' / 'data.db'}"
    for api in make_api(app, url):
        tag = api.create("tags", {"name": "t"})["documentId"]
        doc = api.create("articles", {"title": "Hello", "tags": [tag]})["documentId"]
        r = api.put(f"/api/articles/{doc}?locale=fr", {"data": {"title": "Bonjour", "tags": [tag]}})
        assert r.status_code == 200, r.text
    capsys.readouterr()
    assert main(["locale", "remove", "fr", "--app", str(app)]) == 1
    err = capsys.readouterr().err
    assert "locale fr still has content (2 of api::article.article): nothing changed" in err
    assert "--force` deletes that content (every version in fr" in err
    assert "fr" in [loc["code"] for loc in config(app)["locales"]]  # type: ignore[attr-defined]
    assert main(["locale", "remove", "fr", "--app", str(app), "--force"]) == 0
    assert "deleted the content in fr: 2 of api::article.article" in capsys.readouterr().out
    assert "fr" not in [loc["code"] for loc in config(app)["locales"]]  # type: ignore[attr-defined]
    for api in make_api(app, url):
        r = api.get(f"/api/articles/{doc}?populate[tags][fields][0]=name")
        assert r.json()["data"]["title"] == "Hello"
        assert [t["name"] for t in r.json()["data"]["tags"]] == ["t"]
        # the tag no longer lists the deleted French version
        r = api.get(f"/api/tags/{tag}?populate[articles][fields][0]=title")
        assert [a["title"] for a in r.json()["data"]["articles"]] == ["Hello"]
