"""Users of the users-and-permissions feature: registration, sign-in, the account routes
(password change, forgotten password, email confirmation) and what a request made with a
user's JWT needs to know about that user (blocked? which role?).

Every account action takes the `Attempt` of the request and counts it with the app's rate
limiter before anything else (attempts.py), so the REST and GraphQL front-ends share one
count per client."""

from __future__ import annotations

import asyncio
import hmac
import secrets
from collections.abc import Callable
from typing import Any

import orjson

from folio.auth.jwt import JwtCodec
from folio.auth.mail import Mailer
from folio.auth.passwords import HashedPassword, hash_password, verify_password
from folio.auth.permissions import RoleTable
from folio.auth.principal import UserAuth
from folio.auth.ratelimit import RateLimiter
from folio.auth.settings import AuthSettings
from folio.content.accounts.attempts import Attempt, AttemptLimits
from folio.content.accounts.credentials import check_lengths
from folio.content.documents import DocumentService
from folio.content.query import Query
from folio.content.sql.accounts import UserStatements
from folio.errors import (
    ApplicationError,
    FieldError,
    NotFoundError,
    ValidationError,
    validation_failed,
)
from folio.schema.builtins import ROLE_UID, USER_UID
from folio.schema.kinds import EMAIL_RE
from folio.schema.model import ContentType
from folio.store.program import Program

INVALID_CREDENTIALS = "Invalid identifier or password"
TAKEN = "Email or Username are already taken"


def _required(body: dict[str, Any], name: str, errors: list[FieldError]) -> str:
    value = body.get(name)
    if value is None or value == "":
        errors.append(FieldError([name], f"{name} is a required field"))
        return ""
    if not isinstance(value, str):
        shown = orjson.dumps(value).decode()
        errors.append(
            FieldError(
                [name],
                f"{name} must be a `string` type, but the final value was: `{shown}`.",
                value,
            )
        )
        return ""
    return value


def _check_keys(body: dict[str, Any], known: tuple[str, ...], errors: list[FieldError]) -> None:
    extra = [k for k in body if k not in known]
    if extra:
        errors.append(FieldError([], f"this field has unspecified keys: {', '.join(extra)}", body))


def _password_rules(value: str, name: str, errors: list[FieldError]) -> None:
    if value and len(value) < 6:
        errors.append(FieldError([name], f"{name} must be at least 6 characters", value))
    if len(value.encode()) > 72:
        errors.append(FieldError([name], "Password must be less than 73 bytes", value))


def _identity(email: Any, username: Any) -> tuple[str | None, str | None]:
    """The address (lowercased) and name a user write gives, None where it gives none."""
    mail = email.lower() if isinstance(email, str) else None
    return mail, username if isinstance(username, str) else None


def _refuse_clashes(rows: Any, message: str | None) -> None:
    """Raises when another user holds the name or address: `message` (sign-up's), or which
    one is taken (the users API's)."""
    if rows:
        if message is not None:
            raise ApplicationError(message)
        raise ApplicationError(
            "Email already taken" if any(r[0] for r in rows) else "Username already taken"
        )


