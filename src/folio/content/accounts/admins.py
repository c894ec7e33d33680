"""Administrators of the admin panel, separate from the content API's users: accounts
(the first one made only while none exists), password sign-in, sessions, password change
and reset, and the panel's settings per content type.

A session is a random id the browser keeps in a cookie; only its SHA-256 is stored, with
the session's CSRF token and two times: it ends after `idleSeconds` without a request
(sliding) and `maxSeconds` after sign-in whatever happens (`config/admin.json`
`auth.session`; 7 and 30 days by default). A reset code is stored hashed too, and holds
for an hour."""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from folio.auth.mail import Mailer
from folio.auth.passwords import hash_password, verify_password
from folio.auth.settings import RateLimit, parse_duration
from folio.config import Settings
from folio.content.documents import DocumentService
from folio.content.sql.admins import AdminStatements, UsageStatements
from folio.errors import (
    ConfigError,
    FieldError,
    ForbiddenError,
    NotFoundError,
    ValidationError,
    validation_failed,
)
from folio.schema.values import format_datetime, now_utc

IDLE_SECONDS = 7 * 86_400
MAX_SECONDS = 30 * 86_400
RESET_SECONDS = 3_600
# a session's last use is written at most this often (seconds); its idle expiry is as
# precise as that
TOUCH_EVERY = 60
# ended sessions are deleted at a sign-in at most this often (seconds)
PRUNE_EVERY = 3_600
EMAIL_RE = re.compile(r"^[^\s@]+@[^\s@]+\.[^\s@]+$")
INVALID_CREDENTIALS = "Invalid credentials"
ALREADY = "An administrator already exists"
MAX_PASSWORD_BYTES = 72


@dataclass(frozen=True)
class AdminUser:
    id: int
    email: str
    firstname: str
    lastname: str | None
    is_active: bool
    created_at: str | None = None

    def public(self) -> dict[str, Any]:
        """The user as the admin API shows it (never a password hash)."""
        return {
            "id": self.id,
            "email": self.email,
            "firstname": self.firstname,
            "lastname": self.lastname,
            "isActive": self.is_active,
            "createdAt": self.created_at,
        }


@dataclass(frozen=True)
class AdminSession:
    """A live session: its user, CSRF token, hashed id and when it ends (epoch seconds)."""

    user: AdminUser
    csrf: str
    key: str
    expires_at: float

    @property
    def expires_iso(self) -> str:
        return format_datetime(datetime.fromtimestamp(self.expires_at, UTC))


def admin_rate_limit(settings: Settings, default: RateLimit) -> RateLimit:
    """The sign-in limits of the admin panel: `config/admin.json` `rateLimit` as the
    reference writes it (`{"enabled", "interval": {"min": 5} or milliseconds, "max"}`),
    else those of the content API's sign-in (`users-permissions` `ratelimit`)."""
    admin = settings.raw.get("admin", {})
    raw = admin.get("rateLimit") if isinstance(admin, dict) else None
    if raw is None:
        return default
    if not isinstance(raw, dict):
        raise ConfigError("config/admin: rateLimit must be an object")
    out = RateLimit(max_entries=default.max_entries)
    enabled = raw.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError("config/admin: rateLimit.enabled must be true or false")
    out.enabled = enabled
    interval = raw.get("interval")
    if isinstance(interval, dict):
        units = {"ms": 0.001, "sec": 1, "min": 60, "hour": 3600}
        seconds = 0.0
        for unit, value in interval.items():
            if unit not in units or isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(
                    "config/admin: rateLimit.interval takes numbers of ms, sec, min or hour"
                )
            seconds += float(value) * units[unit]
        out.interval = parse_duration(seconds, "config/admin: rateLimit.interval")
    elif interval is not None:
        if isinstance(interval, bool) or not isinstance(interval, int | float):
            raise ConfigError("config/admin: rateLimit.interval must be milliseconds or {min: N}")
        out.interval = parse_duration(float(interval) / 1000, "config/admin: rateLimit.interval")
    limit = raw.get("max", out.max)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ConfigError("config/admin: rateLimit.max must be a positive whole number")
    out.max = limit
    return out


