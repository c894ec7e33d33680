// The editor's document model, one node per kind of the blocks format: paragraph, heading,
// quote, code, image and list (whose children are list items and nested lists, as the format
// nests them), with the link and the five text marks. Converting to and from the blocks JSON
// (convert.ts) is then a walk over the tree.
import { Schema, type DOMOutputSpec, type Mark, type Node as PMNode } from "prosemirror-model";

export const LIST_FORMATS = ["ordered", "unordered"] as const;
export type ListFormat = (typeof LIST_FORMATS)[number];

/** The file object an image block keeps (the media library's file, its fields the format names). */
export type ImageFile = Record<string, unknown> & { url: string; name?: string; alternativeText?: string | null };

/** Only these URL schemes become a live href inside the editor (the stored url is kept as typed). */
export function safeHref(url: string): string | null {
  const trimmed = url.trim();
  if (/^(https?:|mailto:|tel:)/i.test(trimmed)) return trimmed;
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed)) return null;
  return trimmed;
}

/** How many lists a pasted list sits in (a nested list's indentLevel), null for a list at the top. */
function depthOf(dom: HTMLElement): number | null {
  let depth = 0;
  for (let el = dom.parentElement; el; el = el.parentElement) if (el.tagName === "UL" || el.tagName === "OL") depth++;
  return depth || null;
}

function imageDOM(node: PMNode): DOMOutputSpec {
  const file = node.attrs.image as ImageFile;
  const attrs: Record<string, string> = {
    alt: typeof file.alternativeText === "string" ? file.alternativeText : "",
    "data-file": JSON.stringify(file),
  };
  const src = typeof file.url === "string" ? safeHref(file.url) : null;
  if (src) attrs.src = src;
  if (typeof file.width === "number") attrs.width = String(file.width);
  if (typeof file.height === "number") attrs.height = String(file.height);
  return ["figure", { class: "blocks-image" }, ["img", attrs]];
}

export const schema = new Schema({
  nodes: {
    doc: { content: "block+" },
    // the first block of the group is what Enter makes after a heading and what fills an empty doc
    paragraph: {
      group: "block",
      content: "inline*",
      parseDOM: [
        // pasted HTML often wraps the text of quotes and list items in paragraphs: their
        // text belongs to the quote or item (both hold inline content in the format)
        { tag: "blockquote > p", skip: true, priority: 60 },
        { tag: "li > p", skip: true, priority: 60 },
        { tag: "p" },
      ],
      toDOM: () => ["p", 0],
    },
    heading: {
      group: "block",
      content: "inline*",
      attrs: { level: { default: 1 } },
      defining: true,
      parseDOM: [1, 2, 3, 4, 5, 6].map((level) => ({ tag: `h${level}`, attrs: { level } })),
      toDOM: (node) => [`h${node.attrs.level as number}`, 0],
    },
    quote: {
      group: "block",
      content: "inline*",
      defining: true,
      parseDOM: [{ tag: "blockquote" }],
      toDOM: () => ["blockquote", 0],
    },
    code_block: {
      group: "block",
      content: "text*",
      marks: "",
      code: true,
      defining: true,
      attrs: { language: { default: null } },
      parseDOM: [
        {
          tag: "pre",
          preserveWhitespace: "full",
          getAttrs: (dom) => ({ language: (dom as HTMLElement).getAttribute("data-language") || null }),
        },
      ],
      toDOM: (node) => [
        "pre",
        node.attrs.language ? { "data-language": node.attrs.language as string } : {},
        ["code", 0],
      ],
    },
    image: {
      group: "block",
      atom: true,
      draggable: true,
      selectable: true,
      attrs: { image: {} },
      parseDOM: [
        {
          // only images copied from this editor (they carry their file object)
          tag: "img[data-file]",
          getAttrs: (dom) => {
            try {
              const file = JSON.parse((dom as HTMLElement).getAttribute("data-file") || "") as unknown;
              return file && typeof file === "object" && typeof (file as ImageFile).url === "string" ? { image: file } : false;
            } catch {
              return false;
            }
          },
        },
      ],
      toDOM: imageDOM,
    },
    list: {
      group: "block",
      content: "(list_item | list)+",
      attrs: { format: { default: "unordered" }, indentLevel: { default: null } },
      parseDOM: [
        { tag: "ul", getAttrs: (dom) => ({ format: "unordered", indentLevel: depthOf(dom as HTMLElement) }) },
        { tag: "ol", getAttrs: (dom) => ({ format: "ordered", indentLevel: depthOf(dom as HTMLElement) }) },
      ],
      toDOM: (node) => [node.attrs.format === "ordered" ? "ol" : "ul", 0],
    },
    list_item: {
      content: "inline*",
      defining: true,
      parseDOM: [{ tag: "li" }],
      toDOM: () => ["li", 0],
    },
    text: { group: "inline" },
  },
  // the link first: it wraps the other marks (a link's children are marked text nodes)
  marks: {
    link: {
      attrs: { url: {} },
      inclusive: false,
      parseDOM: [
        {
          tag: "a[href]",
          getAttrs: (dom) => ({ url: (dom as HTMLElement).getAttribute("href") }),
        },
      ],
      toDOM: (mark: Mark) => {
        const url = mark.attrs.url as string;
        const href = safeHref(url);
        return ["a", href ? { href, title: url, rel: "noopener noreferrer nofollow" } : { title: url }, 0];
      },
    },
    bold: {
      parseDOM: [
        { tag: "strong" },
        { tag: "b", getAttrs: (dom) => ((dom as HTMLElement).style.fontWeight !== "normal" ? null : false) },
        { style: "font-weight", getAttrs: (value) => (/^(bold(er)?|[5-9]\d{2,})$/.test(value as string) ? null : false) },
      ],
      toDOM: () => ["strong", 0],
    },
    italic: {
      parseDOM: [{ tag: "i" }, { tag: "em" }, { style: "font-style=italic" }],
      toDOM: () => ["em", 0],
    },
    underline: {
      parseDOM: [{ tag: "u" }, { style: "text-decoration=underline" }],
      toDOM: () => ["u", 0],
    },
    strikethrough: {
      parseDOM: [{ tag: "s" }, { tag: "del" }, { tag: "strike" }, { style: "text-decoration=line-through" }],
      toDOM: () => ["s", 0],
    },
    code: {
      parseDOM: [{ tag: "code" }],
      toDOM: () => ["code", 0],
    },
  },
});

export const TEXT_MARKS = ["bold", "italic", "underline", "strikethrough", "code"] as const;
export type TextMark = (typeof TEXT_MARKS)[number];
