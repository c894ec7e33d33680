"""Writes src/folio/transfer/reference_builtins.json: the schemas of the reference's own
types (plugin::*, admin::*) as its exports carry them, taken from an archive it made.

An archive Folio exports carries them too, because the reference's `strapi import` compares
every schema of an archive with its own and reports each type that one side lacks.

    python tests/reference_transfer/builtin_schemas.py [ARCHIVE]
"""

from __future__ import annotations

import json
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = ROOT.parent / "shared" / "reference" / "exports" / "blog-5.54.tar.gz"
OUT = ROOT / "src" / "folio" / "transfer" / "reference_builtins.json"


def main() -> None:
    archive = Path(sys.argv[1]) if len(sys.argv) > 1 else ARCHIVE
    schemas = []
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if member.name.lstrip("./").startswith("schemas/") and member.isfile():
                stream = tar.extractfile(member)
                assert stream is not None
                for line in stream.read().decode().splitlines():
                    schema = json.loads(line)
                    if str(schema.get("uid", "")).startswith(("plugin::", "admin::")):
                        schemas.append(schema)
    OUT.write_text(json.dumps(schemas, indent=1, sort_keys=False) + "\n")
    print(f"{len(schemas)} schemas -> {OUT}")


if __name__ == "__main__":
    main()
