// Checks of the blocks editor's model without a browser: toBlocks(fromBlocks(v)) gives v back
// for values in the reference editor's normal form, other values are normalised, and the list
// commands (set a list, indent, outdent, leave) write the nesting the blocks format defines.
// Run: npm run test:blocks
import assert from "node:assert/strict";
import { build } from "esbuild";

const root = new URL("..", import.meta.url).pathname;
const bundled = await build({
  stdin: {
    contents: `
      export { fromBlocks, toBlocks, isEmptyDoc, imageFile } from "./src/fields/blocks/convert";
      export * as commands from "./src/fields/blocks/commands";
      export { schema } from "./src/fields/blocks/schema";
      export { EditorState, TextSelection } from "prosemirror-state";
      export { parseJson } from "./src/fields/json/problem";
      export { findInvalidJson, isInvalidJson } from "./src/fields/json-marker";
    `,
    resolveDir: root,
    loader: "ts",
  },
  bundle: true,
  write: false,
  format: "esm",
  platform: "node",
  logLevel: "warning",
});
const m = await import("data:text/javascript;base64," + Buffer.from(bundled.outputFiles[0].text).toString("base64"));
const { fromBlocks, toBlocks, isEmptyDoc, imageFile, commands, EditorState, TextSelection, parseJson, findInvalidJson, isInvalidJson } = m;

let failures = 0;
let passed = 0;
function check(name, fn) {
  try {
    fn();
    passed++;
  } catch (e) {
    failures++;
    console.error(`FAIL ${name}\n${e.stack || e}`);
  }
}

const t = (text, marks = {}) => ({ type: "text", text, ...marks });
const p = (...children) => ({ type: "paragraph", children });
const item = (...children) => ({ type: "list-item", children });
const IMAGE = {
  name: "cat.jpg",
  alternativeText: "A cat",
  url: "/uploads/cat_1a2b.jpg",
  caption: null,
  width: 800,
  height: 600,
  formats: { thumbnail: { url: "/uploads/thumbnail_cat_1a2b.jpg", width: 208, height: 156 } },
  hash: "cat_1a2b",
  ext: ".jpg",
  mime: "image/jpeg",
  size: 51.2,
  previewUrl: null,
  provider: "local",
  provider_metadata: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
};

// every block kind and mark, in the reference editor's normal form
const EVERYTHING = [
  p(t("plain "), t("bold", { bold: true }), t(" "), t("italic", { italic: true }), t(" "), t("under", { underline: true }), t(" "),
    t("struck", { strikethrough: true }), t(" "), t("code", { code: true }), t(" "), t("all", { bold: true, italic: true, underline: true, strikethrough: true, code: true })),
  ...[1, 2, 3, 4, 5, 6].map((level) => ({ type: "heading", level, children: [t(`Heading ${level}`)] })),
  { type: "quote", children: [t("A quote with "), t("emphasis", { italic: true })] },
  { type: "code", language: "python", children: [t("def f():\n    return 1\n")] },
  { type: "code", children: [t("no language")] },
  { type: "image", image: IMAGE, children: [t("")] },
  {
    type: "list",
    format: "unordered",
    children: [
      item(t("one")),
      item(t("two "), t("bold", { bold: true })),
      {
        type: "list",
        format: "unordered",
        indentLevel: 1,
        children: [
          item(t("two.one")),
          { type: "list", format: "ordered", indentLevel: 2, children: [item(t("deep"))] },
          item(t("two.two")),
        ],
      },
      item(t("three")),
    ],
  },
  { type: "list", format: "ordered", children: [item(t("first")), item(t("second"))] },
  p(t("see "), { type: "link", url: "https://example.com", children: [t("the "), t("site", { bold: true })] }, t(" now")),
  p(t(""), { type: "link", url: "/relative", children: [t("only a link")] }, t("")),
  p(t(""), { type: "link", url: "https://a.example", children: [t("a")] }, t(""), { type: "link", url: "https://b.example", children: [t("b")] }, t("")),
  p(t("line one\nline two")),
  p(t("")),
  { type: "heading", level: 2, children: [t("")] },
];

check("round trip of every kind", () => {
  assert.deepEqual(toBlocks(fromBlocks(EVERYTHING)), EVERYTHING);
});

for (const block of EVERYTHING) {
  check(`round trip of ${block.type}`, () => assert.deepEqual(toBlocks(fromBlocks([block])), [block]));
}

