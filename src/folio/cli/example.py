"""The example content `folio new` puts in a new app (unless `--empty`): categories, authors,
tags, articles (published ones, drafts, one also in French) with a cover image and slugs
made from their titles, and the site's global settings, written through the document
service as any client would; and the full-access API token `folio new` prints. Both go to
the database the app is configured with (`DATABASE_URL` included), which the app's `.env`
then names."""

from __future__ import annotations

import io
import os
import re
import unicodedata
from pathlib import Path
from typing import Any

from folio.app import Folio
from folio.auth.principal import OPEN
from folio.files.uploads import Incoming, UploadSettings, check, store

CATEGORIES = [
    ("News", "What happened, and what is coming."),
    ("Tutorials", "Step by step, from the first request to production."),
    ("Releases", "What each version brings."),
]
AUTHORS = [
    ("Ada Example", "ada@example.com", "Writes about APIs and the people who use them."),
    ("Linus Sample", "linus@example.com", "Keeps the servers fast and the docs honest."),
]
TAGS = ["rest", "graphql", "getting-started", "performance"]
ARTICLES: list[dict[str, Any]] = [
    {
        "title": "Welcome to your content API",
        "description": "A first article, published, with a cover image.",
        "body": "This app serves its content over **REST** and **GraphQL**.\n\n"
        "Try `GET /api/articles?populate=*`.",
        "featured": True,
        "readingMinutes": 2,
        "category": 0,
        "author": 0,
        "tags": [0, 2],
        "cover": True,
        "french": {
            "title": "Bienvenue dans votre API de contenu",
            "description": "Un premier article, publié, avec une image de couverture.",
            "body": "Cette application sert son contenu en **REST** et en **GraphQL**.",
        },
    },
    {
        "title": "Filtering, sorting and paging",
        "description": "Query parameters in the bracket syntax.",
        "body": "`filters[title][$containsi]=api&sort=publishDate:desc&pagination[page]=1`",
        "readingMinutes": 5,
        "category": 1,
        "author": 1,
        "tags": [0, 2],
    },
    {
        "title": "Asking GraphQL for exactly what you need",
        "description": "One request, nested relations, no over-fetching.",
        "body": "`{ articles { title category { name } } }`",
        "readingMinutes": 4,
        "category": 1,
        "author": 0,
        "tags": [1],
    },
    {
        "title": "Release notes (draft)",
        "description": "A draft: read it with `status=draft` and a token that may.",
        "body": "Not published yet.",
        "category": 2,
        "author": 1,
        "tags": [3],
        "draft": True,
    },
    {
        "title": "Performance notes (draft)",
        "description": "Another draft.",
        "body": "Numbers to come.",
        "category": 0,
        "author": 1,
        "tags": [3],
        "draft": True,
    },
]


def _cover() -> bytes:
    """A small generated picture (a gradient with a band), as PNG."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (640, 360))
    draw = ImageDraw.Draw(image)
    for y in range(360):
        shade = 40 + y * 150 // 360
        draw.line([(0, y), (640, y)], fill=(shade // 3, shade // 2, shade))
    draw.rectangle([(0, 150), (640, 210)], fill=(240, 180, 60))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


async def _upload_cover(folio: Folio) -> int:
    item = Incoming("welcome-cover.png", _cover(), "image/png")
    settings = UploadSettings()
    mime = check(item, settings)
    info = {"alternativeText": "A gradient with a yellow band", "caption": "Welcome"}
    record, _ = await store(item, mime, info, folio.storage, settings)
    [doc] = await folio.files.create([record])
    return int(doc["id"])


def slugify(text: str, taken: set[str]) -> str:
    """`the-internet-s-own-boy` for "The Internet's Own Boy": letters and digits without
    accents, lower case, every other run of characters one hyphen; `-2`, `-3`... after one
    already in `taken` (which receives it)."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    base = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-") or "entry"
    slug, n = base, 1
    while slug in taken:
        n += 1
        slug = f"{base}-{n}"
    taken.add(slug)
    return slug


async def add_example_content(folio: Folio) -> dict[str, int]:
    """Writes the example content; returns how many documents of each kind."""
    docs = folio.documents
    types = folio.registry.content_types
    slugs: dict[str, set[str]] = {}  # taken, per type and locale
    categories = [
        (
            await docs.create(
                types["api::category.category"],
                {
                    "name": n,
                    "slug": slugify(n, slugs.setdefault("category", set())),
                    "description": d,
                },
                {},
                OPEN,
            )
        )["documentId"]
        for n, d in CATEGORIES
    ]
    authors = [
        (
            await docs.create(
                types["api::author.author"], {"name": n, "email": e, "bio": b}, {}, OPEN
            )
        )["documentId"]
        for n, e, b in AUTHORS
    ]
    tags = [
        (await docs.create(types["api::tag.tag"], {"name": name}, {}, OPEN))["documentId"]
        for name in TAGS
    ]
    cover = await _upload_cover(folio)
    article_type = types["api::article.article"]
    for spec in ARTICLES:
        data: dict[str, Any] = {
            k: v
            for k, v in spec.items()
            if k in ("title", "description", "body", "featured", "readingMinutes")
        }
        data["slug"] = slugify(spec["title"], slugs.setdefault("article/en", set()))
        data["category"] = categories[spec["category"]]
        data["author"] = authors[spec["author"]]
        data["tags"] = [tags[i] for i in spec["tags"]]
        data["seo"] = {"metaTitle": spec["title"][:70], "metaDescription": spec["description"]}
        if spec.get("cover"):
            data["cover"] = cover
        params = {"status": "draft"} if spec.get("draft") else {}
        doc = await docs.create(article_type, data, params, OPEN)
        french = spec.get("french")
        if french:
            await docs.update(
                article_type,
                doc["documentId"],
                {
                    **french,
                    "slug": slugify(french["title"], slugs.setdefault("article/fr", set())),
                    "seo": {"metaTitle": french["title"][:70]},
                },
                {"locale": "fr"},
                OPEN,
            )
    await docs.update(
        types["api::global.global"],
        None,
        {
            "siteName": "Folio example blog",
            "siteDescription": "The example app of `folio new`.",
            "defaultSeo": {"metaTitle": "Folio example blog"},
        },
        {},
        OPEN,
    )
    return {
        "categories": len(categories),
        "authors": len(authors),
        "tags": len(tags),
        "articles": len(ARTICLES),
        "files": 1,
    }


async def create_token(folio: Folio) -> str:
    """A full-access API token for the first requests; its access key (shown once)."""
    doc = await folio.tokens.create(
        {
            "name": "example",
            "type": "full-access",
            "description": "Made by folio new for the first requests",
        }
    )
    return str(doc["accessKey"])


def remember_database(target: Path) -> None:
    """When `DATABASE_URL` chose the database the example went to, the app's `.env` names
    it, so that `folio serve` and the other commands find that content (and the token) from
    any shell, not an empty SQLite file."""
    url = os.environ.get("DATABASE_URL", "")
    env = target / ".env"
    if url and env.is_file():
        with env.open("a") as out:
            out.write(
                f"# the database `folio new` wrote the example content to\nDATABASE_URL={url}\n"
            )
