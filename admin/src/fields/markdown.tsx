// A small Markdown renderer for the richtext preview. It builds elements, never HTML from
// the text: raw HTML in the source is shown as text, and links keep only http(s), mailto
// and relative addresses. Covers headings, paragraphs, emphasis, strong, strikethrough,
// inline code, code blocks, quotes, lists, rules, links and images.
import type { ComponentChildren, VNode } from "preact";

function safeUrl(url: string): string | null {
  const u = url.trim();
  if (/^(https?:|mailto:)/i.test(u)) return u;
  if (/^[a-z][a-z0-9+.-]*:/i.test(u)) return null; // javascript:, data:, ...
  return u;
}

type Rule = { re: RegExp; make: (m: RegExpExecArray, key: number) => VNode | string };

const RULES: Rule[] = [
  { re: /`([^`]+)`/, make: (m, k) => <code key={k}>{m[1]}</code> },
  {
    re: /!\[([^\]]*)\]\(([^)\s]+)(?:\s+"([^"]*)")?\)/,
    make: (m, k) => {
      const src = safeUrl(m[2]);
      // only images of this site are loaded: the preview sends no request elsewhere
      if (src && !/^[a-z]+:/i.test(src)) return <img key={k} src={src} alt={m[1]} title={m[3]} />;
      return src ? <a key={k} href={src} rel="noopener noreferrer" target="_blank">{m[1] || src}</a> : m[0];
    },
  },
  {
    re: /\[([^\]]+)\]\(([^)\s]+)(?:\s+"([^"]*)")?\)/,
    make: (m, k) => {
      const href = safeUrl(m[2]);
      return href ? (
        <a key={k} href={href} title={m[3]} rel="noopener noreferrer" target="_blank">
          {inline(m[1])}
        </a>
      ) : (
        m[1]
      );
    },
  },
  { re: /\*\*([^*]+)\*\*|__([^_]+)__/, make: (m, k) => <strong key={k}>{inline(m[1] ?? m[2])}</strong> },
  { re: /~~([^~]+)~~/, make: (m, k) => <del key={k}>{inline(m[1])}</del> },
  { re: /\*([^*\s][^*]*)\*|\b_([^_\s][^_]*)_\b/, make: (m, k) => <em key={k}>{inline(m[1] ?? m[2])}</em> },
  { re: /<(https?:\/\/[^>\s]+)>/, make: (m, k) => <a key={k} href={m[1]} rel="noopener noreferrer" target="_blank">{m[1]}</a> },
  { re: / {2,}\n|\\\n/, make: (_m, k) => <br key={k} /> },
];

export function inline(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let rest = text;
  let key = 0;
  while (rest) {
    let best: { m: RegExpExecArray; rule: Rule } | null = null;
    for (const rule of RULES) {
      const m = rule.re.exec(rest);
      if (m && (!best || m.index < best.m.index)) best = { m, rule };
    }
    if (!best) {
      out.push(rest);
      break;
    }
    if (best.m.index > 0) out.push(rest.slice(0, best.m.index));
    out.push(best.rule.make(best.m, key++));
    rest = rest.slice(best.m.index + best.m[0].length);
  }
  return out;
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^(```|~~~)\s*([\w-]*)\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const BULLET = /^(\s*)[-*+]\s+(.*)$/;
const ORDERED = /^(\s*)(\d+)[.)]\s+(.*)$/;
const QUOTE = /^\s*>\s?(.*)$/;

export function renderMarkdown(source: string): VNode[] {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const out: VNode[] = [];
  let i = 0;
  let key = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i++;
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = FENCE.exec(line))) {
      const fence = m[1];
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i].startsWith(fence)) body.push(lines[i++]);
      i++;
      out.push(
        <pre key={key++}>
          <code data-language={m[2] || undefined}>{body.join("\n")}</code>
        </pre>,
      );
      continue;
    }
    if ((m = HEADING.exec(line))) {
      const level = m[1].length;
      const Tag = `h${level}` as "h1";
      out.push(<Tag key={key++}>{inline(m[2])}</Tag>);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push(<hr key={key++} />);
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && (m = QUOTE.exec(lines[i]))) {
        body.push(m[1]);
        i++;
      }
      out.push(<blockquote key={key++}>{renderMarkdown(body.join("\n"))}</blockquote>);
      continue;
    }
    if (BULLET.test(line) || ORDERED.test(line)) {
      const ordered = !BULLET.test(line);
      const re = ordered ? ORDERED : BULLET;
      const items: string[] = [];
      let start = 1;
      while (i < lines.length && (m = re.exec(lines[i]))) {
        if (ordered && items.length === 0) start = Number(m[2]);
        items.push(ordered ? m[3] : m[2]);
        i++;
        // lazy continuation lines of an item
        while (i < lines.length && lines[i].trim() && /^\s{2,}\S/.test(lines[i]) && !re.test(lines[i])) {
          items[items.length - 1] += `\n${lines[i].trim()}`;
          i++;
        }
      }
      const children = items.map((t, n) => <li key={n}>{inline(t)}</li>);
      out.push(ordered ? <ol key={key++} start={start === 1 ? undefined : start}>{children}</ol> : <ul key={key++}>{children}</ul>);
      continue;
    }
    const para: string[] = [];
    while (
      i < lines.length &&
      lines[i].trim() &&
      !FENCE.test(lines[i]) &&
      !HEADING.test(lines[i]) &&
      !QUOTE.test(lines[i]) &&
      !BULLET.test(lines[i]) &&
      !ORDERED.test(lines[i]) &&
      !RULE.test(lines[i])
    ) {
      para.push(lines[i]);
      i++;
    }
    out.push(<p key={key++}>{inline(para.join("\n"))}</p>);
  }
  return out;
}
