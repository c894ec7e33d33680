// The blocks editor (loaded on first use by ./index.tsx): a ProseMirror view over the schema
// of ./schema.ts, a toolbar (block type, marks, link, lists, image from the media library),
// keyboard shortcuts and markdown-style shortcuts. It emits the blocks JSON on every change
// of the document (null once emptied), never on load.
import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { baseKeymap, chainCommands, toggleMark } from "prosemirror-commands";
import { gapCursor } from "prosemirror-gapcursor";
import { history, redo, undo } from "prosemirror-history";
import { InputRule, inputRules, textblockTypeInputRule, undoInputRule } from "prosemirror-inputrules";
import { keymap } from "prosemirror-keymap";
import type { Node as PMNode } from "prosemirror-model";
import { EditorState, type Command, type Plugin } from "prosemirror-state";
import { EditorView, type NodeView } from "prosemirror-view";
import { Button, buttonClass } from "../../ui/button";
import { Dialog } from "../../ui/dialog";
import { MediaPicker } from "../../ui/media-picker";
import type { FieldProps } from "../types";
import {
  applyLink,
  backspaceInItem,
  choiceOf,
  codeFenceOnEnter,
  currentBlock,
  editLines,
  exitCodeOnTripleEnter,
  exitEmptyItem,
  indentItems,
  insertImage,
  linkAt,
  listEdit,
  markActive,
  outdentItems,
  paragraphAtEnd,
  setBlock,
  setCodeLanguage,
  setList,
  softBreak,
} from "./commands";
import { fromBlocks, imageFile, isEmptyDoc, toBlocks } from "./convert";
import { schema, type ListFormat, type TextMark } from "./schema";

const nodes = schema.nodes;
const marks = schema.marks;

export const CODE_LANGUAGES = [
  "plaintext", "bash", "c", "cpp", "csharp", "css", "dart", "dockerfile", "go", "graphql", "html", "java",
  "javascript", "json", "jsx", "kotlin", "lua", "markdown", "php", "python", "ruby", "rust", "scala", "shell",
  "sql", "swift", "toml", "tsx", "typescript", "xml", "yaml",
];

const BLOCK_OPTIONS: [string, string][] = [
  ["paragraph", "Paragraph"],
  ["heading-1", "Heading 1"],
  ["heading-2", "Heading 2"],
  ["heading-3", "Heading 3"],
  ["heading-4", "Heading 4"],
  ["heading-5", "Heading 5"],
  ["heading-6", "Heading 6"],
  ["quote", "Quote"],
  ["code", "Code block"],
  ["list-unordered", "Bulleted list"],
  ["list-ordered", "Numbered list"],
];

const MARK_BUTTONS: { mark: TextMark; label: string; symbol: ComponentChildren; keys: string }[] = [
  { mark: "bold", label: "Bold", symbol: <b>B</b>, keys: "Ctrl+B" },
  { mark: "italic", label: "Italic", symbol: <i>I</i>, keys: "Ctrl+I" },
  { mark: "underline", label: "Underline", symbol: <u>U</u>, keys: "Ctrl+U" },
  { mark: "strikethrough", label: "Strikethrough", symbol: <s>S</s>, keys: "Ctrl+Shift+S" },
  { mark: "code", label: "Inline code", symbol: <code>{"<>"}</code>, keys: "Ctrl+E" },
];

/** A list rendered as ul/ol; a nested list (a child of a list, as the format nests them) sits in an li of its own so that the HTML stays a valid list. */
class ListView implements NodeView {
  dom: HTMLElement;
  contentDOM: HTMLElement;
  private format: string;
  private nested: boolean;

  constructor(node: PMNode, view: EditorView, getPos: () => number | undefined) {
    this.format = node.attrs.format as string;
    this.nested = ListView.isNested(view, getPos);
    this.contentDOM = document.createElement(this.format === "ordered" ? "ol" : "ul");
    if (this.nested) {
      this.dom = document.createElement("li");
      this.dom.className = "blocks-nested";
      this.dom.appendChild(this.contentDOM);
    } else this.dom = this.contentDOM;
    this.getPos = getPos;
    this.view = view;
  }

  private getPos: () => number | undefined;
  private view: EditorView;

