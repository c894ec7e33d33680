// The list's filters: a "Filters" popover whose form builds one condition (field, an
// operator fitting the field's kind, a value), and the conditions in force as removable chips.
import { useState } from "preact/hooks";
import type { ContentTypeMeta } from "../../meta";
import { Button, Popover, SelectField, formatDate, formatDateTime } from "../../ui";
import { STATUS_CHOICES, STATUS_FIELD, fieldOf, filterableFields, operatorLabel, operatorsFor, type Filter, type ListField } from "./model";

/** A datetime-local value ("2024-05-01T10:30") as an ISO instant, and back. */
function toInstant(local: string): string {
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
}

function defaultValue(field: ListField): string {
  if (field.kind === "boolean") return "true";
  if (field.kind === "enumeration") return field.enum?.[0] ?? "";
  if (field.kind === "status") return STATUS_CHOICES[0].value;
  return "";
}

function ValueInput({ field, value, onChange }: { field: ListField; value: string; onChange(v: string): void }) {
  const common = { id: "filter-value", class: "input", value, onInput: (e: Event) => onChange((e.currentTarget as HTMLInputElement).value) };
  switch (field.kind) {
    case "boolean":
      return (
        <select id="filter-value" class="select" value={value} onChange={(e) => onChange(e.currentTarget.value)}>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      );
    case "enumeration":
      return (
        <select id="filter-value" class="select" value={value} onChange={(e) => onChange(e.currentTarget.value)}>
          {(field.enum ?? []).map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      );
    case "status":
      return (
        <select id="filter-value" class="select" value={value} onChange={(e) => onChange(e.currentTarget.value)}>
          {STATUS_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      );
    case "integer":
    case "float":
    case "decimal":
      return <input {...common} type="number" step={field.kind === "integer" ? "1" : "any"} />;
    case "biginteger":
      return <input {...common} type="text" inputMode="numeric" pattern="-?[0-9]*" />;
    case "date":
      return <input {...common} type="date" />;
    case "datetime":
      return <input {...common} type="datetime-local" />;
    case "time":
      return <input {...common} type="time" step="1" />;
    default:
      return <input {...common} type="text" />;
  }
}

export function FilterForm({ ct, onAdd }: { ct: ContentTypeMeta; onAdd(filter: Filter): void }) {
  const fields = filterableFields(ct);
  const [name, setName] = useState(fields.find((f) => f.name === ct.mainField)?.name ?? fields[0]?.name ?? "");
  const field = fields.find((f) => f.name === name) ?? fields[0];
  const ops = field ? operatorsFor(field.kind) : [];
  const [op, setOp] = useState(ops[0]?.op ?? "$eq");
  const [value, setValue] = useState(field ? defaultValue(field) : "");
  const [error, setError] = useState<string | null>(null);
  if (!field) return <p>This type has no field to filter on.</p>;
  const operator = ops.find((o) => o.op === op) ?? ops[0];

  const chooseField = (next: string) => {
    const f = fields.find((x) => x.name === next)!;
    setName(next);
    const nextOps = operatorsFor(f.kind);
    if (!nextOps.some((o) => o.op === op)) setOp(nextOps[0].op);
    setValue(defaultValue(f));
    setError(null);
  };

  const submit = (event: Event) => {
    event.preventDefault();
    if (operator.noValue) {
      onAdd({ field: field.name, op: operator.op, value: "true" });
      return;
    }
    if (value.trim() === "") {
      setError("Enter a value to filter with.");
      document.getElementById("filter-value")?.focus();
      return;
    }
    onAdd({ field: field.name, op: operator.op, value: field.kind === "datetime" ? toInstant(value) : value });
  };

  return (
    <form class="filter-form" onSubmit={submit} noValidate aria-label="Add a filter">
      <SelectField id="filter-field" label="Field" value={field.name} options={fields.map((f) => ({ value: f.name, label: f.label }))} onChange={chooseField} autoFocus />
      <SelectField id="filter-operator" label="Operator" value={operator.op} options={ops.map((o) => ({ value: o.op, label: o.label }))} onChange={setOp} />
      {!operator.noValue && (
        <div class="field">
          <label class="field-label" for="filter-value">
            Value
          </label>
          <ValueInput field={field} value={value} onChange={setValue} />
          {error && (
            <p class="field-error" role="alert">
              {error}
            </p>
          )}
        </div>
      )}
      <Button type="submit">Add filter</Button>
    </form>
  );
}

export function FiltersButton({ ct, onAdd }: { ct: ContentTypeMeta; onAdd(filter: Filter): void }) {
  return (
    <Popover label="Filters" variant="tertiary">
      {(close) => (
        <FilterForm
          ct={ct}
          onAdd={(f) => {
            onAdd(f);
            close();
          }}
        />
      )}
    </Popover>
  );
}

export function describeFilter(ct: ContentTypeMeta, f: Filter): string {
  if (f.field === STATUS_FIELD) return `Status is ${STATUS_CHOICES.find((c) => c.value === f.value)?.label ?? f.value}`;
  const field = fieldOf(ct, f.field);
  const op = operatorLabel(field.kind, f.op);
  if (f.op === "$null" || f.op === "$notNull") return `${field.label} ${op}`;
  const value = field.kind === "datetime" ? formatDateTime(f.value) : field.kind === "date" ? formatDate(f.value) : f.value;
  return `${field.label} ${op} ${value}`;
}

export function FilterChips({
  ct,
  filters,
  status,
  onRemove,
  onRemoveStatus,
  onClear,
}: {
  ct: ContentTypeMeta;
  filters: Filter[];
  status: string | null;
  onRemove(index: number): void;
  onRemoveStatus(): void;
  onClear(): void;
}) {
  if (filters.length === 0 && !status) return null;
  const statusText = status ? `Status is ${STATUS_CHOICES.find((c) => c.value === status)?.label ?? status}` : null;
  return (
    <ul class="chips" aria-label="Active filters">
      {statusText && (
        <li class="chip">
          <span>{statusText}</span>
          <button type="button" class="chip-remove" aria-label={`Remove filter: ${statusText}`} title="Remove this filter" onClick={onRemoveStatus}>
            <span aria-hidden="true">×</span>
          </button>
        </li>
      )}
      {filters.map((f, i) => {
        const text = describeFilter(ct, f);
        return (
          <li key={`${i}-${f.field}-${f.op}-${f.value}`} class="chip">
            <span>{text}</span>
            <button type="button" class="chip-remove" aria-label={`Remove filter: ${text}`} title="Remove this filter" onClick={() => onRemove(i)}>
              <span aria-hidden="true">×</span>
            </button>
          </li>
        );
      })}
      {filters.length + (status ? 1 : 0) > 1 && (
        <li>
          <button type="button" class="link-button" onClick={onClear}>
            Clear all filters
          </button>
        </li>
      )}
    </ul>
  );
}
