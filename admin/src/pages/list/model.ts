// What the list view knows of a type's fields: which may be columns, how each is filtered
// (operators by kind), their labels; and the list's state as URL parameters
// (?page&pageSize&sort&_q&filters[$and][i][field][$op]=value&locale).
import { api } from "../../api";
import type { Attribute, ContentTypeMeta } from "../../meta";

export interface ListConfig {
  columns: string[];
  sort: string;
  pageSize: number;
  mainField: string;
}

export const PAGE_SIZES = [10, 20, 50, 100];

// the attribute kinds never shown as columns (long or structured values)
const UNLISTED = new Set(["password", "json", "blocks", "richtext", "media", "relation", "component", "dynamiczone"]);
const TEXT = new Set(["string", "text", "email", "uid", "richtext"]);
const NUMBER = new Set(["integer", "biginteger", "decimal", "float"]);
const TEMPORAL = new Set(["date", "datetime", "time"]);

/** A field the list may show or filter: an attribute or a system field. */
export interface ListField {
  name: string;
  label: string;
  /** the widget kind deciding its operators, input and display */
  kind: string;
  enum?: string[];
  sortable: boolean;
}

export function humanize(name: string): string {
  if (name === "id") return "ID";
  if (name === "documentId") return "Document ID";
  const s = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").toLowerCase();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function attrField(name: string, attr: Attribute): ListField {
  return { name, label: humanize(name), kind: attr.widget || attr.type, enum: attr.enum, sortable: !["json", "blocks", "media", "relation", "component", "dynamiczone"].includes(attr.widget) };
}

/** The system fields of every row, with their kinds. */
export function systemFields(ct: ContentTypeMeta): ListField[] {
  const out: ListField[] = [
    { name: "id", label: "ID", kind: "integer", sortable: true },
    { name: "documentId", label: "Document ID", kind: "string", sortable: true },
    { name: "createdAt", label: "Created at", kind: "datetime", sortable: true },
    { name: "updatedAt", label: "Updated at", kind: "datetime", sortable: true },
  ];
  if (ct.draftAndPublish) out.push({ name: "publishedAt", label: "Published at", kind: "datetime", sortable: true });
  if (ct.localized) out.push({ name: "locale", label: "Locale", kind: "string", sortable: true });
  return out;
}

/** The fields that may be columns (as the server's listable(): system fields, then short scalar attributes). */
export function listableFields(ct: ContentTypeMeta): ListField[] {
  const attrs = Object.entries(ct.attributes)
    .filter(([name, a]) => !UNLISTED.has(a.widget) && !a.private && !systemFields(ct).some((f) => f.name === name))
    .map(([name, a]) => attrField(name, a));
  return [...systemFields(ct), ...attrs];
}

export function fieldOf(ct: ContentTypeMeta, name: string): ListField {
  const attr = ct.attributes[name];
  if (attr) return attrField(name, attr);
  return systemFields(ct).find((f) => f.name === name) ?? { name, label: humanize(name), kind: "string", sortable: true };
}

/** The pseudo-field of the status filter (the list's `publicationFilter`, not a REST filter). */
export const STATUS_FIELD = "__status";
export const STATUS_CHOICES: { value: string; label: string }[] = [
  { value: "never_published", label: "Draft" },
  { value: "unmodified", label: "Published" },
  { value: "modified", label: "Modified" },
];

/** The fields the filters offer (text, numbers, dates, booleans, enumerations, and the system ones). */
export function filterableFields(ct: ContentTypeMeta): ListField[] {
  const attrs = Object.entries(ct.attributes)
    .filter(([, a]) => operatorsFor(a.widget).length > 0 && a.widget !== "password" && !a.private)
    .map(([name, a]) => attrField(name, a));
  const status: ListField[] = ct.draftAndPublish ? [{ name: STATUS_FIELD, label: "Status", kind: "status", sortable: false }] : [];
  return [...systemFields(ct).filter((f) => f.name !== "locale"), ...status, ...attrs];
}

/** The main fields a type may use as its entries' title (as the server allows). */
export function mainFieldChoices(ct: ContentTypeMeta): string[] {
  return ["id", ...Object.entries(ct.attributes).filter(([, a]) => ["string", "text", "email", "uid", "integer", "biginteger", "enumeration"].includes(a.type)).map(([n]) => n)];
}

export interface Operator {
  op: string;
  label: string;
  /** no value needed ($null, $notNull) */
  noValue?: boolean;
}

