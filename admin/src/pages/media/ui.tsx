// Small pieces the media library page, the picker dialog and the media widget share: the
// shared dialog, confirmation and pagination with the media library's props, a file's
// thumbnail, the list of files a query asks for, the search, type and sort controls, and
// what an upload or a failed list says.
import type { ComponentChildren, JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { describeError } from "../../api";
import { ConfirmDialog, Dialog } from "../../ui/dialog";
import { notify } from "../../ui/notify";
import { Pagination } from "../../ui/pagination";
import {
  extensionOf,
  KIND_LABELS,
  kindOf,
  listFiles,
  SORTS,
  thumbnailUrl,
  type FileList,
  type FileObject,
  type FileQuery,
  type Kind,
  type Pagination as Pages,
  type UploadOutcome,
} from "./files";
import "../../styles/media.css";

/** A modal dialog (the shared Dialog, on the native <dialog>). */
export function Modal({
  title,
  onClose,
  children,
  footer,
  wide,
}: {
  title: string;
  onClose(): void;
  children: ComponentChildren;
  footer?: ComponentChildren;
  wide?: boolean;
}) {
  return (
    <Dialog title={title} onClose={onClose} footer={footer} size={wide ? "xl" : "m"} class="rm-dialog">
      {children}
    </Dialog>
  );
}

/** A confirmation (the shared ConfirmDialog): `onConfirm` runs the action, its error is shown in the dialog. */
export function Confirm({
  title,
  children,
  action,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ComponentChildren;
  action: string;
  onConfirm(): Promise<void>;
  onCancel(): void;
}) {
  return <ConfirmDialog title={title} message={children} confirmLabel={action} danger onConfirm={onConfirm} onClose={onCancel} />;
}

export function Pager({ pagination, onPage, label = "Pagination" }: { pagination: Pages; onPage(page: number): void; label?: string }) {
  return <Pagination page={pagination.page} pageCount={pagination.pageCount} onChange={onPage} label={label} />;
}

/** A file's small picture: the thumbnail of an image, a labelled tile for the others. */
export function FileThumb({ file, size = "medium", decorative }: { file: FileObject; size?: "small" | "medium" | "large"; decorative?: boolean }) {
  const thumb = thumbnailUrl(file);
  if (thumb) {
    // a cropped thumbnail keeps the focal point in view
    const fp = file.focalPoint;
    const style = fp && Number.isFinite(fp.x) && Number.isFinite(fp.y) ? { objectPosition: `${fp.x}% ${fp.y}%` } : undefined;
    return (
      <img
        class={`rm-thumb rm-thumb-${size}`}
        src={thumb}
        alt={decorative ? "" : file.alternativeText || ""}
        style={style}
        loading="lazy"
        decoding="async"
      />
    );
  }
  const kind = kindOf(file.mime);
  return (
    <span class={`rm-thumb rm-thumb-${size} rm-thumb-icon rm-kind-${kind}`} aria-hidden="true">
      {kind === "videos" ? "▶" : kind === "audios" ? "♪" : extensionOf(file) || "FILE"}
    </span>
  );
}

/** The page of files `query` asks for, read again when the query or `reload` changes;
 * `onAnswer` sees each answer. */
export function useFiles(query: FileQuery, reload: number, onAnswer?: (answer: FileList) => void) {
  const [list, setList] = useState<FileList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  useEffect(() => {
    let live = true;
    setLoading(true);
    listFiles(query)
      .then((answer) => {
        if (!live) return;
        setList(answer);
        setError(null);
        onAnswer?.(answer);
      })
      .catch((e) => {
        if (live) setError(describeError(e));
      })
      .finally(() => {
        if (live) setLoading(false);
      });
    return () => {
      live = false;
    };
  }, [JSON.stringify(query), reload]);
  return { list, setList, error, loading };
}

/** Why the files could not be listed, with a button to ask again. */
export function LoadError({ error, onRetry }: { error: string | null; onRetry(): void }) {
  if (!error) return null;
  return (
    <p class="rm-error" role="alert">
      {error}{" "}
      <button type="button" class="button button-secondary" onClick={onRetry}>
        Try again
      </button>
    </p>
  );
}

export function SearchControl({ id, value, onInput }: { id: string; value: string; onInput(value: string): void }) {
  return (
    <span class="rm-control">
      <label for={id}>Search files</label>
      <input id={id} type="search" value={value} onInput={(e) => onInput(e.currentTarget.value)} />
    </span>
  );
}

export function KindSelect({ id, kinds, value, onChange }: { id: string; kinds: Kind[]; value: Kind | ""; onChange(kind: Kind | ""): void }) {
  return (
    <span class="rm-control">
      <label for={id}>Type</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value as Kind | "")}>
        <option value="">All types</option>
        {kinds.map((k) => (
          <option key={k} value={k}>
            {KIND_LABELS[k]}
          </option>
        ))}
      </select>
    </span>
  );
}

export function SortSelect({ id, value, onChange }: { id: string; value: string; onChange(sort: string): void }) {
  return (
    <span class="rm-control">
      <label for={id}>Sort by</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {SORTS.map((s) => (
          <option key={s.value} value={s.value}>
            {s.label}
          </option>
        ))}
      </select>
    </span>
  );
}

/** The files a file input holds, the input emptied (so that the same file can be chosen again). */
export function takeFiles(event: JSX.TargetedEvent<HTMLInputElement, Event>): File[] {
  const input = event.currentTarget;
  const files = Array.from(input.files ?? []);
  input.value = "";
  return files;
}

/** Tells what an upload did: each failure, and the files uploaded. */
export function notifyUploads(outcome: UploadOutcome): void {
  for (const f of outcome.failed) notify(`${f.name} could not be uploaded: ${f.message}`, "error");
  if (outcome.uploaded.length) {
    notify(outcome.uploaded.length === 1 ? `${outcome.uploaded[0].name} uploaded` : `${outcome.uploaded.length} files uploaded`);
  }
}
