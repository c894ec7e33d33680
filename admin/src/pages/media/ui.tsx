// Small pieces the media library page, the picker dialog and the media widget share: a
// modal dialog (the native <dialog>: focus kept inside, Escape closes, focus given back),
// a pager and a file's thumbnail.
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";
import { extensionOf, kindOf, thumbnailUrl, type FileObject, type Pagination } from "./files";
import "../../styles/media.css";

export function Modal({
  title,
  onClose,
  children,
  footer,
  wide,
  describedBy,
}: {
  title: string;
  onClose(): void;
  children: ComponentChildren;
  footer?: ComponentChildren;
  wide?: boolean;
  describedBy?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const before = document.activeElement as HTMLElement | null;
    if (!dialog.open) dialog.showModal();
    const onCancel = (e: Event) => {
      e.preventDefault();
      closeRef.current();
    };
    dialog.addEventListener("cancel", onCancel);
    return () => {
      dialog.removeEventListener("cancel", onCancel);
      if (dialog.open) dialog.close();
      if (before && before.isConnected) before.focus();
    };
  }, []);
  return (
    <dialog ref={ref} class={`rm-dialog${wide ? " rm-dialog-wide" : ""}`} aria-labelledby={titleId} aria-describedby={describedBy}>
      <div class="rm-dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" class="rm-icon-button" aria-label="Close" onClick={() => onClose()}>
          ×
        </button>
      </div>
      <div class="rm-dialog-body">{children}</div>
      {footer && <div class="rm-dialog-foot">{footer}</div>}
    </dialog>
  );
}

/** A confirmation dialog: the question, Cancel and the action. */
export function Confirm({
  title,
  children,
  action,
  onConfirm,
  onCancel,
  busy,
}: {
  title: string;
  children: ComponentChildren;
  action: string;
  onConfirm(): void;
  onCancel(): void;
  busy?: boolean;
}) {
  const textId = useId();
  return (
    <Modal
      title={title}
      onClose={onCancel}
      describedBy={textId}
      footer={
        <>
          <button type="button" class="button button-secondary" onClick={onCancel}>
            Cancel
          </button>
          <button type="button" class="button button-danger" disabled={busy} onClick={onConfirm}>
            {action}
          </button>
        </>
      }
    >
      <div id={textId}>{children}</div>
    </Modal>
  );
}

export function Pager({
  pagination,
  onPage,
  label = "Pagination",
}: {
  pagination: Pagination;
  onPage(page: number): void;
  label?: string;
}) {
  const { page, pageCount, total } = pagination;
  if (total === 0) return null;
  const last = Math.max(1, pageCount);
  return (
    <nav class="rm-pager" aria-label={label}>
      <button type="button" class="button button-secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </button>
      <span aria-current="page">
        Page {page} of {last}
      </span>
      <button type="button" class="button button-secondary" disabled={page >= last} onClick={() => onPage(page + 1)}>
        Next page
      </button>
    </nav>
  );
}

/** A file's small picture: the thumbnail of an image, a labelled tile for the others. */
export function FileThumb({ file, size = "medium" }: { file: FileObject; size?: "small" | "medium" | "large" }) {
  const thumb = thumbnailUrl(file);
  if (thumb) {
    return <img class={`rm-thumb rm-thumb-${size}`} src={thumb} alt={file.alternativeText || ""} loading="lazy" decoding="async" />;
  }
  const kind = kindOf(file.mime);
  return (
    <span class={`rm-thumb rm-thumb-${size} rm-thumb-icon rm-kind-${kind}`} aria-hidden="true">
      {kind === "videos" ? "▶" : kind === "audios" ? "♪" : extensionOf(file) || "FILE"}
    </span>
  );
}
