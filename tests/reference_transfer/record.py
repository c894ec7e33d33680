"""Records the reference's answers for the documents of an imported archive into a snapshot.

Run where the reference is installed (see ../../shared/reference/README.md): it loads the
archive into a fresh reference database with `strapi import --force`, starts the reference
on it, asks it the REST and GraphQL requests below and writes their answers to
tests/fixtures/reference/import-snapshot.json (or the path given). Folio's side of the
comparison (import the same archive, ask the same requests, compare) is a test that reads
that snapshot.

    FOLIO_REFERENCE_DIR=/tmp/reference python tests/reference_transfer/record.py \
        [--archive ../shared/reference/exports/blog-5.54.tar.gz] [--out PATH] [--port 1341]

or, against a reference already running on a database the archive was imported into:

    python tests/reference_transfer/record.py --url http://127.0.0.1:1341 --token FULL

The requests are derived from the app's models (the schema.json files the reference and
Folio both read): for every content type, each locale it has and each status, the list with
every relation, media, component and dynamic zone populated (relations one level deeper
with `*`, so inverse sides and their targets are covered) and sorted by id; single types
likewise; and a GraphQL query per type, locale and status selecting every attribute, the
documentIds of related documents, media URLs and zone entries by type.

Normalizations: none is applied to the stored answers. The reference's `strapi import` keeps
numeric ids, documentIds and timestamps (createdAt, updatedAt, publishedAt) as the archive
has them, and the local upload provider's URLs carry no host (`/uploads/<hash><ext>`), so a
faithful import answers the same bytes. What a comparison may set aside is written in the
snapshot's `normalizations` member (one entry per rule, with the reason), not applied here.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DEFAULT_ARCHIVE = ROOT.parent / "shared" / "reference" / "exports" / "blog-5.54.tar.gz"
DEFAULT_OUT = ROOT / "tests" / "fixtures" / "reference" / "import-snapshot.json"
MODELS = ROOT / "tests" / "fixtures" / "blog"
STATUSES = ("draft", "published")
PAGE_SIZE = 100

NORMALIZATIONS = [
    {
        "rule": "none applied",
        "why": "the reference's import keeps ids, documentIds and timestamps; local upload "
        "URLs have no host",
    },
    {
        "rule": "a comparison may drop `id` of components and zone entries",
        "why": "component rows are numbered per component table; an importer that renumbers "
        "them where ids collide still keeps their order and content",
    },
]


# --------------------------------------------------------------------------- models
def load_models(app: Path) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """(content types by uid, components by uid) from an app directory."""
    types: dict[str, dict[str, Any]] = {}
    for path in sorted((app / "src" / "api").glob("*/content-types/*/schema.json")):
        schema = json.loads(path.read_text())
        api = path.parts[-4]
        name = path.parts[-2]
        types[f"api::{api}.{name}"] = schema
    components: dict[str, dict[str, Any]] = {}
    for path in sorted((app / "src" / "components").glob("*/*.json")):
        components[f"{path.parent.name}.{path.stem}"] = json.loads(path.read_text())
    return types, components


def _component_populate(comp: dict[str, Any], comps: dict[str, dict[str, Any]]) -> Any:
    """A component's populate: its media, relations and nested components."""
    inner: dict[str, Any] = {}
    for name, attr in comp["attributes"].items():
        if attr["type"] in ("media", "relation"):
            inner[name] = True
        elif attr["type"] == "component":
            inner[name] = _on(comps[attr["component"]], comps)
    return inner or True


def _on(comp: dict[str, Any], comps: dict[str, dict[str, Any]]) -> Any:
    inner = _component_populate(comp, comps)
    return True if inner is True else {"populate": inner}


