// richtext: Markdown in a text area with a toolbar, and a Preview tab rendered by
// markdown.tsx (elements only, raw HTML shown as text).
import { useRef, useState } from "preact/hooks";
import { controlProps } from "./field";
import { renderMarkdown } from "./markdown";
import type { FieldProps } from "./types";

type Edit = { label: string; text: string; apply: (selected: string) => { before: string; inner: string; after: string } };

const wrap = (mark: string, placeholder: string) => (s: string) => ({ before: mark, inner: s || placeholder, after: mark });
const linePrefix = (prefix: (n: number) => string) => (s: string) => ({
  before: "",
  inner: (s || "text")
    .split("\n")
    .map((l, n) => prefix(n) + l)
    .join("\n"),
  after: "",
});

const EDITS: Edit[] = [
  { label: "Bold", text: "B", apply: wrap("**", "bold text") },
  { label: "Italic", text: "I", apply: wrap("_", "italic text") },
  { label: "Strikethrough", text: "S", apply: wrap("~~", "struck text") },
  { label: "Format as code", text: "</>", apply: (s) => (s.includes("\n") ? { before: "```\n", inner: s, after: "\n```" } : { before: "`", inner: s || "code", after: "`" }) },
  { label: "Format as heading", text: "H", apply: linePrefix(() => "## ") },
  { label: "Insert a link", text: "↗", apply: (s) => ({ before: "[", inner: s || "link text", after: "](https://)" }) },
  { label: "Format as quote", text: "❝", apply: linePrefix(() => "> ") },
  { label: "Bulleted list", text: "•", apply: linePrefix(() => "- ") },
  { label: "Numbered list", text: "", apply: linePrefix((n) => `${n + 1}. `) },
];

export function RichTextField(props: FieldProps) {
  const { value, onChange, disabled, id, name } = props;
  const text = typeof value === "string" ? value : "";
  const [tab, setTab] = useState<"write" | "preview">("write");
  const area = useRef<HTMLTextAreaElement>(null);

  const edit = (e: Edit) => {
    const el = area.current;
    if (!el) return;
    const start = el.selectionStart;
    const end = el.selectionEnd;
    const { before, inner, after } = e.apply(text.slice(start, end));
    const next = text.slice(0, start) + before + inner + after + text.slice(end);
    onChange(next);
    requestAnimationFrame(() => {
      el.focus();
      el.setSelectionRange(start + before.length, start + before.length + inner.length);
    });
  };

  const select = (t: "write" | "preview") => {
    setTab(t);
    requestAnimationFrame(() => document.getElementById(`${id}-tab-${t}`)?.focus());
  };

  return (
    <div class="richtext">
      <div class="richtext-bar">
        <div role="tablist" aria-label={`${name} mode`} class="tabs">
          {(["write", "preview"] as const).map((t) => (
            <button
              key={t}
              type="button"
              role="tab"
              id={`${id}-tab-${t}`}
              aria-selected={tab === t}
              aria-controls={`${id}-panel-${t}`}
              tabIndex={tab === t ? 0 : -1}
              class="tab"
              onClick={() => setTab(t)}
              onKeyDown={(e) => {
                if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
                  e.preventDefault();
                  select(t === "write" ? "preview" : "write");
                }
              }}
            >
              {t === "write" ? "Write" : "Preview"}
            </button>
          ))}
        </div>
        {tab === "write" && (
          <div role="toolbar" aria-label={`${name} formatting`} class="toolbar" aria-controls={id}>
            {EDITS.map((e) => (
              <button key={e.label} type="button" class="tool" aria-label={e.label} title={e.label} disabled={disabled} onClick={() => edit(e)}>
                {e.text ? <span aria-hidden="true">{e.text}</span> : <span class="tool-numbered" aria-hidden="true" />}
              </button>
            ))}
          </div>
        )}
      </div>
      <div id={`${id}-panel-write`} role="tabpanel" aria-labelledby={`${id}-tab-write`} hidden={tab !== "write"}>
        <textarea
          {...controlProps(props)}
          ref={area}
          class="input textarea richtext-area"
          rows={10}
          value={text}
          onInput={(e) => {
            const v = e.currentTarget.value;
            onChange(v === "" ? null : v);
          }}
        />
      </div>
      <div id={`${id}-panel-preview`} role="tabpanel" aria-labelledby={`${id}-tab-preview`} hidden={tab !== "preview"} class="markdown" tabIndex={0}>
        {tab === "preview" && (text ? renderMarkdown(text) : <p class="muted">Nothing to preview.</p>)}
      </div>
    </div>
  );
}
