// Checks of the edit view's data handling without a browser: path updates keep untouched
// parts (what lets memoized fields skip rendering), the write format (relations as {set},
// media as ids, component ids kept, passwords only when typed), entry keys kept across a
// save, filling a locale from another (localized fields only, without component ids), number
// parsing (big integers exact), times and local date-times, and the markdown preview (raw
// HTML stays text, unsafe links are dropped).
// Run: node test/edit.test.mjs
import assert from "node:assert/strict";
import { build } from "esbuild";

process.env.TZ = "Europe/Paris";
const root = new URL("..", import.meta.url).pathname;
const bundled = await build({
  stdin: {
    contents: `
      export { setIn, getIn, deepEqual } from "./src/fields/form";
      export { writeValues, normalizeValues, fillFrom, newLocaleValues, graftIds } from "./src/pages/edit/data";
      export { parse as parseNumber } from "./src/fields/number";
      export { normalizeTime, toLocalInput, fromLocalInput } from "./src/fields/datetime";
      export { renderMarkdown } from "./src/fields/markdown";
      export { moved, summaryOf } from "./src/fields/entries";
      export { rulesOf } from "./src/fields/field";
    `,
    resolveDir: root,
    loader: "tsx",
  },
  bundle: true,
  write: false,
  format: "esm",
  platform: "node",
  jsx: "automatic",
  jsxImportSource: "preact",
  loader: { ".css": "empty" },
  logLevel: "warning",
});
// the modules reached from the form (the router, the widgets) only need a window to load
globalThis.window ??= { addEventListener() {}, location: { pathname: "/admin", search: "" }, history: {} };
const m = await import("data:text/javascript;base64," + Buffer.from(bundled.outputFiles[0].text).toString("base64"));

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

const A = (widget, extra = {}) => ({ type: widget, widget, ...extra });
const meta = {
  defaultLocale: "en",
  locales: [{ code: "en", name: "English", isDefault: true }, { code: "fr", name: "French", isDefault: false }],
  contentTypes: [],
  components: [
    { uid: "shared.quote", category: "shared", displayName: "Quote", attributes: { title: A("string"), body: A("text") } },
    { uid: "shared.seo", category: "shared", displayName: "Seo", attributes: { metaTitle: A("string"), image: A("media", { multiple: false }) } },
  ],
};
const ct = {
  uid: "api::article.article",
  kind: "collectionType",
  displayName: "Article",
  singularName: "article",
  pluralName: "articles",
  draftAndPublish: true,
  localized: true,
  mainField: "title",
  attributes: {
    title: A("string", { localized: true }),
    secret: A("password", { localized: true }),
    tags: A("relation", { relation: "manyToMany", localized: false }),
    category: A("relation", { relation: "manyToOne", localized: false }),
    cover: A("media", { multiple: false, localized: false }),
    gallery: A("media", { multiple: true, localized: false }),
    seo: A("component", { component: "shared.seo", repeatable: false, localized: true }),
    blocks: A("dynamiczone", { components: ["shared.quote"], localized: true }),
    views: A("integer", { localized: false }),
  },
};

check("setIn copies only along the path", () => {
  const doc = { a: { b: 1 }, list: [{ x: 1 }, { x: 2 }], other: { y: 1 } };
  const next = m.setIn(doc, ["list", "1", "x"], 3);
  assert.equal(next.other, doc.other);
  assert.equal(next.a, doc.a);
  assert.equal(next.list[0], doc.list[0]);
  assert.notEqual(next.list[1], doc.list[1]);
  assert.deepEqual(next.list[1], { x: 3 });
  assert.equal(m.setIn(doc, ["a", "b"], (v) => v + 1).a.b, 2);
});

check("deepEqual: null and absent are equal, values are compared deeply", () => {
  assert.ok(m.deepEqual({ a: null }, {}));
  assert.ok(m.deepEqual({ a: [1, { b: "x" }] }, { a: [1, { b: "x" }] }));
  assert.ok(!m.deepEqual({ a: [1, { b: "x" }] }, { a: [1, { b: "y" }] }));
  assert.ok(!m.deepEqual({ a: "" }, { a: null }));
});

