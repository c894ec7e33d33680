// Builds the admin panel into the Python package (src/folio/http/admin/app): hashed,
// code-split ES modules, one stylesheet, index.html and manifest.json. The manifest records
// a digest of every input, so that `scripts/setup` (and CI) can tell whether the committed
// build matches the sources. The same sources always give the same bytes.
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, rmSync, mkdirSync, writeFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = new URL(".", import.meta.url).pathname;
// `--out DIR` builds elsewhere (a private build to try out; the server reads it when
// FOLIO_ADMIN_ASSETS names it)
const outAt = process.argv.indexOf("--out");
const out = outAt > 0 ? resolve(process.argv[outAt + 1]) : join(root, "..", "src", "folio", "http", "admin", "app");
const check = process.argv.includes("--digest");

function files(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : [path];
    });
}

// the inputs: the sources, the lockfile and this script
export function sourceDigest() {
  const hash = createHash("sha256");
  const inputs = [...files(join(root, "src")), join(root, "package-lock.json"), join(root, "build.mjs"), join(root, "tsconfig.json")];
  for (const path of inputs) {
    hash.update(relative(root, path));
    hash.update("\0");
    hash.update(readFileSync(path));
    hash.update("\0");
  }
  return hash.digest("hex");
}

if (check) {
  process.stdout.write(sourceDigest() + "\n");
  process.exit(0);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "assets"), { recursive: true });
const { build } = await import("esbuild");
const result = await build({
  entryPoints: [join(root, "src", "main.tsx")],
  bundle: true,
  splitting: true,
  format: "esm",
  target: ["chrome120", "firefox120", "safari17"],
  minify: true,
  sourcemap: false,
  legalComments: "none",
  outdir: join(out, "assets"),
  entryNames: "[name]-[hash]",
  chunkNames: "chunk-[hash]",
  assetNames: "[name]-[hash]",
  jsx: "automatic",
  jsxImportSource: "preact",
  metafile: true,
  charset: "utf8",
  logLevel: "warning",
  define: { "process.env.NODE_ENV": '"production"' },
});

const outputs = Object.entries(result.metafile.outputs);
const entry = outputs.find(([, o]) => o.entryPoint && o.entryPoint.endsWith("main.tsx"));
const script = relative(out, entry[0]);
const style = entry[1].cssBundle ? relative(out, entry[1].cssBundle) : null;
// the chunks the first page needs (static imports of the entry), preloaded
const preload = entry[1].imports.filter((i) => i.kind === "import-statement").map((i) => relative(out, i.path));
const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>Folio admin</title>
<link rel="icon" href="data:,">
${style ? `<link rel="stylesheet" href="/admin/${style}">\n` : ""}${preload.map((p) => `<link rel="modulepreload" href="/admin/${p}">\n`).join("")}<script type="module" src="/admin/${script}"></script>
</head>
<body>
<noscript>The Folio admin panel needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`;
writeFileSync(join(out, "index.html"), html);
const manifest = {
  source: sourceDigest(),
  entry: script,
  style,
  files: outputs.map(([path, o]) => ({ path: relative(out, path), bytes: o.bytes })).sort((a, b) => (a.path < b.path ? -1 : 1)),
};
writeFileSync(join(out, "manifest.json"), JSON.stringify(manifest, null, 1) + "\n");
const total = manifest.files.reduce((n, f) => n + f.bytes, 0);
console.log(`admin built: ${manifest.files.length} files, ${(total / 1024).toFixed(1)} KiB -> ${relative(process.cwd(), out)}`);
