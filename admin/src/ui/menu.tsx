// Menus and popovers that open under a button. A Menu is a list of actions (role=menu,
// arrow keys, Home/End, a letter jumps, Escape closes and gives focus back to its button).
// A Popover is a non-modal panel holding a small form (the list view's filters): Escape or a
// press outside closes it.
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { buttonClass, type Variant } from "./button";
import { focusables } from "./dialog";

/** Closes on a press outside `refs` and on Escape (focus back to the trigger). */
function useDismiss(open: boolean, close: (refocus: boolean) => void, refs: { current: HTMLElement | null }[]) {
  useEffect(() => {
    if (!open) return;
    const onDown = (event: MouseEvent) => {
      const t = event.target as Node;
      if (refs.every((r) => !r.current || !r.current.contains(t))) close(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);
}

/** The state of a panel that opens under its button: `close(refocus)` gives focus back to
 * the button when asked; a press outside both closes it. */
function useAnchored() {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const id = useId();
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };
  useDismiss(open, close, [button, panel]);
  return { open, setOpen, button, panel, id, close };
}

export interface MenuItem {
  label: string;
  onSelect(): void;
  danger?: boolean;
  disabled?: boolean;
}

export function Menu({
  label,
  items,
  children,
  variant = "secondary",
  size = "m",
  align = "start",
  buttonLabel,
}: {
  /** the menu's accessible name (and the button's unless buttonLabel is given) */
  label: string;
  items: MenuItem[];
  /** the button's visible content (defaults to the label) */
  children?: ComponentChildren;
  variant?: Variant;
  size?: "s" | "m";
  align?: "start" | "end";
  /** the button's accessible name when its content is only a symbol */
  buttonLabel?: string;
}) {
  const { open, setOpen, button, panel: list, id: menuId, close } = useAnchored();
  const entries = () => Array.from(list.current?.querySelectorAll<HTMLElement>('[role="menuitem"]:not([disabled])') ?? []);
  const focusAt = (i: number) => {
    const all = entries();
    if (all.length) all[(i + all.length) % all.length].focus();
  };
  useEffect(() => {
    if (open) focusAt(0);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);
  const onListKey = (event: KeyboardEvent) => {
    const all = entries();
    const at = all.indexOf(document.activeElement as HTMLElement);
    if (event.key === "ArrowDown") focusAt(at + 1);
    else if (event.key === "ArrowUp") focusAt(at - 1);
    else if (event.key === "Home") focusAt(0);
    else if (event.key === "End") focusAt(all.length - 1);
    else if (event.key === "Escape") close(true);
    else if (event.key === "Tab") {
      close(false);
      return;
    } else if (event.key.length === 1 && /\S/.test(event.key)) {
      const k = event.key.toLowerCase();
      const hit = all.findIndex((el, i) => i > at && (el.textContent ?? "").trim().toLowerCase().startsWith(k));
      const from = hit >= 0 ? hit : all.findIndex((el) => (el.textContent ?? "").trim().toLowerCase().startsWith(k));
      if (from >= 0) focusAt(from);
    } else return;
    event.preventDefault();
    event.stopPropagation();
  };
  return (
    <div class="menu-anchor">
      <button
        ref={button}
        type="button"
        class={buttonClass(variant, size)}
        aria-haspopup="menu"
        aria-expanded={open ? "true" : "false"}
        aria-controls={open ? menuId : undefined}
        aria-label={buttonLabel}
        onClick={(e) => {
          e.stopPropagation();
          setOpen(!open);
        }}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" && !open) {
            e.preventDefault();
            setOpen(true);
          }
        }}
      >
        {children ?? label}
      </button>
      {open && (
        <div ref={list} id={menuId} role="menu" aria-label={label} class={`menu menu-${align}`} onKeyDown={onListKey} onClick={(e) => e.stopPropagation()}>
          {items.map((item) => (
            <button
              key={item.label}
              type="button"
              role="menuitem"
              tabIndex={-1}
              class={`menu-item${item.danger ? " menu-item-danger" : ""}`}
              disabled={item.disabled}
              onClick={() => {
                close(true);
                item.onSelect();
              }}
            >
              {item.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}

/** A button opening a non-modal panel (role=dialog, named by `label`). `children` gets a
 * close function (a form inside closes the popover once it is submitted). */
export function Popover({
  label,
  trigger,
  children,
  variant = "secondary",
  size = "m",
  align = "start",
}: {
  /** the panel's accessible name; also the button's when trigger is absent */
  label: string;
  trigger?: ComponentChildren;
  children: (close: () => void) => ComponentChildren;
  variant?: Variant;
  size?: "s" | "m";
  align?: "start" | "end";
}) {
  const { open, setOpen, button, panel, id: panelId, close } = useAnchored();
  useEffect(() => {
    if (open && panel.current) {
      const first = panel.current.querySelector<HTMLElement>("[autofocus]") ?? focusables(panel.current)[0];
      first?.focus();
    }
  }, [open]);
  return (
    <div class="menu-anchor">
      <button
        ref={button}
        type="button"
        class={buttonClass(variant, size)}
        aria-haspopup="dialog"
        aria-expanded={open ? "true" : "false"}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen(!open)}
      >
        {trigger ?? label}
      </button>
      {open && (
        <div
          ref={panel}
          id={panelId}
          role="dialog"
          aria-label={label}
          class={`popover menu-${align}`}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.preventDefault();
              e.stopPropagation();
              close(true);
            }
          }}
        >
          {children(() => close(true))}
        </div>
      )}
    </div>
  );
}
