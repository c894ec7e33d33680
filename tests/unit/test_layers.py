"""Imports point downward only, and SQL has one home.

    front-ends:  cli   http          (the CLI never imports the HTTP front-end)
    container:   app (app.py, hooks.py)
    transfer:    transfer            (archives in and out, through the document service)
    documents:   content             (the document API; its planner is content/sql)
                 auth                (principals, permissions, JWT, passwords)
                 files               (upload providers, MIME rules, images)
    storage:     schema              (the models)
                 config              (settings; database URLs through store/urls.py)
                 store   errors      (database access, dialects and DDL)

Front-ends reach data through `content`, never `store`; `store` knows tables, not models;
`auth` knows the models' names (permissions are named after them) but no document or SQL.
Within `content`, the document service is the one door: its planner (`_reads`, `_writes`)
is reached from `content` only, never by front-ends, the CLI or the app container."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "folio"

# layer -> the layers it may import (besides itself)
ALLOWED = {
    "cli": {"app", "transfer", "content", "auth", "schema", "files", "config", "errors"},
    "http": {"app", "feed", "broadcast", "content", "auth", "schema", "files", "config", "errors"},
    "app": {
        "feed",
        "broadcast",
        "content",
        "auth",
        "schema",
        "store",
        "files",
        "config",
        "errors",
    },
    # the realtime feed: reads events through the document service
    "feed": {"content", "auth", "schema", "config", "errors"},
    # moving content in and out (archives, import, export): through the document service
    "transfer": {"content", "auth", "schema", "files", "config", "errors"},
    "content": {"auth", "schema", "store", "files", "config", "errors"},
    "auth": {"schema", "config", "errors"},
    "files": {"config", "errors"},
    # change notices between processes and hosts (in-process, PostgreSQL NOTIFY, Redis)
    "broadcast": {"store", "config", "errors"},
    "schema": {"errors"},
    # the configuration reads database URLs and clients through the store (store/urls.py),
    # the one place that names databases
    "config": {"store", "errors"},
    "store": {"errors"},
    "errors": set(),
}
# top-level modules that belong to a layer of another name
# `caches`, `transport` (the HTTP server's socket writes and connection limits) and
# `logformat` (the log's line formats) are dependency-free utilities, importable from every
# layer
MODULE_LAYERS = {
    "hooks": "app",
    "extensions": "app",
    "caches": "errors",
    "transport": "errors",
    "logformat": "errors",
    # start-up problems, their exit codes and the nearest-name messages
    "startup": "errors",
    # the table of configuration keys, read by `config`
    "config_keys": "config",
    # the shared Redis server's URL and client (rate limits, change notices between hosts)
    "redis_client": "config",
    # webhooks: a service built on the document service, as those in content/ are (it
    # reads and writes through it, and posts events over HTTP)
    "webhooks": "content",
}
# where SQL statements may be written: the store and the planner
SQL_HOMES = ("store", "content/sql")
SQL_STATEMENT = re.compile(
    r"\b(SELECT\s.+\sFROM|INSERT\s+INTO|UPDATE\s+\S+\s+SET|DELETE\s+FROM|CREATE\s+(UNIQUE\s+)?"
    r"(TABLE|INDEX)|ALTER\s+TABLE|DROP\s+(TABLE|INDEX))\b",
    re.S,
)


def _layer(name: str) -> str:
    return MODULE_LAYERS.get(name, name)


def _modules() -> list[tuple[Path, str, ast.Module]]:
    out = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        own = _layer(rel.parts[0].removesuffix(".py"))
        if own in ALLOWED:
            out.append((rel, own, ast.parse(path.read_text())))
    return out


def test_imports_point_downward() -> None:
    problems = []
    for rel, own, tree in _modules():
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                parts = name.split(".")
                if parts[0] != "folio" or len(parts) < 2:
                    continue
                layer = _layer(parts[1])
                if layer != own and layer not in ALLOWED[own]:
                    problems.append(f"{rel} imports {name}")
    assert problems == []


def _texts(tree: ast.Module) -> list[str]:
    """String literals, with the literal parts of f-strings joined around their holes."""
    out = []
    parts = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    for node in ast.walk(tree):
        if id(node) in parts:
            continue
        if isinstance(node, ast.JoinedStr):
            out.append(
                "".join(
                    v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "x"
                    for v in node.values
                )
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
    return out


def test_sql_is_written_only_in_the_store_and_the_planner() -> None:
    problems = []
    for rel, _, tree in _modules():
        if str(rel).startswith(SQL_HOMES):
            continue
        for text in _texts(tree):
            if SQL_STATEMENT.search(text):
                problems.append(f"{rel}: {text[:60]!r}")
    assert problems == []


def test_the_sql_rule_sees_statements() -> None:
    tree = ast.parse('x = f\'SELECT a FROM "{t}" WHERE b = ?\'\ny = "UPDATE t SET a = 1"')
    assert all(SQL_STATEMENT.search(text) for text in _texts(tree))


# the document service's planner, reached only from inside `content` (documents.py)
PLANNER_ATTRIBUTES = frozenset({"reads", "writes", "_reads", "_writes"})


def _reaches_planner(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in PLANNER_ATTRIBUTES
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("getattr", "setattr", "hasattr")
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
        and node.args[1].value in PLANNER_ATTRIBUTES
    )


def _planner_accesses(tree: ast.Module) -> list[int]:
    """Lines that reach a planner attribute: `x.reads`, `x._writes`, `getattr(x, "_reads")`."""
    return sorted(
        {n.lineno for n in ast.walk(tree) if isinstance(n, ast.expr) and _reaches_planner(n)}
    )


def test_only_content_reaches_the_document_services_planner() -> None:
    problems = []
    for rel, own, tree in _modules():
        if own == "content":
            continue
        problems += [f"{rel}:{line}" for line in _planner_accesses(tree)]
    assert problems == []


def test_the_planner_rule_sees_reaching_around_the_service() -> None:
    tree = ast.parse(
        "a = folio.documents.reads.find(ct, q)\n"
        "b = await self.documents._writes.create(ct, v)\n"
        "c = getattr(folio.documents, '_reads')\n"
        "d = folio.documents.find(ct, params, principal)\n"
    )
    assert _planner_accesses(tree) == [1, 2, 3]


def test_every_module_has_a_layer() -> None:
    """A new package or top-level module is placed in the layers above, so the rules here
    see it (a module of no known layer would escape them all)."""
    names = {p.name.removesuffix(".py") for p in SRC.iterdir() if p.name != "__pycache__"}
    names -= {"__init__", "py.typed"}
    assert sorted(n for n in names if _layer(n) not in ALLOWED) == []


# the database handle: the app container opens, syncs and closes it; the document service
# (content) and the store use it; no front-end reaches it
DATABASE_ATTRIBUTES = frozenset({"db", "_db"})
FRONT_ENDS = ("cli", "http")


def _database_accesses(tree: ast.Module) -> list[int]:
    return sorted(
        {
            n.lineno
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and n.attr in DATABASE_ATTRIBUTES
        }
    )


def test_front_ends_never_reach_the_database() -> None:
    problems = []
    for rel, own, tree in _modules():
        if own in FRONT_ENDS or str(rel) == "hooks.py":
            problems += [f"{rel}:{line}" for line in _database_accesses(tree)]
    assert problems == []


def test_the_database_rule_sees_a_front_end_reaching_the_database() -> None:
    tree = ast.parse(
        "rows = await folio.db.read(program)\n"
        "await self.folio.documents._db.write(p)\n"
        "d = folio.documents.find(ct, params, principal)\n"
    )
    assert _database_accesses(tree) == [1, 2]


# the names databases and their clients go by: only the store (store/urls.py, store/dialects/)
# says them; everything else asks the dialect (`Database.dialect`) by capability or method
DIALECT_NAME = re.compile(
    r"\b(postgres(ql)?|pg|sqlite3?|better-sqlite3|mysql2?|mariadb)\b", re.IGNORECASE
)


def _docstrings(tree: ast.Module) -> set[int]:
    """The string constants that are docstrings (prose may speak of the databases)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _dialect_names(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, text) of the string literals (f-strings' literal parts included) that name a
    database, docstrings aside."""
    skip = _docstrings(tree)
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and DIALECT_NAME.search(node.value)
    )


def test_only_the_store_names_databases() -> None:
    problems = []
    for rel, _, tree in _modules():
        if rel.parts[0] == "store":
            continue
        problems += [f"{rel}:{line}: {text[:60]!r}" for line, text in _dialect_names(tree)]
    assert problems == []


def test_the_dialect_rule_sees_names_of_databases() -> None:
    tree = ast.parse(
        '"""A docstring may say PostgreSQL."""\n'
        'if db.dialect == "postgres": pass\n'
        'sqlite = name in ("sqlite", "better-sqlite3")\n'
        'url = f"mysql://{host}/db"\n'
        'clients = {"pg": 1, "MariaDB": 2}\n'
        'ok = ("jpg", "postgresfoo", "page")\n'
    )
    assert [line for line, _ in _dialect_names(tree)] == [2, 3, 3, 4, 5, 5]
