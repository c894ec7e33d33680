// The relation widget, for every relation kind: a combobox searching the target type
// (the ARIA combobox pattern: arrow keys, Enter, Escape, Home/End), each target with its
// status; the connected entries in order, each with a link to open it, a drag handle
// (pointer, or Space + arrows + Space from the keyboard), move buttons and a disconnect
// button; long lists show their first entries and more on demand.
// The value is the read shape `{id, documentId, locale, label, status}` (one, null, or an
// ordered array); the form turns it into `{set: [...]}` when saving.
import type { JSX } from "preact";
import { useContext, useEffect, useId, useRef, useState } from "preact/hooks";
import { api, describeError } from "../api";
import { component as componentMeta, contentType, MetaContext, type Meta } from "../meta";
import { Link } from "../router";
import { StatusBadge } from "../ui/badge";
import { useSortable } from "./sortable";
import type { FieldProps } from "./types";
import "../styles/relation.css";

export interface RelationTarget {
  id: number;
  documentId: string;
  locale?: string | null;
  label?: string | null;
  status?: "draft" | "published" | "modified" | string | null;
}

interface Page {
  data: RelationTarget[];
  meta?: { pagination?: { page: number; pageSize: number; pageCount: number; total: number } };
}

const LIST_KINDS = new Set(["oneToMany", "manyToMany", "morphToMany", "morphMany"]);
const SHOWN = 10;
const PAGE_SIZE = 10;

export function holdsList(attr: FieldProps["attr"]): boolean {
  if (typeof attr.multiple === "boolean") return attr.multiple;
  return LIST_KINDS.has(String(attr.relation ?? ""));
}

function asTargets(value: unknown): RelationTarget[] {
  const ok = (v: unknown): v is RelationTarget => !!v && typeof v === "object" && "documentId" in (v as object);
  if (Array.isArray(value)) return value.filter(ok);
  if (ok(value)) return [value];
  return [];
}

/** The type or component holding the relation at `path` (a relation inside a component or
 * a zone entry is searched through the component's own attribute). */
export function ownerUid(meta: Meta | null, ctUid: string, attributes: Record<string, FieldProps["attr"]>, path: string[], document: Record<string, unknown>): string {
  if (!meta || path.length < 2) return ctUid;
  let owner = ctUid;
  let attrs = attributes;
  let value: unknown = document;
  for (let i = 0; i < path.length - 1; i++) {
    const seg = path[i];
    const attr = attrs[seg];
    value = value && typeof value === "object" ? (value as Record<string, unknown>)[seg] : undefined;
    if (!attr) return owner;
    if (attr.type === "component" && attr.component) {
      if (attr.repeatable && /^\d+$/.test(path[i + 1] ?? "")) {
        i += 1;
        value = Array.isArray(value) ? value[Number(path[i])] : undefined;
      }
      owner = attr.component;
    } else if (attr.type === "dynamiczone" && /^\d+$/.test(path[i + 1] ?? "")) {
      i += 1;
      value = Array.isArray(value) ? value[Number(path[i])] : undefined;
      const c = value && typeof value === "object" ? (value as Record<string, unknown>).__component : undefined;
      if (typeof c !== "string") return owner;
      owner = c;
    } else {
      return owner;
    }
    attrs = componentMeta(meta, owner)?.attributes ?? {};
  }
  return owner;
}