def deep_populate(schema: dict[str, Any], comps: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Every relation (one level deeper with `*`), media, component and zone of a type."""
    out: dict[str, Any] = {}
    for name, attr in schema["attributes"].items():
        kind = attr["type"]
        if kind == "relation":
            out[name] = {"populate": "*"}
        elif kind == "media":
            out[name] = True
        elif kind == "component":
            out[name] = _on(comps[attr["component"]], comps)
        elif kind == "dynamiczone":
            out[name] = {"on": {c: _on(comps[c], comps) for c in attr["components"]}}
    return out


def flatten(prefix: str, value: Any, out: list[tuple[str, str]]) -> None:
    """qs-style bracket parameters."""
    if isinstance(value, dict):
        for k, v in value.items():
            flatten(f"{prefix}[{k}]", v, out)
    elif isinstance(value, bool):
        out.append((prefix, "true" if value else "false"))
    else:
        out.append((prefix, str(value)))


def rest_paths(
    types: dict[str, dict[str, Any]], comps: dict[str, dict[str, Any]], locales: list[str]
) -> list[str]:
    paths = []
    for schema in types.values():
        info = schema["info"]
        single = schema.get("kind") == "singleType"
        route = info["singularName"] if single else info["pluralName"]
        localized = bool(schema.get("pluginOptions", {}).get("i18n", {}).get("localized"))
        drafts = bool(schema.get("options", {}).get("draftAndPublish"))
        for locale in locales if localized else [None]:
            for status in STATUSES if drafts else ["published"]:
                base: list[tuple[str, str]] = []
                if locale:
                    base.append(("locale", locale))
                if drafts:
                    base.append(("status", status))
                if not single:
                    base += [("sort[0]", "id:asc"), ("pagination[pageSize]", str(PAGE_SIZE))]
                star = [*base, ("populate", "*")]
                deep = list(base)
                flatten("populate", deep_populate(schema, comps), deep)
                for params in (star, deep):
                    paths.append(f"/api/{route}?{urllib.parse.urlencode(params, safe='[]*:')}")
    return paths


# --------------------------------------------------------------------------- GraphQL
def _type_name(uid: str) -> str:
    """Component uid -> GraphQL type (shared.rich-text -> ComponentSharedRichText)."""
    category, name = uid.split(".")
    parts = [category, *name.split("-")]
    return "Component" + "".join(p[:1].upper() + p[1:] for p in parts)


def _scalars(schema: dict[str, Any]) -> list[str]:
    skip = {"relation", "media", "component", "dynamiczone", "password"}
    return [
        n for n, a in schema["attributes"].items() if a["type"] not in skip and not a.get("private")
    ]


def _selection(schema: dict[str, Any], comps: dict[str, dict[str, Any]], depth: int) -> str:
    fields = list(_scalars(schema))
    for name, attr in schema["attributes"].items():
        kind = attr["type"]
        if kind == "media":
            fields.append(f"{name} {{ documentId name url mime size }}")
        elif kind == "relation" and depth == 0:
            many = attr["relation"] in ("oneToMany", "manyToMany")
            field = f"{name}(pagination: {{ limit: {PAGE_SIZE} }})" if many else name
            fields.append(f"{field} {{ documentId }}")
        elif kind == "component":
            fields.append(
                f"{name} {{ id {_selection(comps[attr['component']], comps, depth + 1)} }}"
            )
        elif kind == "dynamiczone":
            ons = " ".join(
                f"... on {_type_name(c)} {{ id {_selection(comps[c], comps, depth + 1)} }}"
                for c in attr["components"]
            )
            fields.append(f"{name} {{ __typename {ons} }}")
    return " ".join(fields)


def graphql_queries(
    types: dict[str, dict[str, Any]], comps: dict[str, dict[str, Any]], locales: list[str]
) -> list[str]:
    out = []
    for schema in types.values():
        info = schema["info"]
        single = schema.get("kind") == "singleType"
        field = info["singularName"] if single else info["pluralName"]
        field = "".join(p[:1].upper() + p[1:] if i else p for i, p in enumerate(field.split("-")))
        localized = bool(schema.get("pluginOptions", {}).get("i18n", {}).get("localized"))
        drafts = bool(schema.get("options", {}).get("draftAndPublish"))
        selection = "documentId " + _selection(schema, comps, 0)
        for locale in locales if localized else [None]:
            for status in STATUSES if drafts else ["published"]:
                args = []
                if locale:
                    args.append(f'locale: "{locale}"')
                if drafts:
                    args.append(f"status: {status.upper()}")
                if not single:
                    args += ['sort: ["documentId:asc"]', f"pagination: {{ limit: {PAGE_SIZE} }}"]
                arg_text = f"({', '.join(args)})" if args else ""
                out.append(f"{{ {field}{arg_text} {{ {selection} }} }}")
    return out


# --------------------------------------------------------------------------- HTTP
def request(url: str, token: str | None, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def record(base: str, token: str | None, models: Path) -> dict[str, Any]:
    types, comps = load_models(models)
    status, locales_body = request(f"{base}/api/i18n/locales", token)
    locales = sorted(x["code"] for x in locales_body) if status == 200 else ["en", "fr", "de"]
    rest = []
    for path in rest_paths(types, comps, locales):
        code, body = request(base + path, token)
        rest.append({"path": path, "status": code, "body": body})
        pages = (
            (body or {}).get("meta", {}).get("pagination", {}).get("pageCount", 1)
            if code == 200
            else 1
        )
        for page in range(2, (pages or 1) + 1):
            more = f"{path}&pagination[page]={page}"
            code, body = request(base + more, token)
            rest.append({"path": more, "status": code, "body": body})
    gql = []
    for query in graphql_queries(types, comps, locales):
        code, body = request(f"{base}/graphql", token, {"query": query})
        gql.append({"query": query, "status": code, "body": body})
    return {
        "reference": "5.54.0",
        "archive": "blog-5.54.tar.gz",
        "auth": "full-access API token",
        "locales": locales,
        "normalizations": NORMALIZATIONS,
        "rest": rest,
        "graphql": gql,
    }


# --------------------------------------------------------------------------- reference
def import_and_start(
    ref: Path, archive: Path, db: str, port: int
) -> tuple[subprocess.Popen[bytes], str]:
    """A fresh database `db`, the archive imported with `strapi import --force`, the
    reference started on it; (process, full-access token)."""
    env = {**os.environ, "PGPASSWORD": "postgres", "DATABASE_NAME": db, "NODE_ENV": "development"}
    psql = ["psql", "-U", "postgres", "-h", "127.0.0.1", "-qc"]
    subprocess.run([*psql, f"drop database if exists {db} with (force)"], check=True, env=env)
    subprocess.run([*psql, f"create database {db}"], check=True, env=env)
    strapi = ["node", "node_modules/@strapi/strapi/bin/strapi.js"]
    subprocess.run([*strapi, "import", "-f", str(archive), "--force"], cwd=ref, check=True, env=env)
    tokens = ref / f"tokens-{db}.json"
    tokens.unlink(missing_ok=True)
    env |= {"PORT": str(port), "REFERENCE_TOKENS_FILE": str(tokens)}
    log = open(ref / f"log-{db}.txt", "wb")  # noqa: SIM115 (the process writes to it)
    proc = subprocess.Popen([*strapi, "start"], cwd=ref, env=env, stdout=log, stderr=log)
    for _ in range(180):
        if tokens.exists():
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/articles", timeout=5)
                return proc, json.loads(tokens.read_text())["full"]
            except (urllib.error.URLError, ConnectionError, json.JSONDecodeError):
                pass
        time.sleep(1)
    proc.terminate()
    raise SystemExit(f"the reference did not start; see {ref}/log-{db}.txt")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--archive", type=Path, default=DEFAULT_ARCHIVE)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--models", type=Path, default=MODELS)
    parser.add_argument("--url", help="a reference already running on the imported archive")
    parser.add_argument("--token", help="its full-access token (with --url)")
    parser.add_argument("--port", type=int, default=1341)
    parser.add_argument("--db", default="folio_export_snapshot")
    args = parser.parse_args()
    proc = None
    if args.url:
        base, token = args.url.rstrip("/"), args.token
    else:
        ref = os.environ.get("FOLIO_REFERENCE_DIR")
        if not ref:
            sys.exit("set FOLIO_REFERENCE_DIR to the reference's directory (or pass --url)")
        proc, token = import_and_start(Path(ref), args.archive.resolve(), args.db, args.port)
        base = f"http://127.0.0.1:{args.port}"
    try:
        snapshot = record(base, token, args.models)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(snapshot, indent=1, ensure_ascii=False) + "\n")
    print(
        f"{len(snapshot['rest'])} REST and {len(snapshot['graphql'])} GraphQL answers -> {args.out}"
    )


if __name__ == "__main__":
    main()