check("the reference's own sample round-trips", () => {
  const sample = [
    { type: "paragraph", children: [{ type: "text", text: "ok", bold: true }] },
    { type: "heading", level: 2, children: [{ type: "text", text: "h" }] },
    { type: "list", format: "unordered", children: [{ type: "list-item", children: [{ type: "text", text: "li" }] }] },
    { type: "quote", children: [{ type: "text", text: "q" }] },
    { type: "code", children: [{ type: "text", text: "print(1)" }] },
  ];
  assert.deepEqual(toBlocks(fromBlocks(sample)), sample);
});

check("normal form: links padded with text, texts merged, empty blocks get a text", () => {
  const input = [
    { type: "paragraph", children: [{ type: "link", url: "u", children: [t("x")] }] },
    { type: "paragraph", children: [t("a"), t("b"), t("", { bold: true }), t("c", { bold: false })] },
    { type: "quote", children: [] },
  ];
  assert.deepEqual(toBlocks(fromBlocks(input)), [
    p(t(""), { type: "link", url: "u", children: [t("x")] }, t("")),
    p(t("abc")),
    { type: "quote", children: [t("")] },
  ]);
});

check("empty values", () => {
  for (const v of [null, undefined, [], "text", 3, {}]) {
    const doc = fromBlocks(v);
    assert.ok(isEmptyDoc(doc));
    assert.deepEqual(toBlocks(doc), [p(t(""))]);
  }
  assert.ok(!isEmptyDoc(fromBlocks([p(t("x"))])));
  assert.ok(!isEmptyDoc(fromBlocks([{ type: "heading", level: 1, children: [t("")] }])));
});

check("an image without a file object is dropped", () => {
  assert.deepEqual(toBlocks(fromBlocks([{ type: "image", children: [t("")] }, p(t("x"))])), [p(t("x"))]);
});

check("image file fields", () => {
  const file = { ...IMAGE, id: 7, documentId: "abc", alternativeText: null, focalPoint: null, related: [] };
  const out = imageFile(file);
  assert.deepEqual(Object.keys(out).sort(), Object.keys(IMAGE).sort());
  assert.equal(out.alternativeText, "cat.jpg");
});

// ---- commands ---------------------------------------------------------------------------

function stateAt(blocks, textPos) {
  const doc = fromBlocks(blocks);
  let state = EditorState.create({ doc });
  if (textPos) state = state.apply(state.tr.setSelection(TextSelection.create(doc, textPos.from, textPos.to ?? textPos.from)));
  return state;
}

/** The position inside the n-th textblock (document order), at offset. */
function inBlock(blocks, n, offset = 0) {
  const doc = fromBlocks(blocks);
  let seen = -1;
  let found = null;
  doc.descendants((node, pos) => {
    if (found !== null) return false;
    if (node.isTextblock) {
      seen++;
      if (seen === n) found = pos + 1 + offset;
      return false;
    }
    return true;
  });
  return found;
}

function run(command, state) {
  let next = state;
  const ok = command(state, (tr) => {
    next = state.apply(tr);
  });
  return { ok, state: next, blocks: toBlocks(next.doc) };
}

check("set a list on two paragraphs", () => {
  const blocks = [p(t("a")), p(t("b")), p(t("c"))];
  const s = stateAt(blocks, { from: inBlock(blocks, 0), to: inBlock(blocks, 1, 1) });
  const r = run(commands.setList("ordered"), s);
  assert.ok(r.ok);
  assert.deepEqual(r.blocks, [{ type: "list", format: "ordered", children: [item(t("a")), item(t("b"))] }, p(t("c"))]);
});

check("a paragraph after a list of the same format joins it", () => {
  const blocks = [{ type: "list", format: "unordered", children: [item(t("a"))] }, p(t("b"))];
  const r = run(commands.setList("unordered"), stateAt(blocks, { from: inBlock(blocks, 1) }));
  assert.deepEqual(r.blocks, [{ type: "list", format: "unordered", children: [item(t("a")), item(t("b"))] }]);
});

