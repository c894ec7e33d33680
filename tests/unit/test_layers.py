"""Imports point downward only: the front-ends (cli, http) -> app -> auth -> content ->
files -> schema/store -> errors/config. The CLI never imports the HTTP front-end."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "folio"

# layer -> the layers it may import (besides itself)
ALLOWED = {
    "cli": {"app", "content", "auth", "schema", "store", "files", "config", "errors"},
    "http": {"app", "content", "auth", "schema", "store", "files", "config", "errors"},
    "app": {"content", "auth", "schema", "store", "files", "config", "errors"},
    "auth": {"content", "schema", "store", "config", "errors"},
    "content": {"schema", "store", "files", "config", "errors"},
    "files": {"schema", "store", "config", "errors"},
    "store": {"schema", "config", "errors"},
    "schema": {"errors"},
    "config": {"errors"},
    "errors": set(),
}
# top-level modules that belong to a layer of another name
MODULE_LAYERS = {"hooks": "app"}
# single modules a lower layer may import: password hashing, which stored documents use
# and which imports nothing of the layers above
EXCEPTIONS = {("content", "folio.auth.passwords")}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "folio" or len(parts) < 2:
        return None
    return MODULE_LAYERS.get(parts[1], parts[1])


def test_imports_point_downward() -> None:
    problems = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC)
        own = rel.parts[0].removesuffix(".py") if rel.parts else ""
        own = MODULE_LAYERS.get(own, own)
        if own not in ALLOWED:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                layer = _layer(name)
                allowed = layer in ALLOWED[own] or (own, name) in EXCEPTIONS
                if layer and layer != own and not allowed:
                    problems.append(f"{rel} imports {name}")
    assert problems == []
