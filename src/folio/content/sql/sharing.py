"""Attributes shared by every locale of a localized type (those not marked
`pluginOptions.i18n.localized`, relations and uids excepted): every locale version of a
document holds a copy of their values, one per status, and a write of one version copies
them to the document's other locales in the same status. Scalars are copied as columns,
media as links to the same files, components and dynamic zones as copies of the component
rows.

At start-up, `sync_sharing` records which attributes each localized type shares; an
attribute that became shared since (a model change, or a database made when attributes were
per-locale unless marked otherwise) gets one value per document and status: the version in
the default locale gives its value to the others (else the oldest version does)."""

from __future__ import annotations

from itertools import groupby
from typing import Any

import orjson

from folio.content.sql.links import LinkStore
from folio.schema.model import Attribute, ContentType, Registry
from folio.store.dialects.base import Dialect
from folio.store.program import Program, execute, query

STATE_TABLE = "folio_sharing"


def shared_attributes(ct: ContentType) -> list[Attribute]:
    """The attributes of `ct` whose value every locale shares (none unless localized)."""
    if not ct.localized:
        return []
    return [a for a in ct.attributes.values() if not a.localized]


def share_values(
    links: LinkStore,
    ct: ContentType,
    source_id: int,
    targets: list[int],
    attrs: list[Attribute],
) -> Program:
    """Copies the values of `attrs` of one version row to the `targets` rows: columns in one
    statement, media links and components by replacing the targets' own."""
    if not targets or not attrs:
        return
    columns = [a.column for a in attrs if a.column is not None]
    if columns:
        yield execute(
            links.dialect.copy_columns(ct.table, columns, len(targets)), [source_id, *targets]
        )
    fields = [a.name for a in attrs if a.type in ("media", "component", "dynamiczone")]
    if fields:
        yield from links.delete_owned(ct, targets, fields)
        for target in targets:
            yield from links.copy(ct, source_id, target, fields)


def _legacy_shared(ct: ContentType) -> list[str]:
    """What a database made before sharing was recorded shares: only the attributes marked
    `localized: false` (every other attribute was per-locale)."""
    names = []
    for attr in shared_attributes(ct):
        options = attr.raw.get("pluginOptions")
        i18n = options.get("i18n") if isinstance(options, dict) else None
        if isinstance(i18n, dict) and i18n.get("localized") is False:
            names.append(attr.name)
    return names


def sync_sharing(registry: Registry, dialect: Dialect, default_locale: str) -> Program:
    """Records the shared attributes of every localized type and gives the newly shared ones
    one value per document and status. Returns what it changed, for the log."""
    links = LinkStore(registry, dialect)
    q = dialect.quote
    yield execute(
        dialect.create_table(
            STATE_TABLE,
            [("uid", f"{dialect.text_key()} PRIMARY KEY"), ("attributes", "TEXT NOT NULL")],
            if_missing=True,
        )
    )
    rows = yield query(f"SELECT uid, attributes FROM {q(STATE_TABLE)}")
    recorded: dict[str, list[str]] = {str(r[0]): orjson.loads(r[1]) for r in rows}
    changes: list[str] = []
    for ct in registry.content_types.values():
        if not ct.localized:
            continue
        shared = [a.name for a in shared_attributes(ct)]
        before = recorded.get(ct.uid)
        if before == shared:
            continue
        previous = set(_legacy_shared(ct) if before is None else before)
        newly = [a for a in shared_attributes(ct) if a.name not in previous]
        if newly:
            count = yield from _unify(links, ct, newly, default_locale)
            if count:
                names = ", ".join(a.name for a in newly)
                changes.append(
                    f"{ct.uid}: {names} now shared by every locale; {count} versions took "
                    "the value of the default locale's"
                )
        text = orjson.dumps(shared).decode()
        yield execute(f"DELETE FROM {q(STATE_TABLE)} WHERE uid = ?", (ct.uid,))
        yield execute(
            f"INSERT INTO {q(STATE_TABLE)} (uid, attributes) VALUES (?, ?)", (ct.uid, text)
        )
    return changes


def _unify(
    links: LinkStore, ct: ContentType, attrs: list[Attribute], default_locale: str
) -> Program:
    """Gives `attrs` of every document one value per status, the default locale's version's
    (else the oldest version's). Returns how many versions changed."""
    rows = yield query(
        "SELECT document_id, published_at IS NULL, locale = ?, id "
        f"FROM {links.quote(ct.table)} "
        "ORDER BY document_id, 2, 3 DESC, id",
        (default_locale,),
    )
    count = 0

    def group(row: Any) -> tuple[str, bool]:
        return (str(row[0]), bool(row[1]))

    for _key, members in groupby(rows, key=group):
        ids = [int(r[3]) for r in members]
        if len(ids) > 1:
            yield from share_values(links, ct, ids[0], ids[1:], attrs)
            count += len(ids) - 1
    return count
