// Editing commands. Block-type changes and list indentation work on a flat view of the
// selected top-level blocks: one "line" per textblock or image, each list item carrying the
// stack of lists it sits in (outermost first). A command changes lines (their node, their
// list stack); the lines are then grouped back into blocks (consecutive items of the same list
// into one list node, deeper items into nested list nodes, as the blocks format nests them)
// and replace the old blocks, the cursor kept on the same line and offset.
import { Fragment, type Mark, type MarkType, type Node as PMNode, type NodeType, type ResolvedPos } from "prosemirror-model";
import { NodeSelection, TextSelection, type Command, type EditorState, type Transaction } from "prosemirror-state";
import { schema, type ImageFile, type ListFormat } from "./schema";

interface ListLevel {
  /** lines of the same list share their level object */
  readonly key: object;
  format: ListFormat;
  indentLevel: number | null;
}

interface Line {
  node: PMNode;
  levels: ListLevel[];
  /** whether the selection touches this line */
  selected: boolean;
}

interface Point {
  line: number;
  offset: number;
}

const nodes = schema.nodes;

function level(format: ListFormat, indentLevel: number | null): ListLevel {
  return { key: {}, format, indentLevel };
}

/** Lines of a list node, each item with the lists above it. */
function flattenList(list: PMNode, above: ListLevel[], into: PMNode[][], levels: ListLevel[][]): void {
  const own = level(list.attrs.format as ListFormat, (list.attrs.indentLevel as number | null) ?? null);
  const stack = [...above, own];
  list.forEach((child) => {
    if (child.type === nodes.list) flattenList(child, stack, into, levels);
    else {
      into.push([child]);
      levels.push(stack);
    }
  });
}

function buildList(lines: Line[], depth: number): PMNode {
  const own = lines[0].levels[depth];
  const children: PMNode[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.levels.length === depth + 1) {
      children.push(line.node);
      i++;
      continue;
    }
    const key = line.levels[depth + 1].key;
    let j = i + 1;
    while (j < lines.length && lines[j].levels.length > depth + 1 && lines[j].levels[depth + 1].key === key) j++;
    children.push(buildList(lines.slice(i, j), depth + 1));
    i = j;
  }
  return nodes.list.create({ format: own.format, indentLevel: own.indentLevel }, children);
}

/** The blocks of lines: consecutive items of one list become one list node. */
function group(lines: Line[]): PMNode[] {
  const out: PMNode[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.levels.length) {
      out.push(line.node);
      i++;
      continue;
    }
    const key = line.levels[0].key;
    let j = i + 1;
    while (j < lines.length && lines[j].levels.length > 0 && lines[j].levels[0].key === key) j++;
    out.push(buildList(lines.slice(i, j), 0));
    i = j;
  }
  return out;
}

/** Where each line's content starts in a fragment placed at `start`. */
function contentStarts(blocks: PMNode[], start: number): number[] {
  const out: number[] = [];
  const walk = (node: PMNode, pos: number) => {
    if (node.type === nodes.list) {
      let p = pos + 1;
      node.forEach((child) => {
        walk(child, p);
        p += child.nodeSize;
      });
    } else out.push(pos + 1);
  };
  let pos = start;
  for (const block of blocks) {
    walk(block, pos);
    pos += block.nodeSize;
  }
  return out;
}

export interface LineEdit {
  lines: Line[];
  /** the selected lines' indexes, first to last */
  first: number;
  last: number;
}

/**
 * Runs `edit` over the lines of the top-level blocks the selection touches (and one block on
 * either side, so that a list can join its neighbour); writes the result into `tr` when the
 * edit answers true.
 */
