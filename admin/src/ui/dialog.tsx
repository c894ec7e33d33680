// Modal dialogs on the native <dialog> element (showModal: the page behind is inert, the
// dialog sits in the top layer): labelled by its title, aria-modal, Tab kept inside, Escape
// and the close button call onClose, focus goes back where it was when the dialog closes.
import type { ComponentChildren } from "preact";
import { useEffect, useId, useLayoutEffect, useRef, useState } from "preact/hooks";
import { Button } from "./button";

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"]), [contenteditable="true"]';

/** The elements of `root` that Tab reaches, in order. */
export function focusables(root: Element): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (el) => !el.closest("[inert]") && (el.offsetWidth > 0 || el.offsetHeight > 0 || el.getClientRects().length > 0),
  );
}

export interface DialogProps {
  /** the dialog's title (its accessible name) */
  title: ComponentChildren;
  onClose(): void;
  children?: ComponentChildren;
  /** buttons at the bottom */
  footer?: ComponentChildren;
  /** a sentence describing the dialog (aria-describedby) */
  description?: ComponentChildren;
  size?: "s" | "m" | "l" | "xl";
  /** the role: "alertdialog" for confirmations */
  role?: "dialog" | "alertdialog";
  /** while true, Escape and the close button do nothing (a request is running) */
  busy?: boolean;
  /** hides the × button (a confirmation has its own Cancel) */
  hideClose?: boolean;
  class?: string;
  /** the element to focus first (by default the first control, or one marked autofocus) */
  initialFocus?: { current: HTMLElement | null };
}

/** A modal dialog, shown while it is rendered: render it conditionally ({open && <Dialog/>}). */
export function Dialog({ title, onClose, children, footer, description, size = "m", role = "dialog", busy, hideClose, class: cls, initialFocus }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descId = useId();
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  const busyRef = useRef(busy);
  busyRef.current = busy;

  useLayoutEffect(() => {
    const dialog = ref.current!;
    const before = document.activeElement as HTMLElement | null;
    if (!dialog.open) dialog.showModal();
    const first = initialFocus?.current ?? dialog.querySelector<HTMLElement>("[autofocus]") ?? focusables(dialog.querySelector(".dialog-body") ?? dialog)[0];
    if (first) first.focus();
    const onCancel = (event: Event) => {
      event.preventDefault();
      if (!busyRef.current) closeRef.current();
    };
    // Chromium may close a dialog on Escape without a cancel event (repeated Escapes)
    const onNativeClose = () => {
      if (ref.current && ref.current.isConnected) closeRef.current();
    };
    dialog.addEventListener("cancel", onCancel);
    dialog.addEventListener("close", onNativeClose);
    return () => {
      dialog.removeEventListener("cancel", onCancel);
      dialog.removeEventListener("close", onNativeClose);
      if (dialog.open) dialog.close();
      if (before && before.isConnected && typeof before.focus === "function") before.focus();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== "Tab") return;
    const dialog = ref.current!;
    // a dialog opened from this one (rendered inside it) keeps its own Tab order
    if ((event.target as Element).closest("dialog") !== dialog) return;
    const items = focusables(dialog);
    if (items.length === 0) {
      event.preventDefault();
      return;
    }
    const first = items[0];
    const last = items[items.length - 1];
    const active = document.activeElement;
    if (event.shiftKey && (active === first || !dialog.contains(active))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || !dialog.contains(active))) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <dialog
      ref={ref}
      class={`dialog dialog-${size}${cls ? ` ${cls}` : ""}`}
      role={role === "alertdialog" ? "alertdialog" : undefined}
      aria-modal="true"
      aria-labelledby={titleId}
      aria-describedby={description ? descId : undefined}
      onKeyDown={onKeyDown}
      onMouseDown={(event) => {
        // a press on the backdrop (the dialog element itself, outside its box) closes it
        const dialog = ref.current;
        if (dialog && event.target === dialog && !busy) {
          const r = dialog.getBoundingClientRect();
          const inside = event.clientX >= r.left && event.clientX <= r.right && event.clientY >= r.top && event.clientY <= r.bottom;
          if (!inside) onClose();
        }
      }}
    >
      <div class="dialog-header">
        <h2 class="dialog-title" id={titleId}>
          {title}
        </h2>
        {!hideClose && (
          <button type="button" class="dialog-close" aria-label="Close" title="Close" onClick={() => !busy && onClose()} disabled={busy}>
            <span aria-hidden="true">×</span>
          </button>
        )}
      </div>
      <div class="dialog-body">
        {description && (
          <p id={descId} class="dialog-description">
            {description}
          </p>
        )}
        {children}
      </div>
      {footer && <div class="dialog-footer">{footer}</div>}
    </dialog>
  );
}

export interface ConfirmDialogProps {
  title?: ComponentChildren;
  /** the question, e.g. "Are you sure you want to delete 3 entries?" */
  message: ComponentChildren;
  /** the confirming button's text ("Delete", "Publish") */
  confirmLabel?: string;
  cancelLabel?: string;
  /** a danger look for destructive actions */
  danger?: boolean;
  /** runs the action; the dialog shows it busy until the promise settles, then closes.
   * A thrown error is shown in the dialog (the caller may also notify). */
  onConfirm(): void | Promise<void>;
  onClose(): void;
  children?: ComponentChildren;
}

/** A confirmation: a question, Cancel (focused first) and the action's button. */
export function ConfirmDialog({ title = "Confirmation", message, confirmLabel = "Confirm", cancelLabel = "Cancel", danger, onConfirm, onClose, children }: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const alive = useRef(true);
  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      if (alive.current) onClose();
    } catch (e) {
      if (alive.current) setError(e instanceof Error ? e.message : String(e));
    } finally {
      if (alive.current) setBusy(false);
    }
  };
  return (
    <Dialog
      title={title}
      role="alertdialog"
      size="s"
      busy={busy}
      hideClose
      onClose={onClose}
      description={message}
      initialFocus={cancel}
      footer={
        <>
          <Button variant="tertiary" innerRef={cancel} onClick={onClose} disabled={busy}>
            {cancelLabel}
          </Button>
          <Button variant={danger ? "danger" : "primary"} loading={busy} onClick={() => void confirm()}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      {children}
      {error && (
        <p class="dialog-error" role="alert">
          {error}
        </p>
      )}
    </Dialog>
  );
}
