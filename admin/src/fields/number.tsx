// integer, biginteger, decimal and float. The control keeps what is typed; the value is a
// number once the text is one (a biginteger stays a string, so big values stay exact). Text
// that is not a number is kept as typed and refused by the server's validation.
import { useEffect, useRef, useState } from "preact/hooks";
import { controlProps } from "./field";
import type { FieldProps } from "./types";

const INTEGER = /^[-+]?\d+$/;
const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

export function parse(widget: string, raw: string): { ok: boolean; value: unknown } {
  const t = raw.trim();
  if (t === "") return { ok: true, value: null };
  if (widget === "biginteger") return INTEGER.test(t) ? { ok: true, value: t.replace(/^\+/, "") } : { ok: false, value: t };
  if (widget === "integer") {
    if (!INTEGER.test(t)) return { ok: false, value: t };
    const n = Number(t);
    return Number.isSafeInteger(n) ? { ok: true, value: n } : { ok: false, value: t };
  }
  return DECIMAL.test(t) ? { ok: true, value: Number(t) } : { ok: false, value: t };
}

function shown(value: unknown): string {
  return value === null || value === undefined ? "" : String(value);
}

export function NumberField(props: FieldProps) {
  const { attr, value, onChange } = props;
  const [text, setText] = useState(() => shown(value));
  const last = useRef<unknown>(value);
  // a value set from outside (loaded, discarded, filled from a locale) replaces the text
  useEffect(() => {
    if (value !== last.current) {
      last.current = value;
      setText(shown(value));
    }
  }, [value]);
  const bad = !parse(attr.widget, text).ok;
  const base = controlProps(props);
  return (
    <input
      {...base}
      aria-invalid={base["aria-invalid"] || bad || undefined}
      class="input"
      type="text"
      inputMode={attr.widget === "integer" || attr.widget === "biginteger" ? "numeric" : "decimal"}
      value={text}
      autoComplete="off"
      onInput={(e) => {
        const raw = e.currentTarget.value;
        setText(raw);
        const v = parse(attr.widget, raw).value;
        last.current = v;
        onChange(v);
      }}
    />
  );
}