export function editLines(tr: Transaction, edit: (e: LineEdit) => boolean): boolean {
  const doc = tr.doc;
  const sel = tr.selection;
  if (sel instanceof NodeSelection && sel.node.type === nodes.image) return false;
  // the top-level blocks the selection touches
  let firstBlock = -1;
  let lastBlock = -1;
  let offset = 0;
  const offsets: number[] = [];
  doc.forEach((block, pos, index) => {
    offsets.push(pos);
    const end = pos + block.nodeSize;
    if (sel.from < end && sel.to > pos) {
      if (firstBlock < 0) firstBlock = index;
      lastBlock = index;
    } else if (sel.empty && sel.from >= pos && sel.from <= end && firstBlock < 0) {
      firstBlock = lastBlock = index;
    }
    offset = end;
  });
  if (firstBlock < 0) return false;
  const from = Math.max(0, firstBlock - 1);
  const to = Math.min(doc.childCount - 1, lastBlock + 1);
  const start = offsets[from];
  const end = to + 1 < doc.childCount ? offsets[to + 1] : offset;

  // flatten, noting where each line's content starts in the document
  const lines: Line[] = [];
  const blocks: PMNode[] = [];
  for (let i = from; i <= to; i++) blocks.push(doc.child(i));
  for (const block of blocks) {
    if (block.type === nodes.list) {
      const items: PMNode[][] = [];
      const levels: ListLevel[][] = [];
      flattenList(block, [], items, levels);
      items.forEach(([node], k) => lines.push({ node, levels: levels[k], selected: false }));
    } else lines.push({ node: block, levels: [], selected: false });
  }
  const starts = contentStarts(blocks, start);
  const point = (pos: number): Point | null => {
    for (let i = 0; i < lines.length; i++) {
      const s = starts[i];
      if (pos >= s && pos <= s + lines[i].node.content.size) return { line: i, offset: pos - s };
    }
    return null;
  };
  let first = -1;
  let last = -1;
  lines.forEach((line, i) => {
    const s = starts[i];
    const e = s + line.node.content.size;
    if (sel.from <= e && sel.to >= s) {
      line.selected = true;
      if (first < 0) first = i;
      last = i;
    }
  });
  if (first < 0) return false;
  const anchor = point(sel.anchor);
  const head = point(sel.head);
  if (!edit({ lines, first, last })) return false;

  const built = group(lines);
  tr.replaceWith(start, end, Fragment.fromArray(built));
  const after = contentStarts(built, start);
  const place = (p: Point | null, fallback: number): number =>
    p ? after[p.line] + Math.min(p.offset, lines[p.line].node.content.size) : fallback;
  if (lines.some((l) => l.node.isTextblock)) {
    const a = place(anchor, start + 1);
    const h = place(head, a);
    tr.setSelection(TextSelection.between(tr.doc.resolve(a), tr.doc.resolve(h)));
  }
  return true;
}

function asCommand(edit: (e: LineEdit) => boolean): Command {
  return (state, dispatch) => {
    const tr = state.tr;
    if (!editLines(tr, edit)) return false;
    dispatch?.(tr.scrollIntoView());
    return true;
  };
}

/** A textblock's content made fit for another type (code keeps only text). */
function retype(node: PMNode, type: NodeType, attrs: Record<string, unknown> | null): PMNode {
  let content = node.content;
  if (type === nodes.code_block) {
    content = node.textContent ? Fragment.from(schema.text(node.textContent)) : Fragment.empty;
  }
  return type.create(attrs, content);
}

export type BlockChoice =
  | { kind: "paragraph" }
  | { kind: "heading"; level: number }
  | { kind: "quote" }
  | { kind: "code" }
  | { kind: "list"; format: ListFormat };

/** Makes the selected lines blocks of a type (list items leave their lists). */
export function setBlock(choice: BlockChoice): Command {
  if (choice.kind === "list") return setList(choice.format);
  const type =
    choice.kind === "heading" ? nodes.heading : choice.kind === "quote" ? nodes.quote : choice.kind === "code" ? nodes.code_block : nodes.paragraph;
  const attrs = choice.kind === "heading" ? { level: choice.level } : choice.kind === "code" ? { language: "plaintext" } : null;
  return asCommand(({ lines, first, last }) => {
    let changed = false;
    for (let i = first; i <= last; i++) {
      const line = lines[i];
      if (!line.node.isTextblock) continue;
      const keepAttrs = line.node.type === type && (choice.kind !== "heading" || line.node.attrs.level === choice.level);
      if (keepAttrs && !line.levels.length) continue;
      line.node = retype(line.node, type, keepAttrs ? line.node.attrs : attrs);
      line.levels = [];
      changed = true;
    }
    return changed;
  });
}

/** Makes the selected lines items of a list of `format`; items already in a list change their list's format. */
export function setList(format: ListFormat): Command {
  return asCommand(listEdit(format));
}

