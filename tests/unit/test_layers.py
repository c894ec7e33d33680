"""Imports point downward only: cli -> http -> content/auth -> schema/store -> errors/config."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "folio"

# layer -> the layers it may import (besides itself)
ALLOWED = {
    "cli": {"http", "content", "auth", "schema", "store", "files", "config", "errors"},
    "http": {"content", "auth", "schema", "store", "files", "config", "errors"},
    "auth": {"content", "schema", "store", "config", "errors"},
    "content": {"schema", "store", "config", "errors"},
    "files": {"schema", "store", "config", "errors"},
    "store": {"schema", "config", "errors"},
    "schema": {"errors"},
    "config": {"errors"},
    "errors": set(),
}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "folio" or len(parts) < 2:
        return None
    return parts[1]


def test_imports_point_downward() -> None:
    problems = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC)
        own = rel.parts[0].removesuffix(".py") if rel.parts else ""
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
                if layer and layer != own and layer not in ALLOWED[own]:
                    problems.append(f"{rel} imports {name}")
    assert problems == []
