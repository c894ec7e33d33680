"""API tokens: `read-only` (find and findOne on everything), `full-access` and `custom` (a
list of permissions), with an optional lifespan. The access key is shown once, at creation
or regeneration; only its HMAC-SHA512 (keyed with the configured salt) is stored."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import orjson

from folio.auth.principal import TokenRecord
from folio.content.documents import DocumentService
from folio.content.query import Query
from folio.content.sql.accounts import TokenStatements
from folio.errors import (
    ApplicationError,
    FieldError,
    NotFoundError,
    ValidationError,
    validation_failed,
)
from folio.schema.builtins import TOKEN_UID
from folio.schema.model import ContentType
from folio.schema.values import format_datetime, now_utc, parse_datetime

TOKEN_TYPES = ("read-only", "full-access", "custom")
LIFESPANS = (604_800_000, 2_592_000_000, 7_776_000_000)  # 7, 30 and 90 days


def _as_datetime(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value
    return parse_datetime(value)


class TokenService:
    def __init__(self, documents: DocumentService, salt: str, actions: frozenset[str]) -> None:
        self.documents = documents
        self.ct: ContentType = documents.registry.content_types[TOKEN_UID]
        self.salt = salt.encode()
        self.actions = actions
        # called after a token's kind, permissions or key change, or it is revoked
        # (AccessControl subscribes, to drop what it cached for the old token)
        self.on_change: list[Callable[[], None]] = []
        self.sql = TokenStatements(documents.registry, documents.dialect)

    def _changed(self) -> None:
        for listener in self.on_change:
            listener()

    def digest(self, access_key: str) -> str:
        return hmac.new(self.salt, access_key.encode(), hashlib.sha512).hexdigest()

    # ------------------------------------------------------------------ checks
    def _check(self, data: dict[str, Any], current: dict[str, Any] | None) -> dict[str, Any]:
        """The stored values of a create (`current` None) or an update, checked with the
        reference's messages; keys other than the token's fields are ignored, as there."""
        errors: list[FieldError] = []
        out: dict[str, Any] = {}
        if current is None or "name" in data:
            name = data.get("name")
            if not isinstance(name, str) or not name.strip():
                if name == "" or name is None:
                    errors.append(FieldError(["name"], "name must be at least 1 characters", ""))
                errors.append(FieldError(["name"], "name is a required field", name))
            else:
                out["name"] = name.strip()
        if "description" in data or current is None:
            description = data.get("description", "")
            if description is not None and not isinstance(description, str):
                errors.append(
                    FieldError(["description"], "description must be a `string` type", description)
                )
            out["description"] = description or ""
        type_ = data.get("type", (current or {}).get("type", "read-only"))
        if type_ not in TOKEN_TYPES:
            errors.append(
                FieldError(
                    ["type"],
                    f"type must be one of the following values: {', '.join(TOKEN_TYPES)}",
                    type_,
                )
            )
        out["type"] = type_
        if "lifespan" in data and current is None:
            lifespan = data["lifespan"]
            if lifespan is not None and (isinstance(lifespan, bool) or lifespan not in LIFESPANS):
                allowed = ", ".join(str(v) for v in LIFESPANS)
                errors.append(
                    FieldError(
                        ["lifespan"],
                        f"lifespan must be one of the following values: , {allowed}",
                        lifespan,
                    )
                )
            else:
                out["lifespan"] = lifespan
                out["expiresAt"] = (
                    format_datetime(now_utc() + timedelta(milliseconds=lifespan))
                    if lifespan
                    else None
                )
        if errors:
            raise validation_failed(errors)
        permissions = data.get("permissions")
        if type_ == "custom":
            if permissions is None and current is None:
                raise ValidationError("Missing permissions attribute for custom token")
            if permissions is not None:
                if not isinstance(permissions, list) or not all(
                    isinstance(p, str) for p in permissions
                ):
                    raise ValidationError("permissions must be a list of actions")
                unknown = [p for p in permissions if p not in self.actions]
                if unknown:
                    raise ValidationError(f"Unknown permissions provided: {', '.join(unknown)}")
                out["permissions"] = sorted(set(permissions))
        else:
            if permissions:
                raise ValidationError("Non-custom tokens should not reference permissions")
            out["permissions"] = []
        return out

    @staticmethod
    def public(doc: dict[str, Any]) -> dict[str, Any]:
        """A token as the admin API shows it (never its key)."""
        lifespan = doc.get("lifespan")
        permissions = doc.get("permissions")
        if isinstance(permissions, orjson.Fragment):  # stored JSON passed through as is
            permissions = orjson.loads(orjson.dumps(permissions))
        return {
            "id": doc["id"],
            "kind": "content-api",
            "name": doc.get("name"),
            "description": doc.get("description") or "",
            "lastUsedAt": doc.get("lastUsedAt"),
            "type": doc.get("type"),
            "lifespan": str(lifespan) if lifespan is not None else None,
            "expiresAt": doc.get("expiresAt"),
            "createdAt": doc.get("createdAt"),
            "updatedAt": doc.get("updatedAt"),
            "permissions": list(permissions or []),
        }

    async def _name_taken(self, name: str | None, token_id: int | None) -> None:
        if name is None:
            return

        if await self.documents.read_program(self.sql.name_taken(name, token_id)):
            raise ApplicationError("Name already taken")

    # ------------------------------------------------------------------ writes
    async def create(self, data: dict[str, Any]) -> dict[str, Any]:
        """A new token; the returned document carries `accessKey`, shown only now."""
        values = self._check(data, None)
        await self._name_taken(values.get("name"), None)
        access_key = secrets.token_hex(128)
        values["accessKey"] = self.digest(access_key)
        doc = self.public(await self.documents.create_record(self.ct, values))
        doc["accessKey"] = access_key
        return doc

    async def _document_id(self, token_id: int) -> str:
        document_id = await self.documents.document_id_of(self.ct, token_id)
        if document_id is None:
            raise NotFoundError("API Token not found")
        return document_id

    async def update(self, token_id: int, data: dict[str, Any]) -> dict[str, Any]:
        stored = await self._stored(token_id)
        values = self._check(data, self.public(stored))
        await self._name_taken(values.get("name"), token_id)
        doc = await self.documents.update_record(self.ct, stored["documentId"], values)
        self._changed()
        return self.public(doc)

    async def regenerate(self, token_id: int) -> dict[str, Any]:
        document_id = await self._document_id(token_id)
        access_key = secrets.token_hex(128)
        await self.documents.update_record(
            self.ct, document_id, {"accessKey": self.digest(access_key)}
        )
        self._changed()
        return {"id": token_id, "accessKey": access_key, "kind": "content-api"}

    async def revoke(self, token_id: int) -> dict[str, Any] | None:
        """Deletes a token; None when there was none (the reference answers `null`)."""
        doc = await self.documents.find_record(self.ct, token_id)
        if doc is None:
            return None
        await self.documents.delete_record(self.ct, doc["documentId"])
        self._changed()
        return self.public(doc)

    # ------------------------------------------------------------------ reads
    async def list(self) -> list[dict[str, Any]]:
        spec = Query()
        spec.pagination.mode = "offset"
        spec.pagination.limit = 1_000_000
        docs, _ = await self.documents.find_records(self.ct, spec)
        return [self.public(d) for d in sorted(docs, key=lambda d: int(d["id"]))]

    async def _stored(self, token_id: int) -> dict[str, Any]:
        doc = await self.documents.find_record(self.ct, token_id)
        if doc is None:
            raise NotFoundError("API Token not found")
        return doc

    async def get(self, token_id: int) -> dict[str, Any]:
        return self.public(await self._stored(token_id))

    async def lookup(self, access_key: str) -> TokenRecord | None:
        """The token whose key this is; the stored digest is compared in constant time."""
        digest = self.digest(access_key)

        row = await self.documents.read_program(self.sql.lookup(digest))
        if row is None or not hmac.compare_digest(str(row[6]), digest):
            return None
        permissions = row[3]
        if isinstance(permissions, str):
            permissions = orjson.loads(permissions)
        return TokenRecord(
            id=int(row[0]),
            name=str(row[1]),
            type=str(row[2]),
            permissions=frozenset(permissions or ()),
            expires_at=_as_datetime(row[4]),
            last_used_at=_as_datetime(row[5]),
        )

    async def touch(self, token_id: int) -> None:
        """Records a use (the caller throttles this to about once a minute per token)."""
        at = self.ct.attributes["lastUsedAt"].kind.to_db(now_utc(), self.documents.dialect)

        await self.documents.write_program(self.ct, "update", self.sql.touch(token_id, at))