/** The line edit of setList (the markdown shortcuts run it inside their own transaction). */
export function listEdit(format: ListFormat): (e: LineEdit) => boolean {
  return ({ lines, first, last }) => {
    let changed = false;
    // lists whose items are selected take the format (the whole list, as its items share it)
    const retyped = new Set<object>();
    for (let i = first; i <= last; i++) {
      const line = lines[i];
      if (!line.levels.length) continue;
      const own = line.levels[line.levels.length - 1];
      if (own.format !== format && !retyped.has(own.key)) {
        own.format = format;
        retyped.add(own.key);
        changed = true;
      }
    }
    // other textblocks become items: of the list just before them when it has the format, else of a new list
    let current: ListLevel[] | null = null;
    for (let i = first; i <= last; i++) {
      const line = lines[i];
      if (line.levels.length) {
        current = null;
        continue;
      }
      if (!line.node.isTextblock) {
        current = null;
        continue;
      }
      if (!current) {
        const prev = i > 0 ? lines[i - 1] : null;
        current =
          prev && prev.levels.length === 1 && prev.levels[0].format === format ? prev.levels : [level(format, null)];
      }
      line.node = retype(line.node, nodes.list_item, null);
      line.levels = current;
      changed = true;
    }
    if (changed) mergeNeighbours(lines);
    return changed;
  };
}

/** Adjacent lists of the same format and place become one (an artifact of indenting or retyping). */
function mergeNeighbours(lines: Line[]): void {
  for (let i = 1; i < lines.length; i++) {
    const prev = lines[i - 1].levels;
    const cur = lines[i].levels;
    const n = Math.min(prev.length, cur.length);
    for (let k = 0; k < n; k++) {
      if (prev[k].key === cur[k].key) continue;
      // the lists differ from depth k: join when both are nested lists of the same format
      if (k > 0 && prev[k].format === cur[k].format) {
        const from = cur[k];
        for (let j = i; j < lines.length && lines[j].levels[k] === from; j++) {
          lines[j].levels = [...lines[j].levels.slice(0, k), prev[k], ...lines[j].levels.slice(k + 1)];
        }
      }
      break;
    }
  }
}

function inItem(state: EditorState): boolean {
  const { $from } = state.selection;
  return $from.parent.type === nodes.list_item;
}

/** Tab in a list: the selected items move one list deeper (not the first item of a list). */
export const indentItems: Command = (state, dispatch) => {
  if (!inItem(state)) return false;
  return asCommand(({ lines, first, last }) => {
    let changed = false;
    for (let i = first; i <= last; i++) {
      const line = lines[i];
      const depth = line.levels.length - 1;
      if (depth < 0) continue;
      const prev = i > 0 ? lines[i - 1] : null;
      // an item can go deeper when an item of its list (or of a list inside it) precedes it
      if (!prev || prev.levels.length <= depth || prev.levels[depth].key !== line.levels[depth].key) continue;
      const own = line.levels[depth];
      const join =
        prev.levels.length > depth + 1 && prev.levels.slice(0, depth + 1).every((l, k) => l.key === line.levels[k].key)
          ? prev.levels[depth + 1]
          : level(own.format, (own.indentLevel ?? 0) + 1);
      line.levels = [...line.levels, join];
      changed = true;
    }
    if (changed) mergeNeighbours(lines);
    return changed;
  })(state, dispatch);
};

/** Shift-Tab in a nested list: the selected items move one list up. */
export const outdentItems: Command = (state, dispatch) => {
  if (!inItem(state)) return false;
  return asCommand(({ lines, first, last }) => {
    let changed = false;
    for (let i = first; i <= last; i++) {
      const line = lines[i];
      if (line.levels.length < 2) continue;
      line.levels = line.levels.slice(0, -1);
      changed = true;
    }
    if (changed) mergeNeighbours(lines);
    return changed;
  })(state, dispatch);
};

/** A list item leaves its lists and becomes a paragraph. */
const itemToParagraph: Command = asCommand(({ lines, first, last }) => {
  let changed = false;
  for (let i = first; i <= last; i++) {
    const line = lines[i];
    if (!line.levels.length) continue;
    line.node = retype(line.node, nodes.paragraph, null);
    line.levels = [];
    changed = true;
  }
  return changed;
});

