"""`folio new DIR`: writes an app with an example blog — collection types article, category
and author, the single type global, and a shared SEO component."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import orjson

from folio.auth.permissions import AUTHENTICATED, DEFAULT_ROLES, PUBLIC
from folio.config import DEFAULT_CLIENT, EXAMPLE_URL

I18N = {"i18n": {"localized": True}}

SEO = {
    "collectionName": "components_shared_seos",
    "info": {"displayName": "Seo", "description": "Search engine metadata"},
    "attributes": {
        "metaTitle": {"type": "string", "required": True, "maxLength": 70},
        "metaDescription": {"type": "text", "maxLength": 160},
        "shareImage": {"type": "media", "multiple": False, "allowedTypes": ["images"]},
    },
}

ARTICLE = {
    "kind": "collectionType",
    "collectionName": "articles",
    "info": {
        "singularName": "article",
        "pluralName": "articles",
        "displayName": "Article",
        "description": "A blog post",
    },
    "options": {"draftAndPublish": True},
    "pluginOptions": I18N,
    "attributes": {
        "title": {"type": "string", "required": True, "pluginOptions": I18N},
        "slug": {"type": "uid", "targetField": "title", "pluginOptions": I18N},
        "description": {"type": "text", "maxLength": 300, "pluginOptions": I18N},
        "body": {"type": "richtext", "pluginOptions": I18N},
        "featured": {"type": "boolean", "default": False},
        "readingMinutes": {"type": "integer", "min": 0},
        "publishDate": {"type": "date"},
        "cover": {"type": "media", "multiple": False, "allowedTypes": ["images"]},
        "category": {
            "type": "relation",
            "relation": "manyToOne",
            "target": "api::category.category",
            "inversedBy": "articles",
        },
        "author": {
            "type": "relation",
            "relation": "manyToOne",
            "target": "api::author.author",
            "inversedBy": "articles",
        },
        "tags": {
            "type": "relation",
            "relation": "manyToMany",
            "target": "api::tag.tag",
            "inversedBy": "articles",
        },
        "seo": {
            "type": "component",
            "repeatable": False,
            "component": "shared.seo",
            "pluginOptions": I18N,
        },
    },
}

CATEGORY = {
    "kind": "collectionType",
    "collectionName": "categories",
    "info": {"singularName": "category", "pluralName": "categories", "displayName": "Category"},
    "options": {"draftAndPublish": False},
    "pluginOptions": {},
    "attributes": {
        "name": {"type": "string", "required": True, "unique": True},
        "slug": {"type": "uid", "targetField": "name"},
        "description": {"type": "text"},
        "articles": {
            "type": "relation",
            "relation": "oneToMany",
            "target": "api::article.article",
            "mappedBy": "category",
        },
    },
}

AUTHOR = {
    "kind": "collectionType",
    "collectionName": "authors",
    "info": {"singularName": "author", "pluralName": "authors", "displayName": "Author"},
    "options": {"draftAndPublish": False},
    "pluginOptions": {},
    "attributes": {
        "name": {"type": "string", "required": True},
        "email": {"type": "email", "unique": True},
        "bio": {"type": "text"},
        "avatar": {"type": "media", "multiple": False, "allowedTypes": ["images"]},
        "articles": {
            "type": "relation",
            "relation": "oneToMany",
            "target": "api::article.article",
            "mappedBy": "author",
        },
    },
}

TAG = {
    "kind": "collectionType",
    "collectionName": "tags",
    "info": {"singularName": "tag", "pluralName": "tags", "displayName": "Tag"},
    "options": {"draftAndPublish": False},
    "pluginOptions": {},
    "attributes": {
        "name": {"type": "string", "required": True, "unique": True},
        "articles": {
            "type": "relation",
            "relation": "manyToMany",
            "target": "api::article.article",
            "mappedBy": "tags",
        },
    },
}

GLOBAL = {
    "kind": "singleType",
    "collectionName": "globals",
    "info": {"singularName": "global", "pluralName": "globals", "displayName": "Global"},
    "options": {"draftAndPublish": False},
    "pluginOptions": I18N,
    "attributes": {
        "siteName": {"type": "string", "required": True, "pluginOptions": I18N},
        "siteDescription": {"type": "text", "pluginOptions": I18N},
        "defaultSeo": {
            "type": "component",
            "repeatable": False,
            "component": "shared.seo",
            "pluginOptions": I18N,
        },
    },
}

CONFIG: dict[str, Any] = {
    "server": {"host": "127.0.0.1", "port": 1337},
    "database": {"client": DEFAULT_CLIENT, "connection": {"filename": ".tmp/data.db"}},
    "api": {"rest": {"defaultLimit": 25, "maxLimit": 100, "withCount": True}},
    "i18n": {
        "defaultLocale": "en",
        "locales": [{"code": "en", "name": "English (en)"}, {"code": "fr", "name": "French (fr)"}],
    },
}


def _permissions(models: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The reference's default roles, plus reading the example types (`find`, `findOne`)
    for both: anyone may read the blog and sign up, and a signed-in user may read it too,
    see their own account and change their password. Writing content or uploading needs a
    grant (`folio permissions grant authenticated api::article.article.create ...`) or an
    API token: a new app lets no stranger who signs up change its content."""
    reads = []
    for name, model in models.items():
        actions = ["find"] if model["kind"] == "singleType" else ["find", "findOne"]
        reads += [f"api::{name}.{name}.{action}" for action in actions]
    public, authenticated = DEFAULT_ROLES[PUBLIC], DEFAULT_ROLES[AUTHENTICATED]
    return {
        "roles": {
            PUBLIC: {**public, "permissions": [*reads, *public["permissions"]]},
            AUTHENTICATED: {
                **authenticated,
                "permissions": [*reads, *authenticated["permissions"]],
            },
        }
    }


