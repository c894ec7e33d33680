"""`folio admin ...`: the admin panel's administrators from the shell.

    folio admin create --email E --firstname F [--lastname L] [--password P]
    folio admin reset-password --email E [--password P]
    folio admin list

Without `--password` the password is asked on the terminal (twice, not shown). A password
must have 8 characters or more, a lower-case and an upper-case letter and a digit."""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from folio.app import Folio
from folio.cli.access import with_app
from folio.content.accounts.admins import password_problems
from folio.errors import ConfigError, FolioError


def add_parsers(sub: Any) -> None:
    adm = sub.add_parser("admin", help="create administrators of the admin panel, reset passwords")
    adm_sub = adm.add_subparsers(dest="action", required=True)
    create = adm_sub.add_parser("create", help="create an administrator")
    create.add_argument("--email", required=True)
    create.add_argument("--firstname", required=True)
    create.add_argument("--lastname")
    create.add_argument("--password", help="asked on the terminal when left out")
    reset = adm_sub.add_parser("reset-password", help="set an administrator's password")
    reset.add_argument("--email", required=True)
    reset.add_argument("--password", help="asked on the terminal when left out")
    adm_sub.add_parser("list", help="list the administrators")
    for parser in adm_sub.choices.values():
        parser.add_argument("--app", default=".", help="the app directory")


class Refused(Exception):
    """The command cannot go on (a message for the terminal)."""


def _password(given: str | None) -> str:
    """The given password, else one asked on the terminal; checked against the rules."""
    password = given
    if password is None:
        if not sys.stdin.isatty():
            raise Refused("give --password, or run this on a terminal to be asked for it")
        password = getpass.getpass("Password: ")
        if getpass.getpass("Password again: ") != password:
            raise Refused("the two passwords differ")
    problems = password_problems(password)
    if problems:
        raise Refused("weak password: " + "; ".join(p.message for p in problems))
    return password


async def _create(folio: Folio, args: argparse.Namespace) -> int:
    data = {
        "email": args.email,
        "firstname": args.firstname,
        "lastname": args.lastname,
        "password": args.password,
    }
    user = await folio.admins.create(data)
    print(f"Created administrator {user.id} ({user.email}). Sign in at /admin.")
    return 0


async def _reset(folio: Folio, args: argparse.Namespace) -> int:
    user = await folio.admins.find_by_email(args.email)
    if user is None:
        print(f"folio: there is no administrator {args.email}", file=sys.stderr)
        return 1
    await folio.admins.set_password(user.id, args.password, None)
    print(f"Password of {user.email} changed; their sessions are ended.")
    return 0


async def _list(folio: Folio, args: argparse.Namespace) -> int:
    admins = await folio.admins.list_admins()
    if not admins:
        print("No administrators (create one with folio admin create, or at /admin).")
    for user in admins:
        name = " ".join(p for p in (user.firstname, user.lastname) if p)
        state = "active" if user.is_active else "inactive"
        print(f"{user.id:>4}  {user.email:<32} {name:<24} {state}  created {user.created_at}")
    return 0


ACTIONS = {"create": _create, "reset-password": _reset, "list": _list}


def run(args: argparse.Namespace) -> int:
    try:
        if args.action in ("create", "reset-password"):
            args.password = _password(args.password)
        return with_app(args.app, lambda folio: ACTIONS[args.action](folio, args))
    except Refused as exc:
        print(f"folio: {exc}", file=sys.stderr)
        return 1
    except (ConfigError, FolioError) as exc:
        message = exc.message if isinstance(exc, FolioError) else str(exc)
        details = exc.details.get("errors") if isinstance(exc, FolioError) else None
        print(f"folio: {message}", file=sys.stderr)
        for item in details or []:
            path = ".".join(str(p) for p in item.get("path", []))
            print(f"  {path}: {item.get('message')}", file=sys.stderr)
        return 1