check("the write format", () => {
  const values = {
    id: 4,
    documentId: "abc",
    status: "draft",
    title: "Hello",
    secret: undefined,
    tags: [{ id: 1, documentId: "t1", label: "one" }, { id: 2, documentId: "t2", locale: "en" }],
    category: null,
    cover: { id: 9, name: "a.png" },
    gallery: [{ id: 3 }, { id: 1 }],
    seo: { __key: "k1", id: 12, metaTitle: "M", image: null },
    blocks: [{ __key: "k2", __component: "shared.quote", id: 5, title: "Q", body: null }, { __key: "k3", __component: "shared.quote", title: "new" }],
    views: 3,
  };
  assert.deepEqual(m.writeValues(meta, ct.attributes, values), {
    title: "Hello",
    tags: { set: [{ documentId: "t1" }, { documentId: "t2", locale: "en" }] },
    category: { set: [] },
    cover: 9,
    gallery: [3, 1],
    seo: { id: 12, metaTitle: "M", image: null },
    blocks: [
      { id: 5, __component: "shared.quote", title: "Q", body: null },
      { __component: "shared.quote", title: "new" },
    ],
    views: 3,
  });
  assert.equal(m.writeValues(meta, ct.attributes, { secret: "Typed-1" }).secret, "Typed-1");
});

check("entries keep their keys across a save", () => {
  const before = m.normalizeValues(meta, ct.attributes, { blocks: [{ __component: "shared.quote", title: "a" }], seo: { metaTitle: "m" } });
  const key = before.blocks[0].__key;
  assert.ok(key);
  const after = m.normalizeValues(meta, ct.attributes, { blocks: [{ __component: "shared.quote", id: 7, title: "a" }], seo: { id: 2, metaTitle: "m" } }, before);
  assert.equal(after.blocks[0].__key, key);
  assert.equal(after.seo.__key, before.seo.__key);
  assert.equal(after.blocks[0].id, 7);
});

check("what was typed during a save keeps it and gets the new entries' ids", () => {
  const sent = m.normalizeValues(meta, ct.attributes, { title: "a", blocks: [{ __component: "shared.quote", title: "q" }], seo: { metaTitle: "m" } });
  const typed = m.setIn(m.setIn(sent, ["title"], "ab"), ["blocks", "0", "title"], "qq");
  const server = m.normalizeValues(meta, ct.attributes, { id: 1, title: "a", blocks: [{ __component: "shared.quote", id: 8, title: "q" }], seo: { id: 3, metaTitle: "m" } }, sent);
  const kept = m.graftIds(typed, server);
  assert.equal(kept.title, "ab");
  assert.equal(kept.blocks[0].title, "qq");
  assert.equal(kept.blocks[0].id, 8);
  assert.equal(kept.seo.id, 3);
  assert.equal(m.graftIds(server, server), server);
});

check("filling from another locale copies its localized fields without component ids", () => {
  const source = m.normalizeValues(meta, ct.attributes, {
    title: "Bonjour",
    views: 99,
    seo: { id: 2, metaTitle: "m" },
    blocks: [{ __component: "shared.quote", id: 7, title: "q" }],
  });
  const mine = m.newLocaleValues(meta, ct, { views: 5, tags: [{ documentId: "t1" }], title: "not copied" });
  assert.equal(mine.views, 5);
  assert.equal(mine.title, undefined);
  const filled = m.fillFrom(meta, ct, mine, source);
  assert.equal(filled.title, "Bonjour");
  assert.equal(filled.views, 5); // shared: stays
  assert.equal(filled.seo.id, undefined);
  assert.equal(filled.seo.metaTitle, "m");
  assert.equal(filled.blocks[0].id, undefined);
  assert.equal(filled.blocks[0].title, "q");
  assert.notEqual(filled.blocks[0].__key, source.blocks[0].__key);
});

