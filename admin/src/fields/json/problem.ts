// Where a JSON text goes wrong and why, in the same words in every browser (JSON.parse's
// messages differ between engines and often give no position): a strict JSON scanner run
// once JSON.parse has refused the text.
export interface JsonProblem {
  /** offset of the offending character in the text */
  offset: number;
  line: number;
  column: number;
  message: string;
}

class Failure {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

function describe(ch: string | undefined): string {
  if (ch === undefined) return "the end of the text";
  if (ch === "\n") return "a line break";
  return `'${ch}'`;
}

function scan(text: string): Failure | null {
  let i = 0;
  const fail = (message: string, at = i): never => {
    throw new Failure(at, message);
  };
  const ws = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const string = () => {
    const start = i;
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) fail("Unterminated string", start);
      const ch = text[i];
      if (ch === '"') {
        i++;
        return;
      }
      if (ch === "\n") fail("Unterminated string (a line break inside a string must be written \\n)");
      if (ch < " ") fail("Unescaped control character in a string");
      if (ch === "\\") {
        const next = text[i + 1];
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail("Invalid \\u escape: four hexadecimal digits expected");
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2;
        else fail(`Invalid escape \\${next ?? ""} in a string`);
        continue;
      }
      i++;
    }
  };
  const number = () => {
    const start = i;
    if (text[i] === "-") i++;
    if (text[i] === "0") i++;
    else if (text[i] >= "1" && text[i] <= "9") while (text[i] >= "0" && text[i] <= "9") i++;
    else fail(`Invalid number: a digit expected, found ${describe(text[i])}`);
    if (text[i] === ".") {
      i++;
      if (!(text[i] >= "0" && text[i] <= "9")) fail(`Invalid number: a digit expected after '.', found ${describe(text[i])}`);
      while (text[i] >= "0" && text[i] <= "9") i++;
    }
    if (text[i] === "e" || text[i] === "E") {
      i++;
      if (text[i] === "+" || text[i] === "-") i++;
      if (!(text[i] >= "0" && text[i] <= "9")) fail("Invalid number: a digit expected in the exponent");
      while (text[i] >= "0" && text[i] <= "9") i++;
    }
    if (text[start] === "0" || (text[start] === "-" && text[start + 1] === "0")) {
      if (text[i] >= "0" && text[i] <= "9") fail("Invalid number: no leading zeros");
    }
  };
  const word = (w: string) => {
    if (text.startsWith(w, i)) i += w.length;
    else {
      const got = /^[A-Za-z_$][\w$]*/.exec(text.slice(i))?.[0] ?? text[i];
      fail(`Unexpected '${got}': a value expected (strings need double quotes)`);
    }
  };
  const value = (depth: number): void => {
    if (depth > 500) fail("Too deeply nested");
    ws();
    const ch = text[i];
    if (ch === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') {
          if (text[i] === "}") fail("Trailing comma: a property expected after ','");
          if (text[i] === "'") fail("Property names need double quotes, not single quotes");
          fail(`Expected a property name in double quotes, found ${describe(text[i])}`);
        }
        string();
        ws();
        if (text[i] !== ":") fail(`Expected ':' after the property name, found ${describe(text[i])}`);
        i++;
        value(depth + 1);
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        fail(`Expected ',' or '}' after a property value, found ${describe(text[i])}`);
      }
    }
    if (ch === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] === "]") fail("Trailing comma: a value expected after ','");
        value(depth + 1);
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        fail(`Expected ',' or ']' after an array element, found ${describe(text[i])}`);
      }
    }
    if (ch === '"') return string();
    if (ch === "-" || (ch >= "0" && ch <= "9")) return number();
    if (ch === "t") return word("true");
    if (ch === "f") return word("false");
    if (ch === "n") return word("null");
    if (ch === undefined) fail("Unexpected end of the text: a value expected");
    if (ch === "'") fail("Strings need double quotes, not single quotes");
    word("\0");
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail(`Unexpected ${describe(text[i])} after the JSON value`);
    return null;
  } catch (e) {
    if (e instanceof Failure) return e;
    throw e;
  }
}

function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let k = 0; k < offset && k < text.length; k++) {
    if (text[k] === "\n") {
      line++;
      start = k + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/** Parses a JSON text: its value, or where and why it is not JSON. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; problem: JsonProblem } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    const found = scan(text) ?? new Failure(0, e instanceof Error ? e.message : String(e));
    const offset = Math.min(found.offset, text.length);
    return { ok: false, problem: { offset, ...position(text, offset), message: found.message } };
  }
}
