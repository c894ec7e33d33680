"""`folio token ...`, `folio permissions ...`, `folio role ...` and `folio user ...`: access
control from the shell. Tokens and users live in the database; roles and permissions in
`config/permissions.json`, which a running server re-reads within a second."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from folio.app import Folio, load_app
from folio.auth.permissions import catalogue, expand, read_declared, write_declared
from folio.errors import ConfigError, FolioError

LIFESPANS = ("7", "30", "90")
DAY_MS = 86_400_000


def with_app(app_dir: str, work: Callable[[Folio], Awaitable[int]]) -> int:
    """Runs `work` on the app of `app_dir`, started without its bootstrap, and closes it."""

    async def run() -> int:
        folio = load_app(Path(app_dir))
        await folio.start(bootstrap=False)
        try:
            return await work(folio)
        finally:
            await folio.close()

    return asyncio.run(run())


def _print_token(doc: dict[str, Any]) -> None:
    expires = doc.get("expiresAt") or "never"
    used = doc.get("lastUsedAt") or "never"
    print(f"{doc['id']:>4}  {doc['name']:<24} {doc['type']:<12} expires {expires}  used {used}")


def token(args: argparse.Namespace) -> int:
    async def work(folio: Folio) -> int:
        if args.action == "create":
            data: dict[str, Any] = {"name": args.name, "type": args.type}
            if args.description:
                data["description"] = args.description
            if args.lifespan:
                data["lifespan"] = int(args.lifespan) * DAY_MS
            if args.permission:
                data["permissions"] = list(args.permission)
            doc = await folio.tokens.create(data)
            print(
                f"Created API token {doc['id']} ({doc['name']}, {doc['type']}); copy the "
                "access key now, it will not be shown again:",
                file=sys.stderr,
            )
            print(doc["accessKey"])
        elif args.action == "list":
            for doc in await folio.tokens.list():
                _print_token(doc)
        elif args.action == "revoke":
            revoked = await folio.tokens.revoke(int(args.id))
            if revoked is None:
                print(f"folio: there is no API token {args.id}", file=sys.stderr)
                return 1
            print(f"Revoked API token {revoked['id']} ({revoked['name']}).")
        else:
            doc = await folio.tokens.regenerate(int(args.id))
            print(doc["accessKey"])
        return 0

    return with_app(args.app, work)


def user(args: argparse.Namespace) -> int:
    async def work(folio: Folio) -> int:
        if args.action == "create":
            data = {"username": args.username, "email": args.email, "password": args.password}
            data["confirmed"] = True
            doc = await folio.users.create(data, role=args.role)
            print(f"Created user {doc['id']} ({doc['username']}, role {args.role}).")
        elif args.action in ("block", "unblock"):
            await folio.users.update(int(args.id), {"blocked": args.action == "block"})
            print(f"User {args.id} {args.action}ed.")
        else:
            ids = await folio.users.list_ids()
            for user_id in ids:
                found = await folio.users.get(user_id)
                if found is not None:
                    flag = " (blocked)" if found.get("blocked") else ""
                    print(f"{found['id']:>4}  {found['username']:<24} {found['email']}{flag}")
        return 0

    return with_app(args.app, work)


def permissions(args: argparse.Namespace) -> int:
    """Lists, grants or revokes permissions of a role, and adds or removes roles."""
    app = Path(args.app).resolve()
    from folio.schema.loader import load_registry

    actions = catalogue(load_registry(app))
    roles = read_declared(app)
    if args.command == "role":
        if args.action == "list":
            for type_, spec in roles.items():
                print(f"{type_:<16} {spec['name']:<20} {len(spec['permissions'])} permission(s)")
            return 0
        if args.action == "add":
            if args.type in roles:
                raise ConfigError(f"role {args.type!r} exists already")
            roles[args.type] = {
                "name": args.name or args.type.capitalize(),
                "description": args.description or "",
                "permissions": [],
            }
        else:
            if args.type in ("public", "authenticated"):
                raise ConfigError(f"role {args.type!r} is built in and cannot be removed")
            if args.type not in roles:
                raise ConfigError(f"there is no role {args.type!r}")
            del roles[args.type]
        write_declared(app, roles)
        print(f"Role {args.type} {'added' if args.action == 'add' else 'removed'}.")
        return 0
    if args.role not in roles:
        raise ConfigError(f"there is no role {args.role!r} (see `folio role list`)")
    role = roles[args.role]
    if args.action == "list":
        for action in sorted(expand(role["permissions"], actions, args.role)):
            print(action)
        return 0
    listed: list[str] = list(role["permissions"])
    for name in args.actions:
        expand([name], actions, "permission")  # an unknown action is an error
        if args.action == "grant" and name not in listed:
            listed.append(name)
        elif args.action == "revoke":
            if name in listed:
                listed.remove(name)
            elif "*" not in name:
                covered = [p for p in listed if "*" in p and name in expand([p], actions, "")]
                if covered:
                    raise ConfigError(
                        f"{name} is granted by the pattern(s) {', '.join(covered)}; "
                        "revoke the pattern and grant what should stay"
                    )
    role["permissions"] = listed
    write_declared(app, roles)
    verb = "granted to" if args.action == "grant" else "revoked from"
    print(f"{len(args.actions)} permission(s) {verb} {args.role}.")
    return 0


def with_app_option(group: Any) -> None:
    """`--app DIR` (default: the current directory) on every command of a group."""
    for parser in group.choices.values():
        parser.add_argument("--app", default=".", help="the app directory")


def add_parsers(sub: Any) -> None:
    tok = sub.add_parser("token", help="create, list and revoke API tokens")
    tok_sub = tok.add_subparsers(dest="action", required=True)
    create = tok_sub.add_parser("create", help="create a token and print its access key")
    create.add_argument("--name", required=True)
    create.add_argument(
        "--type", default="read-only", choices=["read-only", "full-access", "custom"]
    )
    create.add_argument("--description")
    create.add_argument("--lifespan", choices=sorted(LIFESPANS), help="days until it expires")
    create.add_argument(
        "--permission", action="append", help="an action of a custom token (repeatable)"
    )
    tok_sub.add_parser("list", help="list the tokens")
    for action in ("revoke", "regenerate"):
        p = tok_sub.add_parser(action, help=f"{action} a token by id")
        p.add_argument("id", type=int)
    with_app_option(tok_sub)

    usr = sub.add_parser("user", help="create, list, block and unblock users")
    usr_sub = usr.add_subparsers(dest="action", required=True)
    create = usr_sub.add_parser("create", help="create a confirmed user")
    create.add_argument("--username", required=True)
    create.add_argument("--email", required=True)
    create.add_argument("--password", required=True)
    create.add_argument("--role", default="authenticated")
    usr_sub.add_parser("list", help="list the users")
    for action in ("block", "unblock"):
        p = usr_sub.add_parser(action, help=f"{action} a user by id")
        p.add_argument("id", type=int)
    with_app_option(usr_sub)

    perm = sub.add_parser("permissions", help="list, grant and revoke a role's permissions")
    perm_sub = perm.add_subparsers(dest="action", required=True)
    p = perm_sub.add_parser("list", help="the actions a role may run")
    p.add_argument("role")
    for action in ("grant", "revoke"):
        p = perm_sub.add_parser(action, help=f"{action} actions (names or `*` patterns)")
        p.add_argument("role")
        p.add_argument("actions", nargs="+")
    with_app_option(perm_sub)

    role = sub.add_parser("role", help="list, add and remove roles")
    role_sub = role.add_subparsers(dest="action", required=True)
    role_sub.add_parser("list", help="the roles")
    p = role_sub.add_parser("add", help="add a role")
    p.add_argument("type")
    p.add_argument("--name")
    p.add_argument("--description")
    p = role_sub.add_parser("remove", help="remove a role")
    p.add_argument("type")
    with_app_option(role_sub)


def run(args: argparse.Namespace) -> int:
    try:
        if args.command == "token":
            return token(args)
        if args.command == "user":
            return user(args)
        return permissions(args)
    except (ConfigError, FolioError) as exc:
        message = exc.message if isinstance(exc, FolioError) else str(exc)
        details = exc.details.get("errors") if isinstance(exc, FolioError) else None
        print(f"folio: {message}", file=sys.stderr)
        for item in details or []:
            print(
                f"  {'.'.join(str(p) for p in item.get('path', []))}: {item.get('message')}",
                file=sys.stderr,
            )
        return 1