const NULLS: Operator[] = [
  { op: "$null", label: "is empty", noValue: true },
  { op: "$notNull", label: "is not empty", noValue: true },
];
const EQ: Operator[] = [
  { op: "$eq", label: "is" },
  { op: "$ne", label: "is not" },
];
const COMPARE: Operator[] = [
  { op: "$gt", label: "is greater than" },
  { op: "$gte", label: "is greater than or equal to" },
  { op: "$lt", label: "is lower than" },
  { op: "$lte", label: "is lower than or equal to" },
];
const DATE_COMPARE: Operator[] = [
  { op: "$gt", label: "is after" },
  { op: "$gte", label: "is after or on" },
  { op: "$lt", label: "is before" },
  { op: "$lte", label: "is before or on" },
];
const TEXT_OPS: Operator[] = [
  ...EQ,
  { op: "$containsi", label: "contains" },
  { op: "$notContainsi", label: "does not contain" },
  { op: "$contains", label: "contains (case-sensitive)" },
  { op: "$notContains", label: "does not contain (case-sensitive)" },
  { op: "$startsWith", label: "starts with" },
  { op: "$endsWith", label: "ends with" },
  ...NULLS,
];

export function operatorsFor(kind: string): Operator[] {
  if (TEXT.has(kind)) return TEXT_OPS;
  if (NUMBER.has(kind)) return [...EQ, ...COMPARE, ...NULLS];
  if (TEMPORAL.has(kind)) return [...EQ, ...DATE_COMPARE, ...NULLS];
  if (kind === "boolean") return [{ op: "$eq", label: "is" }, ...NULLS];
  if (kind === "enumeration") return [...EQ, ...NULLS];
  if (kind === "status") return [{ op: "$eq", label: "is" }];
  return [];
}

export function operatorLabel(kind: string, op: string): string {
  return operatorsFor(kind).find((o) => o.op === op)?.label ?? op;
}

// ------------------------------------------------------------------ URL state

export interface Filter {
  field: string;
  op: string;
  value: string;
}

export interface ListQuery {
  page: number;
  pageSize: number | null;
  sort: string | null;
  q: string;
  filters: Filter[];
  locale: string | null;
  /** the status filter: never_published | unmodified | modified */
  status: string | null;
}

const FILTER_KEY = /^filters\[\$and\]\[(\d+)\]\[([^\]]+)\]\[(\$[A-Za-z]+)\]$/;

export function parseQuery(search: URLSearchParams): ListQuery {
  const page = Math.max(1, Number.parseInt(search.get("page") ?? "1", 10) || 1);
  const size = Number.parseInt(search.get("pageSize") ?? "", 10);
  const found: [number, Filter][] = [];
  search.forEach((value, key) => {
    const m = FILTER_KEY.exec(key);
    if (m) found.push([Number(m[1]), { field: m[2], op: m[3], value }]);
  });
  found.sort((a, b) => a[0] - b[0]);
  return {
    page,
    pageSize: PAGE_SIZES.includes(size) ? size : null,
    sort: search.get("sort") || null,
    q: search.get("_q") ?? "",
    filters: found.map(([, f]) => f),
    locale: search.get("locale") || null,
    status: STATUS_CHOICES.some((c) => c.value === search.get("publicationFilter")) ? search.get("publicationFilter") : null,
  };
}

/** The query as URL parameters (the same keys the admin API takes). */
export function toParams(q: ListQuery): URLSearchParams {
  const p = new URLSearchParams();
  if (q.page > 1) p.set("page", String(q.page));
  if (q.pageSize) p.set("pageSize", String(q.pageSize));
  if (q.sort) p.set("sort", q.sort);
  if (q.q) p.set("_q", q.q);
  q.filters.forEach((f, i) => p.set(`filters[$and][${i}][${f.field}][${f.op}]`, f.value));
  if (q.status) p.set("publicationFilter", q.status);
  if (q.locale) p.set("locale", q.locale);
  return p;
}

export function listPath(uid: string): string {
  return `/content-manager/collection-types/${uid}`;
}

export function listHref(uid: string, q: ListQuery): string {
  const s = toParams(q).toString();
  return `${listPath(uid)}${s ? `?${s}` : ""}`;
}

// ------------------------------------------------------------------ configuration

const configs = new Map<string, ListConfig>();

export async function loadConfig(uid: string): Promise<ListConfig> {
  const known = configs.get(uid);
  if (known) return known;
  const res = await api.get<{ data: ListConfig }>(`/content-manager/configuration/${uid}`);
  configs.set(uid, res.data);
  return res.data;
}

export function cachedConfig(uid: string): ListConfig | undefined {
  return configs.get(uid);
}

export async function saveConfig(uid: string, config: ListConfig): Promise<ListConfig> {
  const res = await api.put<{ data: ListConfig }>(`/content-manager/configuration/${uid}`, config);
  configs.set(uid, res.data);
  return res.data;
}
