"""`folio import FILE|DIR` and `folio export FILE`: the reference's transfer archives
(`folio.transfer`). On a terminal a progress line counts the records and their rate in
place; otherwise one plain line per stage and step."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from folio.app import Folio, load_app
from folio.errors import ConfigError, FolioError

# the progress bar's width in characters
BAR = 30


def _names(values: list[str] | None) -> list[str] | None:
    """`--only a,b --only c` -> [a, b, c]."""
    if not values:
        return None
    return [n.strip() for v in values for n in v.split(",") if n.strip()]


class ProgressLine:
    """Counts and rate per stage: rewritten in place on a terminal (with a bar where the
    stage's total is known: `set_totals`), else a line each `every` seconds and at each
    stage's end."""

    def __init__(self, out: TextIO, every: float = 5.0) -> None:
        self.out = out
        self.tty = out.isatty()
        self.every = every
        self.stage = ""
        self.count = 0
        self.started = time.perf_counter()
        self.shown = 0.0
        self.totals: dict[str, int] = {}

    def set_totals(self, totals: dict[str, int]) -> None:
        self.totals = totals

    def __call__(self, stage: str, count: int) -> None:
        now = time.perf_counter()
        if stage != self.stage:
            self.end()
            self.stage, self.started, self.shown = stage, now, 0.0
        self.count = count
        if self.tty:
            if now - self.shown >= 0.1:
                self.shown = now
                self.out.write(f"\r{self._text(now)}\x1b[K")
                self.out.flush()
        elif now - self.shown >= self.every:
            self.shown = now
            self.out.write(self._text(now) + "\n")
            self.out.flush()

    def _text(self, now: float) -> str:
        elapsed = now - self.started
        rate = f" ({self.count / elapsed:,.0f}/s)" if elapsed >= 0.5 else ""
        total = self.totals.get(self.stage)
        if self.tty and total:
            done = min(self.count / total, 1.0)
            filled = int(done * BAR)
            bar = "#" * filled + "-" * (BAR - filled)
            return f"{self.stage:<13} [{bar}] {done:4.0%} {self.count:,}/{total:,}{rate}"
        return f"{self.stage}: {self.count:,}{rate}"

    def end(self) -> None:
        if not self.stage:
            return
        text = self._text(time.perf_counter())
        self.out.write(f"\r{text}\x1b[K\n" if self.tty else text + "\n")
        self.out.flush()
        self.stage = ""


def add_parsers(sub: Any) -> None:
    imp = sub.add_parser("import", help="import a transfer archive (the reference's format)")
    imp.add_argument("file", help="a .tar, .tar.gz, .tar.gz.enc or .tar.enc file, or a directory")
    imp.add_argument("--key", help="the passphrase of an encrypted archive")
    imp.add_argument("--force", action="store_true", help="replace the content the database holds")
    imp.add_argument("--only", action="append", help="parts to import: content, files, config")
    imp.add_argument("--exclude", action="append", help="parts to leave out")
    imp.add_argument("--app", default=".", help="the app directory")
    exp = sub.add_parser("export", help="export the app's content as a transfer archive")
    exp.add_argument("file", help="the archive's name (.tar, .gz and .enc are added)")
    exp.add_argument("--no-compress", action="store_true", help="a plain .tar")
    exp.add_argument("--encrypt", action="store_true", help="encrypt with --key")
    exp.add_argument("--no-encrypt", action="store_true", help="(the default) no encryption")
    exp.add_argument("--key", help="the passphrase")
    exp.add_argument("--only", action="append", help="parts to export: content, files, config")
    exp.add_argument("--exclude", action="append", help="parts to leave out")
    exp.add_argument("--app", default=".", help="the app directory")


async def _import(folio: Folio, args: argparse.Namespace) -> int:
    from folio.transfer.importer import TransferError, import_archive

    progress = ProgressLine(sys.stderr)
    try:
        report = await import_archive(
            folio,
            Path(args.file),
            key=args.key,
            force=args.force,
            only=_names(args.only),
            exclude=_names(args.exclude),
            progress=progress,
            totals=progress.set_totals if progress.tty else None,
        )
    except TransferError as exc:
        progress.end()
        print(f"folio: {exc}", file=sys.stderr)
        return 1
    progress.end()
    for line in report.lines():
        print(line)
    seconds = report.seconds
    rate = report.documents / seconds if seconds else 0.0
    took = f"{seconds:.2f}" if seconds < 10 else f"{seconds:.1f}"
    print(
        f"Imported {report.documents:,} documents ({report.versions:,} entry versions) in "
        f"{took} s ({rate:,.0f} documents/s). No webhooks were sent for them."
    )
    return 0


async def _export(folio: Folio, args: argparse.Namespace) -> int:
    from folio.transfer.exporter import export_archive

    progress = ProgressLine(sys.stderr)
    result = await export_archive(
        folio,
        args.file,
        compress=not args.no_compress,
        encrypt=args.encrypt,
        key=args.key,
        only=_names(args.only),
        exclude=_names(args.exclude),
        progress=progress,
    )
    progress.end()
    counts = ", ".join(f"{k}: {v}" for k, v in result.counts.items())
    print(f"Exported to {result.path} ({counts})")
    return 0


def run(args: argparse.Namespace) -> int:
    async def main() -> int:
        folio = load_app(Path(args.app))
        await folio.start(bootstrap=False)
        try:
            if args.command == "import":
                return await _import(folio, args)
            return await _export(folio, args)
        finally:
            await folio.close()

    try:
        return asyncio.run(main())
    except (ConfigError, FolioError) as exc:
        print(f"folio: {exc}", file=sys.stderr)
        return 1
