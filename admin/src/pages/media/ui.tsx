// Small pieces the media library page, the picker dialog and the media widget share: the
// shared dialog, confirmation and pagination with the media library's props, and a file's
// thumbnail.
import type { ComponentChildren } from "preact";
import { ConfirmDialog, Dialog } from "../../ui/dialog";
import { Pagination } from "../../ui/pagination";
import { extensionOf, kindOf, thumbnailUrl, type FileObject, type Pagination as Pages } from "./files";
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
