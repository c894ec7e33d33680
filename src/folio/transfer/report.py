"""What an import did and skipped (`ImportReport`), why it stopped (`TransferError`), and
the parts an import or export names, as the reference's transfer groups have them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

PARTS = ("content", "files", "config")


class TransferError(Exception):
    """An import refused or failed; nothing was written. The message says why."""


@dataclass
class ImportReport:
    entries: Counter[str] = field(default_factory=Counter)
    components: int = 0
    relations: int = 0
    media_links: int = 0
    user_roles: int = 0
    assets: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    documents: int = 0  # distinct documentIds
    seconds: float = 0.0

    @property
    def versions(self) -> int:
        """Entry versions (rows): a document has one per locale and status."""
        return sum(self.entries.values())

    def lines(self) -> list[str]:
        out = [f"{uid}: {n} entry versions" for uid, n in sorted(self.entries.items())]
        out.append(
            f"components: {self.components}, relation links: {self.relations}, media links: "
            f"{self.media_links}, users' roles: {self.user_roles}, files stored: {self.assets}"
        )
        out += [f"skipped: {what}: {n}" for what, n in sorted(self.skipped.items())]
        out += self.notes
        return out


def parts(only: list[str] | None, exclude: list[str] | None) -> set[str]:
    """The parts to import (`content`, `files`, `config`), as the reference names them."""
    for name in [*(only or []), *(exclude or [])]:
        if name not in PARTS:
            raise TransferError(f"unknown part {name!r} (parts: {', '.join(PARTS)})")
    chosen = set(only or PARTS)
    return chosen - set(exclude or [])
