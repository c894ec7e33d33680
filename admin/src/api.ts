// The admin API client: JSON in and out, the session's CSRF token on every write, and the
// server's error envelope turned into an ApiError that the pages show.

export const BASE = "/admin/api";

export interface FieldIssue {
  path: (string | number)[];
  message: string;
  name?: string;
}

export class ApiError extends Error {
  status: number;
  name: string;
  details: Record<string, unknown>;

  constructor(status: number, name: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.name = name;
    this.details = details;
  }

  /** The field errors of a ValidationError, by dotted path ("seo.metaTitle", "blocks.0.body"). */
  fieldErrors(): Map<string, string> {
    const found = new Map<string, string>();
    const errors = this.details.errors;
    if (Array.isArray(errors)) {
      for (const e of errors as FieldIssue[]) {
        if (e && Array.isArray(e.path)) {
          const key = e.path.join(".");
          if (!found.has(key)) found.set(key, e.message);
        }
      }
    }
    return found;
  }
}

let csrf: string | null = null;
/** Called whenever the server hands out the session's CSRF token (sign-in, session read). */
export function setCsrfToken(token: string | null): void {
  csrf = token;
}

type Params = Record<string, unknown> | URLSearchParams | string | undefined;

/** Query parameters in the REST syntax: nested objects and arrays as brackets
 * (filters[title][$containsi]=x, sort[0]=title:asc). */
export function queryString(params: Params): string {
  if (params === undefined) return "";
  if (typeof params === "string") return params.startsWith("?") || params === "" ? params : `?${params}`;
  if (params instanceof URLSearchParams) {
    const s = params.toString();
    return s ? `?${s}` : "";
  }
  const parts: string[] = [];
  const add = (key: string, value: unknown): void => {
    if (value === undefined || value === null || value === "") return;
    if (Array.isArray(value)) {
      value.forEach((v, i) => add(`${key}[${i}]`, v));
    } else if (typeof value === "object") {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) add(`${key}[${k}]`, v);
    } else {
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
    }
  };
  for (const [k, v] of Object.entries(params)) add(k, v);
  return parts.length ? `?${parts.join("&")}` : "";
}

/** Listeners told when the server answers 401 (the session ended): the app shows sign-in. */
export const onSignedOut: Set<() => void> = new Set();

async function request<T>(method: string, path: string, body?: unknown, params?: Params): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) {
    payload = body;
  } else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  if (method !== "GET" && method !== "HEAD" && csrf) headers["X-Folio-CSRF"] = csrf;
  let response: Response;
  try {
    response = await fetch(`${BASE}${path}${queryString(params)}`, {
      method,
      headers,
      body: payload,
      credentials: "same-origin",
    });
  } catch {
    throw new ApiError(0, "NetworkError", "The server could not be reached. Check your connection and try again.");
  }
  if (response.status === 204) return undefined as T;
  let json: unknown = null;
  const text = await response.text();
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
  }
  if (!response.ok) {
    const err = (json as { error?: { status?: number; name?: string; message?: string; details?: Record<string, unknown> } } | null)?.error;
    const error = new ApiError(
      response.status,
      err?.name ?? "HttpError",
      err?.message ?? `The server answered ${response.status} ${response.statusText}`,
      err?.details ?? {},
    );
    if (response.status === 401 && !path.startsWith("/login") && !path.startsWith("/session")) {
      for (const listener of onSignedOut) listener();
    }
    throw error;
  }
  return json as T;
}

export const api = {
  get: <T = unknown>(path: string, params?: Params) => request<T>("GET", path, undefined, params),
  post: <T = unknown>(path: string, body?: unknown, params?: Params) => request<T>("POST", path, body ?? {}, params),
  put: <T = unknown>(path: string, body?: unknown, params?: Params) => request<T>("PUT", path, body ?? {}, params),
  del: <T = unknown>(path: string, params?: Params) => request<T>("DELETE", path, undefined, params),
  upload: <T = unknown>(path: string, form: FormData, params?: Params) => request<T>("POST", path, form, params),
};

/** A short, human message for any error a page caught. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