function humanize(name: string): string {
  const s = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function labelOf(t: RelationTarget): string {
  return t.label !== undefined && t.label !== null && String(t.label).trim() !== "" ? String(t.label) : `(${t.documentId})`;
}


export function RelationField(props: FieldProps) {
  const { id, name, attr, value, onChange, error, disabled, locale, ct } = props;
  const meta = useContext(MetaContext);
  const list = holdsList(attr);
  const connected = asTargets(value);
  const target = meta && attr.target ? contentType(meta, attr.target) : undefined;
  const targetName = target?.displayName ?? (attr.target ? String(attr.target).split(".").pop() : "entries");
  const showStatus = attr.targetDraftAndPublish ?? target?.draftAndPublish ?? true;
  const label = humanize(name);

  const [text, setText] = useState("");
  const [open, setOpen] = useState(false);
  const [options, setOptions] = useState<RelationTarget[]>([]);
  const [page, setPage] = useState(1);
  const [more, setMore] = useState(false);
  const [loading, setLoading] = useState(false);
  const [searchError, setSearchError] = useState<string | null>(null);
  const [active, setActive] = useState(-1);
  const [shown, setShown] = useState(SHOWN);
  const listboxId = useId();
  const statusId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const request = useRef(0);

  const set = (next: RelationTarget[]) => onChange(list ? next : (next[0] ?? null));

  const sortable = useSortable<RelationTarget>({
    items: connected,
    keyOf: (t) => `${t.documentId}:${t.locale ?? ""}`,
    labelOf,
    onReorder: (next) => {
      // an entry moved past the entries shown stays shown
      let last = -1;
      next.forEach((t, i) => {
        if (connected[i] !== t) last = i;
      });
      if (last >= shown) setShown(last + 1);
      set(next);
    },
    disabled: disabled || !list,
  });

  const search = async (q: string, p: number) => {
    const n = ++request.current;
    setLoading(true);
    try {
      const params: Record<string, unknown> = { _q: q || undefined, page: p, pageSize: PAGE_SIZE };
      if (locale && (attr.targetLocalized ?? target?.localized)) params.locale = locale;
      const exclude = connected.map((t) => t.documentId);
      // a document is not offered as its own parent, child or neighbour
      const self = props.document.documentId;
      if (attr.target === ct.uid && typeof self === "string" && self) exclude.push(self);
      if (exclude.length) params.exclude = exclude.join(",");
      const owner = ownerUid(meta, ct.uid, ct.attributes, props.path, props.document);
      const answer = await api.get<Page>(`/content-manager/relations/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`, params);
      if (n !== request.current) return;
      const found = answer.data ?? [];
      const pg = answer.meta?.pagination;
      setOptions((prev) => (p === 1 ? found : [...prev, ...found]));
      setPage(p);
      setMore(pg ? pg.page < pg.pageCount : found.length === PAGE_SIZE);
      setSearchError(null);
      if (p === 1) setActive(-1);
    } catch (e) {
      if (n === request.current) setSearchError(describeError(e));
    } finally {
      if (n === request.current) setLoading(false);
    }
  };

  // searching once typing pauses, while the list is open
  useEffect(() => {
    if (!open) return;
    const t = setTimeout(() => void search(text.trim(), 1), text ? 250 : 0);
    return () => clearTimeout(t);
  }, [text, open]);

  const choose = (t: RelationTarget) => {
    if (list) {
      if (!connected.some((c) => c.documentId === t.documentId && (c.locale ?? null) === (t.locale ?? null))) set([...connected, t]);
    } else {
      set([t]);
    }
    setText("");
    setOpen(false);
    setActive(-1);
    setOptions([]);
  };

  // the options, and a last one to load the next page
  const count = options.length + (more ? 1 : 0);
  const optionId = (i: number) => `${listboxId}-o${i}`;
  const activate = (i: number) => {
    if (i === options.length && more) {
      void search(text.trim(), page + 1);
      return;
    }
    const t = options[i];
    if (t) choose(t);
  };

  const onKeyDown = (e: JSX.TargetedKeyboardEvent<HTMLInputElement>) => {
    if (e.key === "ArrowDown") {
      e.preventDefault();
      if (!open) {
        setOpen(true);
        return;
      }
      if (e.altKey) return;
      setActive((a) => (count ? (a + 1) % count : -1));
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      if (!open) {
        setOpen(true);
        return;
      }
      setActive((a) => (count ? (a <= 0 ? count - 1 : a - 1) : -1));
    } else if (e.key === "Home" && open && count) {
      e.preventDefault();
      setActive(0);
    } else if (e.key === "End" && open && count) {
      e.preventDefault();
      setActive(count - 1);
    } else if (e.key === "Enter") {
      if (open && active >= 0) {
        e.preventDefault();
        activate(active);
      }
    } else if (e.key === "Escape") {
      if (open) {
        e.preventDefault();
        e.stopPropagation();
        setOpen(false);
        setActive(-1);
      } else if (text) {
        e.preventDefault();
        setText("");
      }
    }
  };

  // the active option stays in view
  useEffect(() => {
    if (!open || active < 0) return;
    document.getElementById(optionId(active))?.scrollIntoView({ block: "nearest" });
  }, [active, open]);

  const linkOf = (t: RelationTarget): string | null => {
    if (!attr.target) return null;
    const kind = target?.kind === "singleType" ? "single-types" : "collection-types";
    const base = kind === "single-types" ? `/content-manager/single-types/${attr.target}` : `/content-manager/collection-types/${attr.target}/${t.documentId}`;
    return t.locale ? `${base}?locale=${encodeURIComponent(t.locale)}` : base;
  };

  const visible = list ? sortable.view.slice(0, Math.max(shown, sortable.lifted ? sortable.view.length : 0)) : sortable.view;
  const hidden = sortable.view.length - visible.length;
  const describedBy = [error ? `${id}-error` : null, statusId].filter(Boolean).join(" ");
  const total = connected.length;

  return (
    <div class={`rel${error ? " rel-invalid" : ""}`}>
      <div class="rel-combo">
        <input
          ref={inputRef}
          id={id}
          type="text"
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={listboxId}
          aria-activedescendant={open && active >= 0 ? optionId(active) : undefined}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          autoComplete="off"
          placeholder={list || total === 0 ? `Search ${targetName} to add` : `Search ${targetName} to replace`}
          value={text}
          disabled={disabled}
          onInput={(e) => {
            setText(e.currentTarget.value);
            setOpen(true);
          }}
          onClick={() => setOpen(true)}
          onKeyDown={onKeyDown}
          onBlur={() => {
            // a click on an option lands before the list closes (options take mousedown)
            setOpen(false);
            setActive(-1);
          }}
        />
        <span class="rel-combo-caret" aria-hidden="true">
          ▾
        </span>
        <ul
          id={listboxId}
          role="listbox"
          aria-label="Search results"
          class="rel-options"
          hidden={!open}
          // a press on the list (its scroll bar) keeps the focus in the combobox
          onMouseDown={(e) => e.preventDefault()}
        >
          {open && loading && options.length === 0 && (
            <li class="rel-option-note" role="presentation">
              Searching…
            </li>
          )}
          {open && !loading && options.length === 0 && !searchError && (
            <li class="rel-option-note" role="presentation">
              {text ? `No ${targetName} matches “${text}”.` : `No ${targetName} to connect.`}
            </li>
          )}
          {open && searchError && (
            <li class="rel-option-note rel-error" role="presentation">
              {searchError}
            </li>
          )}
          {open &&
            options.map((t, i) => (
              <li
                key={`${t.documentId}:${t.locale ?? ""}`}
                id={optionId(i)}
                role="option"
                aria-selected={i === active}
                class={`rel-option${i === active ? " rel-option-active" : ""}`}
                onMouseDown={(e) => {
                  e.preventDefault();
                  choose(t);
                }}
                onMouseMove={() => setActive(i)}
              >
                <span class="rel-option-label">{labelOf(t)}</span>
                {t.locale && t.locale !== locale && <span class="rel-locale">{t.locale}</span>}
                {showStatus && <StatusBadge status={t.status} prefix />}
              </li>
            ))}
          {open && more && (
            <li
              id={optionId(options.length)}
              role="option"
              aria-selected={active === options.length}
              class={`rel-option rel-option-more${active === options.length ? " rel-option-active" : ""}`}
              onMouseDown={(e) => {
                e.preventDefault();
                void search(text.trim(), page + 1);
              }}
            >
              {loading ? "Loading…" : "Load more results"}
            </li>
          )}
        </ul>
      </div>
      <p id={statusId} class="rel-count">
        {total === 0 ? `No ${targetName} connected.` : list ? `${total} connected` : null}
      </p>
      {total > 0 && (
        <ol class="rel-list" aria-label="Connected entries">
          {visible.map(({ item: t, key }, index) => {
            const to = linkOf(t);
            return (
              <li key={key} class="rel-item" {...sortable.itemProps(key)}>
                {list && total > 1 && (
                  <button class="rel-handle" aria-label={`Drag ${labelOf(t)}`} title="Drag to reorder, or press Space then the arrow keys" {...sortable.handleProps(key)}>
                    ⠿
                  </button>
                )}
                <span class="rel-item-label">
                  {to ? (
                    <Link to={to} title={`Open ${labelOf(t)}`}>
                      {labelOf(t)}
                    </Link>
                  ) : (
                    labelOf(t)
                  )}
                </span>
                {t.locale && t.locale !== locale && <span class="rel-locale">{t.locale}</span>}
                {showStatus && <StatusBadge status={t.status} prefix />}
                <span class="rel-item-actions">
                  {list && total > 1 && (
                    <>
                      <button
                        type="button"
                        class="rel-icon-button"
                        aria-label={`Move ${labelOf(t)} up`}
                        disabled={disabled || index === 0 || sortable.lifted !== null}
                        onClick={() => sortable.move(index, -1)}
                      >
                        ↑
                      </button>
                      <button
                        type="button"
                        class="rel-icon-button"
                        aria-label={`Move ${labelOf(t)} down`}
                        disabled={disabled || index === total - 1 || sortable.lifted !== null}
                        onClick={() => sortable.move(index, 1)}
                      >
                        ↓
                      </button>
                    </>
                  )}
                  <button
                    type="button"
                    class="rel-icon-button rel-danger"
                    aria-label={`Disconnect ${labelOf(t)}`}
                    disabled={disabled}
                    onClick={() => set(connected.filter((c) => `${c.documentId}:${c.locale ?? ""}` !== key))}
                  >
                    ×
                  </button>
                </span>
              </li>
            );
          })}
        </ol>
      )}
      {hidden > 0 && (
        <button type="button" class="button button-secondary rel-more" onClick={() => setShown((s) => s + SHOWN)}>
          Show {Math.min(hidden, SHOWN)} more of {label} ({hidden} hidden)
        </button>
      )}
      {sortable.announcer}
    </div>
  );
}
