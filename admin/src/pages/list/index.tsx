// The list view of a collection type: the documents of a locale with the configured
// columns, full-text search, filters, sort by column, pages and page size, statuses, bulk
// delete / publish / unpublish. Its state lives in the URL, so back and forward work.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, describeError } from "../../api";
import { contentType, useMeta, type ContentTypeMeta, type Meta } from "../../meta";
import { Link, navigate } from "../../router";
import {
  Button,
  ConfirmDialog,
  EmptyState,
  ErrorState,
  LinkButton,
  Menu,
  PageHeader,
  Pagination,
  SelectField,
  Spinner,
  StatusBadge,
  formatValue,
  notify,
  useDocumentTitle,
} from "../../ui";
import { FilterChips, FiltersButton } from "./filters";
import { PAGE_SIZES, STATUS_FIELD, cachedConfig, fieldOf, listHref, loadConfig, parseQuery, toParams, type ListConfig, type ListQuery } from "./model";

export interface Row {
  id: number;
  documentId: string;
  locale?: string | null;
  status?: string;
  [key: string]: unknown;
}

interface Page {
  rows: Row[];
  page: number;
  pageSize: number;
  pageCount: number;
  total: number;
}

type Bulk = "delete" | "publish" | "unpublish";

function entries(n: number): string {
  return `${n} ${n === 1 ? "entry" : "entries"}`;
}

export function editHref(uid: string, row: { documentId: string; locale?: string | null }): string {
  const q = row.locale ? `?locale=${encodeURIComponent(row.locale)}` : "";
  return `/content-manager/collection-types/${uid}/${row.documentId}${q}`;
}

function rowLabel(row: Row, mainField: string): string {
  const v = row[mainField];
  return v === null || v === undefined || v === "" ? `entry ${row.id}` : String(v);
}

/** The page of a collection type's address that names none. */
export function CollectionTypeNotFound({ uid }: { uid: string }) {
  return (
    <main id="main" class="page">
      <h1>Content type not found</h1>
      <p>No collection type is named {uid}.</p>
      <Link to="/">Back to the home page</Link>
    </main>
  );
}

export function ListPage({ uid, search }: { uid: string; search: URLSearchParams }) {
  const meta = useMeta();
  const ct = contentType(meta, uid);
  if (!ct || ct.kind !== "collectionType") return <CollectionTypeNotFound uid={uid} />;
  return <List ct={ct} meta={meta} search={search} />;
}

