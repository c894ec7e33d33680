// The JSON editor (loaded on first use by ../json.tsx): CodeMirror 6 with JSON highlighting,
// line numbers and a linter that marks where the text stops being JSON. It emits the parsed
// value when the text is JSON, null when it is empty, and an InvalidJson marker (the text and
// the error) otherwise, so that the form can refuse to save.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { json } from "@codemirror/lang-json";
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { lintGutter, linter, type Diagnostic } from "@codemirror/lint";
import { Compartment, EditorState } from "@codemirror/state";
import { EditorView, drawSelection, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from "@codemirror/view";
import { isInvalidJson } from "../json-marker";
import type { FieldProps } from "../types";
import { parseJson, type JsonProblem } from "./problem";

function textOf(value: unknown): string {
  if (isInvalidJson(value)) return value.__invalidJson;
  if (value === null || value === undefined) return "";
  return JSON.stringify(value, null, 2);
}

function describeProblem(p: JsonProblem): string {
  return `${p.message} (line ${p.line}, column ${p.column})`;
}

/** What the field holds for a text: null when empty, the value, or the marker. */
function valueOf(text: string): { value: unknown; problem: JsonProblem | null } {
  if (!text.trim()) return { value: null, problem: null };
  const parsed = parseJson(text);
  if (parsed.ok) return { value: parsed.value, problem: null };
  return { value: { __invalidJson: text, message: describeProblem(parsed.problem) }, problem: parsed.problem };
}

const jsonLinter = linter(
  (view): Diagnostic[] => {
    const text = view.state.doc.toString();
    if (!text.trim()) return [];
    const parsed = parseJson(text);
    if (parsed.ok) return [];
    const from = Math.min(parsed.problem.offset, text.length);
    return [{ from, to: Math.min(from + 1, text.length), severity: "error", message: describeProblem(parsed.problem) }];
  },
  { delay: 200 },
);

const theme = EditorView.theme({
  "&": { fontSize: "13px", border: "1px solid var(--border)", borderRadius: "4px", background: "var(--surface)" },
  "&.cm-focused": { outline: "2px solid var(--focus)", outlineOffset: "1px" },
  ".cm-scroller": { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace", minHeight: "120px", maxHeight: "60vh" },
  ".cm-content": { minHeight: "120px" },
  ".cm-gutters": { background: "#f6f6f9", color: "#4a4a6a", borderRight: "1px solid var(--border)" },
});

export function JsonEditor(props: FieldProps) {
  const host = useRef<HTMLDivElement>(null);
  const viewRef = useRef<EditorView | null>(null);
  const propsRef = useRef(props);
  propsRef.current = props;
  const lastValue = useRef<unknown>(props.value);
  // every object value this editor emitted: a render may still hold an older one of them
  const emitted = useMemo(() => new WeakSet<object>(), []);
  const attrs = useRef(new Compartment());
  const editable = useRef(new Compartment());
  const [problem, setProblem] = useState<JsonProblem | null>(() => valueOf(textOf(props.value)).problem);
  const problemId = `${props.id}-json-problem`;

  const contentAttributes = (p: FieldProps, withProblem: boolean) => {
    const described = [p.error ? `${p.id}-error` : "", withProblem ? `${p.id}-json-problem` : ""].filter(Boolean).join(" ");
    const out: Record<string, string> = { id: p.id, "aria-labelledby": `${p.id}-label` };
    if (described) out["aria-describedby"] = described;
    if (p.error || withProblem) out["aria-invalid"] = "true";
    if (p.attr.required) out["aria-required"] = "true";
    if (p.disabled) out["aria-readonly"] = "true";
    return EditorView.contentAttributes.of(out);
  };
  const editableExt = (disabled: boolean | undefined) => [EditorView.editable.of(!disabled), EditorState.readOnly.of(!!disabled)];

  useEffect(() => {
    const view = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: textOf(props.value),
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          history(),
          drawSelection(),
          indentOnInput(),
          bracketMatching(),
          highlightActiveLine(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          json(),
          jsonLinter,
          lintGutter(),
          theme,
          EditorView.lineWrapping,
          attrs.current.of(contentAttributes(props, !!problem)),
          editable.current.of(editableExt(props.disabled)),
          EditorView.updateListener.of((update) => {
            if (!update.docChanged) return;
            const { value, problem: found } = valueOf(update.state.doc.toString());
            lastValue.current = value;
            if (typeof value === "object" && value !== null) emitted.add(value);
            setProblem(found);
            propsRef.current.onChange(value);
          }),
        ],
      }),
    });
    viewRef.current = view;
    return () => {
      view.destroy();
      viewRef.current = null;
    };
  }, []);

  // a value set from outside (another locale, discarded changes): the text starts over
  // (checked as the render commits, before the next keystroke can change lastValue)
  useLayoutEffect(() => {
    const view = viewRef.current;
    if (!view || props.value === lastValue.current) return;
    if (typeof props.value === "object" && props.value !== null && emitted.has(props.value)) return;
    lastValue.current = props.value;
    const current = view.state.doc.toString();
    if (JSON.stringify(valueOf(current).value) === JSON.stringify(props.value)) return;
    const text = textOf(props.value);
    view.dispatch({ changes: { from: 0, to: current.length, insert: text } });
  }, [props.value]);

  useEffect(() => {
    viewRef.current?.dispatch({
      effects: [attrs.current.reconfigure(contentAttributes(props, !!problem)), editable.current.reconfigure(editableExt(props.disabled))],
    });
  }, [props.id, props.error, props.disabled, props.attr.required, !!problem]);

  return (
    <div class={`json-editor${problem || props.error ? " json-invalid" : ""}`}>
      <div ref={host} class="json-host" />
      {problem && (
        <p class="field-error json-problem" id={problemId}>
          Line {problem.line}, column {problem.column}: {problem.message}. The document cannot be saved until this is valid JSON.
        </p>
      )}
    </div>
  );
}
