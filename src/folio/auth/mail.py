"""Outgoing mail for password resets and email confirmation. The default sender writes the
message to the log (development); an app installs its own in `register(app)`:

    app.mailer = MySmtpSender(...)   # any object with `async send(to, subject, text)`"""

from __future__ import annotations

import logging
from typing import Protocol

log = logging.getLogger("folio.mail")


class Mailer(Protocol):
    async def send(self, to: str, subject: str, text: str) -> None: ...


class LogMailer:
    """Logs each message instead of sending it, and keeps the last ones for inspection."""

    def __init__(self, keep: int = 50) -> None:
        self.keep = keep
        self.sent: list[tuple[str, str, str]] = []

    async def send(self, to: str, subject: str, text: str) -> None:
        log.info("mail to %s: %s\n%s", to, subject, text)
        self.sent.append((to, subject, text))
        del self.sent[: -self.keep]
