"""The one way from a row to its related rows: through a relation's link table (from the
owning side or the inverse side) or a component field's link table, to the target's rows.

Filters (semi-joins), related sorts (a correlated first entry), populate (a batch keyed by
the parents), counts and the users service all build their statements on `link_join`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from folio.content.sql.layout import components_table_name, link_table_name, scoped_between
from folio.schema.model import Attribute, ContentType, Schema
from folio.store.dialects.base import Dialect


@dataclass(frozen=True)
class Join:
    """`link` (the link table and its alias) joined `on` a condition to `target` (the
    target's table and its alias). `keys`: the link columns naming the source row,
    matched by the source's `source` columns (`id`, or `document_id` and, from a
    localized source, `locale`). `conds` and
    `params`: conditions that belong to the join (a component's field, an inverse link
    from a source without locales). `order`: the link's order column."""

    link: str
    target: str
    on: str
    keys: tuple[str, ...]
    source: tuple[str, ...]
    order: str
    conds: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    inverse: bool = False
    component: bool = False
    # the link column naming the version of the relation's D&P side it belongs to (links
    # of a status-scoped relation; NULL: every version)
    status: str | None = None

    @property
    def frm(self) -> str:
        """The FROM-clause text of the link rows joined to their targets."""
        return f"{self.link} JOIN {self.target} ON {self.on}"

    def correlated(self, alias: str) -> list[str]:
        """Conditions tying the link rows to the source row `alias`."""
        return [f"{k} = {alias}.{s}" for k, s in zip(self.keys, self.source, strict=True)]

    def versions(self, status: str) -> list[str]:
        """The condition keeping the links that belong to the `status` version (of the
        target on the owning side, of the source on the inverse side), if the relation is
        status-scoped."""
        if self.status is None:
            return []
        return [f"({self.status} IS NULL OR {self.status} = '{_status(status)}')"]


def _status(status: str) -> str:
    return "published" if status == "published" else "draft"


@lru_cache(maxsize=4096)
def link_join(
    d: Dialect, schema: Schema, attr: Attribute, target: Schema, link: str = "l", alias: str = "x"
) -> Join:
    join = _link_join(d, schema, attr, target, link, alias)
    if join.component:
        return join
    owner, owned = (target, schema) if join.inverse else (schema, target)
    if scoped_between(owner, owned):
        return replace(join, status=f"{link}.target_status")
    return join


def _link_join(
    d: Dialect, schema: Schema, attr: Attribute, target: Schema, link: str, alias: str
) -> Join:
    """The join from rows of `schema` through `attr` (a relation or component field) to
    the rows of `target` (made once per dialect, schema, attribute and aliases)."""
    q = d.quote
    if attr.type == "component" or not isinstance(target, ContentType):
        return Join(
            f"{q(components_table_name(schema))} {link}",
            f"{q(target.table)} {alias}",
            f"{alias}.id = {link}.cmp_id",
            (f"{link}.entity_id",),
            ("id",),
            f"{link}.position",
            (f"{link}.field = ?",),
            (attr.name,),
            component=True,
        )
    if attr.mapped_by is None:
        on = f"{alias}.document_id = {link}.target_document_id"
        if target.localized:
            on += f" AND {alias}.locale = {link}.target_locale"
        return Join(
            f"{q(link_table_name(schema, attr))} {link}",
            f"{q(target.table)} {alias}",
            on,
            (f"{link}.source_id",),
            ("id",),
            f"{link}.position",
        )
    owner = target.attributes[attr.mapped_by]
    table = f"{q(link_table_name(target, owner))} {link}"
    rows = f"{q(target.table)} {alias}"
    on = f"{alias}.id = {link}.source_id"
    if isinstance(schema, ContentType) and schema.localized:
        return Join(
            table,
            rows,
            on,
            (f"{link}.target_document_id", f"{link}.target_locale"),
            ("document_id", "locale"),
            f"{link}.inv_position",
            inverse=True,
        )
    return Join(
        table,
        rows,
        on,
        (f"{link}.target_document_id",),
        ("document_id",),
        f"{link}.inv_position",
        (f"{link}.target_locale IS NULL",),
        inverse=True,
    )


def published(alias: str, status: str) -> str:
    """Drafts or published versions of a related type's rows."""
    return f"{alias}.published_at IS {'NOT ' if status == 'published' else ''}NULL"
