"""What pre-signing a private bucket's URLs costs an answer: a page of 25 articles of the
blog app (tests/fixtures/blog), each with a cover and a gallery of 3 images that have 4
formats each (25 x 4 x 5 = 500 URLs), signed as the document service's middleware signs
them (`UrlSigner.documents`), without a store (signing asks it nothing); and one URL alone.

    .venv/bin/python bench/s3_signing.py [--rounds 200]

Prints the median time per page and per URL."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from folio.content.signing import UrlSigner  # noqa: E402
from folio.files.providers.s3 import S3Provider  # noqa: E402
from folio.files.providers.s3_options import read_options  # noqa: E402
from folio.schema.loader import load_registry  # noqa: E402

BASE = "http://127.0.0.1:8333/media"
FORMATS = ("thumbnail", "small", "medium", "large")


def image(n: int) -> dict[str, Any]:
    digest = f"photo_{n:010x}"
    return {
        "id": n,
        "documentId": f"doc{n}",
        "name": "photo.jpg",
        "hash": digest,
        "ext": ".jpg",
        "mime": "image/jpeg",
        "url": f"{BASE}/{digest}.jpg",
        "formats": {
            f: {"hash": f"{f}_{digest}", "ext": ".jpg", "url": f"{BASE}/{f}_{digest}.jpg"}
            for f in FORMATS
        },
    }


def page() -> list[dict[str, Any]]:
    return [
        {
            "id": i,
            "documentId": f"a{i}",
            "title": f"Article {i}",
            "cover": image(i * 10),
            "gallery": [image(i * 10 + k) for k in range(1, 4)],
        }
        for i in range(25)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    registry = load_registry(ROOT / "tests" / "fixtures" / "blog")
    options = {
        "s3Options": {
            "credentials": {"accessKeyId": "AK", "secretAccessKey": "SK"},
            "endpoint": "http://127.0.0.1:8333",
            "params": {"Bucket": "media", "ACL": "private"},
        }
    }
    provider = S3Provider(read_options(options))
    signer = UrlSigner(registry, provider)
    docs = page()
    signer.documents("api::article.article", docs)  # the plan per type, made once
    pages = []
    for _ in range(args.rounds):
        started = time.perf_counter()
        signer.documents("api::article.article", docs)
        pages.append(time.perf_counter() - started)
    url = f"{BASE}/photo_0000000001.jpg"
    singles = []
    for _ in range(args.rounds):
        started = time.perf_counter()
        for _ in range(100):
            provider.signed_url(url)
        singles.append((time.perf_counter() - started) / 100)
    print(f"page of 25 articles, 500 URLs: {statistics.median(pages) * 1000:.2f} ms")
    print(f"one URL: {statistics.median(singles) * 1e6:.1f} us")


if __name__ == "__main__":
    main()
