// The edit form's state as one object, changed by path. Updates copy only the objects along
// the path, so every untouched part keeps its identity and memoized widgets skip rendering.
import { createContext } from "preact";
import { useContext } from "preact/hooks";

export type Updater = unknown | ((previous: unknown) => unknown);

export interface FormApi {
  /** sets the value at `path` (a function receives the current value) */
  update(path: string[], value: Updater): void;
}

export const FormContext = createContext<FormApi>({
  update() {
    throw new Error("no form");
  },
});

export function useForm(): FormApi {
  return useContext(FormContext);
}

export function getIn(root: unknown, path: string[]): unknown {
  let at: unknown = root;
  for (const part of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

export function setIn(root: unknown, path: string[], value: Updater): unknown {
  if (path.length === 0) {
    return typeof value === "function" ? (value as (p: unknown) => unknown)(root) : value;
  }
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const i = Number(head);
    const copy = root.slice();
    copy[i] = setIn(root[i], rest, value);
    return copy;
  }
  const base = root !== null && typeof root === "object" ? (root as Record<string, unknown>) : {};
  const next = setIn(base[head], rest, value);
  if (next === base[head] && head in base) return base;
  return { ...base, [head]: next };
}

/** Deep equality that stops early on shared identity (cheap after a path update). Keys whose
 * value is undefined count as absent. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") {
    return (a ?? null) === (b ?? null);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  for (const k of keys) if (!deepEqual(ra[k], rb[k])) return false;
  return true;
}

let counter = 0;
/** A client-side key for a component or zone entry (kept in `__key`, never sent). */
export function newKey(): string {
  counter += 1;
  return `k${counter}`;
}