check("indent makes a nested list with indentLevel, outdent takes it back", () => {
  const blocks = [{ type: "list", format: "unordered", children: [item(t("a")), item(t("b")), item(t("c"))] }];
  const r = run(commands.indentItems, stateAt(blocks, { from: inBlock(blocks, 1, 1) }));
  assert.ok(r.ok);
  assert.deepEqual(r.blocks, [
    {
      type: "list",
      format: "unordered",
      children: [item(t("a")), { type: "list", format: "unordered", indentLevel: 1, children: [item(t("b"))] }, item(t("c"))],
    },
  ]);
  // the cursor stayed in "b"
  assert.equal(r.state.selection.$from.parent.textContent, "b");
  assert.equal(r.state.selection.$from.parentOffset, 1);
  // c joins b's nested list
  const pos = inBlock(r.blocks, 2);
  const r2 = run(commands.indentItems, stateAt(r.blocks, { from: pos }));
  assert.deepEqual(r2.blocks, [
    {
      type: "list",
      format: "unordered",
      children: [item(t("a")), { type: "list", format: "unordered", indentLevel: 1, children: [item(t("b")), item(t("c"))] }],
    },
  ]);
  // b again one deeper: indentLevel 2
  const r3 = run(commands.indentItems, stateAt(r2.blocks, { from: inBlock(r2.blocks, 2) }));
  assert.deepEqual(r3.blocks[0].children[1].children[1], { type: "list", format: "unordered", indentLevel: 2, children: [item(t("c"))] });
  // outdent b: back in the top list, c stays in its nested list after it
  const r4 = run(commands.outdentItems, stateAt(r2.blocks, { from: inBlock(r2.blocks, 1) }));
  assert.deepEqual(r4.blocks, [
    {
      type: "list",
      format: "unordered",
      children: [item(t("a")), item(t("b")), { type: "list", format: "unordered", indentLevel: 1, children: [item(t("c"))] }],
    },
  ]);
});

check("the first item does not indent", () => {
  const blocks = [{ type: "list", format: "unordered", children: [item(t("a")), item(t("b"))] }];
  assert.equal(run(commands.indentItems, stateAt(blocks, { from: inBlock(blocks, 0) })).ok, false);
});

check("a top-level item does not outdent with Shift-Tab", () => {
  const blocks = [{ type: "list", format: "unordered", children: [item(t("a"))] }];
  assert.equal(run(commands.outdentItems, stateAt(blocks, { from: inBlock(blocks, 0) })).ok, false);
});

check("Enter in an empty item leaves the list", () => {
  const blocks = [{ type: "list", format: "ordered", children: [item(t("a")), item(t("")), item(t("c"))] }];
  const r = run(commands.exitEmptyItem, stateAt(blocks, { from: inBlock(blocks, 1) }));
  assert.deepEqual(r.blocks, [
    { type: "list", format: "ordered", children: [item(t("a"))] },
    p(t("")),
    { type: "list", format: "ordered", children: [item(t("c"))] },
  ]);
  assert.equal(r.state.selection.$from.parent.type.name, "paragraph");
});

check("Backspace at the start of a first nested item outdents it", () => {
  const blocks = [
    { type: "list", format: "unordered", children: [item(t("a")), { type: "list", format: "unordered", indentLevel: 1, children: [item(t("b"))] }] },
  ];
  const r = run(commands.backspaceInItem, stateAt(blocks, { from: inBlock(blocks, 1) }));
  assert.deepEqual(r.blocks, [{ type: "list", format: "unordered", children: [item(t("a")), item(t("b"))] }]);
});

check("block types: heading, quote, code, paragraph, and a list item to a heading", () => {
  const blocks = [p(t("x", { bold: true }), t("y"))];
  const at = { from: inBlock(blocks, 0, 1) };
  assert.deepEqual(run(commands.setBlock({ kind: "heading", level: 3 }), stateAt(blocks, at)).blocks, [
    { type: "heading", level: 3, children: [t("x", { bold: true }), t("y")] },
  ]);
  assert.deepEqual(run(commands.setBlock({ kind: "quote" }), stateAt(blocks, at)).blocks, [{ type: "quote", children: [t("x", { bold: true }), t("y")] }]);
  assert.deepEqual(run(commands.setBlock({ kind: "code" }), stateAt(blocks, at)).blocks, [{ type: "code", language: "plaintext", children: [t("xy")] }]);
  const list = [{ type: "list", format: "unordered", children: [item(t("a")), item(t("b"))] }];
  assert.deepEqual(run(commands.setBlock({ kind: "heading", level: 1 }), stateAt(list, { from: inBlock(list, 1) })).blocks, [
    { type: "list", format: "unordered", children: [item(t("a"))] },
    { type: "heading", level: 1, children: [t("b")] },
  ]);
});

check("a list's format changes for the whole list", () => {
  const blocks = [{ type: "list", format: "unordered", children: [item(t("a")), item(t("b"))] }];
  const r = run(commands.setList("ordered"), stateAt(blocks, { from: inBlock(blocks, 1) }));
  assert.deepEqual(r.blocks, [{ type: "list", format: "ordered", children: [item(t("a")), item(t("b"))] }]);
});

