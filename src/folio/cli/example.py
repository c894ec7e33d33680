"""The example content `folio new` puts in a new app (unless `--empty`): categories, authors,
tags, articles (published ones, drafts, one also in French) with a cover image, and the
site's global settings, written through the document service as any client would."""

from __future__ import annotations

import io
from typing import Any

from folio.app import Folio
from folio.auth.principal import OPEN
from folio.files.uploads import Incoming, UploadSettings, check, store
from folio.schema.builtins import FILE_UID

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
    file_type = folio.registry.content_types[FILE_UID]
    [doc] = await folio.documents.writes.create_many(file_type, [record], None)
    return int(doc["id"])


async def add_example_content(folio: Folio) -> dict[str, int]:
    """Writes the example content; returns how many documents of each kind."""
    docs = folio.documents
    types = folio.registry.content_types
    categories = [
        (
            await docs.create(
                types["api::category.category"], {"name": n, "description": d}, {}, OPEN
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
                {**french, "seo": {"metaTitle": french["title"][:70]}},
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
