// Small labels: a document's status (draft, published, modified) and neutral badges.
import type { ComponentChildren } from "preact";

export type Status = "draft" | "published" | "modified";

const STATUS_TEXT: Record<Status, string> = { draft: "Draft", published: "Published", modified: "Modified" };

export function statusText(status: string | null | undefined): string {
  return STATUS_TEXT[status as Status] ?? (status ? String(status) : "");
}

export function StatusBadge({ status, prefix }: { status: string | null | undefined; prefix?: boolean }) {
  if (!status) return null;
  return (
    <span class={`badge badge-status badge-${status}`}>
      {prefix && <span class="sr-only">Status: </span>}
      {statusText(status)}
    </span>
  );
}

export function Badge({ children, tone = "neutral", title }: { children: ComponentChildren; tone?: "neutral" | "info" | "success" | "warning" | "danger"; title?: string }) {
  return (
    <span class={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}
