"""Roles and permissions from config/permissions.json: patterns, unknown names, defaults."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from folio.auth.permissions import RoleTable, catalogue
from folio.errors import ConfigError
from folio.schema.loader import load_registry
from tests.conftest import FIXTURES


@pytest.fixture
def app(tmp_path: Path) -> Path:
    target = tmp_path / "app"
    shutil.copytree(FIXTURES / "blog", target)
    return target


def write(app: Path, roles: dict[str, object]) -> None:
    (app / "config" / "permissions.json").write_text(json.dumps({"roles": roles}))


def test_without_a_file_the_reference_defaults_apply(app: Path) -> None:
    table = RoleTable(app, catalogue(load_registry(app)))
    assert "plugin::users-permissions.auth.register" in table.roles["public"].permissions
    assert not any(p.startswith("api::") for p in table.roles["public"].permissions)
    assert table.roles["authenticated"].permissions == {
        "plugin::users-permissions.user.me",
        "plugin::users-permissions.auth.changePassword",
    }


def test_patterns_expand_against_the_apps_actions(app: Path) -> None:
    write(app, {"editor": {"permissions": ["api::article.article.*", "api::*.find"]}})
    table = RoleTable(app, catalogue(load_registry(app)))
    editor = table.roles["editor"].permissions
    assert "api::article.article.delete" in editor
    assert "api::tag.tag.find" in editor and "api::tag.tag.create" not in editor
    assert "api::global.global.findOne" not in editor  # single types have no findOne
    assert "public" in table.roles and "authenticated" in table.roles


@pytest.mark.parametrize(
    "permissions", [["api::articel.article.find"], [""], [3], "api::article.article.find"]
)
def test_an_unknown_action_stops_start_up(app: Path, permissions: object) -> None:
    write(app, {"public": {"permissions": permissions}})
    with pytest.raises(ConfigError, match=r"permissions\.json"):
        RoleTable(app, catalogue(load_registry(app)))
