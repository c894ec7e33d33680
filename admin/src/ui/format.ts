// How values are shown in tables and headers.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

export function formatDateTime(value: unknown): string {
  if (value === null || value === undefined || value === "") return "";
  const d = new Date(String(value));
  return Number.isNaN(d.getTime()) ? String(value) : dateTime.format(d);
}

export function formatDate(value: unknown): string {
  if (value === null || value === undefined || value === "") return "";
  // a date without a time is a calendar day: shown as written, not moved by the time zone
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(value));
  if (m) return dateOnly.format(new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return formatDateTime(value);
}

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 31536000],
  ["month", 2592000],
  ["week", 604800],
  ["day", 86400],
  ["hour", 3600],
  ["minute", 60],
];
const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });

/** "3 minutes ago", "yesterday" */
export function relativeTime(value: unknown, now: number = Date.now()): string {
  const d = new Date(String(value));
  if (Number.isNaN(d.getTime())) return "";
  const seconds = (d.getTime() - now) / 1000;
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return rtf.format(Math.round(seconds / size), unit);
  }
  return "just now";
}

/** A cell's text for a value of the given widget kind. */
export function formatValue(value: unknown, widget?: string): string {
  if (value === null || value === undefined) return "";
  switch (widget) {
    case "boolean":
      return value ? "true" : "false";
    case "date":
      return formatDate(value);
    case "datetime":
      return formatDateTime(value);
    case "json":
      return JSON.stringify(value);
    default:
      if (typeof value === "object") return JSON.stringify(value);
      return String(value);
  }
}