class UserService:
    def __init__(
        self,
        documents: DocumentService,
        settings: AuthSettings,
        roles: RoleTable,
        jwt: JwtCodec,
        mailer: Mailer,
        limiter: RateLimiter,
    ) -> None:
        self.documents = documents
        # counts the account actions' attempts (sign-in, sign-up, passwords, confirmation)
        self.limits = AttemptLimits(limiter)
        self.settings = settings
        self.roles = roles
        self.jwt = jwt
        self.mailer = mailer
        # called after a user is changed (blocked, given another role, a new password) or
        # deleted (AccessControl subscribes, to drop what it cached for the user's JWTs)
        self.on_change: list[Callable[[], None]] = []
        registry = documents.registry
        self.ct: ContentType = registry.content_types[USER_UID]
        self.role_ct: ContentType = registry.content_types[ROLE_UID]
        self.sql = UserStatements(registry, documents.dialect)
        self._role_ids: dict[str, str] = {}

    # ------------------------------------------------------------------ roles
    async def sync_roles(self) -> None:
        """Makes sure every declared role has its row (users link to it)."""
        existing: dict[str, str] = await self.documents.read_program(self.sql.role_ids())
        for type_, role in self.roles.roles.items():
            if type_ not in existing:
                doc = await self.documents.create_record(
                    self.role_ct,
                    {"name": role.name, "description": role.description, "type": type_},
                )
                existing[type_] = doc["documentId"]
        self._role_ids = existing

    async def role_document_id(self, type_: str) -> str:
        if type_ not in self._role_ids or type_ not in self.roles.roles:
            self.roles.refresh()
            await self.sync_roles()
        if type_ not in self._role_ids:
            raise ApplicationError(f"Role {type_!r} does not exist")
        return self._role_ids[type_]

    async def role_counts(self) -> dict[str, int]:
        """Users per role document id."""
        result: dict[str, int] = await self.documents.read_program(self.sql.role_counts())
        return result

    async def list_roles(self) -> list[dict[str, Any]]:
        """Every role document (the roles a role table declares have one each)."""
        spec = Query()
        spec.pagination.mode = "offset"
        spec.pagination.limit = 10_000
        docs, _ = await self.documents.find_records(self.role_ct, spec)
        return docs

    async def get_role(self, role_id: int) -> dict[str, Any] | None:
        return await self.documents.find_record(self.role_ct, role_id)

    @property
    def email_confirmation(self) -> bool:
        """Whether users must confirm their address before signing in."""
        return self.settings.email_confirmation

    # ------------------------------------------------------------------ reads
    async def auth(self, user_id: int) -> UserAuth | None:
        row = await self.documents.read_program(self.sql.auth(user_id))
        if row is None:
            return None
        return UserAuth(int(row[0]), bool(row[1]), bool(row[2]), row[3])

    async def get(self, user_id: int, spec: Query | None = None) -> dict[str, Any] | None:
        return await self.documents.find_record(self.ct, user_id, spec)

    async def find(self, spec: Query) -> list[dict[str, Any]]:
        """The users `spec` (made by `DocumentService.query`) reads, not counted."""
        docs, _ = await self.documents.find_records(self.ct, spec)
        return docs

    async def list_ids(self) -> list[int]:
        ids: list[int] = await self.documents.read_program(self.sql.ids())
        return ids

    async def document_id(self, user_id: int) -> str:
        document_id = await self.documents.document_id_of(self.ct, user_id)
        if document_id is None:
            raise NotFoundError("User not found")
        return document_id

    # ------------------------------------------------------------------ writes
    async def create(
        self,
        data: dict[str, Any],
        *,
        role: str | None = None,
        read: Query | None = None,
        taken: str | None = None,
    ) -> dict[str, Any]:
        """A user from the users API or the CLI: validated against the model, the password
        hashed off the event loop, the default role unless `role` is given in `data`."""
        values = {"provider": "local", **data}
        if "role" not in values:
            values["role"] = await self.role_document_id(role or self.settings.default_role)
        values = await self._prepare(values, None, taken)
        check = self._claim(values, None, taken)
        return await self.documents.create_record(self.ct, values, read=read, check=check)

    async def update(
        self, user_id: int, data: dict[str, Any], read: Query | None = None
    ) -> dict[str, Any]:
        document_id = await self.document_id(user_id)
        values = await self._prepare(data, user_id)
        check = self._claim(values, user_id)
        doc = await self.documents.update_record(
            self.ct, document_id, values, read=read, check=check
        )
        self._changed()
        return doc

    async def _prepare(
        self, data: dict[str, Any], user_id: int | None, taken: str | None = None
    ) -> dict[str, Any]:
        """What a create or an update stores: the password checked and hashed (off the event
        loop), the email lowercased, and no clash with another user's name or address."""
        values = dict(data)
        check_lengths(values)
        self._check_password_field(values)
        if isinstance(values.get("email"), str):
            values["email"] = values["email"].lower()
        await self._check_taken(values.get("email"), values.get("username"), user_id, taken)
        if isinstance(values.get("password"), str):
            values["password"] = await asyncio.to_thread(hash_password, values["password"])
        return values

    async def delete(self, user_id: int) -> dict[str, Any]:
        doc = await self.get(user_id)
        if doc is None:
            raise NotFoundError()
        await self.documents.delete_record(self.ct, doc["documentId"])
        self._changed()
        return doc

    def _changed(self) -> None:
        for listener in self.on_change:
            listener()

    def _check_password_field(self, values: dict[str, Any]) -> None:
        if "password" in values:
            errors: list[FieldError] = []
            if not isinstance(values["password"], str):
                errors.append(FieldError(["password"], "password must be a `string` type"))
            else:
                _password_rules(values["password"], "password", errors)
            if errors:
                raise validation_failed(errors)

    async def _check_taken(
        self, email: Any, username: Any, user_id: int | None, message: str | None = None
    ) -> None:
        """Fails early (before the password is hashed) when the name or address is taken;
        the write checks again in its transaction (`_claim`), where it holds."""
        mail, name = _identity(email, username)
        if mail is not None or name is not None:
            _refuse_clashes(
                await self.documents.read_program(self.sql.clashes(mail, name, user_id)), message
            )

    def _claim(
        self, values: dict[str, Any], user_id: int | None, message: str | None = None
    ) -> Callable[[], Program] | None:
        """The check a user write runs first in its transaction: no other user has its
        name or address in either column (two sign-ups racing for one value: one wins)."""
        mail, name = _identity(values.get("email"), values.get("username"))
        if mail is None and name is None:
            return None

        def claim() -> Program:
            rows = yield from self.sql.claim(mail, name, user_id)
            _refuse_clashes(rows, message)

        return claim

    async def register(self, body: dict[str, Any], *, attempt: Attempt) -> dict[str, Any]:
        await self.limits.count("auth.register", attempt, body)
        allowed = set(self.settings.register_allowed_fields)
        extra = [k for k in body if k not in ("username", "email", "password") and k not in allowed]
        if extra:
            raise ValidationError(f"Invalid parameters: {', '.join(extra)}")
        errors: list[FieldError] = []
        email = _required(body, "email", errors)
        username = _required(body, "username", errors)
        password = _required(body, "password", errors)
        if email and not EMAIL_RE.match(email):
            errors.append(FieldError(["email"], "email must be a valid email", email))
        if username and len(username.strip()) < 3:
            errors.append(
                FieldError(["username"], "username must be at least 3 characters", username)
            )
        _password_rules(password, "password", errors)
        if errors:
            raise validation_failed(errors)
        data = {k: v for k, v in body.items() if k not in ("username", "email", "password")}
        data.update(
            username=username,
            email=email.lower(),
            password=password,
            provider="local",
            confirmed=not self.settings.email_confirmation,
        )
        if self.settings.email_confirmation:
            data["confirmationToken"] = secrets.token_hex(20)
        user = await self.create(data, taken=TAKEN)
        if self.settings.email_confirmation:
            await self._send_confirmation(user["email"], str(data["confirmationToken"]))
            return {"user": user}
        return {"jwt": self.jwt.issue(int(user["id"])), "user": user}

    async def login(self, identifier: Any, password: Any, *, attempt: Attempt) -> dict[str, Any]:
        given = {"identifier": identifier, "password": password}
        await self.limits.count("auth.callback", attempt, given)
        errors: list[FieldError] = []
        if not isinstance(identifier, str) or not identifier:
            errors.append(FieldError(["identifier"], "identifier is a required field"))
        if not isinstance(password, str) or not password:
            errors.append(FieldError(["password"], "password is a required field"))
        if errors:
            raise validation_failed(errors)
        assert isinstance(identifier, str) and isinstance(password, str)

        row = await self.documents.read_program(self.sql.credentials(identifier))
        stored = str(row[1]) if row is not None and row[1] else None
        # the hash is checked even for an unknown identifier: the same time and message
        valid = await asyncio.to_thread(verify_password, password, stored)
        if row is None or not valid:
            raise ValidationError(INVALID_CREDENTIALS)
        if self.settings.email_confirmation and not row[3]:
            raise ApplicationError("Your account email is not confirmed")
        if row[2]:
            raise ApplicationError("Your account has been blocked by an administrator")
        user = await self.get(int(row[0]))
        assert user is not None
        return {"jwt": self.jwt.issue(int(row[0])), "user": user}

    async def change_password(
        self, user_id: int, body: dict[str, Any], *, attempt: Attempt
    ) -> dict[str, Any]:
        await self.limits.count("auth.changePassword", attempt, body)
        errors: list[FieldError] = []
        confirmation = _required(body, "passwordConfirmation", errors)
        password = _required(body, "password", errors)
        current = _required(body, "currentPassword", errors)
        _check_keys(body, ("currentPassword", "password", "passwordConfirmation"), errors)
        _password_rules(password, "password", errors)
        if password and confirmation and password != confirmation:
            errors.append(
                FieldError(["passwordConfirmation"], "Passwords do not match", confirmation)
            )
        if errors:
            raise validation_failed(errors)
        stored = await self._stored_password(user_id)
        if not await asyncio.to_thread(verify_password, current, stored):
            raise ValidationError("The provided current password is invalid")
        if current == password:
            raise ValidationError("Your new password must be different than your current password")
        await self._set_password(user_id, password)
        user = await self.get(user_id)
        assert user is not None
        return {"jwt": self.jwt.issue(user_id), "user": user}

    async def forgot_password(self, body: dict[str, Any], *, attempt: Attempt) -> dict[str, Any]:
        await self.limits.count("auth.forgotPassword", attempt, body)
        errors: list[FieldError] = []
        email = _required(body, "email", errors)
        _check_keys(body, ("email",), errors)
        if email and not EMAIL_RE.match(email):
            errors.append(FieldError(["email"], "email must be a valid email", email))
        if errors:
            raise validation_failed(errors)
        token = secrets.token_hex(64)

        # the same answer whether or not the address is known (no user enumeration)
        if await self.documents.write_program(
            self.ct, "update", self.sql.set_reset_code(email.lower(), token)
        ):
            url = self.settings.reset_password_url
            link = f"{url}?code={token}" if url else token
            await self.mailer.send(
                email.lower(),
                "Reset password",
                f"We heard that you lost your password. Use this code to reset it: {link}",
            )
        return {"ok": True}

    async def reset_password(self, body: dict[str, Any], *, attempt: Attempt) -> dict[str, Any]:
        await self.limits.count("auth.resetPassword", attempt, body)
        errors: list[FieldError] = []
        confirmation = _required(body, "passwordConfirmation", errors)
        password = _required(body, "password", errors)
        code = _required(body, "code", errors)
        _check_keys(body, ("code", "password", "passwordConfirmation"), errors)
        if password and confirmation and password != confirmation:
            errors.append(
                FieldError(["passwordConfirmation"], "Passwords do not match", confirmation)
            )
        if errors:
            raise validation_failed(errors)

        row = await self.documents.read_program(self.sql.by_reset_code(code))
        if row is None or not hmac.compare_digest(str(row[1]), code):
            raise ValidationError("Incorrect code provided")
        rules: list[FieldError] = []
        _password_rules(password, "password", rules)
        if rules:
            raise validation_failed(rules)
        user_id = int(row[0])
        await self._set_password(user_id, password, clear_reset=True)
        user = await self.get(user_id)
        assert user is not None
        return {"jwt": self.jwt.issue(user_id), "user": user}

    async def confirm_email(self, token: Any, *, attempt: Attempt) -> int:
        await self.limits.count("auth.emailConfirmation", attempt, {})
        if not isinstance(token, str) or not token:
            raise ValidationError("confirmation is a required field")

        user_id = await self.documents.write_program(self.ct, "update", self.sql.confirm(token))
        if user_id is None:
            raise ValidationError("Invalid token")
        return int(user_id)

    async def send_email_confirmation(
        self, body: dict[str, Any], *, attempt: Attempt
    ) -> dict[str, Any]:
        await self.limits.count("auth.sendEmailConfirmation", attempt, body)
        errors: list[FieldError] = []
        email = _required(body, "email", errors)
        if errors:
            raise validation_failed(errors)
        token = secrets.token_hex(20)

        if await self.documents.write_program(
            self.ct, "update", self.sql.set_confirmation(email.lower(), token)
        ):
            await self._send_confirmation(email.lower(), token)
        return {"email": email.lower(), "sent": True}

    async def _send_confirmation(self, email: str, token: str) -> None:
        await self.mailer.send(
            email,
            "Account confirmation",
            f"Thank you for registering. Confirm your account with the code: {token}",
        )

    async def _stored_password(self, user_id: int) -> str | None:
        stored = await self.documents.read_program(self.sql.password(user_id))
        return str(stored) if stored else None

    async def _set_password(self, user_id: int, password: str, clear_reset: bool = False) -> None:
        hashed: HashedPassword = await asyncio.to_thread(hash_password, password)
        await self.documents.write_program(
            self.ct, "update", self.sql.set_password(user_id, str(hashed), clear_reset)
        )
        self._changed()