@dataclass(frozen=True)
class SessionSettings:
    idle_seconds: float = IDLE_SECONDS
    max_seconds: float = MAX_SECONDS

    @classmethod
    def read(cls, settings: Settings) -> SessionSettings:
        admin = settings.raw.get("admin", {})
        auth = admin.get("auth") if isinstance(admin, dict) else None
        raw = auth.get("session") if isinstance(auth, dict) else None
        if raw is None:
            return cls()
        if not isinstance(raw, dict):
            raise ConfigError("config/admin: auth.session must be an object")
        values: dict[str, float] = {}
        for key, default in (("idleSeconds", IDLE_SECONDS), ("maxSeconds", MAX_SECONDS)):
            value = raw.get(key, default)
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ConfigError(
                    f"config/admin: auth.session.{key} must be a positive number of seconds"
                )
            values[key] = float(value)
        return cls(values["idleSeconds"], values["maxSeconds"])


def digest(secret: str) -> str:
    """The stored form of a session id or reset code."""
    return hashlib.sha256(secret.encode()).hexdigest()


def password_problems(password: Any, path: str = "password") -> list[FieldError]:
    """The reference's rules: at least 8 characters, a lower-case and an upper-case letter
    and a digit, at most 72 bytes (what the hash reads)."""
    if not isinstance(password, str) or not password:
        return [FieldError([path], f"{path} is a required field")]
    problems: list[FieldError] = []
    if len(password) < 8:
        problems.append(FieldError([path], f"{path} must be at least 8 characters"))
    if len(password.encode()) > MAX_PASSWORD_BYTES:
        problems.append(FieldError([path], f"{path} must be less than 73 bytes"))
    if not re.search(r"[a-z]", password):
        problems.append(FieldError([path], f"{path} must contain at least one lowercase character"))
    if not re.search(r"[A-Z]", password):
        problems.append(FieldError([path], f"{path} must contain at least one uppercase character"))
    if not re.search(r"\d", password):
        problems.append(FieldError([path], f"{path} must contain at least one number"))
    return problems


def _user(row: dict[str, Any]) -> AdminUser:
    return AdminUser(
        id=int(row["id"]),
        email=str(row["email"]),
        firstname=str(row["firstname"] or ""),
        lastname=row["lastname"],
        is_active=bool(row["is_active"]),
        created_at=row["created_at"],
    )


def _name(data: dict[str, Any], key: str, required: bool, errors: list[FieldError]) -> Any:
    value = data.get(key)
    if value is None or (isinstance(value, str) and not value.strip() and not required):
        if required:
            errors.append(FieldError([key], f"{key} is a required field"))
        return None
    if not isinstance(value, str):
        errors.append(FieldError([key], f"{key} must be a `string` type", value))
        return None
    value = value.strip()
    if required and not value:
        errors.append(FieldError([key], f"{key} is a required field", value))
    if len(value) > 255:
        errors.append(FieldError([key], f"{key} must be at most 255 characters", value))
    return value


def _email(data: dict[str, Any], errors: list[FieldError]) -> str | None:
    value = data.get("email")
    if not isinstance(value, str) or not value.strip():
        errors.append(FieldError(["email"], "email is a required field"))
        return None
    value = value.strip().lower()
    if len(value) > 255 or not EMAIL_RE.match(value):
        errors.append(FieldError(["email"], "email must be a valid email", value))
        return None
    return value


