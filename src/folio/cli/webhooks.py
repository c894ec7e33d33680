"""`folio webhook list | deliveries | redeliver | test`: webhooks from the shell. The
webhooks are those of config/webhooks.json and of the admin API; deliveries are made by
the serving processes, and their attempts recorded in the database, which these commands
read. `redeliver` and `test` post from this process, at once, one attempt each."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable

from folio.app import Folio
from folio.cli.access import with_app
from folio.content.sql.webhooks import Record
from folio.errors import ConfigError, FolioError


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    hook = sub.add_parser("webhook", help="list webhooks, their deliveries, test and redeliver")
    hook_sub = hook.add_subparsers(dest="action", required=True)
    hook_sub.add_parser("list", help="the webhooks (config/webhooks.json and the admin API's)")
    p = hook_sub.add_parser("deliveries", help="the latest delivery attempts, newest first")
    p.add_argument("--webhook", help="of this webhook only (its name or id)")
    p.add_argument(
        "--failed", action="store_true", help="only deliveries given up after their last attempt"
    )
    p.add_argument("--limit", type=_positive, default=20, help="how many (default: 20)")
    p = hook_sub.add_parser("redeliver", help="send a delivery's event again, now")
    p.add_argument("id", type=_positive, help="the delivery's id (see `deliveries`)")
    p = hook_sub.add_parser("test", help="send the test event (trigger-test) to a webhook")
    p.add_argument("name", help="the webhook's name or id")
    for parser in hook_sub.choices.values():
        parser.add_argument("--app", default=".", help="the app directory")


def _positive(value: str) -> int:
    if not value.isdecimal() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number of at least 1")
    return int(value)


def run(args: argparse.Namespace) -> int:
    try:
        return with_app(args.app, lambda folio: ACTIONS[args.action](folio, args))
    except (ConfigError, FolioError) as exc:
        message = exc.message if isinstance(exc, FolioError) else str(exc)
        print(f"folio: {message}", file=sys.stderr)
        return 1


async def _list(folio: Folio, args: argparse.Namespace) -> int:
    hooks = await folio.webhooks.all()
    if not hooks:
        print("No webhooks (add them to config/webhooks.json or through /admin/webhooks).")
    for hook in hooks:
        state = "enabled" if hook.enabled else "disabled"
        events = ",".join(hook.events) if hook.events else "(no events)"
        source = "config" if hook.from_config else "api"
        print(f"{hook.key:<16} {hook.name:<20} {source:<6} {state:<8} {hook.url}  {events}")
    return 0


async def _deliveries(folio: Folio, args: argparse.Namespace) -> int:
    hook = None
    if args.webhook:
        hook = await folio.webhooks.find(args.webhook)
        if hook is None:
            print(f"folio: there is no webhook {args.webhook!r}", file=sys.stderr)
            return 1
    records = await folio.webhooks.deliveries(hook, failed=args.failed, limit=args.limit)
    if not records:
        print("No delivery attempts recorded.")
    for record in records:
        print(_line(record))
    return 0


async def _redeliver(folio: Folio, args: argparse.Namespace) -> int:
    record = await folio.webhooks.redeliver(args.id)
    print(_line(record))
    return 0 if record.status == "delivered" else 1


async def _test(folio: Folio, args: argparse.Namespace) -> int:
    hook = await folio.webhooks.find(args.name)
    if hook is None:
        print(f"folio: there is no webhook {args.name!r}", file=sys.stderr)
        return 1
    answer = await folio.webhooks.trigger(hook.key)
    code = answer["statusCode"]
    if "message" in answer:
        print(f"{hook.name}: {code} {answer['message']}")
        return 1
    print(f"{hook.name}: {code}")
    return 0


ACTIONS: dict[str, Callable[[Folio, argparse.Namespace], Awaitable[int]]] = {
    "list": _list,
    "deliveries": _deliveries,
    "redeliver": _redeliver,
    "test": _test,
}


def _line(record: Record) -> str:
    code = str(record.status_code) if record.status_code is not None else "-"
    event = f"{record.event}#{record.event_id}" if record.event_id is not None else record.event
    again = f" (redelivery of {record.redelivery_of})" if record.redelivery_of else ""
    error = f"  {' '.join(record.error.split())}" if record.error else ""
    return (
        f"{record.id:>6}  {record.created_at}  {record.webhook_name:<20} {event:<24} "
        f"attempt {record.attempt:<2} {record.status:<9} {code:>3} "
        f"{record.duration_ms:8.1f} ms{again}{error}"
    )