function itemDepth($pos: ResolvedPos): number {
  let depth = 0;
  for (let d = $pos.depth - 1; d > 0; d--) if ($pos.node(d).type === nodes.list) depth++;
  return depth;
}

/** Enter in an empty list item: one list up, or out of the list. */
export const exitEmptyItem: Command = (state, dispatch) => {
  const { $from, empty } = state.selection;
  if (!empty || $from.parent.type !== nodes.list_item || $from.parent.content.size) return false;
  return itemDepth($from) > 1 ? outdentItems(state, dispatch) : itemToParagraph(state, dispatch);
};

/** Backspace at the start of the first item of a list: one list up, or out of the list. */
export const backspaceInItem: Command = (state, dispatch) => {
  const { $from, empty } = state.selection;
  if (!empty || $from.parent.type !== nodes.list_item || $from.parentOffset > 0) return false;
  if ($from.index(-1) > 0) return false;
  return itemDepth($from) > 1 ? outdentItems(state, dispatch) : itemToParagraph(state, dispatch);
};

/** Enter at the end of a code block ending with two empty lines: leave the block. */
export const exitCodeOnTripleEnter: Command = (state, dispatch) => {
  const { $from, empty } = state.selection;
  if (!empty || $from.parent.type !== nodes.code_block) return false;
  if ($from.parentOffset !== $from.parent.content.size || !$from.parent.textContent.endsWith("\n\n")) return false;
  if (dispatch) {
    const tr = state.tr.delete($from.pos - 2, $from.pos);
    const after = tr.mapping.map($from.after());
    tr.insert(after, nodes.paragraph.create());
    tr.setSelection(TextSelection.create(tr.doc, after + 1));
    dispatch(tr.scrollIntoView());
  }
  return true;
};

