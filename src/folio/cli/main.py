"""`folio new | serve | develop`: thin wrappers over the app and the server."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from folio import __version__
from folio.config import environment
from folio.errors import ConfigError

LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")

# the example content's kinds, for a count of one
SINGULAR = {
    "categories": "category",
    "authors": "author",
    "tags": "tag",
    "articles": "article",
    "files": "file",
}


def _log_level(value: str) -> str:
    level = value.lower()
    if level not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(
            f"unknown log level {value!r} (one of {', '.join(LOG_LEVELS)})"
        )
    return level


def app_problem(path: str) -> str | None:
    """Why a directory is no app to act on (commands never create one by accident)."""
    target = Path(path)
    path = str(target.resolve())
    if not target.exists():
        return f"{path} does not exist (create an app with: folio new {path})"
    if not target.is_dir():
        return f"{path} is not a directory"
    if not (target / "config").is_dir() and not (target / "src").is_dir():
        return (
            f"{path} is not a Folio app (it has no config/ or src/ directory); "
            f"create one with: folio new DIR"
        )
    return None


def _serve(args: argparse.Namespace, reload: bool) -> int:
    from folio.cli.preflight import ASGI_FACTORY, preflight
    from folio.config import database_banner, environment_settings, load_settings
    from folio.logformat import configure_logging
    from folio.startup import exit_code, file_problem

    app_dir = Path(args.app_dir).resolve()
    # Folio's own messages (mail sent by the default sender, errors) at the chosen level, in
    # every server process (see folio.http.app.create_app) and in this one
    os.environ["FOLIO_LOG_LEVEL"] = args.log_level
    os.environ["FOLIO_LOG_FORMAT"] = args.log_format
    os.environ["FOLIO_REQUEST_LOG"] = "1" if args.request_log else "0"
    configure_logging(args.log_level, args.log_format)
    # a problem is one line on stderr and exit code 2 (configuration) or 3 (what the app
    # runs on), before the banner: serve checks the whole app first; develop only where it
    # listens, and answers 503 with the problem until the files are fixed (folio.http.app)
    os.environ["FOLIO_DEVELOP"] = "1" if reload else "0"
    try:
        try:
            settings = load_settings(app_dir)
        except ConfigError:
            if not reload:
                raise
            settings = environment_settings(app_dir)
        host = args.host or settings.host
        port = args.port or settings.port
        preflight(app_dir, host, port, whole_app=not reload)
    except (ConfigError, OSError) as exc:
        problem = file_problem(exc, app_dir) if isinstance(exc, OSError) else exc
        if args.log_format == "json":  # one format for every line the command writes
            from folio.logformat import line

            print(line("json", str(problem), "error"), file=sys.stderr)
        else:
            print(f"folio: {problem}", file=sys.stderr)
        return exit_code(problem)
    os.environ["FOLIO_APP_DIR"] = str(app_dir)
    banner = (
        f"folio {__version__} · app {app_dir} · database {database_banner(settings.database_url)}"
        f" · http://{host}:{port} · environment {environment()}"
        f" · admin panel http://{host}:{port}/admin"
    )
    if args.log_format == "json":
        from folio.logformat import line

        banner = line("json", banner)
    print(banner, flush=True)
    from folio.cli.server import run_server, server_options

    options = server_options(settings, host, port, args.log_level, args.log_format)
    if reload:
        options["reload"] = True
        options["reload_dirs"] = [
            str(app_dir / "src"),
            str(app_dir / "config"),
            str(Path(__file__).resolve().parents[1]),
        ]
        options["reload_includes"] = ["*.py", "*.json"]
    elif args.workers and args.workers > 1:
        options["workers"] = args.workers
    return run_server(ASGI_FACTORY, options)


def _locale(args: argparse.Namespace) -> int:
    from folio.cli import locales

    app = Path(args.app)
    try:
        if args.action == "list":
            for line in locales.list_locales(app):
                print(line)
        elif args.action == "add":
            locales.add_locale(app, args.code, args.name)
        elif args.action == "remove":
            deleted = locales.remove_locale(app, args.code, force=args.force)
            if deleted:
                print(f"deleted the content in {args.code}: {deleted} (rows, every version)")
        else:
            locales.set_default(app, args.code)
    except (locales.LocaleError, ConfigError) as exc:
        print(f"folio: {exc}", file=sys.stderr)
        return 1
    return 0


async def _example_content(target: Path) -> tuple[dict[str, int], str]:
    from folio.app import load_app
    from folio.cli.example import add_example_content, create_token

    folio = load_app(target.resolve())
    await folio.start(bootstrap=False)
    try:
        return await add_example_content(folio), await create_token(folio)
    finally:
        await folio.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="folio", description="Folio content service")
    parser.add_argument("--version", action="version", version=f"folio {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    new = sub.add_parser("new", help="create an app with an example blog")
    new.add_argument("directory")
    new.add_argument(
        "--empty", action="store_true", help="the example models without example content"
    )
    for name, text in (("serve", "serve an app"), ("develop", "serve with auto-reload")):
        p = sub.add_parser(name, help=text)
        p.add_argument("app_dir", nargs="?", default=".")
        p.add_argument("--host")
        p.add_argument("--port", type=int)
        p.add_argument(
            "--log-level",
            default="info",
            type=_log_level,
            help=f"one of {', '.join(LOG_LEVELS)} (default: info)",
        )
        p.add_argument(
            "--log-format",
            default="plain",
            choices=["plain", "json"],
            help="plain text or JSON lines (default: plain)",
        )
        p.add_argument(
            "--request-log",
            "--access-log",
            dest="request_log",
            action=argparse.BooleanOptionalAction,
            default=True,
            help="log each request: method, path, status, duration, request id (default: on)",
        )
        if name == "serve":
            p.add_argument("--workers", type=int, default=1)
    loc = sub.add_parser("locale", help="list and change the configured locales")
    loc_sub = loc.add_subparsers(dest="action", required=True)
    for action, text in (
        ("list", "list the locales"),
        ("add", "add a locale"),
        ("remove", "remove a locale"),
        ("default", "set the default locale"),
    ):
        p = loc_sub.add_parser(action, help=text)
        if action != "list":
            p.add_argument("code")
        if action == "add":
            p.add_argument("name", nargs="?")
        if action == "remove":
            p.add_argument(
                "--force",
                action="store_true",
                help="delete the locale's content (every version, in one transaction) first",
            )
    from folio.cli import access, admin, transfer, webhooks

    access.with_app_option(loc_sub)
    access.add_parsers(sub)
    webhooks.add_parsers(sub)
    admin.add_parsers(sub)
    transfer.add_parsers(sub)
    args = parser.parse_args(argv)
    if args.command != "new":
        problem = app_problem(args.app_dir if args.command in ("serve", "develop") else args.app)
        if problem is not None:
            print(f"folio: {problem}", file=sys.stderr)
            return 2
    if args.command in ("token", "user", "permissions", "role"):
        return access.run(args)
    if args.command == "webhook":
        return webhooks.run(args)
    if args.command == "admin":
        return admin.run(args)
    if args.command in ("import", "export"):
        return transfer.run(args)
    if args.command == "locale":
        return _locale(args)
    if args.command == "new":
        from folio.cli.scaffold import scaffold

        target = Path(args.directory)
        try:
            scaffold(target)
        except FileExistsError as exc:
            print(f"folio: {exc}", file=sys.stderr)
            return 1
        from folio.cli.example import remember_database

        remember_database(target)
        if not args.empty:
            counts, key = asyncio.run(_example_content(target))
            made = ", ".join(
                f"{n} {kind if n != 1 else SINGULAR.get(kind, kind)}" for kind, n in counts.items()
            )
            print(f"Added example content: {made}.")
            print(f"A full-access API token (shown once; revoke it with folio token): {key}")
        print(f"Created {target}. Serve it with: folio serve {target}")
        return 0
    return _serve(args, reload=args.command == "develop")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