  static isNested(view: EditorView, getPos: () => number | undefined): boolean {
    const pos = getPos();
    if (pos === undefined) return false;
    return view.state.doc.resolve(pos).depth > 0;
  }

  update(node: PMNode): boolean {
    if (node.type !== nodes.list || node.attrs.format !== this.format) return false;
    const pos = this.getPos();
    // while a transaction is being drawn the position may refer to the new document
    if (pos !== undefined && pos <= this.view.state.doc.content.size && ListView.isNested(this.view, this.getPos) !== this.nested) return false;
    return true;
  }
}

interface Context {
  /** Escape was pressed: the next Tab leaves the editor instead of indenting */
  escaped: boolean;
  openLink(): void;
}

function listRule(pattern: RegExp, format: ListFormat): InputRule {
  return new InputRule(pattern, (state, _match, start, end) => {
    const $start = state.doc.resolve(start);
    if ($start.parent.type !== nodes.paragraph) return null;
    const tr = state.tr.delete(start, end);
    return editLines(tr, listEdit(format)) ? tr : null;
  });
}

function plugins(ctx: Context): Plugin[] {
  const mark = (name: TextMark) => toggleMark(marks[name]);
  const heading = (level: number) => setBlock({ kind: "heading", level });
  const tab: Command = (state, dispatch) => (ctx.escaped ? false : indentItems(state, dispatch));
  const shiftTab: Command = (state, dispatch) => (ctx.escaped ? false : outdentItems(state, dispatch));
  return [
    inputRules({
      rules: [
        textblockTypeInputRule(/^(#{1,6})\s$/, nodes.heading, (m) => ({ level: m[1].length })),
        textblockTypeInputRule(/^>\s$/, nodes.quote),
        textblockTypeInputRule(/^```([\w+#-]*)\s$/, nodes.code_block, (m) => ({ language: m[1] || "plaintext" })),
        listRule(/^\s*([-+*])\s$/, "unordered"),
        listRule(/^(\d+)\.\s$/, "ordered"),
      ],
    }),
    keymap({
      "Mod-z": undo,
      "Shift-Mod-z": redo,
      "Mod-y": redo,
      "Mod-b": mark("bold"),
      "Mod-i": mark("italic"),
      "Mod-u": mark("underline"),
      "Mod-Shift-s": mark("strikethrough"),
      "Mod-Shift-x": mark("strikethrough"),
      "Mod-e": mark("code"),
      "Mod-k": () => {
        ctx.openLink();
        return true;
      },
      "Mod-Alt-0": setBlock({ kind: "paragraph" }),
      "Mod-Alt-1": heading(1),
      "Mod-Alt-2": heading(2),
      "Mod-Alt-3": heading(3),
      "Mod-Alt-4": heading(4),
      "Mod-Alt-5": heading(5),
      "Mod-Alt-6": heading(6),
      "Mod-Shift-7": setList("ordered"),
      "Mod-Shift-8": setList("unordered"),
      Enter: chainCommands(exitEmptyItem, exitCodeOnTripleEnter, codeFenceOnEnter),
      "Shift-Enter": softBreak,
      Backspace: chainCommands(undoInputRule, backspaceInItem),
      Tab: tab,
      "Shift-Tab": shiftTab,
      "Mod-]": indentItems,
      "Mod-[": outdentItems,
      ArrowDown: paragraphAtEnd,
      ArrowRight: paragraphAtEnd,
    }),
    keymap(baseKeymap),
    history(),
    gapCursor(),
  ];
}

function stateOf(value: unknown, ctx: Context): EditorState {
  return EditorState.create({ doc: fromBlocks(value), plugins: plugins(ctx) });
}

/** The blocks a value stands for, in the editor's normal form (for comparing values). */
function normalForm(value: unknown): string {
  return JSON.stringify(toBlocks(fromBlocks(value)));
}

function ToolButton({
  label,
  keys,
  pressed,
  disabled,
  onPress,
  children,
}: {
  label: string;
  keys?: string;
  pressed?: boolean;
  disabled?: boolean;
  onPress(): void;
  children: ComponentChildren;
}) {
  return (
    <button
      type="button"
      class="blocks-tool"
      aria-label={label}
      title={keys ? `${label} (${keys})` : label}
      aria-pressed={pressed === undefined ? undefined : pressed ? "true" : "false"}
      disabled={disabled}
      // keep the editor's selection (and focus) when the button is pressed with a pointer
      onMouseDown={(e) => e.preventDefault()}
      onClick={onPress}
    >
      <span aria-hidden="true">{children}</span>
    </button>
  );
}

interface LinkDraft {
  from: number;
  to: number;
  url: string;
  text: string;
  /** an existing link is edited (it may be removed) */
  existing: boolean;
}

function LinkDialog({ draft, onSave, onClose }: { draft: LinkDraft; onSave(url: string, text: string): void; onClose(): void }) {
  const [url, setUrl] = useState(draft.url);
  const [text, setText] = useState(draft.text);
  const [error, setError] = useState<string | null>(null);
  const askText = draft.from === draft.to;
  const submit = (e: Event) => {
    e.preventDefault();
    const trimmed = url.trim();
    if (!trimmed) {
      setError("Enter the link's URL");
      return;
    }
    onSave(trimmed, text);
  };
  return (
    <Dialog
      title={draft.existing ? "Edit link" : "Add link"}
      onClose={onClose}
      size="s"
      footer={
        <>
          <Button variant="tertiary" onClick={onClose}>
            Cancel
          </Button>
          {draft.existing && (
            <Button variant="danger" onClick={() => onSave("", "")}>
              Remove link
            </Button>
          )}
          <button type="submit" class={buttonClass("primary")} form="blocks-link-form">
            Save
          </button>
        </>
      }
    >
      <form id="blocks-link-form" class="blocks-link-form" onSubmit={submit} noValidate>
        <div class="field">
          <label class="field-label" for="blocks-link-url">
            URL
          </label>
          <input
            id="blocks-link-url"
            class="input"
            type="text"
            inputMode="url"
            autoComplete="off"
            value={url}
            autoFocus
            aria-invalid={error ? "true" : undefined}
            aria-describedby={error ? "blocks-link-url-error" : undefined}
            onInput={(e) => {
              setUrl((e.currentTarget as HTMLInputElement).value);
              setError(null);
            }}
          />
          {error && (
            <p class="field-error" id="blocks-link-url-error">
              {error}
            </p>
          )}
        </div>
        {askText && (
          <div class="field">
            <label class="field-label" for="blocks-link-text">
              Text
            </label>
            <input
              id="blocks-link-text"
              class="input"
              type="text"
              value={text}
              onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
            />
          </div>
        )}
      </form>
    </Dialog>
  );
}

export function BlocksEditor(props: FieldProps) {
  const host = useRef<HTMLDivElement>(null);
  const viewRef = useRef<EditorView | null>(null);
  const propsRef = useRef(props);
  propsRef.current = props;
  const lastValue = useRef<unknown>(props.value);
  // every value this editor emitted: a render may still hold an older one of them
  const emitted = useMemo(() => new WeakSet<object>(), []);
  const [, setTick] = useState(0);
  const [link, setLink] = useState<LinkDraft | null>(null);
  const [picking, setPicking] = useState(false);
  const ctx = useMemo<Context>(() => ({ escaped: false, openLink: () => undefined }), []);

  const openLink = () => {
    const view = viewRef.current;
    if (!view || propsRef.current.disabled) return;
    const state = view.state;
    const found = linkAt(state);
    if (found) {
      setLink({ from: found.from, to: found.to, url: found.mark.attrs.url as string, text: "", existing: true });
    } else {
      const { from, to } = state.selection;
      setLink({ from, to, url: "", text: "", existing: false });
    }
  };
  ctx.openLink = openLink;

  useEffect(() => {
    const view = new EditorView(host.current!, {
      state: stateOf(props.value, ctx),
      nodeViews: { list: (node, view, getPos) => new ListView(node, view, getPos) },
      editable: () => !propsRef.current.disabled,
      attributes: () => {
        const p = propsRef.current;
        const attrs: Record<string, string> = {
          id: p.id,
          class: "blocks-content",
          role: "textbox",
          "aria-multiline": "true",
          "aria-labelledby": `${p.id}-label`,
        };
        if (p.error) {
          attrs["aria-invalid"] = "true";
          attrs["aria-describedby"] = `${p.id}-error`;
        }
        if (p.attr.required) attrs["aria-required"] = "true";
        if (p.disabled) attrs["aria-readonly"] = "true";
        return attrs;
      },
      handleKeyDown: (_view, event) => {
        if (event.key === "Escape") ctx.escaped = true;
        else if (event.key !== "Shift" && event.key !== "Tab") ctx.escaped = false;
        return false;
      },
      dispatchTransaction(tr) {
        const v = viewRef.current!;
        v.updateState(v.state.apply(tr));
        if (tr.docChanged) {
          const value = isEmptyDoc(v.state.doc) ? null : toBlocks(v.state.doc);
          lastValue.current = value;
          if (value) emitted.add(value);
          propsRef.current.onChange(value);
        }
        setTick((t) => t + 1);
      },
    });
    viewRef.current = view;
    setTick((t) => t + 1);
    return () => {
      view.destroy();
      viewRef.current = null;
    };
  }, []);

  // a value set from outside (another locale, discarded changes): the editor starts over
  // (checked as the render commits, before the next keystroke can change lastValue)
  useLayoutEffect(() => {
    const view = viewRef.current;
    if (!view || props.value === lastValue.current) return;
    if (typeof props.value === "object" && props.value !== null && emitted.has(props.value)) return;
    lastValue.current = props.value;
    const current = isEmptyDoc(view.state.doc) ? normalForm(null) : JSON.stringify(toBlocks(view.state.doc));
    if (current === normalForm(props.value)) return;
    view.updateState(stateOf(props.value, ctx));
    setTick((t) => t + 1);
  }, [props.value]);

  // id, error and disabled live in the view's attributes
  useEffect(() => {
    viewRef.current?.setProps({});
  }, [props.id, props.error, props.disabled, props.attr.required]);

  const view = viewRef.current;
  const state = view?.state;
  const disabled = !!props.disabled || !view;
  const run = (command: Command) => {
    if (!view) return;
    command(view.state, view.dispatch);
    view.focus();
  };
  const block = state ? currentBlock(state) : "paragraph";
  const inCode = block === "code";
  const language = state && inCode ? ((state.selection.$from.parent.attrs.language as string | null) ?? "") : "";
  const languages = language && !CODE_LANGUAGES.includes(language) ? [language, ...CODE_LANGUAGES] : CODE_LANGUAGES;
  const toggleList = (format: ListFormat) =>
    run(block === `list-${format}` ? setBlock({ kind: "paragraph" }) : setList(format));
  const prefix = props.path.join(".") + ".";
  const nested = [...props.errors].filter(([path]) => path.startsWith(prefix));

  const onToolbarKey = (e: KeyboardEvent) => {
    if (e.key !== "ArrowLeft" && e.key !== "ArrowRight" && e.key !== "Home" && e.key !== "End") return;
    if ((e.target as HTMLElement).tagName === "SELECT") return;
    const items = Array.from((e.currentTarget as HTMLElement).querySelectorAll<HTMLElement>("button:not([disabled]), select:not([disabled])"));
    const at = items.indexOf(e.target as HTMLElement);
    if (at < 0) return;
    e.preventDefault();
    const next = e.key === "Home" ? 0 : e.key === "End" ? items.length - 1 : (at + (e.key === "ArrowRight" ? 1 : -1) + items.length) % items.length;
    items[next].focus();
  };

  return (
    <div class={`blocks-editor${props.error ? " blocks-invalid" : ""}${props.disabled ? " blocks-disabled" : ""}`}>
      <div class="blocks-toolbar" role="toolbar" aria-label={`Formatting of ${props.name}`} onKeyDown={onToolbarKey}>
        <select
          class="select blocks-type"
          aria-label="Block type"
          value={block}
          disabled={disabled || block === "image"}
          onChange={(e) => run(setBlock(choiceOf((e.currentTarget as HTMLSelectElement).value)))}
        >
          {block === "image" && <option value="image">Image</option>}
          {BLOCK_OPTIONS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <span class="blocks-sep" />
        {MARK_BUTTONS.map(({ mark, label, symbol, keys }) => (
          <ToolButton
            key={mark}
            label={label}
            keys={keys}
            pressed={!!state && markActive(state, marks[mark])}
            disabled={disabled || !state || !toggleMark(marks[mark])(state)}
            onPress={() => run(toggleMark(marks[mark]))}
          >
            {symbol}
          </ToolButton>
        ))}
        <ToolButton label="Link" keys="Ctrl+K" pressed={!!state && !!linkAt(state)} disabled={disabled || inCode || block === "image"} onPress={openLink}>
          <span class="blocks-link-symbol">Link</span>
        </ToolButton>
        <span class="blocks-sep" />
        <ToolButton label="Bulleted list" pressed={block === "list-unordered"} disabled={disabled || block === "image"} onPress={() => toggleList("unordered")}>
          <span class="blocks-icon blocks-icon-ul" />
        </ToolButton>
        <ToolButton label="Numbered list" pressed={block === "list-ordered"} disabled={disabled || block === "image"} onPress={() => toggleList("ordered")}>
          <span class="blocks-icon blocks-icon-ol" />
        </ToolButton>
        <ToolButton label="Indent list item" disabled={disabled || !state || !indentItems(state)} onPress={() => run(indentItems)}>
          <span class="blocks-icon blocks-icon-indent" />
        </ToolButton>
        <ToolButton label="Outdent list item" disabled={disabled || !state || !outdentItems(state)} onPress={() => run(outdentItems)}>
          <span class="blocks-icon blocks-icon-outdent" />
        </ToolButton>
        <span class="blocks-sep" />
        <ToolButton label="Image" disabled={disabled} onPress={() => setPicking(true)}>
          <span class="blocks-image-symbol">Image</span>
        </ToolButton>
        <span class="blocks-sep" />
        <ToolButton label="Undo" disabled={disabled || !state || !undo(state)} onPress={() => run(undo)}>
          <span class="blocks-icon blocks-icon-undo" />
        </ToolButton>
        <ToolButton label="Redo" disabled={disabled || !state || !redo(state)} onPress={() => run(redo)}>
          <span class="blocks-icon blocks-icon-redo" />
        </ToolButton>
        {inCode && (
          <select
            class="select blocks-language"
            aria-label="Code language"
            value={language}
            disabled={disabled}
            onChange={(e) => run(setCodeLanguage((e.currentTarget as HTMLSelectElement).value))}
          >
            {!language && <option value="">(none)</option>}
            {languages.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        )}
      </div>
      <div ref={host} class="blocks-host" />
      {nested.length > 0 && (
        <ul class="field-error blocks-errors">
          {nested.map(([path, message]) => (
            <li key={path}>
              Block {path.slice(prefix.length)}: {message}
            </li>
          ))}
        </ul>
      )}
      <details class="blocks-help">
        <summary>Keyboard shortcuts</summary>
        <p>
          Ctrl+B bold, Ctrl+I italic, Ctrl+U underline, Ctrl+Shift+S strikethrough, Ctrl+E inline code, Ctrl+K link; Ctrl+Alt+1 to 6
          headings, Ctrl+Alt+0 paragraph. Start a line with “# ” to “###### ” for a heading, “- ” or “1. ” for a list, “&gt; ” for a quote,
          “```” (and a language) then a space or Enter for code. In a list, Tab and Shift+Tab indent and outdent (Escape, then Tab, leaves the editor). Shift+Enter
          breaks the line; Enter on an empty item ends the list; in code, Ctrl+Enter or three Enters leave the block.
        </p>
      </details>
      {link && (
        <LinkDialog
          draft={link}
          onClose={() => {
            setLink(null);
            viewRef.current?.focus();
          }}
          onSave={(url, text) => {
            const v = viewRef.current;
            setLink(null);
            if (!v) return;
            v.dispatch(applyLink(v.state, link, url, text));
            v.focus();
          }}
        />
      )}
      {picking && (
        <MediaPicker
          multiple
          allowedTypes={["images"]}
          title={props.name}
          onClose={() => {
            setPicking(false);
            viewRef.current?.focus();
          }}
          onSelect={(files) => {
            setPicking(false);
            const v = viewRef.current;
            if (!v) return;
            for (const file of files) v.dispatch(insertImage(v.state, imageFile(file as unknown as Record<string, unknown>)));
            v.focus();
          }}
        />
      )}
    </div>
  );
}
