// The blocks JSON (the spec's rich text as blocks, as the reference's editor writes it) to the
// editor's document and back. toBlocks writes the reference editor's normal form: marks as
// `true` properties of text nodes, adjacent texts with the same marks merged, every block with
// at least one text child, and inline links surrounded by text nodes (empty when nothing is
// there). For every value in that form, toBlocks(fromBlocks(value)) equals value.
import { Fragment, type Mark, type Node as PMNode } from "prosemirror-model";
import { schema, TEXT_MARKS, type ImageFile, type ListFormat, type TextMark } from "./schema";

export interface TextNode {
  type: "text";
  text: string;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strikethrough?: boolean;
  code?: boolean;
}
export interface LinkNode {
  type: "link";
  url: string;
  children: TextNode[];
}
export type InlineNode = TextNode | LinkNode;
export interface ListItemNode {
  type: "list-item";
  children: InlineNode[];
}
export interface ParagraphBlock {
  type: "paragraph";
  children: InlineNode[];
}
export interface HeadingBlock {
  type: "heading";
  level: 1 | 2 | 3 | 4 | 5 | 6;
  children: InlineNode[];
}
export interface QuoteBlock {
  type: "quote";
  children: InlineNode[];
}
export interface CodeBlock {
  type: "code";
  language?: string;
  children: InlineNode[];
}
export interface ImageBlock {
  type: "image";
  image: ImageFile;
  children: [TextNode];
}
export interface ListBlock {
  type: "list";
  format: ListFormat;
  indentLevel?: number;
  children: (ListItemNode | ListBlock)[];
}
export type Block = ParagraphBlock | HeadingBlock | QuoteBlock | CodeBlock | ImageBlock | ListBlock;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function childrenOf(node: Json): unknown[] {
  return Array.isArray(node.children) ? node.children : [];
}

// ---- blocks -> document -------------------------------------------------------------------

function textMarks(node: Json, outer: readonly Mark[]): readonly Mark[] {
  let marks: readonly Mark[] = outer;
  for (const name of TEXT_MARKS) {
    if (node[name] === true) marks = schema.marks[name].create().addToSet(marks);
  }
  return marks;
}

function inlineContent(children: unknown[], outer: readonly Mark[] = []): PMNode[] {
  const out: PMNode[] = [];
  for (const child of children) {
    if (!isObject(child)) continue;
    if (child.type === "link") {
      const url = typeof child.url === "string" ? child.url : "";
      const link = schema.marks.link.create({ url });
      out.push(...inlineContent(childrenOf(child), link.addToSet(outer)));
    } else if (typeof child.text === "string") {
      // a text node (its `type` is "text"; older values may lack it)
      if (child.text) out.push(schema.text(child.text, textMarks(child, outer)));
    } else if (Array.isArray(child.children)) {
      // an inline element the editor does not know: keep its text
      out.push(...inlineContent(child.children, outer));
    }
  }
  return out;
}

function plainText(children: unknown[]): string {
  let text = "";
  for (const child of children) {
    if (!isObject(child)) continue;
    if (typeof child.text === "string") text += child.text;
    else if (Array.isArray(child.children)) text += plainText(child.children);
  }
  return text;
}

function listNode(block: Json): PMNode {
  const items: PMNode[] = [];
  for (const child of childrenOf(block)) {
    if (!isObject(child)) continue;
    if (child.type === "list") items.push(listNode(child));
    else items.push(schema.nodes.list_item.create(null, inlineContent(childrenOf(child))));
  }
  const format: ListFormat = block.format === "ordered" ? "ordered" : "unordered";
  const indentLevel = typeof block.indentLevel === "number" ? block.indentLevel : null;
  return schema.nodes.list.createAndFill({ format, indentLevel }, items)!;
}

function blockNode(block: unknown): PMNode | null {
  if (!isObject(block)) return null;
  const children = childrenOf(block);
  switch (block.type) {
    case "heading": {
      const raw = Number(block.level);
      const level = Number.isInteger(raw) ? Math.min(6, Math.max(1, raw)) : 1;
      return schema.nodes.heading.create({ level }, inlineContent(children));
    }
    case "quote":
      return schema.nodes.quote.create(null, inlineContent(children));
    case "code": {
      const text = plainText(children);
      const language = typeof block.language === "string" ? block.language : null;
      return schema.nodes.code_block.create({ language }, text ? schema.text(text) : null);
    }
    case "image":
      return isObject(block.image) && typeof block.image.url === "string" ? schema.nodes.image.create({ image: block.image }) : null;
    case "list":
      return listNode(block);
    default:
      return schema.nodes.paragraph.create(null, inlineContent(children));
  }
}

