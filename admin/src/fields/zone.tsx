// dynamiczone: a list of entries of the allowed components, added from a picker grouped by
// category, reordered (buttons, drag), removed, collapsed.
import { useEffect, useRef, useState } from "preact/hooks";
import { useMeta, type ComponentMeta } from "../meta";
import { EntryList, newEntry, type Entry } from "./entries";
import { useForm } from "./form";
import type { FieldProps } from "./types";

export function ZoneField(props: FieldProps) {
  const { attr, value, id, path, name, disabled, errors, locale, ct, document } = props;
  const meta = useMeta();
  const form = useForm();
  const [picking, setPicking] = useState(false);
  const picker = useRef<HTMLDivElement>(null);
  const entries = Array.isArray(value) ? (value as Entry[]) : [];
  const allowed = (attr.components ?? []).map((uid) => meta.components.find((c) => c.uid === uid)).filter((c): c is ComponentMeta => !!c);
  const byCategory = new Map<string, ComponentMeta[]>();
  for (const c of allowed) byCategory.set(c.category, [...(byCategory.get(c.category) ?? []), c]);
  const max = typeof attr.max === "number" ? attr.max : undefined;
  const min = typeof attr.min === "number" ? attr.min : undefined;
  const full = max !== undefined && entries.length >= max;

  useEffect(() => {
    if (picking) picker.current?.querySelector<HTMLButtonElement>("button")?.focus();
  }, [picking]);

  const add = (uid: string) => {
    const entry = newEntry(meta, uid, true);
    form.update(path, (prev: unknown) => [...(Array.isArray(prev) ? prev : []), entry]);
    setPicking(false);
    requestAnimationFrame(() => globalThis.document.getElementById(`${id}-entry-${String(entry.__key)}-toggle`)?.focus());
  };

  return (
    <div class="zone">
      {entries.length === 0 && <p class="muted">No component yet.</p>}
      <EntryList
        domId={id}
        path={path}
        entries={entries}
        componentOf={(e) => meta.components.find((c) => c.uid === e.__component)}
        min={min}
        errors={errors}
        disabled={disabled}
        locale={locale}
        ct={ct}
        document={document}
      />
      <button
        type="button"
        class="button button-secondary add-entry"
        id={id}
        aria-expanded={picking}
        aria-controls={`${id}-picker`}
        disabled={disabled || full}
        onClick={() => setPicking(!picking)}
      >
        + Add a component to {name}
      </button>
      {full && <p class="field-hint">The maximum of {max} components is reached.</p>}
      {picking && (
        <div
          class="zone-picker"
          id={`${id}-picker`}
          ref={picker}
          role="group"
          aria-label={`Pick a component to add to ${name}`}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.preventDefault();
              setPicking(false);
              globalThis.document.getElementById(id)?.focus();
            }
          }}
        >
          {[...byCategory.entries()].map(([category, comps]) => (
            <div key={category} class="zone-category" role="group" aria-labelledby={`${id}-cat-${category}`}>
              <p class="zone-category-name" id={`${id}-cat-${category}`}>
                {category}
              </p>
              <div class="zone-choices">
                {comps.map((c) => (
                  <button key={c.uid} type="button" class="button button-secondary" onClick={() => add(c.uid)}>
                    {c.displayName}
                  </button>
                ))}
              </div>
            </div>
          ))}
          <button
            type="button"
            class="link-button"
            onClick={() => {
              setPicking(false);
              globalThis.document.getElementById(id)?.focus();
            }}
          >
            Cancel
          </button>
        </div>
      )}
    </div>
  );
}
