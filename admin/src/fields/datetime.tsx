// date ("2026-11-27"), datetime (edited in local time, stored as ISO UTC) and time
// ("HH:mm:ss.SSS").
import { controlProps } from "./field";
import type { FieldProps } from "./types";

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

export function DateField(props: FieldProps) {
  const { value, onChange } = props;
  return (
    <input
      {...controlProps(props)}
      class="input"
      type="date"
      value={typeof value === "string" ? value.slice(0, 10) : ""}
      onInput={(e) => onChange(e.currentTarget.value || null)}
    />
  );
}

/** "2026-11-27T14:05" (local time) of an ISO instant; seconds only when there are some. */
export function toLocalInput(iso: unknown): string {
  if (typeof iso !== "string" || !iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const base = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const s = d.getSeconds();
  const ms = d.getMilliseconds();
  if (!s && !ms) return base;
  return `${base}:${pad(s)}${ms ? `.${pad(ms, 3)}` : ""}`;
}

export function fromLocalInput(local: string): string | null {
  if (!local) return null;
  const d = new Date(local); // a date-time without offset is local time
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

export function DateTimeField(props: FieldProps) {
  const { value, onChange } = props;
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const base = controlProps(props);
  return (
    <div class="input-row">
      <input
        {...base}
        aria-describedby={[base["aria-describedby"], `${props.id}-zone`].filter(Boolean).join(" ")}
        class="input"
        type="datetime-local"
        step={1}
        value={toLocalInput(value)}
        onInput={(e) => onChange(fromLocalInput(e.currentTarget.value))}
      />
      <span class="input-note" id={`${props.id}-zone`}>
        <span class="sr-only">Local time, </span>
        {zone}
      </span>
    </div>
  );
}

/** "14:05" or "14:05:09" or "14:05:09.5" as "HH:mm:ss.SSS". */
export function normalizeTime(raw: string): string | null {
  const m = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(raw);
  if (!m) return raw ? raw : null;
  return `${m[1]}:${m[2]}:${m[3] ?? "00"}.${(m[4] ?? "0").padEnd(3, "0")}`;
}

export function TimeField(props: FieldProps) {
  const { value, onChange } = props;
  const shown = typeof value === "string" ? value.replace(/\.000$/, "") : "";
  return (
    <input
      {...controlProps(props)}
      class="input"
      type="time"
      step={0.001}
      value={shown}
      onInput={(e) => onChange(normalizeTime(e.currentTarget.value))}
    />
  );
}