/** Enter in a paragraph holding only ``` (and a language): the paragraph becomes a code block. */
export const codeFenceOnEnter: Command = (state, dispatch) => {
  const { $from, empty } = state.selection;
  if (!empty || $from.parent.type !== nodes.paragraph) return false;
  const match = /^```([\w+#-]*)$/.exec($from.parent.textContent);
  if (!match || $from.parentOffset !== $from.parent.content.size) return false;
  if (dispatch) {
    const start = $from.before();
    const tr = state.tr.replaceWith(start, $from.after(), nodes.code_block.create({ language: match[1] || "plaintext" }));
    tr.setSelection(TextSelection.create(tr.doc, start + 1));
    dispatch(tr.scrollIntoView());
  }
  return true;
};

/** Shift-Enter: a line break inside the block (a newline in its text, as the format keeps it). */
export const softBreak: Command = (state, dispatch) => {
  const { $from } = state.selection;
  if (!$from.parent.isTextblock) return false;
  dispatch?.(state.tr.insertText("\n").scrollIntoView());
  return true;
};

/** Arrow down / right at the very end of a document ending with a code block or an image: a paragraph after it. */
export const paragraphAtEnd: Command = (state, dispatch) => {
  const sel = state.selection;
  const lastBlock = state.doc.lastChild!;
  if (lastBlock.type !== nodes.code_block && lastBlock.type !== nodes.image) return false;
  const end = state.doc.content.size;
  // a selected final image, or a cursor at the end of the final code block
  const atEnd = sel instanceof NodeSelection ? sel.to === end : sel.empty && sel.$head.pos === end - 1;
  if (!atEnd) return false;
  if (dispatch) {
    const tr = state.tr.insert(end, nodes.paragraph.create());
    tr.setSelection(TextSelection.create(tr.doc, end + 1));
    dispatch(tr.scrollIntoView());
  }
  return true;
};

// ---- marks and links ----------------------------------------------------------------------

/** Whether all the selected text carries the mark (the stored marks for a cursor). */
export function markActive(state: EditorState, type: MarkType): boolean {
  const { from, to, empty, $from } = state.selection;
  if (empty) return !!type.isInSet(state.storedMarks || $from.marks());
  let all = true;
  let any = false;
  state.doc.nodesBetween(from, to, (node) => {
    if (!node.isText) return;
    any = true;
    if (!type.isInSet(node.marks)) all = false;
  });
  return any && all;
}

/** The range and mark of the link around the cursor or selection start, if any. */
export function linkAt(state: EditorState): { from: number; to: number; mark: Mark } | null {
  const { $from, from, to } = state.selection;
  const type = schema.marks.link;
  const parent = $from.parent;
  if (!parent.inlineContent) return null;
  const start = $from.start();
  // the text node at (or just before) the position
  let found: Mark | null = null;
  let index = $from.index();
  const at = parent.maybeChild(index);
  const before = index > 0 ? parent.child(index - 1) : null;
  if (at && type.isInSet(at.marks)) found = type.isInSet(at.marks)!;
  else if (before && from === to && type.isInSet(before.marks) && $from.textOffset === 0) {
    found = type.isInSet(before.marks)!;
    index--;
  }
  if (!found) return null;
  const mark = found;
  let s = index;
  let e = index + 1;
  while (s > 0 && mark.isInSet(parent.child(s - 1).marks)) s--;
  while (e < parent.childCount && mark.isInSet(parent.child(e).marks)) e++;
  let pos = start;
  let fromPos = start;
  let toPos = start;
  for (let i = 0; i < parent.childCount; i++) {
    if (i === s) fromPos = pos;
    pos += parent.child(i).nodeSize;
    if (i === e - 1) toPos = pos;
  }
  return { from: fromPos, to: toPos, mark };
}

/** Links the range (or inserts `text` linked at the cursor); an empty url removes the link. */
export function applyLink(state: EditorState, range: { from: number; to: number }, url: string, text: string): Transaction {
  const type = schema.marks.link;
  const tr = state.tr;
  let { from, to } = range;
  if (from === to && url) {
    const content = text || url;
    const marks = (state.storedMarks || state.selection.$from.marks()).filter((m) => m.type !== type);
    tr.insert(from, schema.text(content, [...marks, type.create({ url })]));
    to = from + content.length;
    tr.setSelection(TextSelection.create(tr.doc, to));
    return tr;
  }
  tr.removeMark(from, to, type);
  if (url) tr.addMark(from, to, type.create({ url }));
  tr.setSelection(TextSelection.create(tr.doc, to));
  return tr;
}

/** Inserts an image block after the selected block (or in place of an empty paragraph). */
export function insertImage(state: EditorState, file: ImageFile): Transaction {
  const node = nodes.image.create({ image: file });
  const tr = state.tr;
  const { $from } = state.selection;
  const top = $from.depth > 0 ? $from.before(1) : $from.pos;
  const block = state.doc.nodeAt(top);
  if (block && block.type === nodes.paragraph && block.content.size === 0) {
    tr.replaceWith(top, top + block.nodeSize, node);
    tr.setSelection(NodeSelection.create(tr.doc, top));
  } else {
    const at = block ? top + block.nodeSize : state.doc.content.size;
    tr.insert(at, node);
    tr.setSelection(NodeSelection.create(tr.doc, at));
  }
  return tr.scrollIntoView();
}

/** Sets the language of the code block holding the cursor. */
export function setCodeLanguage(language: string): Command {
  return (state, dispatch) => {
    const { $from } = state.selection;
    if ($from.parent.type !== nodes.code_block) return false;
    dispatch?.(state.tr.setNodeMarkup($from.before(), null, { ...$from.parent.attrs, language }));
    return true;
  };
}

/** What the block-type menu shows for the selection. */
export function currentBlock(state: EditorState): string {
  const sel = state.selection;
  if (sel instanceof NodeSelection && sel.node.type === nodes.image) return "image";
  const { $from } = sel;
  const parent = $from.parent;
  switch (parent.type) {
    case nodes.heading:
      return `heading-${parent.attrs.level as number}`;
    case nodes.quote:
      return "quote";
    case nodes.code_block:
      return "code";
    case nodes.list_item:
      return `list-${$from.node(-1).attrs.format as string}`;
    default:
      return "paragraph";
  }
}

export function choiceOf(value: string): BlockChoice {
  if (value.startsWith("heading-")) return { kind: "heading", level: Number(value.slice(8)) };
  if (value === "list-ordered") return { kind: "list", format: "ordered" };
  if (value === "list-unordered") return { kind: "list", format: "unordered" };
  if (value === "quote" || value === "code") return { kind: value };
  return { kind: "paragraph" };
}
