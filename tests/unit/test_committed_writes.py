"""Every committed write passes one step: the document service's methods that write return
through `_committed` (where notifications of committed writes attach), and the services
built on it (files, users, API tokens) write through those methods, never through the
service's planner or database."""

from __future__ import annotations

import ast
from pathlib import Path

CONTENT = Path(__file__).resolve().parents[2] / "src" / "folio" / "content"
SERVICE = CONTENT / "documents.py"
# the service's own part that records a write's events inside its transaction
RECORDER = CONTENT / "recording.py"
# what writes below the service: its planner's writes, its database
WRITERS = {("_writes", None), ("_db", "write"), ("_db", "write_one")}
PRIVATE = frozenset({"_reads", "_writes", "_db", "reads", "writes"})


def _self_attribute(node: ast.AST) -> tuple[str, str | None] | None:
    """`self._writes.x(...)` -> ("_writes", "x"); `self._db.write(...)` -> ("_db", "write")."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    owner = node.func.value
    if (
        isinstance(owner, ast.Attribute)
        and isinstance(owner.value, ast.Name)
        and owner.value.id == "self"
    ):
        return owner.attr, node.func.attr
    return None


def _writing_methods(tree: ast.Module) -> dict[str, bool]:
    """The service's methods that write, each with whether it calls `self._committed`."""
    [service] = [
        n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "DocumentService"
    ]
    out = {}
    for method in service.body:
        if not isinstance(method, ast.AsyncFunctionDef | ast.FunctionDef):
            continue
        calls = [c for c in ast.walk(method) if isinstance(c, ast.Call)]
        writes = any(
            (a := _self_attribute(c)) is not None and ((a[0], None) in WRITERS or a in WRITERS)
            for c in calls
        )
        if writes:
            out[method.name] = any(
                isinstance(c.func, ast.Attribute)
                and c.func.attr == "_committed"
                and isinstance(c.func.value, ast.Name)
                and c.func.value.id == "self"
                for c in calls
            )
    return out


def test_every_write_of_the_service_returns_through_committed() -> None:
    methods = _writing_methods(ast.parse(SERVICE.read_text()))
    # the service's writes: the principal-facing ones (publish and unpublish in
    # `_versions`) and the services' records
    assert {
        "create",
        "update",
        "_versions",
        "delete",
        "delete_locale",
        "create_record",
        "create_records",
        "update_record",
        "delete_record",
    } <= set(methods)
    # the writes that make no events: the services' own types (users, API tokens), which
    # `write_program` takes alone, and the outbox's own pruning
    exempt = {"write_program", "prune_events"}
    assert [n for n, committed in methods.items() if not committed and n not in exempt] == []


def test_the_rule_sees_a_write_that_skips_committed() -> None:
    tree = ast.parse(
        "class DocumentService:\n"
        "    async def good(self, ct):\n"
        "        return self._committed('create', ct, await self._writes.create(ct, {}))\n"
        "    async def bad(self, ct):\n"
        "        await self._db.write(program)\n"
        "    async def reads(self, ct, q):\n"
        "        return await self._reads.find(ct, q)\n"
    )
    assert _writing_methods(tree) == {"good": True, "bad": False}


def test_services_on_the_document_service_write_through_its_methods() -> None:
    """Outside the service (with its recorder) and its planner (`content/sql/`), no module
    of `content/` reaches the planner or the database the service holds."""
    problems = []
    for path in sorted(CONTENT.rglob("*.py")):
        rel = path.relative_to(CONTENT)
        if path in (SERVICE, RECORDER) or rel.parts[0] == "sql":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in PRIVATE | {"db"}:
                problems.append(f"{rel}:{node.lineno} .{node.attr}")
    assert problems == []