check("links: apply, edit, remove", () => {
  const blocks = [p(t("hello world"))];
  const s = stateAt(blocks, { from: 1, to: 6 });
  const linked = s.apply(commands.applyLink(s, { from: 1, to: 6 }, "https://x.example", ""));
  assert.deepEqual(toBlocks(linked.doc), [p(t(""), { type: "link", url: "https://x.example", children: [t("hello")] }, t(" world"))]);
  const inside = linked.apply(linked.tr.setSelection(TextSelection.create(linked.doc, 3)));
  const found = commands.linkAt(inside);
  assert.deepEqual([found.from, found.to, found.mark.attrs.url], [1, 6, "https://x.example"]);
  const removed = inside.apply(commands.applyLink(inside, found, "", ""));
  assert.deepEqual(toBlocks(removed.doc), blocks);
  // a link typed at a cursor
  const at = stateAt(blocks, { from: 12 });
  const inserted = at.apply(commands.applyLink(at, { from: 12, to: 12 }, "https://y.example", "!"));
  assert.deepEqual(toBlocks(inserted.doc), [p(t("hello world"), { type: "link", url: "https://y.example", children: [t("!")] }, t(""))]);
});

check("insert an image after the current block, or in place of an empty paragraph", () => {
  const blocks = [p(t("a"))];
  const s = stateAt(blocks, { from: 1 });
  assert.deepEqual(toBlocks(s.apply(commands.insertImage(s, IMAGE)).doc), [p(t("a")), { type: "image", image: IMAGE, children: [t("")] }]);
  const e = stateAt([p(t(""))], { from: 1 });
  assert.deepEqual(toBlocks(e.apply(commands.insertImage(e, IMAGE)).doc), [{ type: "image", image: IMAGE, children: [t("")] }]);
});

check("Enter after ``` makes a code block", () => {
  const blocks = [p(t("```ts"))];
  const r = run(commands.codeFenceOnEnter, stateAt(blocks, { from: inBlock(blocks, 0, 5) }));
  assert.ok(r.ok);
  assert.deepEqual(r.blocks, [{ type: "code", language: "ts", children: [t("")] }]);
  assert.equal(r.state.selection.$from.parent.type.name, "code_block");
});

// ---- the JSON widget's parse errors and marker ---------------------------------------------

check("JSON: valid texts parse", () => {
  for (const text of ['{"a": [1, 2.5e3, -0, true, false, null, "x\\u00e9"]}', "[]", '"s"', "0", " 12 "]) {
    const r = parseJson(text);
    assert.ok(r.ok, text);
    assert.deepEqual(r.value, JSON.parse(text));
  }
});

check("JSON: every kind of error has a position and a reason", () => {
  const cases = [
    ['{"a": 1,\n  "b": [1, 2,]\n}', 2, 14, /Trailing comma/],
    ["{'a': 1}", 1, 2, /double quotes/],
    ["[1, 2", 1, 6, /Expected ',' or '\]'/],
    ['{"a" 1}', 1, 6, /Expected ':'/],
    ["tru", 1, 1, /Unexpected 'tru'/],
    ['"abc', 1, 1, /Unterminated string/],
    ["01", 1, 2, /leading zeros/],
    ["{} x", 1, 4, /after the JSON value/],
    ['{"a":1,}', 1, 8, /Trailing comma/],
    ['["a\\q"]', 1, 4, /Invalid escape/],
    ["", 1, 1, /end of the text/],
    ["[1.]", 1, 4, /digit expected after '.'/],
  ];
  for (const [text, line, column, why] of cases) {
    const r = parseJson(text);
    assert.equal(r.ok, false, text);
    assert.equal(r.problem.line, line, `${text}: ${r.problem.message}`);
    assert.equal(r.problem.column, column, `${text}: ${r.problem.message}`);
    assert.match(r.problem.message, why);
  }
});

check("JSON marker found anywhere in a form's values", () => {
  const marker = { __invalidJson: "{", message: "x (line 1, column 2)" };
  assert.ok(isInvalidJson(marker));
  assert.ok(!isInvalidJson({ __invalidJson: 1 }));
  assert.equal(findInvalidJson({ title: "a", meta: { ok: 1 } }), null);
  assert.deepEqual(findInvalidJson({ title: "a", meta: marker }), ["meta"]);
  assert.deepEqual(findInvalidJson({ zone: [{ __component: "c" }, { data: marker }] }), ["zone", "1", "data"]);
});

console.log(`${passed} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
