"""Round trips between Folio and the reference, through their transfer archives.

    FOLIO_REFERENCE_DIR=/tmp/reference python tests/reference_transfer/roundtrip.py [--keep DIR]

1. reference -> Folio -> reference: the reference's blog archive is imported into a fresh
   Folio app (SQLite), exported by Folio, imported by the reference's `strapi import --force`
   into a fresh database, and exported again by `strapi export`.
2. Folio -> reference -> Folio: that Folio export, once the reference has imported and
   re-exported it, is imported into another fresh Folio app and exported by Folio again.
3. The same content exported by Folio encrypted (`--encrypt --key`), imported by the
   reference with `--key`.

Each step's archive is summarized and compared with the one it started from: entries per
type, locale and status; each relation's targets in their order (both sides named by
type, documentId, locale and status, so renumbered rows compare equal); each media field's
files in order; files' bytes (sha256 per file name). It prints what differs and exits 1 if
anything does. Needs PostgreSQL (the reference's) and the reference installed (setup.sh)."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = ROOT.parent / "shared" / "reference" / "exports" / "blog-5.54.tar.gz"
MODELS = ROOT / "tests" / "fixtures" / "blog"
# the content both sides represent (the reference's internal types are not compared)
COMPARED = ("api::", "plugin::upload.file", "plugin::users-permissions.user")
ROLE_UID = "plugin::users-permissions.role"
# what Folio does not represent: media library folders (every file is at the root)
NOT_REPRESENTED = ("plugin::upload.folder",)
PARTS = ("counts", "relations", "inverse", "media", "assets")


# --------------------------------------------------------------------------- archives
def unpack(archive: Path, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into


def lines(root: Path, stage: str) -> list[dict[str, Any]]:
    out = []
    for path in sorted((root / stage).glob(f"{stage}_*.jsonl")):
        out += [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return out


def summarize(root: Path) -> dict[str, Any]:
    """What an unpacked archive holds, independent of row and component numbering."""
    keys: dict[tuple[str, int], tuple[Any, ...]] = {}
    counts: Counter[str] = Counter()
    components: dict[tuple[str, int], tuple[Any, ...]] = {}

    def walk_components(
        owner: tuple[Any, ...], data: dict[str, Any], schema_comps: set[str]
    ) -> None:
        for name, value in data.items():
            items = value if isinstance(value, list) else [value]
            for index, item in enumerate(items):
                if isinstance(item, dict) and "id" in item:
                    ctype = item.get("__component") or comp_fields.get(name)
                    if ctype:
                        key = (*owner, name, index)
                        components[(ctype, int(item["id"]))] = key
                        walk_components(key, item, schema_comps)

    schemas = {s["uid"]: s for s in lines(root, "schemas")}
    comp_fields: dict[str, str] = {}
    for s in schemas.values():
        for name, attr in s.get("attributes", {}).items():
            if attr.get("type") == "component":
                comp_fields[name] = attr["component"]
    for entity in lines(root, "entities"):
        uid, data = entity["type"], entity["data"]
        status = "published" if data.get("publishedAt") else "draft"
        key = (uid, data.get("documentId"), data.get("locale"), status)
        if uid == ROLE_UID:
            # roles map onto the app's roles by type (their documentIds are the app's)
            key = (uid, data.get("type"))
        keys[(uid, int(entity["id"]))] = key
        if uid.startswith(COMPARED):
            counts[f"{uid} {data.get('locale')} {status}"] += 1
            walk_components(key, data, set())
    relations: dict[str, list[Any]] = defaultdict(list)
    media: dict[str, list[Any]] = defaultdict(list)
    inverse: dict[str, list[Any]] = defaultdict(list)
    for link in lines(root, "links"):
        left, right = link["left"], link["right"]
        if left.get("field") == "localizations" or not str(left["type"]).startswith(COMPARED):
            continue
        if right["type"] in NOT_REPRESENTED:
            continue
        if link["kind"] == "relation.morph":
            owner = keys.get((right["type"], int(right["ref"]))) or components.get(
                (right["type"], int(right["ref"]))
            )
            file = keys.get((left["type"], int(left["ref"])))
            media[f"{owner} {right['field']}"].append((right.get("pos") or 0, str(file)))
            continue
        source = keys.get((left["type"], int(left["ref"]))) or components.get(
            (left["type"], int(left["ref"]))
        )
        target = keys.get((right["type"], int(right["ref"])))
        relations[f"{source} {left['field']}"].append((left.get("pos") or 0, str(target)))
        if right.get("field"):
            # the inverse side's order (a category's articles, a tag's articles)
            inverse[f"{target} {right['field']}"].append((right.get("pos") or 0, str(source)))
    assets = {}
    for path in sorted((root / "assets" / "uploads").glob("*")):
        assets[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return {
        "counts": dict(sorted(counts.items())),
        "relations": {k: [t for _, t in sorted(v)] for k, v in sorted(relations.items())},
        "inverse": {k: [t for _, t in sorted(v)] for k, v in sorted(inverse.items())},
        "media": {k: [t for _, t in sorted(v)] for k, v in sorted(media.items())},
        "assets": assets,
    }


def compare(name: str, a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    problems = []
    for part in PARTS:
        left, right = a[part], b[part]
        for key in sorted(set(left) | set(right)):
            if left.get(key) != right.get(key):
                problems.append(f"{name}: {part} {key}: {left.get(key)} != {right.get(key)}")
    total = {p: len(a[p]) for p in PARTS}
    print(f"{name}: compared {total}; {len(problems)} difference(s)")
    return problems


# --------------------------------------------------------------------------- Folio
async def folio_import_export(
    app_dir: Path, archive: Path, out: Path, key: str | None = None
) -> Path:
    from folio.app import load_app
    from folio.transfer.exporter import export_archive
    from folio.transfer.importer import import_archive

    folio = load_app(app_dir)
    await folio.start(bootstrap=False)
    try:
        await import_archive(folio, archive, force=True)
        result = await export_archive(folio, out, encrypt=key is not None, key=key)
    finally:
        await folio.close()
    return result.path


def fresh_app(where: Path, root: Path) -> Path:
    """The blog models with every locale the unpacked archive at `root` has content in (the
    reference keeps entries of locales since removed, as its blog archive does: `xx`)."""
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(MODELS, where)
    i18n = where / "config" / "i18n.json"
    config = json.loads(i18n.read_text())
    known = {loc["code"] for loc in config["locales"]}
    used = {e["data"].get("locale") for e in lines(root, "entities")} - {None}
    config["locales"] += [{"code": c, "name": c} for c in sorted(used - known)]
    i18n.write_text(json.dumps(config))
    return where


# --------------------------------------------------------------------------- reference
def strapi(ref: Path, db: str, *args: str) -> None:
    env = {**os.environ, "PGPASSWORD": "postgres", "DATABASE_NAME": db, "NODE_ENV": "development"}
    cmd = ["node", "node_modules/@strapi/strapi/bin/strapi.js", *args]
    done = subprocess.run(cmd, cwd=ref, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"strapi {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    warnings = [x for x in done.stdout.splitlines() if "warn" in x.lower() or " schema " in x]
    for line in warnings[:20]:
        print(f"  reference: {line.strip()}")


def reference_round(
    ref: Path, archive: Path, out_base: Path, db: str, key: str | None = None
) -> Path:
    """`strapi import --force` of `archive` into a fresh database, then `strapi export`."""
    env = {**os.environ, "PGPASSWORD": "postgres"}
    psql = ["psql", "-U", "postgres", "-h", "127.0.0.1", "-qc"]
    subprocess.run([*psql, f"drop database if exists {db} with (force)"], check=True, env=env)
    subprocess.run([*psql, f"create database {db}"], check=True, env=env)
    strapi(ref, db, "import", "-f", str(archive), "--force", *(["--key", key] if key else []))
    strapi(ref, db, "export", "--no-encrypt", "-f", str(out_base))
    return Path(str(out_base) + ".tar.gz")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", type=Path, help="a directory to keep the archives in")
    parser.add_argument("--db", default="folio_export_roundtrip")
    args = parser.parse_args()
    ref_dir = os.environ.get("FOLIO_REFERENCE_DIR")
    if not ref_dir:
        sys.exit("set FOLIO_REFERENCE_DIR to the reference's directory (setup.sh installs it)")
    ref = Path(ref_dir)
    work = args.keep or Path(tempfile.mkdtemp(prefix="folio-roundtrip-"))
    work.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []

    original = summarize(unpack(ARCHIVE, work / "x-original"))
    folio1 = asyncio.run(
        folio_import_export(fresh_app(work / "app1", work / "x-original"), ARCHIVE, work / "folio1")
    )
    s_folio1 = summarize(unpack(folio1, work / "x-folio1"))
    problems += compare("reference -> Folio", original, s_folio1)
    ref1 = reference_round(ref, folio1, work / "ref1", args.db)
    s_ref1 = summarize(unpack(ref1, work / "x-ref1"))
    problems += compare("reference -> Folio -> reference", original, s_ref1)
    problems += compare("Folio -> reference", s_folio1, s_ref1)
    folio2 = asyncio.run(
        folio_import_export(fresh_app(work / "app2", work / "x-ref1"), ref1, work / "folio2")
    )
    s_folio2 = summarize(unpack(folio2, work / "x-folio2"))
    problems += compare("Folio -> reference -> Folio", s_folio1, s_folio2)
    # an encrypted Folio export, read by the reference with its key
    secret = asyncio.run(
        folio_import_export(fresh_app(work / "app3", work / "x-ref1"), ref1, work / "enc", "k3y")
    )
    ref2 = reference_round(ref, secret, work / "ref2", args.db, key="k3y")
    problems += compare(
        "Folio (encrypted) -> reference", s_folio1, summarize(unpack(ref2, work / "x-ref2"))
    )
    for line in problems[:200]:
        print(line)
    print(f"archives in {work}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
