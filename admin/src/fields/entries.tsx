// The entries of a repeatable component or a dynamic zone (and the one entry of a single
// component): each collapsible, titled by its first text field, moved with buttons (keyboard)
// or by dragging its handle, removed; min/max entries respected. Entries are memoized and
// keyed by a client key, so typing in one entry re-renders that entry only.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Attribute, ComponentMeta, ContentTypeMeta, Meta } from "../meta";
import { newKey, useForm } from "./form";
import { memo } from "./memo";
import { Fields } from "./render";

export type Entry = Record<string, unknown>;

const TEXTUAL = new Set(["string", "text", "email", "uid", "enumeration"]);

/** The text an entry is summarised by: its first non-empty text field. */
export function summaryOf(comp: ComponentMeta | undefined, entry: Entry): string {
  if (!comp) return "";
  const cut = (v: string) => (v.length > 60 ? `${v.slice(0, 60)}…` : v);
  for (const [name, attr] of Object.entries(comp.attributes)) {
    if (!TEXTUAL.has(attr.widget)) continue;
    const v = entry[name];
    if (typeof v === "string" && v.trim()) return cut(v.trim());
  }
  // else the text of a markdown field, without its marks
  for (const [name, attr] of Object.entries(comp.attributes)) {
    const v = entry[name];
    if (attr.widget === "richtext" && typeof v === "string" && v.trim()) return cut(v.replace(/[#*_`>~\[\]()-]+/g, " ").replace(/\s+/g, " ").trim());
  }
  return "";
}

/** Default values of a new object of these attributes (nested required components made too). */
export function defaultsOf(meta: Meta, attributes: Record<string, Attribute>): Entry {
  const out: Entry = {};
  for (const [name, attr] of Object.entries(attributes)) {
    if (attr.default !== undefined && attr.default !== null && attr.widget !== "component" && attr.widget !== "dynamiczone") {
      out[name] = attr.default;
    } else if (attr.widget === "component") {
      if (attr.repeatable) out[name] = [];
      else if (attr.required) out[name] = newEntry(meta, attr.component ?? "");
      else out[name] = null;
    } else if (attr.widget === "dynamiczone") {
      out[name] = [];
    }
  }
  return out;
}

export function newEntry(meta: Meta, uid: string, zone = false): Entry {
  const comp = meta.components.find((c) => c.uid === uid);
  const entry: Entry = { __key: newKey(), ...(comp ? defaultsOf(meta, comp.attributes) : {}) };
  if (zone) entry.__component = uid;
  return entry;
}

function keyOf(entry: Entry, index: number): string {
  return typeof entry.__key === "string" ? entry.__key : `i${index}`;
}

function hasErrorUnder(errors: Map<string, string>, prefix: string): boolean {
  if (errors.size === 0) return false;
  for (const k of errors.keys()) if (k === prefix || k.startsWith(`${prefix}.`)) return true;
  return false;
}

export interface EntryShared {
  errors: Map<string, string>;
  disabled?: boolean;
  locale: string | null;
  ct: ContentTypeMeta;
  document: Record<string, unknown>;
}

interface EntryProps extends EntryShared {
  entry: Entry;
  comp: ComponentMeta | undefined;
  /** the name shown and spoken: "Link 3", "Quote 1", or the field's name for a single component */
  title: string;
  path: string[];
  domId: string;
  index: number;
  count: number;
  /** repeatable: may be moved; single: may not */
  movable: boolean;
  canRemove: boolean;
  onMove(from: number, to: number, which: "up" | "down"): void;
  onRemove(index: number): void;
  onDragStart(index: number): void;
  onDrop(index: number): void;
}

function EntryImpl(props: EntryProps) {
  const { entry, comp, title, path, domId, index, count, movable, canRemove, errors } = props;
  const prefix = path.join(".");
  const invalid = hasErrorUnder(errors, prefix);
  const [open, setOpen] = useState(() => !entry.id || invalid || !movable);
  const [over, setOver] = useState(false);
  useEffect(() => {
    if (invalid) setOpen(true);
  }, [invalid]);
  const summary = summaryOf(comp, entry);
  const bodyId = `${domId}-body`;
  return (
    <li
      class={`entry${over ? " entry-over" : ""}${invalid ? " entry-invalid" : ""}`}
      onDragOver={
        movable
          ? (e) => {
              e.preventDefault();
              if (!over) setOver(true);
            }
          : undefined
      }
      onDragLeave={movable ? () => setOver(false) : undefined}
      onDrop={
        movable
          ? (e) => {
              e.preventDefault();
              setOver(false);
              props.onDrop(index);
            }
          : undefined
      }
    >
      <div role="group" aria-label={title}>
      <div class="entry-head">
        {movable && (
          <span
            class="drag-handle"
            draggable={!props.disabled}
            aria-hidden="true"
            title="Drag to reorder"
            onDragStart={(e) => {
              e.dataTransfer?.setData("text/plain", String(index));
              if (e.dataTransfer) e.dataTransfer.effectAllowed = "move";
              props.onDragStart(index);
            }}
          >
            ⠿
          </span>
        )}
        <button type="button" class="entry-toggle" id={`${domId}-toggle`} aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen(!open)}>
          <span class="chevron" aria-hidden="true">
            {open ? "▾" : "▸"}
          </span>
          <span class="entry-title">{title}</span>
          {summary && <span class="entry-summary">{summary}</span>}
          {invalid && <span class="entry-flag">Has errors</span>}
        </button>
        <div class="entry-actions">
          {movable && (
            <>
              <button
                type="button"
                class="icon-button"
                id={`${domId}-up`}
                aria-label={`Move ${title} up`}
                disabled={props.disabled || index === 0}
                onClick={() => props.onMove(index, index - 1, "up")}
              >
                ↑
              </button>
              <button
                type="button"
                class="icon-button"
                id={`${domId}-down`}
                aria-label={`Move ${title} down`}
                disabled={props.disabled || index === count - 1}
                onClick={() => props.onMove(index, index + 1, "down")}
              >
                ↓
              </button>
            </>
          )}
          {canRemove && (
            <button type="button" class="icon-button danger" aria-label={`Remove ${title}`} disabled={props.disabled} onClick={() => props.onRemove(index)}>
              ✕
            </button>
          )}
        </div>
      </div>
      <div class="entry-body" id={bodyId} hidden={!open}>
        {open &&
          (comp ? (
            <Fields
              attributes={comp.attributes}
              base={path}
              values={entry}
              errors={errors}
              disabled={props.disabled}
              locale={props.locale}
              ct={props.ct}
              document={props.document}
            />
          ) : (
            <p class="muted">Unknown component {String(entry.__component ?? "")}.</p>
          ))}
      </div>
      </div>
    </li>
  );
}

export const EntryView = memo(EntryImpl);

export interface EntryListProps extends EntryShared {
  domId: string;
  path: string[];
  entries: Entry[];
  componentOf(entry: Entry): ComponentMeta | undefined;
  /** entries cannot be removed below this count */
  min?: number;
}

/** moves an item of an array */
export function moved<T>(list: T[], from: number, to: number): T[] {
  if (to < 0 || to >= list.length || from === to) return list;
  const copy = list.slice();
  const [item] = copy.splice(from, 1);
  copy.splice(to, 0, item);
  return copy;
}

export function EntryList(props: EntryListProps) {
  const { domId, path, entries, componentOf, errors, disabled, locale, ct, document } = props;
  const form = useForm();
  const key = path.join(".");
  const dragFrom = useRef<number | null>(null);
  const refocus = useRef<{ key: string; which: "up" | "down" } | null>(null);
  const [said, say] = useState("");

  const actions = useMemo(
    () => ({
      move(from: number, to: number, which: "up" | "down") {
        form.update(path, (prev: unknown) => {
          const list = Array.isArray(prev) ? (prev as Entry[]) : [];
          if (list[from]) refocus.current = { key: keyOf(list[from], from), which };
          return moved(list, from, to);
        });
        say(`Moved to position ${to + 1}.`);
      },
      remove(index: number) {
        form.update(path, (prev: unknown) => (Array.isArray(prev) ? prev.filter((_, i) => i !== index) : prev));
        say(`Entry ${index + 1} removed.`);
      },
      dragStart(index: number) {
        dragFrom.current = index;
      },
      drop(index: number) {
        const from = dragFrom.current;
        dragFrom.current = null;
        if (from !== null && from !== index) {
          form.update(path, (prev: unknown) => (Array.isArray(prev) ? moved(prev as Entry[], from, index) : prev));
          say(`Moved to position ${index + 1}.`);
        }
      },
    }),
    [key, form],
  );

  // keyboard moves keep the focus on the moved entry's button
  useEffect(() => {
    const r = refocus.current;
    if (!r) return;
    refocus.current = null;
    const want = document_(`${domId}-entry-${r.key}-${r.which}`) as HTMLButtonElement | null;
    const other = document_(`${domId}-entry-${r.key}-${r.which === "up" ? "down" : "up"}`) as HTMLButtonElement | null;
    (want && !want.disabled ? want : other)?.focus();
  });

  const canRemove = !disabled && (props.min === undefined || entries.length > props.min);
  return (
    <>
    <p class="sr-only" aria-live="polite">
      {said}
    </p>
    <ol class="entries" aria-label={`${path[path.length - 1]} entries`}>
      {entries.map((entry, index) => {
        const comp = componentOf(entry);
        const k = keyOf(entry, index);
        return (
          <EntryView
            key={k}
            entry={entry}
            comp={comp}
            title={`${comp?.displayName ?? "Entry"} ${index + 1}`}
            path={[...path, String(index)]}
            domId={`${domId}-entry-${k}`}
            index={index}
            count={entries.length}
            movable
            canRemove={canRemove}
            onMove={actions.move}
            onRemove={actions.remove}
            onDragStart={actions.dragStart}
            onDrop={actions.drop}
            errors={errors}
            disabled={disabled}
            locale={locale}
            ct={ct}
            document={document}
          />
        );
      })}
    </ol>
    </>
  );
}

function document_(id: string): HTMLElement | null {
  return globalThis.document.getElementById(id);
}