check("numbers: big integers stay exact strings, invalid text is kept as typed", () => {
  assert.deepEqual(m.parseNumber("biginteger", "9007199254740993"), { ok: true, value: "9007199254740993" });
  assert.deepEqual(m.parseNumber("integer", "42"), { ok: true, value: 42 });
  assert.equal(m.parseNumber("integer", "9007199254740993").ok, false);
  assert.deepEqual(m.parseNumber("decimal", "4.25"), { ok: true, value: 4.25 });
  assert.deepEqual(m.parseNumber("float", ""), { ok: true, value: null });
  assert.deepEqual(m.parseNumber("float", "1,5"), { ok: false, value: "1,5" });
});

check("times and local date-times", () => {
  assert.equal(m.normalizeTime("09:15"), "09:15:00.000");
  assert.equal(m.normalizeTime("09:15:07.5"), "09:15:07.500");
  assert.equal(m.normalizeTime(""), null);
  // Paris is UTC+1 in November
  assert.equal(m.fromLocalInput("2026-11-27T10:30"), "2026-11-27T09:30:00.000Z");
  assert.equal(m.toLocalInput("2026-11-27T09:30:00.000Z"), "2026-11-27T10:30");
  assert.equal(m.toLocalInput("2026-11-27T09:30:05.250Z"), "2026-11-27T10:30:05.250");
});

check("moving entries", () => {
  assert.deepEqual(m.moved(["a", "b", "c"], 2, 0), ["c", "a", "b"]);
  assert.deepEqual(m.moved(["a", "b", "c"], 0, 5), ["a", "b", "c"]);
});

check("rules in words", () => {
  assert.deepEqual(m.rulesOf(A("string", { minLength: 5, maxLength: 20 })), ["Between 5 and 20 characters"]);
  assert.deepEqual(m.rulesOf(A("integer", { min: 0 })), ["At least 0"]);
  assert.deepEqual(m.rulesOf(A("string", { regex: "^[A-Z]+$" })), ["Must match ^[A-Z]+$"]);
  assert.deepEqual(m.rulesOf(A("component", { repeatable: true, max: 3 })), ["At most 3 entries"]);
});

// the preview: a walk over the element tree it builds
function walk(node, visit) {
  if (node === null || node === undefined || typeof node === "boolean") return;
  if (Array.isArray(node)) return node.forEach((n) => walk(n, visit));
  if (typeof node !== "object") return visit({ text: String(node) });
  visit(node);
  walk(node.props?.children, visit);
}
function render(md) {
  const nodes = [];
  walk(m.renderMarkdown(md), (n) => nodes.push(n));
  return nodes;
}

check("markdown: structure", () => {
  const nodes = render("# Big news\n\nSome **bold** and `code`.\n\n- one\n- two\n\n> quoted\n\n```\nx < y\n```");
  const types = nodes.filter((n) => n.type).map((n) => n.type);
  for (const t of ["h1", "p", "strong", "code", "ul", "li", "blockquote", "pre"]) assert.ok(types.includes(t), t);
  assert.ok(nodes.some((n) => n.text === "x < y"));
});

check("markdown: raw HTML stays text, unsafe links are dropped", () => {
  const nodes = render('<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1)) [ok](https://example.com) ![i](data:image/png;base64,AAAA)');
  assert.ok(!nodes.some((n) => n.type === "script" || n.type === "img"));
  assert.ok(!nodes.some((n) => n.props && "dangerouslySetInnerHTML" in n.props));
  const hrefs = nodes.filter((n) => n.type === "a").map((n) => n.props.href);
  assert.deepEqual(hrefs, ["https://example.com"]);
  assert.ok(nodes.some((n) => typeof n.text === "string" && n.text.includes("<script>")));
});

check("summaries: the first text field, else a markdown field's words", () => {
  const quote = meta.components[0];
  assert.equal(m.summaryOf(quote, { title: "", body: "Said" }), "Said");
  const rich = { uid: "r", category: "c", displayName: "R", attributes: { body: A("richtext") } };
  assert.equal(m.summaryOf(rich, { body: "## Part **two**" }), "Part two");
});

console.log(`${passed} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
