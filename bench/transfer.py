"""`folio export` and `folio import` of a large app: documents per second, peak memory, size.

Writes a synthetic transfer archive (unpacked) of N documents of the blog app: categories
and tags, and articles with a draft and a published version each, a category, two tags in
order, an SEO component and two link components. It loads it into app A (the seeding: the
import's bulk path), then measures, each in a process of its own (peak RSS is that
process's): `export_archive` of app A to a .tar.gz, and `import_archive --force` of that
archive into a fresh app B.

    .venv/bin/python bench/transfer.py [--documents 100000]
        [--database-url URL_A --database-url-b URL_B]   (default: SQLite files in a scratch
                                                         folder; PostgreSQL: two databases,
                                                         emptied first)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

TS = "2026-01-01T00:00:00.000Z"
PUBLISHED = "2026-01-01T00:00:01.000Z"


def _entity(uid: str, row_id: int, data: dict[str, Any]) -> bytes:
    return json.dumps({"type": uid, "id": row_id, "data": data}).encode() + b"\n"


def _link(kind: str, relation: str, left: dict[str, Any], right: dict[str, Any]) -> bytes:
    return (
        json.dumps({"kind": kind, "relation": relation, "left": left, "right": right}).encode()
        + b"\n"
    )


def write_seed(app_dir: Path, root: Path, documents: int) -> None:
    """An unpacked archive of `documents` documents (1% categories, 1% tags, the rest
    articles with two versions each)."""
    from folio.schema.loader import load_registry
    from folio.transfer.export_schemas import reference_schemas

    registry = load_registry(app_dir)
    for stage in ("schemas", "entities", "links", "configuration"):
        (root / stage).mkdir(parents=True, exist_ok=True)
    with (root / "schemas" / "schemas_00001.jsonl").open("wb") as out:
        for schema in reference_schemas(registry, app_dir):
            out.write(json.dumps(schema).encode() + b"\n")
    (root / "configuration" / "configuration_00001.jsonl").write_bytes(b"")
    (root / "metadata.json").write_text(
        json.dumps({"createdAt": TS, "strapi": {"version": "5.54.0"}})
    )
    small = max(1, documents // 100)
    articles = documents - 2 * small
    base = {"createdAt": TS, "updatedAt": TS, "publishedAt": PUBLISHED, "locale": None}
    with (
        (root / "entities" / "entities_00001.jsonl").open("wb") as ents,
        (root / "links" / "links_00001.jsonl").open("wb") as links,
    ):
        for i in range(1, small + 1):
            ents.write(
                _entity(
                    "api::category.category",
                    i,
                    {
                        "documentId": f"cat{i:021d}",
                        "name": f"Category {i}",
                        "slug": f"category-{i}",
                        **base,
                    },
                )
            )
            ents.write(
                _entity(
                    "api::tag.tag", i, {"documentId": f"tag{i:021d}", "name": f"tag-{i}", **base}
                )
            )
        inverse: dict[tuple[str, int], int] = {}
        for n in range(articles):
            doc = f"art{n:021d}"
            for version, row_id in (("draft", 2 * n + 1), ("published", 2 * n + 2)):
                data = {
                    "documentId": doc,
                    "title": f"Article {n}",
                    "slug": f"article-{n}",
                    "description": f"About article {n}: " + "words " * 12,
                    "body": f"# Article {n}\n\nSome **text**.",
                    "content": None,
                    "featured": n % 7 == 0,
                    "views": n,
                    "rating": None,
                    "score": n / 4,
                    "bigCount": None,
                    "publishDate": "2024-01-15",
                    "eventAt": None,
                    "startTime": None,
                    "contactEmail": None,
                    "status2": "idea",
                    "meta": None,
                    "createdAt": TS,
                    "updatedAt": TS,
                    "publishedAt": PUBLISHED if version == "published" else None,
                    "locale": "en",
                    "seo": {"id": row_id, "metaTitle": f"SEO {n}", "metaDescription": None},
                    "links": [
                        {"id": 2 * row_id - 1, "label": "a", "url": "https://example.com/a"},
                        {"id": 2 * row_id, "label": "b", "url": "https://example.com/b"},
                    ],
                    "blocks": [],
                }
                ents.write(_entity("api::article.article", row_id, data))
                category = n % small + 1
                inverse[("c", category)] = inverse.get(("c", category), 0) + 1
                links.write(
                    _link(
                        "relation.basic",
                        "manyToOne",
                        {"type": "api::article.article", "field": "category", "ref": row_id},
                        {
                            "type": "api::category.category",
                            "field": "articles",
                            "ref": category,
                            "pos": inverse[("c", category)],
                        },
                    )
                )
                for pos, tag in enumerate((n % small + 1, (n + 1) % small + 1), start=1):
                    inverse[("t", tag)] = inverse.get(("t", tag), 0) + 1
                    links.write(
                        _link(
                            "relation.basic",
                            "manyToMany",
                            {
                                "type": "api::article.article",
                                "field": "tags",
                                "ref": row_id,
                                "pos": pos,
                            },
                            {
                                "type": "api::tag.tag",
                                "field": "articles",
                                "ref": tag,
                                "pos": inverse[("t", tag)],
                            },
                        )
                    )


# --------------------------------------------------------------------------- steps
class MemoryWatch:
    """Samples /proc/self/status every 50 ms: the peak of anonymous memory (the heap),
    apart from file pages mapped in (SQLite maps its database file: pages read count in
    the RSS, but they are the file's cache, dropped under pressure, not the process's)."""

    def __init__(self) -> None:
        import threading

        self.peak_anon = 0
        self.peak_file = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        try:
            text = Path("/proc/self/status").read_text()
        except OSError:
            return
        for line in text.splitlines():
            if line.startswith("RssAnon:"):
                self.peak_anon = max(self.peak_anon, int(line.split()[1]))
            elif line.startswith("RssFile:"):
                self.peak_file = max(self.peak_file, int(line.split()[1]))

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            self._sample()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()


async def step(args: argparse.Namespace) -> dict[str, Any]:
    from folio.app import load_app
    from folio.transfer.exporter import export_archive
    from folio.transfer.importer import import_archive

    watch = MemoryWatch()
    folio = load_app(Path(args.app), args.url)
    await folio.start(bootstrap=False)
    try:
        began = time.perf_counter()
        if args.step == "export":
            result = await export_archive(folio, args.archive)
            out: dict[str, Any] = {"path": str(result.path), "counts": result.counts}
            out["bytes"] = Path(result.path).stat().st_size
        else:
            report = await import_archive(folio, Path(args.archive), force=True)
            out = {"documents": getattr(report, "documents", None)}
        out["seconds"] = time.perf_counter() - began
    finally:
        await folio.close()
    watch.stop()
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["peak_anon_mb"] = watch.peak_anon / 1024
    out["peak_file_mb"] = watch.peak_file / 1024
    return out


def run_step(name: str, app: Path, url: str, archive: Path) -> dict[str, Any]:
    cmd = [
        sys.executable,
        __file__,
        "--step",
        name,
        "--app",
        str(app),
        "--url",
        url,
        "--archive",
        str(archive),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{name} failed:\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def empty_postgres(url: str) -> None:
    import asyncpg

    async def go() -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute("DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;")
        finally:
            await conn.close()

    asyncio.run(go())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--database-url")
    parser.add_argument("--database-url-b")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--step", choices=["export", "import"], help=argparse.SUPPRESS)
    parser.add_argument("--app", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--archive", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        print(json.dumps(asyncio.run(step(args))))
        return
    scratch = Path(tempfile.mkdtemp(prefix="folio-transfer-bench-"))
    apps = []
    for name in ("a", "b"):
        app_dir = scratch / name
        shutil.copytree(ROOT / "tests" / "fixtures" / "blog", app_dir)
        apps.append(app_dir)
    urls = [args.database_url, args.database_url_b]
    if bool(urls[0]) != bool(urls[1]):
        sys.exit("give both --database-url and --database-url-b (two databases)")
    for i, url in enumerate(urls):
        if url:
            empty_postgres(url)
        else:
            urls[i] = f"sqlite:///{apps[i] / '.tmp' / 'data.db'}"
    kind = "PostgreSQL" if args.database_url else "SQLite"
    try:
        began = time.perf_counter()
        write_seed(apps[0], scratch / "seed", args.documents)
        print(
            f"{kind}: seed archive of {args.documents:,} documents written "
            f"({time.perf_counter() - began:.1f} s)",
            flush=True,
        )
        seeded = run_step("import", apps[0], urls[0], scratch / "seed")
        print(f"  seeded app A (bulk import): {seeded['seconds']:.1f} s", flush=True)
        exported = run_step("export", apps[0], urls[0], scratch / "export")
        counts = exported["counts"]
        print(
            f"  export: {exported['seconds']:.1f} s, "
            f"{args.documents / exported['seconds']:,.0f} documents/s, "
            f"peak RSS {exported['peak_rss_mb']:.0f} MB (heap {exported['peak_anon_mb']:.0f} MB, "
            f"mapped files {exported['peak_file_mb']:.0f} MB), "
            f"archive {exported['bytes'] / 1e6:.1f} MB "
            f"({counts['entities']:,} entities, {counts['links']:,} links)",
            flush=True,
        )
        imported = run_step("import", apps[1], urls[1], Path(exported["path"]))
        print(
            f"  import --force into a fresh app: {imported['seconds']:.1f} s, "
            f"{args.documents / imported['seconds']:,.0f} documents/s, "
            f"peak RSS {imported['peak_rss_mb']:.0f} MB (heap {imported['peak_anon_mb']:.0f} MB, "
            f"mapped files {imported['peak_file_mb']:.0f} MB)",
            flush=True,
        )
    finally:
        if args.keep:
            print(f"scratch folder: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