class AdminService:
    def __init__(self, documents: DocumentService, settings: Settings, mailer: Mailer) -> None:
        self.documents = documents
        self.sql = AdminStatements(documents.dialect)
        self.usage = UsageStatements(documents.registry, documents.dialect)
        self.session_settings = SessionSettings.read(settings)
        self.mailer = mailer
        # the clock of session and reset-code times (tests move it)
        self.clock: Callable[[], float] = time.time
        self._pruned = 0.0

    async def _read(self, program: Any) -> Any:
        return await self.documents.read_program(program)

    async def _write(self, make: Callable[[], Any]) -> Any:
        return await self.documents.write_program(None, "update", make)

    # ------------------------------------------------------------------ accounts
    async def has_admin(self) -> bool:
        return bool(await self._read(self.sql.count()))

    async def list_admins(self) -> list[AdminUser]:
        return [_user(r) for r in await self._read(self.sql.users())]

    async def get(self, user_id: int) -> AdminUser | None:
        row = await self._read(self.sql.user(user_id))
        return _user(row) if row else None

    async def find_by_email(self, email: str) -> AdminUser | None:
        row = await self._read(self.sql.credentials(email.strip().lower()))
        return await self.get(int(row[0])) if row else None

    def check_new(self, data: dict[str, Any]) -> dict[str, Any]:
        """The columns of a new administrator from `data` (email, password, firstname,
        lastname?), checked; the password not yet hashed."""
        errors: list[FieldError] = []
        email = _email(data, errors)
        firstname = _name(data, "firstname", True, errors)
        lastname = _name(data, "lastname", False, errors)
        errors += password_problems(data.get("password"))
        if errors:
            raise validation_failed(errors)
        return {
            "email": email,
            "firstname": firstname,
            "lastname": lastname,
            "password": data["password"],
        }

    async def create(self, data: dict[str, Any], first: bool = False) -> AdminUser:
        """A new administrator. `first`: only while there is none (two creations racing
        make one; the other is refused with ForbiddenError)."""
        values = self.check_new(data)
        if first and await self.has_admin():
            raise ForbiddenError(ALREADY)  # spares the hash; the write checks again
        values["password"] = str(await asyncio.to_thread(hash_password, values["password"]))
        now = format_datetime(now_utc())
        user_id = await self._write(lambda: self.sql.create(values, now, first))
        if user_id is None:
            raise ForbiddenError(ALREADY)
        if user_id == -1:
            raise validation_failed([FieldError(["email"], "Email already taken", values["email"])])
        user = await self.get(user_id)
        assert user is not None
        return user

    async def authenticate(self, email: Any, password: Any) -> AdminUser:
        """The active administrator with these credentials; ValidationError "Invalid
        credentials" otherwise (the same work whether or not the address is known)."""
        if not isinstance(email, str) or not isinstance(password, str) or not password:
            raise ValidationError(INVALID_CREDENTIALS)
        row = await self._read(self.sql.credentials(email.strip().lower()))
        stored = row[1] if row else None
        too_long = len(password.encode()) > 1024
        valid = False if too_long else await asyncio.to_thread(verify_password, password, stored)
        if row is None or not valid or not row[2]:
            raise ValidationError(INVALID_CREDENTIALS)
        user = await self.get(int(row[0]))
        if user is None:
            raise ValidationError(INVALID_CREDENTIALS)
        return user

    async def update(
        self, user: AdminUser, data: dict[str, Any], keep_session: str | None
    ) -> AdminUser:
        """Changes the administrator's own profile: firstname, lastname, email, and the
        password (with `currentPassword`; ends the user's other sessions)."""
        errors: list[FieldError] = []
        values: dict[str, Any] = {}
        if "firstname" in data:
            values["firstname"] = _name(data, "firstname", True, errors)
        if "lastname" in data:
            values["lastname"] = _name(data, "lastname", False, errors)
        if "email" in data:
            values["email"] = _email(data, errors)
        password = data.get("password")
        if password is not None:
            errors += password_problems(password)
            if not isinstance(data.get("currentPassword"), str):
                errors.append(
                    FieldError(["currentPassword"], "currentPassword is a required field")
                )
        if errors:
            raise validation_failed(errors)
        if password is not None:
            stored = await self._read(self.sql.password(user.id))
            current = data["currentPassword"]
            if not await asyncio.to_thread(verify_password, current, stored):
                raise validation_failed(
                    [FieldError(["currentPassword"], "Current password is invalid")]
                )
        now = format_datetime(now_utc())
        if values and not await self._write(lambda: self.sql.update(user.id, values, now)):
            raise validation_failed(
                [FieldError(["email"], "Email already taken", values.get("email"))]
            )
        if password is not None:
            await self.set_password(user.id, password, keep_session)
        updated = await self.get(user.id)
        if updated is None:
            raise NotFoundError()
        return updated

    async def set_password(self, user_id: int, password: str, keep_session: str | None) -> None:
        """A new password (checked); every session of the user but `keep_session` (a
        hashed id) ends."""
        problems = password_problems(password)
        if problems:
            raise validation_failed(problems)
        hashed = str(await asyncio.to_thread(hash_password, password))
        now = format_datetime(now_utc())
        await self._write(lambda: self.sql.set_password(user_id, hashed, now, keep_session))

    async def set_active(self, user_id: int, active: bool) -> None:
        now = format_datetime(now_utc())
        await self._write(lambda: self.sql.update(user_id, {"is_active": int(active)}, now))
        if not active:
            await self._write(lambda: self.sql.close_sessions(user_id))

    # ------------------------------------------------------------------ reset
    async def forgot_password(self, email: Any, link: str) -> None:
        """Mails a reset link (`link` + `?code=...`) to the active administrator with this
        address; nothing (and no sign of it) otherwise."""
        if not isinstance(email, str) or not email.strip():
            return
        address = email.strip().lower()
        code = secrets.token_urlsafe(32)
        until = int(self.clock()) + RESET_SECONDS
        user_id = await self._write(lambda: self.sql.set_reset_code(address, digest(code), until))
        if user_id is None:
            return
        await self.mailer.send(
            address,
            "Reset your password",
            "Someone asked to reset the password of your Folio administrator account. "
            f"Follow this link within an hour to choose a new one:\n\n{link}?code={code}\n\n"
            "If it was not you, ignore this message: your password stays as it is.",
        )

    async def reset_password(self, code: Any, password: Any) -> AdminUser:
        """Sets the password of the holder of a valid reset code (ending their sessions)."""
        if not isinstance(code, str) or not code:
            raise ValidationError("Invalid reset code")
        problems = password_problems(password)
        user_id = await self._read(self.sql.by_reset_code(digest(code), int(self.clock())))
        if user_id is None:
            raise ValidationError("Invalid reset code")
        if problems:
            raise validation_failed(problems)
        await self.set_password(user_id, password, None)
        user = await self.get(user_id)
        assert user is not None
        return user

    # ------------------------------------------------------------------ sessions
    async def open_session(self, user: AdminUser) -> tuple[str, AdminSession]:
        """A new session of `user`: the id for the cookie, and the session."""
        session_id = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        key = digest(session_id)
        now = int(self.clock())
        await self._write(lambda: self.sql.open_session(key, user.id, csrf, now))
        if now - self._pruned >= PRUNE_EVERY:
            # sessions nobody came back to are deleted now and then (one that is used
            # again after its end is deleted then)
            self._pruned = now
            await self.prune_sessions()
        return session_id, AdminSession(user, csrf, key, self._ends(now, now))

    def _ends(self, created: float, seen: float) -> float:
        s = self.session_settings
        return min(seen + s.idle_seconds, created + s.max_seconds)

    async def session(self, session_id: str) -> AdminSession | None:
        """The live session with this id, or None (unknown, ended, or its user inactive).
        A use moves its idle expiry forward."""
        if not session_id or len(session_id) > 128:
            return None
        key = digest(session_id)
        found = await self._read(self.sql.session(key))
        if found is None:
            return None
        _, csrf, created, seen, row = found
        now = self.clock()
        user = _user(row)
        if now >= self._ends(created, seen) or not user.is_active:
            await self._write(lambda: self.sql.close_session(key))
            return None
        if now - seen >= TOUCH_EVERY:
            seen = int(now)
            await self._write(lambda: self.sql.touch_session(key, int(now)))
        return AdminSession(user, csrf, key, self._ends(created, seen))

    async def close_session(self, key: str) -> None:
        """Ends a session (`key`: its hashed id)."""
        await self._write(lambda: self.sql.close_session(key))

    async def prune_sessions(self) -> int:
        now = self.clock()
        s = self.session_settings
        idle, oldest = int(now - s.idle_seconds), int(now - s.max_seconds)
        return int(await self._write(lambda: self.sql.prune_sessions(idle, oldest)))

    # ------------------------------------------------------------------ media
    async def file_usage(self, file_id: int) -> list[dict[str, Any]]:
        """The entries file `file_id` is attached to, one per document, locale and field
        (whether its draft, its published version or both hold it): `{uid, displayName,
        documentId, locale, field, label}`, the label being the entry's first text
        attribute (its id when it has none)."""
        registry = self.documents.registry
        out: dict[tuple[str, str, str | None, str], dict[str, Any]] = {}
        for uid, row_id, path in await self._read(self.usage.file_usage(file_id)):
            ct = registry.content_types[uid]
            doc = await self.documents.find_record(ct, row_id)
            if doc is None:
                continue
            key = (uid, str(doc["documentId"]), doc.get("locale"), path)
            if key in out:
                continue
            main = next(
                (n for n, a in ct.attributes.items() if a.type == "string" and not a.is_hidden),
                None,
            )
            label = doc.get(main) if main else None
            out[key] = {
                "uid": uid,
                "displayName": ct.display_name,
                "documentId": key[1],
                "locale": key[2],
                "field": path,
                "label": str(label) if label not in (None, "") else str(doc["id"]),
            }
        return list(out.values())

    # ------------------------------------------------------------------ settings
    async def get_setting(self, key: str) -> Any:
        """A panel setting (JSON value), or None."""
        raw = await self._read(self.sql.setting(key))
        return orjson.loads(raw) if raw is not None else None

    async def put_setting(self, key: str, value: Any) -> None:
        text = orjson.dumps(value).decode()
        await self._write(lambda: self.sql.put_setting(key, text))
