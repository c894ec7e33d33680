"""The description of tables that schema sync creates and extends, for one database:
columns with their definition in its dialect, indexes (plain, unique, partial, covering)
and the indexes an earlier layout made that are now dropped. The planner derives them from
the models and the dialect."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Column:
    name: str
    type_name: str  # the attribute type, or a system type: pk, fk, text, int, float, datetime
    sql: str  # the column's definition after its name, in the database's dialect
    nullable: bool = True
    # run once when the column is added to a table that has rows (their values)
    fill: str | None = None


@dataclass
class Index:
    name: str
    expr: str
    unique: bool = False
    where: str | None = None  # a partial index's predicate (where the dialect has them)
    include: str | None = None  # columns carried for index-only reads (where it has them)


@dataclass
class Table:
    name: str
    columns: list[Column] = field(default_factory=list)
    indexes: list[Index] = field(default_factory=list)
    # names of indexes an earlier layout created and this one replaces: dropped at sync
    retired: list[str] = field(default_factory=list)
    # families of indexes whose names carry their definition (name prefixes): members not
    # in `indexes` are outdated and dropped at sync
    families: tuple[str, ...] = ()

    def in_family(self, name: str) -> bool:
        return any(name.startswith(prefix) for prefix in self.families)