INDEX_PY = '''"""App hooks: `register(app)` runs before serving, `bootstrap(app)` after start."""


def register(app):
    pass


def bootstrap(app):
    pass
'''


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")


def scaffold(target: Path) -> list[Path]:
    if target.exists() and any(target.iterdir()):
        raise FileExistsError(f"{target} exists and is not empty")
    files: list[Path] = []
    models = {
        "article": ARTICLE,
        "category": CATEGORY,
        "author": AUTHOR,
        "tag": TAG,
        "global": GLOBAL,
    }
    for name, model in models.items():
        path = target / "src" / "api" / name / "content-types" / name / "schema.json"
        _write(path, model)
        files.append(path)
    seo = target / "src" / "components" / "shared" / "seo.json"
    _write(seo, SEO)
    files.append(seo)
    for name, data in {**CONFIG, "permissions": _permissions(models)}.items():
        path = target / "config" / f"{name}.json"
        _write(path, data)
        files.append(path)
    index = target / "src" / "index.py"
    index.write_text(INDEX_PY)
    (target / "public" / "uploads").mkdir(parents=True, exist_ok=True)
    (target / "public" / "uploads" / ".keep").write_text("")
    (target / ".gitignore").write_text(".tmp/\npublic/uploads/*\n!public/uploads/.keep\n.env\n")
    (target / ".env.example").write_text(
        f"HOST=127.0.0.1\nPORT=1337\n# DATABASE_URL={EXAMPLE_URL}\n"
        "JWT_SECRET=\nAPI_TOKEN_SALT=\nADMIN_API_KEY=\n"
    )
    env = target / ".env"
    env.write_text(
        "# Secrets of this app (not in version control; production sets its own).\n"
        f"JWT_SECRET={secrets.token_hex(32)}\n"
        f"API_TOKEN_SALT={secrets.token_hex(32)}\n"
        f"ADMIN_API_KEY={secrets.token_hex(24)}\n"
    )
    env.chmod(0o600)
    files.append(index)
    return files