function List({ ct, meta, search }: { ct: ContentTypeMeta; meta: Meta; search: URLSearchParams }) {
  const uid = ct.uid;
  const query = useMemo(() => parseQuery(search), [search.toString()]);
  const locale = ct.localized ? (query.locale ?? meta.defaultLocale) : null;
  const [config, setConfig] = useState<ListConfig | null>(cachedConfig(uid) ?? null);
  const [page, setPage] = useState<Page | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [bulk, setBulk] = useState<Bulk | null>(null);
  const [deleting, setDeleting] = useState<Row | null>(null);
  const [reload, setReload] = useState(0);
  const seq = useRef(0);
  useDocumentTitle(ct.displayName);

  const key = `${toParams(query).toString()}|${locale}`;
  useEffect(() => {
    const mine = ++seq.current;
    setLoading(true);
    setError(null);
    const params = toParams({ ...query, locale });
    Promise.all([loadConfig(uid), api.get<{ data: Row[]; meta: { pagination: Omit<Page, "rows"> } }>(`/content-manager/collection-types/${uid}`, params)])
      .then(([cfg, res]) => {
        if (mine !== seq.current) return;
        setConfig(cfg);
        const p = res.meta.pagination;
        setPage({ rows: res.data, page: p.page, pageSize: p.pageSize, pageCount: p.pageCount, total: p.total });
        setSelected(new Set());
        setLoading(false);
      })
      .catch((e: unknown) => {
        if (mine !== seq.current) return;
        setError(describeError(e));
        setLoading(false);
      });
  }, [uid, key, reload]);

  const go = (change: Partial<ListQuery>, replace = false) => navigate(listHref(uid, { ...query, ...change }), { replace });

  const sort = query.sort ?? config?.sort ?? "";
  const [sortField, sortDir] = sort.split(":");
  const pageSize = query.pageSize ?? config?.pageSize ?? 10;
  const mainField = config?.mainField ?? ct.mainField;
  const columns = config?.columns ?? ["id", mainField];
  const rows = page?.rows ?? [];
  const allSelected = rows.length > 0 && rows.every((r) => selected.has(r.documentId));
  const someSelected = rows.some((r) => selected.has(r.documentId));
  const createHref = `/content-manager/collection-types/${uid}/create${locale ? `?locale=${encodeURIComponent(locale)}` : ""}`;
  const filtered = query.q !== "" || query.filters.length > 0 || query.status !== null;

  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const runBulk = async (action: Bulk) => {
    const ids = rows.filter((r) => selected.has(r.documentId)).map((r) => r.documentId);
    const name = action === "delete" ? "bulkDelete" : action === "publish" ? "bulkPublish" : "bulkUnpublish";
    try {
      const res = await api.post<{ data: { count: number; errors?: { documentId: string; error: { message: string } }[] } }>(
        `/content-manager/collection-types/${uid}/actions/${name}`,
        { documentIds: ids, ...(locale ? { locale } : {}) },
      );
      const done = action === "delete" ? "deleted" : action === "publish" ? "published" : "unpublished";
      notify(`${entries(res.data.count)} ${done}`);
      const failed = res.data.errors ?? [];
      if (failed.length) {
        const names = failed.map((f) => {
          const row = rows.find((r) => r.documentId === f.documentId);
          return `${row ? rowLabel(row, mainField) : f.documentId}: ${f.error.message}`;
        });
        notify(`${entries(failed.length)} could not be ${done}. ${names.join("; ")}`, "error");
      }
      setSelected(new Set());
      if (action === "delete" && res.data.count >= rows.length && query.page > 1) go({ page: query.page - 1 }, true);
      else setReload((n) => n + 1);
    } catch (e) {
      notify(describeError(e), "error");
      setReload((n) => n + 1);
      throw e;
    }
  };

  const deleteOne = async (row: Row) => {
    try {
      await api.del(`/content-manager/collection-types/${uid}/${row.documentId}`, locale ? { locale } : undefined);
      notify(`“${rowLabel(row, mainField)}” deleted`);
      if (rows.length === 1 && query.page > 1) go({ page: query.page - 1 }, true);
      else setReload((n) => n + 1);
    } catch (e) {
      notify(describeError(e), "error");
      throw e;
    }
  };

  const selectedCount = rows.filter((r) => selected.has(r.documentId)).length;
  const bulkText: Record<Bulk, { verb: string; question: string }> = {
    delete: { verb: "Delete", question: `Are you sure you want to delete ${selectedCount === 1 ? "this entry" : `these ${selectedCount} entries`}? This cannot be undone.` },
    publish: { verb: "Publish", question: `Are you sure you want to publish ${selectedCount === 1 ? "this entry" : `these ${selectedCount} entries`}?` },
    unpublish: { verb: "Unpublish", question: `Are you sure you want to unpublish ${selectedCount === 1 ? "this entry" : `these ${selectedCount} entries`}?` },
  };

  return (
    <main id="main" class="page">
      <PageHeader
        title={ct.displayName}
        subtitle={page ? `${entries(page.total)} found` : "\u00a0"}
        actions={
          <LinkButton to={createHref}>
            <span aria-hidden="true">+</span> Create new entry
          </LinkButton>
        }
      />
      <div class="list-toolbar">
        <div class="list-toolbar-start">
          <SearchBox
            key={query.q}
            value={query.q}
            label={`Search ${ct.displayName}`}
            onSearch={(q) => go({ q, page: 1 })}
          />
          <FiltersButton ct={ct} onAdd={(f) => go(f.field === STATUS_FIELD ? { status: f.value, page: 1 } : { filters: [...query.filters, f], page: 1 })} />
        </div>
        <div class="list-toolbar-end">
          {ct.localized && meta.locales.length > 0 && (
            <SelectField
              id="list-locale"
              label="Locale"
              inline
              value={locale ?? ""}
              options={meta.locales.map((l) => ({ value: l.code, label: l.name || l.code }))}
              onChange={(v) => go({ locale: v, page: 1 })}
            />
          )}
          <LinkButton to={`/content-manager/collection-types/${uid}/configurations/list`} variant="tertiary">
            Configure the view
          </LinkButton>
        </div>
      </div>
      <FilterChips
        ct={ct}
        filters={query.filters}
        status={query.status}
        onRemove={(i) => go({ filters: query.filters.filter((_, j) => j !== i), page: 1 })}
        onRemoveStatus={() => go({ status: null, page: 1 })}
        onClear={() => go({ filters: [], status: null, page: 1 })}
      />
      {someSelected && (
        <div class="bulk-bar" role="region" aria-label="Bulk actions">
          <span aria-live="polite">{`${entries(selectedCount)} selected`}</span>
          {ct.draftAndPublish && (
            <>
              <Button variant="secondary" size="s" onClick={() => setBulk("publish")}>
                Publish
              </Button>
              <Button variant="secondary" size="s" onClick={() => setBulk("unpublish")}>
                Unpublish
              </Button>
            </>
          )}
          <Button variant="danger" size="s" onClick={() => setBulk("delete")}>
            Delete
          </Button>
        </div>
      )}
      {error ? (
        <ErrorState message={error} onRetry={() => setReload((n) => n + 1)} />
      ) : !page || !config ? (
        <Spinner label={`Loading ${ct.displayName}`} />
      ) : rows.length === 0 ? (
        <div class="table-wrap">
          {page.total > 0 ? (
            <EmptyState title="No entry on this page" action={<LinkButton to={listHref(uid, { ...query, page: 1 })} variant="secondary">Go to the first page</LinkButton>}>
              <p>{`There are ${entries(page.total)} on ${page.pageCount} ${page.pageCount === 1 ? "page" : "pages"}.`}</p>
            </EmptyState>
          ) : filtered ? (
            <EmptyState title="No entry matches your search or filters" action={<Button variant="tertiary" onClick={() => go({ q: "", filters: [], status: null, page: 1 })}>Clear search and filters</Button>} />
          ) : (
            <EmptyState title="No content found" action={<LinkButton to={createHref} variant="secondary">Create new entry</LinkButton>}>
              <p>{ct.localized ? `No entry in this locale yet.` : `No entry yet.`}</p>
            </EmptyState>
          )}
        </div>
      ) : (
        <div class="table-wrap">
          <table class="table list-table" aria-busy={loading ? "true" : "false"} aria-label={`${ct.displayName} entries`}>
            <thead>
              <tr>
                <th class="cell-check">
                  <input
                    type="checkbox"
                    class="checkbox"
                    aria-label="Select all entries"
                    checked={allSelected}
                    ref={(el) => {
                      if (el) el.indeterminate = someSelected && !allSelected;
                    }}
                    onChange={() => setSelected(allSelected ? new Set() : new Set(rows.map((r) => r.documentId)))}
                  />
                </th>
                {columns.map((name) => {
                  const f = fieldOf(ct, name);
                  const active = sortField === name;
                  const dir = active ? (sortDir?.toUpperCase() === "DESC" ? "descending" : "ascending") : undefined;
                  return (
                    <th key={name} aria-sort={f.sortable ? (dir ?? "none") : undefined} scope="col">
                      {f.sortable ? (
                        <button
                          type="button"
                          class={`sort-button${active ? " sort-active" : ""}`}
                          onClick={() => go({ sort: `${name}:${active && dir === "ascending" ? "DESC" : "ASC"}`, page: 1 })}
                        >
                          {f.label}
                          <span class="sort-mark" aria-hidden="true">
                            {active ? (dir === "ascending" ? "▲" : "▼") : "↕"}
                          </span>
                        </button>
                      ) : (
                        f.label
                      )}
                    </th>
                  );
                })}
                {ct.draftAndPublish && <th scope="col">Status</th>}
                <th scope="col" class="cell-actions">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => {
                const label = rowLabel(row, mainField);
                const to = editHref(uid, row);
                const linkColumn = columns.includes(mainField) ? mainField : columns[0];
                return (
                  <tr
                    key={row.documentId}
                    class={selected.has(row.documentId) ? "row-selected" : undefined}
                    onClick={(e) => {
                      const t = e.target as HTMLElement;
                      if (t.closest("a, button, input, select, label, .menu-anchor")) return;
                      if (window.getSelection()?.toString()) return;
                      navigate(to);
                    }}
                  >
                    <td class="cell-check">
                      <input type="checkbox" class="checkbox" aria-label={`Select ${label}`} checked={selected.has(row.documentId)} onChange={() => toggle(row.documentId)} />
                    </td>
                    {columns.map((name) => {
                      const f = fieldOf(ct, name);
                      const text = formatValue(row[name], f.kind);
                      return (
                        <td key={name} class={`kind-${f.kind}`}>
                          {name === linkColumn ? (
                            <Link to={to} class="row-link" aria-label={name === mainField ? undefined : `Edit ${label}`}>
                              {text || <span class="muted">—</span>}
                            </Link>
                          ) : (
                            <span class="cell-value" title={text.length > 40 ? text : undefined}>
                              {text}
                            </span>
                          )}
                        </td>
                      );
                    })}
                    {ct.draftAndPublish && (
                      <td>
                        <StatusBadge status={row.status} />
                      </td>
                    )}
                    <td class="cell-actions">
                      <Menu
                        label={`Actions for ${label}`}
                        buttonLabel={`More actions for ${label}`}
                        variant="ghost"
                        size="s"
                        align="end"
                        items={[
                          { label: "Edit", onSelect: () => navigate(to) },
                          { label: "Delete", danger: true, onSelect: () => setDeleting(row) },
                        ]}
                      >
                        <span aria-hidden="true">⋯</span>
                      </Menu>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {page && page.total > 0 && (
        <div class="list-footer">
          <SelectField
            id="list-page-size"
            label="Entries per page"
            inline
            value={String(pageSize)}
            options={PAGE_SIZES.map((n) => ({ value: String(n), label: n }))}
            onChange={(v) => go({ pageSize: Number(v), page: 1 })}
          />
          {rows.length > 0 && (
            <p class="list-range">{`${(page.page - 1) * page.pageSize + 1}–${Math.min(page.page * page.pageSize, page.total)} of ${page.total}`}</p>
          )}
          <Pagination page={page.page} pageCount={page.pageCount} hrefFor={(p) => listHref(uid, { ...query, page: p })} />
        </div>
      )}
      {bulk && (
        <ConfirmDialog
          title={`${bulkText[bulk].verb} ${entries(selectedCount)}`}
          message={bulkText[bulk].question}
          confirmLabel={bulkText[bulk].verb}
          danger={bulk === "delete"}
          onConfirm={() => runBulk(bulk)}
          onClose={() => setBulk(null)}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title="Delete entry"
          message={`Are you sure you want to delete “${rowLabel(deleting, mainField)}”${ct.localized ? " in this locale" : ""}? This cannot be undone.`}
          confirmLabel="Delete"
          danger
          onConfirm={() => deleteOne(deleting)}
          onClose={() => setDeleting(null)}
        />
      )}
    </main>
  );
}

/** The search box: searches on Enter (or its button); Escape clears the search. */
function SearchBox({ value, label, onSearch }: { value: string; label: string; onSearch(q: string): void }) {
  const [text, setText] = useState(value);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  return (
    <form
      role="search"
      class="search-box"
      onSubmit={(e) => {
        e.preventDefault();
        window.clearTimeout(timer.current);
        if (text.trim() !== value) onSearch(text.trim());
      }}
    >
      <label for="list-search" class="sr-only">
        {label}
      </label>
      <input
        id="list-search"
        type="search"
        class="input"
        placeholder="Search"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape" && text) {
            e.preventDefault();
            setText("");
            onSearch("");
          }
        }}
      />
      <Button type="submit" variant="tertiary">
        Search
      </Button>
    </form>
  );
}
