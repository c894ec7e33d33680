// component: a single entry (added, removed, collapsed) or a repeatable list of entries
// (added up to max, removed down to min, reordered by buttons or drag).
import { useMeta, type ComponentMeta } from "../meta";
import { EntryList, EntryView, newEntry, type Entry } from "./entries";
import { useForm } from "./form";
import type { FieldProps } from "./types";

function num(v: unknown): number | undefined {
  return typeof v === "number" ? v : typeof v === "string" && v !== "" && !Number.isNaN(Number(v)) ? Number(v) : undefined;
}

export function ComponentField(props: FieldProps) {
  const { attr, value, id, path, name, disabled, errors, locale, ct, document } = props;
  const meta = useMeta();
  const form = useForm();
  const comp: ComponentMeta | undefined = meta.components.find((c) => c.uid === attr.component);
  const shared = { errors, disabled, locale, ct, document };
  if (!attr.repeatable) {
    const entry = value && typeof value === "object" ? (value as Entry) : null;
    if (!entry) {
      return (
        <div class="component-empty">
          <p class="muted">No {comp?.displayName ?? name} yet.</p>
          <button type="button" class="button button-secondary" id={id} disabled={disabled} onClick={() => props.onChange(newEntry(meta, attr.component ?? ""))}>
            Add {name}
          </button>
        </div>
      );
    }
    return (
      <ul class="entries">
        <EntryView
          entry={entry}
          comp={comp}
          title={comp?.displayName ?? name}
          path={path}
          domId={id}
          index={0}
          count={1}
          movable={false}
          canRemove={!attr.required && !disabled}
          onMove={noop}
          onRemove={() => props.onChange(null)}
          onDragStart={noop}
          onDrop={noop}
          {...shared}
        />
      </ul>
    );
  }
  const entries = Array.isArray(value) ? (value as Entry[]) : [];
  const max = num(attr.max);
  const min = num(attr.min);
  const full = max !== undefined && entries.length >= max;
  return (
    <div class="repeatable">
      {entries.length === 0 && <p class="muted">No entry yet.</p>}
      <EntryList domId={id} path={path} entries={entries} componentOf={() => comp} min={min} {...shared} />
      <button
        type="button"
        class="button button-secondary add-entry"
        id={id}
        disabled={disabled || full}
        onClick={() => form.update(path, (prev: unknown) => [...(Array.isArray(prev) ? prev : []), newEntry(meta, attr.component ?? "")])}
      >
        + Add an entry to {name}
      </button>
      {full && <p class="field-hint">The maximum of {max} entries is reached.</p>}
    </div>
  );
}

function noop(): void {}
