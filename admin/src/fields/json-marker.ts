// The value a JSON field holds while its text is not valid JSON: the text and the parse
// error. The edit form refuses to save while any field holds one (findInvalidJson).
export interface InvalidJson {
  __invalidJson: string;
  /** "<what is wrong> (line L, column C)" */
  message: string;
}

export function isInvalidJson(value: unknown): value is InvalidJson {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as Record<string, unknown>).__invalidJson === "string" &&
    typeof (value as Record<string, unknown>).message === "string"
  );
}

/** The path of the first invalid JSON value inside `data` (a form's values, components and zones included), or null. */
export function findInvalidJson(data: unknown, path: string[] = []): string[] | null {
  if (isInvalidJson(data)) return path;
  if (Array.isArray(data)) {
    for (let i = 0; i < data.length; i++) {
      const found = findInvalidJson(data[i], [...path, String(i)]);
      if (found) return found;
    }
  } else if (typeof data === "object" && data !== null) {
    for (const [key, value] of Object.entries(data)) {
      const found = findInvalidJson(value, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}
