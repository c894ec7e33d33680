// uid: generated from its target field (POST /uid/generate), checked for availability as it
// is typed (POST /uid/check-availability, debounced), with the server's suggestion when taken.
// While a new document's uid has not been typed into, it follows its target field.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, describeError } from "../api";
import { controlProps } from "./field";
import type { FieldProps } from "./types";

type Check =
  | { kind: "idle" }
  | { kind: "checking" }
  | { kind: "available" }
  | { kind: "taken"; suggestion: string | null }
  | { kind: "failed"; message: string };

const BASE = "/content-manager/uid";

export function UidField(props: FieldProps) {
  const { attr, value, onChange, ct, locale, name, document, disabled } = props;
  const text = typeof value === "string" ? value : "";
  const [check, setCheck] = useState<Check>({ kind: "idle" });
  const [generating, setGenerating] = useState(false);
  const initial = useRef(text);
  const typed = useRef(text !== "");
  const seq = useRef(0);
  const target = attr.targetField ? document[attr.targetField] : undefined;
  const isNew = !document.documentId;

  const generate = async (): Promise<void> => {
    const mine = ++seq.current;
    setGenerating(true);
    try {
      const data = attr.targetField ? { [attr.targetField]: document[attr.targetField] ?? null } : {};
      const res = await api.post<{ data: string }>(`${BASE}/generate`, {
        contentTypeUID: ct.uid,
        field: name,
        data,
        locale: locale ?? undefined,
        documentId: document.documentId ?? undefined,
      });
      if (mine === seq.current) onChange(res.data || null);
    } catch (e) {
      if (mine === seq.current) setCheck({ kind: "failed", message: describeError(e) });
    } finally {
      setGenerating(false);
    }
  };

  // a new document's uid follows its target field until it is typed into
  useEffect(() => {
    if (!isNew || typed.current || !attr.targetField) return;
    if (target === null || target === undefined || target === "") return;
    const t = setTimeout(() => void generate(), 300);
    return () => clearTimeout(t);
  }, [target]);

  // availability of what the field holds (not of the saved document's own value)
  useEffect(() => {
    if (!text || (!isNew && text === initial.current)) {
      setCheck({ kind: "idle" });
      return;
    }
    const mine = ++seq.current;
    setCheck({ kind: "checking" });
    const t = setTimeout(async () => {
      try {
        const res = await api.post<{ isAvailable: boolean; suggestion?: string | null }>(`${BASE}/check-availability`, {
          contentTypeUID: ct.uid,
          field: name,
          value: text,
          locale: locale ?? undefined,
          // the document's own value counts as available
          documentId: document.documentId ?? undefined,
        });
        if (mine !== seq.current) return;
        setCheck(res.isAvailable ? { kind: "available" } : { kind: "taken", suggestion: res.suggestion ?? null });
      } catch (e) {
        if (mine === seq.current) setCheck({ kind: "failed", message: describeError(e) });
      }
    }, 400);
    return () => clearTimeout(t);
  }, [text]);

  const base = controlProps(props);
  const statusId = `${props.id}-availability`;
  return (
    <div class="uid">
      <div class="input-row">
        <input
          {...base}
          aria-describedby={[base["aria-describedby"], statusId].filter(Boolean).join(" ")}
          class="input"
          type="text"
          value={text}
          autoComplete="off"
          spellcheck={false}
          onInput={(e) => {
            typed.current = true;
            const v = e.currentTarget.value;
            onChange(v === "" ? null : v);
          }}
        />
        {attr.targetField && (
          <button
            type="button"
            class="button button-secondary button-s"
            disabled={disabled || generating}
            aria-label={`Regenerate ${name}`}
            title={`Generate from ${attr.targetField}`}
            onClick={() => {
              typed.current = true;
              void generate();
            }}
          >
            {generating ? "Generating…" : "Regenerate"}
          </button>
        )}
      </div>
      <p class={`uid-status uid-${check.kind}`} id={statusId} role="status">
        {check.kind === "checking" && "Checking availability…"}
        {check.kind === "available" && "✓ Available"}
        {check.kind === "taken" && (
          <>
            ✗ Unavailable
            {check.suggestion && (
              <>
                {" — "}
                <button
                  type="button"
                  class="link-button"
                  disabled={disabled}
                  onClick={() => {
                    typed.current = true;
                    onChange(check.suggestion);
                  }}
                >
                  Use “{check.suggestion}”
                </button>
              </>
            )}
          </>
        )}
        {check.kind === "failed" && `Availability unknown: ${check.message}`}
      </p>
    </div>
  );
}
