"""The models Folio itself brings: uploaded files, users and roles, and API tokens.

They are stored like any content type (tables, link tables, validation) but are served by
their own routes (`/api/upload`, `/api/users`, `/api/auth`, `/admin/api-tokens`), never by
`/api/:type`. An app may add attributes to the user model with
`src/extensions/users-permissions/content-types/user/schema.json`, as in the reference."""

from __future__ import annotations

from typing import Any

FILE_UID = "plugin::upload.file"
USER_UID = "plugin::users-permissions.user"
ROLE_UID = "plugin::users-permissions.role"
TOKEN_UID = "admin::api-token"

FILE_MODEL: dict[str, Any] = {
    "collectionName": "files",
    "info": {"singularName": "file", "pluralName": "files", "displayName": "File"},
    "attributes": {
        "name": {"type": "string", "required": True},
        "alternativeText": {"type": "text"},
        "caption": {"type": "text"},
        "focalPoint": {"type": "json"},
        "width": {"type": "integer"},
        "height": {"type": "integer"},
        "formats": {"type": "json"},
        "hash": {"type": "string", "required": True},
        "ext": {"type": "string"},
        "mime": {"type": "string", "required": True},
        "size": {"type": "float", "required": True},
        "url": {"type": "text", "required": True},
        "previewUrl": {"type": "text"},
        "provider": {"type": "string", "required": True},
        "provider_metadata": {"type": "json"},
    },
}

USER_MODEL: dict[str, Any] = {
    "collectionName": "up_users",
    "info": {"singularName": "user", "pluralName": "users", "displayName": "User"},
    "attributes": {
        "username": {"type": "string", "minLength": 3, "unique": True, "required": True},
        "email": {"type": "email", "minLength": 6, "unique": True, "required": True},
        "provider": {"type": "string"},
        "password": {"type": "password", "minLength": 6, "private": True},
        "resetPasswordToken": {"type": "string", "private": True},
        "confirmationToken": {"type": "string", "private": True},
        "confirmed": {"type": "boolean", "default": False},
        "blocked": {"type": "boolean", "default": False},
        "role": {
            "type": "relation",
            "relation": "manyToOne",
            "target": ROLE_UID,
            "inversedBy": "users",
        },
    },
}

ROLE_MODEL: dict[str, Any] = {
    "collectionName": "up_roles",
    "info": {"singularName": "role", "pluralName": "roles", "displayName": "Role"},
    "attributes": {
        "name": {"type": "string", "minLength": 3, "required": True},
        "description": {"type": "string"},
        "type": {"type": "string", "unique": True},
        "users": {
            "type": "relation",
            "relation": "oneToMany",
            "target": USER_UID,
            "mappedBy": "role",
        },
    },
}

TOKEN_MODEL: dict[str, Any] = {
    "collectionName": "api_tokens",
    "info": {"singularName": "api-token", "pluralName": "api-tokens", "displayName": "API Token"},
    "attributes": {
        "name": {"type": "string", "required": True, "unique": True, "minLength": 1},
        "description": {"type": "string", "default": ""},
        "type": {
            "type": "enumeration",
            "enum": ["read-only", "full-access", "custom"],
            "default": "read-only",
            "required": True,
        },
        "accessKey": {"type": "string", "required": True, "private": True, "unique": True},
        "permissions": {"type": "json"},
        "lastUsedAt": {"type": "datetime"},
        "expiresAt": {"type": "datetime"},
        "lifespan": {"type": "biginteger"},
    },
}

# uid -> (api name, model)
BUILTIN_MODELS: dict[str, tuple[str, dict[str, Any]]] = {
    FILE_UID: ("upload", FILE_MODEL),
    USER_UID: ("users-permissions", USER_MODEL),
    ROLE_UID: ("users-permissions", ROLE_MODEL),
    TOKEN_UID: ("admin", TOKEN_MODEL),
}

USER_EXTENSION = "src/extensions/users-permissions/content-types/user/schema.json"