/** The editor document of a blocks value (null, [] or anything but an array: one empty paragraph). */
export function fromBlocks(value: unknown): PMNode {
  const blocks: PMNode[] = [];
  if (Array.isArray(value)) {
    for (const block of value) {
      const node = blockNode(block);
      if (node) blocks.push(node);
    }
  }
  if (!blocks.length) blocks.push(schema.nodes.paragraph.create());
  return schema.nodes.doc.create(null, blocks);
}

// ---- document -> blocks -------------------------------------------------------------------

function textNode(node: PMNode): TextNode {
  const out: TextNode = { type: "text", text: node.text ?? "" };
  for (const name of TEXT_MARKS) {
    if (node.marks.some((m) => m.type.name === name)) out[name as TextMark] = true;
  }
  return out;
}

function sameMarks(a: TextNode, b: TextNode): boolean {
  return TEXT_MARKS.every((name) => !a[name] === !b[name]);
}

/** Texts with the same marks merged, empty texts dropped (the caller pads). */
function pushText(into: InlineNode[] | TextNode[], text: TextNode): void {
  if (!text.text) return;
  const last = into[into.length - 1];
  if (last && last.type === "text" && sameMarks(last, text)) last.text += text.text;
  else (into as InlineNode[]).push(text);
}

function inlineNodes(parent: PMNode | Fragment): InlineNode[] {
  const raw: InlineNode[] = [];
  let link: LinkNode | null = null;
  let linkMark: Mark | null = null;
  parent.forEach((child) => {
    if (!child.isText) return;
    const mark = child.marks.find((m) => m.type === schema.marks.link) ?? null;
    if (mark) {
      if (!link || !linkMark || !linkMark.eq(mark)) {
        link = { type: "link", url: mark.attrs.url as string, children: [] };
        linkMark = mark;
        raw.push(link);
      }
      pushText(link.children, textNode(child));
    } else {
      link = null;
      linkMark = null;
      pushText(raw, textNode(child));
    }
  });
  // the reference editor's normal form: a text node before, between and after inline links
  const out: InlineNode[] = [];
  for (const node of raw) {
    if (node.type === "link") {
      if (!node.children.length) node.children.push({ type: "text", text: "" });
      if (!out.length || out[out.length - 1].type === "link") out.push({ type: "text", text: "" });
    }
    out.push(node);
  }
  if (!out.length || out[out.length - 1].type === "link") out.push({ type: "text", text: "" });
  return out;
}

function listBlock(node: PMNode): ListBlock {
  const children: ListBlock["children"] = [];
  node.forEach((child) => {
    if (child.type === schema.nodes.list) children.push(listBlock(child));
    else children.push({ type: "list-item", children: inlineNodes(child) });
  });
  const format: ListFormat = node.attrs.format === "ordered" ? "ordered" : "unordered";
  return typeof node.attrs.indentLevel === "number"
    ? { type: "list", format, indentLevel: node.attrs.indentLevel, children }
    : { type: "list", format, children };
}

function block(node: PMNode): Block {
  switch (node.type.name) {
    case "heading":
      return { type: "heading", level: node.attrs.level as HeadingBlock["level"], children: inlineNodes(node) };
    case "quote":
      return { type: "quote", children: inlineNodes(node) };
    case "code_block": {
      const children: CodeBlock["children"] = [{ type: "text", text: node.textContent }];
      return typeof node.attrs.language === "string" ? { type: "code", language: node.attrs.language, children } : { type: "code", children };
    }
    case "image":
      return { type: "image", image: node.attrs.image as ImageFile, children: [{ type: "text", text: "" }] };
    case "list":
      return listBlock(node);
    default:
      return { type: "paragraph", children: inlineNodes(node) };
  }
}

/** The blocks value of an editor document. */
export function toBlocks(doc: PMNode): Block[] {
  const out: Block[] = [];
  doc.forEach((node) => out.push(block(node)));
  return out;
}

/** Whether the document holds nothing: one empty paragraph. */
export function isEmptyDoc(doc: PMNode): boolean {
  return doc.childCount === 1 && doc.firstChild!.type === schema.nodes.paragraph && doc.firstChild!.content.size === 0;
}

/** The file object an image block stores, from a media library file (the fields the format names). */
export function imageFile(file: Record<string, unknown>): ImageFile {
  const fields = [
    "name",
    "alternativeText",
    "url",
    "caption",
    "width",
    "height",
    "formats",
    "hash",
    "ext",
    "mime",
    "size",
    "previewUrl",
    "provider",
    "provider_metadata",
    "createdAt",
    "updatedAt",
  ];
  const out: Record<string, unknown> = {};
  for (const key of fields) if (key in file) out[key] = file[key];
  if (!out.alternativeText && typeof out.name === "string") out.alternativeText = out.name;
  return out as ImageFile;
}
