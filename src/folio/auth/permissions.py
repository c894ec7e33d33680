"""Roles and their permissions, declared in `config/permissions.json` (so they live in
version control) and re-read when that file changes (the CLI edits it at runtime).

    {"roles": {"public": {"name": "Public", "permissions": ["api::article.article.find"]},
               "authenticated": {"permissions": ["api::article.article.*", ...]},
               "editor": {"name": "Editor", "description": "...", "permissions": [...]}}}

A permission is an action name (`api::<api>.<type>.<action>`, `plugin::upload.content-api.
<action>`, `plugin::users-permissions.<controller>.<action>`) or a pattern with `*`. Every
name is checked against the catalogue of actions the app has, so a typo stops start-up."""

from __future__ import annotations

import fnmatch
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from folio.config_keys import check_keys
from folio.errors import ConfigError
from folio.schema.builtins import FILE_UID
from folio.schema.model import Registry
from folio.startup import nearest

log = logging.getLogger("folio.auth")

PUBLIC = "public"
AUTHENTICATED = "authenticated"

UPLOAD_ACTIONS = tuple(
    f"plugin::upload.content-api.{a}" for a in ("find", "findOne", "upload", "destroy")
)
AUTH_ACTIONS = tuple(
    f"plugin::users-permissions.auth.{a}"
    for a in (
        "callback",
        "register",
        "forgotPassword",
        "resetPassword",
        "changePassword",
        "emailConfirmation",
        "sendEmailConfirmation",
    )
)
USER_ACTIONS = tuple(
    f"plugin::users-permissions.user.{a}"
    for a in ("find", "findOne", "count", "me", "create", "update", "destroy")
)
ROLE_ACTIONS = tuple(f"plugin::users-permissions.role.{a}" for a in ("find", "findOne"))
# the configured locales, as GraphQL lists them
I18N_ACTIONS = ("plugin::i18n.locales.listLocales",)

# What a role has when the app declares nothing for it (the reference's defaults).
DEFAULT_ROLES: dict[str, dict[str, Any]] = {
    PUBLIC: {
        "name": "Public",
        "description": "Default role given to unauthenticated user.",
        "permissions": [a for a in AUTH_ACTIONS if not a.endswith(".changePassword")],
    },
    AUTHENTICATED: {
        "name": "Authenticated",
        "description": "Default role given to authenticated user.",
        "permissions": [
            "plugin::users-permissions.user.me",
            "plugin::users-permissions.auth.changePassword",
        ],
    },
}


def content_actions(registry: Registry) -> list[str]:
    actions: list[str] = []
    for ct in registry.content_types.values():
        if not ct.uid.startswith("api::"):
            continue
        names = (
            ("find", "update", "delete")
            if ct.is_single
            else (
                "find",
                "findOne",
                "create",
                "update",
                "delete",
            )
        )
        actions.extend(f"{ct.uid}.{a}" for a in names)
    return actions


def catalogue(registry: Registry) -> frozenset[str]:
    """Every action of the app that a permission may name."""
    return frozenset(
        [
            *content_actions(registry),
            *UPLOAD_ACTIONS,
            *AUTH_ACTIONS,
            *USER_ACTIONS,
            *ROLE_ACTIONS,
            *I18N_ACTIONS,
        ]
    )


def find_action(uid: str) -> str:
    """The permission needed to see documents of a type through a relation: `<uid>.find`
    (users and roles included); files map to the upload feature's `find`."""
    if uid == FILE_UID:
        return "plugin::upload.content-api.find"
    return f"{uid}.find"


def expand(patterns: Iterable[Any], actions: frozenset[str], where: str) -> frozenset[str]:
    """Action names from names and `*` patterns; an unknown name is a ConfigError."""
    out: set[str] = set()
    for pattern in patterns:
        if not isinstance(pattern, str) or not pattern:
            raise ConfigError(f"{where}: a permission must be an action name, not {pattern!r}")
        if "*" in pattern:
            matched = fnmatch.filter(actions, pattern)
            if not matched:
                log.warning("%s: %r matches no action", where, pattern)
            out.update(matched)
        elif pattern in actions:
            out.add(pattern)
        else:
            near = nearest(pattern, actions)
            hint = f"; did you mean {near!r}?" if near else ""
            raise ConfigError(f"{where}: unknown action {pattern!r}{hint}")
    return frozenset(out)


@dataclass(frozen=True)
class Role:
    type: str
    name: str
    description: str
    permissions: frozenset[str]
    declared: tuple[str, ...]


def permissions_file(app_dir: Path) -> Path:
    return app_dir / "config" / "permissions.json"


def read_declared(app_dir: Path) -> dict[str, dict[str, Any]]:
    """The roles as declared (defaults for public/authenticated when the file lacks them)."""
    path = permissions_file(app_dir)
    roles: dict[str, dict[str, Any]] = {k: dict(v) for k, v in DEFAULT_ROLES.items()}
    if not path.is_file():
        return roles
    where = f"config/{path.name}"
    try:
        data = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise ConfigError(f"{where}: invalid JSON ({exc})") from None
    declared = data.get("roles") if isinstance(data, dict) else None
    if not isinstance(declared, dict):
        raise ConfigError(f"{where}: expected an object with `roles`")
    problem = check_keys("permissions", data, where)
    if problem:
        raise ConfigError(problem)
    for type_, spec in declared.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("permissions", []), list):
            raise ConfigError(f"{where}: role {type_!r} needs a `permissions` list")
        base = roles.get(type_, {})
        roles[type_] = {
            "name": str(spec.get("name") or base.get("name") or type_),
            "description": str(spec.get("description") or base.get("description") or ""),
            "permissions": list(spec.get("permissions", [])),
        }
    return roles


def write_declared(app_dir: Path, roles: dict[str, dict[str, Any]]) -> None:
    path = permissions_file(app_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"roles": roles}
    temp = path.with_suffix(".json.tmp")
    temp.write_bytes(orjson.dumps(body, option=orjson.OPT_INDENT_2) + b"\n")
    temp.replace(path)


class RoleTable:
    """The roles of the app with resolved permission sets; re-reads the file when it
    changes (checked at most once a second)."""

    def __init__(self, app_dir: Path, actions: frozenset[str]) -> None:
        self.app_dir = app_dir
        self.actions = actions
        self.path = permissions_file(app_dir)
        self.roles: dict[str, Role] = {}
        self._stamp: float | None = None
        self._next_check = 0.0
        self.load()

    def _mtime(self) -> float | None:
        try:
            return self.path.stat().st_mtime_ns / 1e9
        except OSError:
            return None

    def load(self) -> None:
        stamp = self._mtime()
        declared = read_declared(self.app_dir)
        roles: dict[str, Role] = {}
        for type_, spec in declared.items():
            where = f"config/{self.path.name}: role {type_!r}"
            roles[type_] = Role(
                type=type_,
                name=spec["name"],
                description=spec["description"],
                permissions=expand(spec["permissions"], self.actions, where),
                declared=tuple(spec["permissions"]),
            )
        self.roles = roles
        self._stamp = stamp

    def refresh(self) -> bool:
        """Re-reads the file if it changed; a broken file keeps the last good roles."""
        now = time.monotonic()
        if now < self._next_check:
            return False
        self._next_check = now + 1.0
        if self._mtime() == self._stamp:
            return False
        try:
            self.load()
        except ConfigError as exc:
            log.error("permissions not reloaded: %s", exc)
            self._stamp = self._mtime()
            return False
        log.info("permissions reloaded from %s", self.path)
        return True

    def get(self, type_: str) -> Role | None:
        return self.roles.get(type_)
