// Reordering a list by pointer and by keyboard, for relation entries, media files (and any
// list of the edit view). A drag handle button per item:
// - pointer: press on the handle and move; the list shows the new order while dragging,
//   release drops, Escape or a cancelled pointer restores the order;
// - keyboard: Space (or Enter) lifts the item, the arrow keys move it, Space (or Enter) drops
//   it, Escape cancels; each step is announced in a live region.
import type { JSX } from "preact";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";

interface Lift {
  key: string;
  from: number;
  to: number;
  mode: "keyboard" | "pointer";
}

export interface SortableOptions<T> {
  items: T[];
  keyOf(item: T): string;
  labelOf(item: T): string;
  onReorder(items: T[]): void;
  disabled?: boolean;
}

export interface Sortable<T> {
  /** the items in the order to show (the moved one at its new place while lifted) */
  view: { item: T; index: number; key: string }[];
  /** the key of the lifted item, if any */
  lifted: string | null;
  /** props for the element of each item (key, ref, class) */
  itemProps(key: string): { ref: (el: HTMLElement | null) => void; "data-lifted"?: "true" };
  /** props for the drag handle button of each item */
  handleProps(key: string): JSX.HTMLAttributes<HTMLButtonElement>;
  /** moves the item at `index` by `delta` places (for up/down buttons) */
  move(index: number, delta: number): void;
  /** the live region announcing moves: render it once, anywhere near the list */
  announcer: JSX.Element;
}

function moved<T>(items: T[], from: number, to: number): T[] {
  const out = items.slice();
  const [it] = out.splice(from, 1);
  out.splice(to, 0, it);
  return out;
}

export function useSortable<T>({ items, keyOf, labelOf, onReorder, disabled }: SortableOptions<T>): Sortable<T> {
  const [lift, setLift] = useState<Lift | null>(null);
  const [message, setMessage] = useState("");
  const elements = useRef(new Map<string, HTMLElement>());
  const handles = useRef(new Map<string, HTMLButtonElement>());
  const refocus = useRef<string | null>(null);
  const pointer = useRef<{ id: number; x: number; y: number; key: string; started: boolean } | null>(null);

  const keys = items.map(keyOf);
  const ordered = useMemo(() => {
    const base = items.map((item, index) => ({ item, index, key: keys[index] }));
    if (!lift) return base;
    const from = keys.indexOf(lift.key);
    if (from < 0) return base;
    return moved(base, from, Math.max(0, Math.min(lift.to, base.length - 1)));
  }, [items, lift]);

  // the handle keeps the focus while its item moves in the list (before the next key press)
  useLayoutEffect(() => {
    const key = refocus.current;
    if (key !== null) {
      refocus.current = null;
      const el = handles.current.get(key);
      if (el && document.activeElement !== el) el.focus();
    }
  });

  const total = items.length;
  const nameOf = (key: string) => {
    const i = keys.indexOf(key);
    return i >= 0 ? labelOf(items[i]) : "";
  };

  const drop = (l: Lift, keepFocus = true) => {
    setLift(null);
    refocus.current = l.mode === "keyboard" && keepFocus ? l.key : null;
    if (l.to !== l.from) {
      onReorder(moved(items, l.from, l.to));
      setMessage(`${nameOf(l.key)} dropped at position ${l.to + 1} of ${total}.`);
    } else {
      setMessage(`${nameOf(l.key)} dropped at its place, position ${l.to + 1} of ${total}.`);
    }
  };
  const cancel = (l: Lift) => {
    setLift(null);
    refocus.current = l.mode === "keyboard" ? l.key : null;
    setMessage(`Move cancelled. ${nameOf(l.key)} is back at position ${l.from + 1} of ${total}.`);
  };

  const onKeyDown = (key: string) => (event: JSX.TargetedKeyboardEvent<HTMLButtonElement>) => {
    if (disabled) return;
    const k = event.key;
    if (!lift || lift.key !== key) {
      if (k === " " || k === "Enter") {
        event.preventDefault();
        const from = keys.indexOf(key);
        setLift({ key, from, to: from, mode: "keyboard" });
        setMessage(
          `${nameOf(key)} lifted, position ${from + 1} of ${total}. Use the arrow keys to move it, Space to drop it, Escape to cancel.`,
        );
      }
      return;
    }
    if (k === " " || k === "Enter") {
      event.preventDefault();
      drop(lift);
    } else if (k === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      cancel(lift);
    } else if (k === "ArrowUp" || k === "ArrowLeft" || k === "ArrowDown" || k === "ArrowRight" || k === "Home" || k === "End") {
      event.preventDefault();
      let to = lift.to;
      if (k === "ArrowUp" || k === "ArrowLeft") to = Math.max(0, to - 1);
      else if (k === "ArrowDown" || k === "ArrowRight") to = Math.min(total - 1, to + 1);
      else if (k === "Home") to = 0;
      else to = total - 1;
      if (to !== lift.to) {
        refocus.current = key;
        setLift({ ...lift, to });
        setMessage(`${nameOf(key)} moved to position ${to + 1} of ${total}.`);
      }
    } else if (k === "Tab") {
      // leaving the handle while lifted drops the item where it is
      drop(lift, false);
    }
  };

  // pointer dragging: the target place is the one of the item whose centre is nearest
  const targetIndex = (x: number, y: number): number => {
    let best = -1;
    let bestDistance = Infinity;
    ordered.forEach((entry, index) => {
      const el = elements.current.get(entry.key);
      if (!el) return;
      const r = el.getBoundingClientRect();
      const dx = x - (r.left + r.width / 2);
      const dy = y - (r.top + r.height / 2);
      const d = dx * dx + dy * dy;
      if (d < bestDistance) {
        bestDistance = d;
        best = index;
      }
    });
    return best;
  };

  // the pointer is followed on the window: the dragged item moves in the document, which
  // would end a pointer capture on its handle
  const latest = useRef({ lift, keys, total, targetIndex, drop, cancel, nameOf });
  latest.current = { lift, keys, total, targetIndex, drop, cancel, nameOf };
  const follow = useRef<{ move(e: PointerEvent): void; up(e: PointerEvent): void; stop(): void } | null>(null);
  if (follow.current === null) {
    const stop = () => {
      window.removeEventListener("pointermove", f.move, true);
      window.removeEventListener("pointerup", f.up, true);
      window.removeEventListener("pointercancel", f.up, true);
    };
    const f = {
      move(e: PointerEvent) {
        const p = pointer.current;
        if (!p || p.id !== e.pointerId) return;
        const l = latest.current;
        if (!p.started) {
          if (Math.abs(e.clientX - p.x) + Math.abs(e.clientY - p.y) < 5) return;
          p.started = true;
          const from = l.keys.indexOf(p.key);
          setLift({ key: p.key, from, to: from, mode: "pointer" });
          setMessage(`${l.nameOf(p.key)} lifted, position ${from + 1} of ${l.total}.`);
          return;
        }
        e.preventDefault();
        const to = l.targetIndex(e.clientX, e.clientY);
        if (to >= 0) setLift((x) => (x && x.to !== to ? { ...x, to } : x));
      },
      up(e: PointerEvent) {
        const p = pointer.current;
        if (!p || p.id !== e.pointerId) return;
        pointer.current = null;
        stop();
        const l = latest.current;
        if (p.started && l.lift) {
          if (e.type === "pointercancel") l.cancel(l.lift);
          else l.drop(l.lift);
        }
      },
      stop,
    };
    follow.current = f;
  }
  useEffect(() => () => follow.current?.stop(), []);

  const onPointerDown = (key: string) => (event: JSX.TargetedPointerEvent<HTMLButtonElement>) => {
    if (disabled || event.button !== 0 || lift) return;
    pointer.current = { id: event.pointerId, x: event.clientX, y: event.clientY, key, started: false };
    const f = follow.current!;
    f.stop();
    window.addEventListener("pointermove", f.move, true);
    window.addEventListener("pointerup", f.up, true);
    window.addEventListener("pointercancel", f.up, true);
  };

  // Escape while dragging with the pointer cancels
  useEffect(() => {
    if (!lift || lift.mode !== "pointer") return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.preventDefault();
        pointer.current = null;
        follow.current?.stop();
        cancel(lift);
      }
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  });

  return {
    view: ordered,
    lifted: lift?.key ?? null,
    itemProps: (key) => ({
      ref: (el: HTMLElement | null) => {
        if (el) elements.current.set(key, el);
        else elements.current.delete(key);
      },
      ...(lift?.key === key ? { "data-lifted": "true" as const } : {}),
    }),
    handleProps: (key) => ({
      ref: (el: HTMLButtonElement | null) => {
        if (el) handles.current.set(key, el);
        else handles.current.delete(key);
      },
      type: "button",
      disabled,
      "aria-pressed": lift?.key === key ? true : undefined,
      "aria-roledescription": "drag handle",
      onKeyDown: onKeyDown(key),
      onPointerDown: onPointerDown(key),
      onBlur: () => {
        if (lift && lift.key === key && lift.mode === "keyboard" && refocus.current !== key) {
          // focus went elsewhere (a click outside): keep the item where it was
          cancel(lift);
        }
      },
    }),
    move: (index, delta) => {
      const to = index + delta;
      if (disabled || to < 0 || to >= total) return;
      onReorder(moved(items, index, to));
      setMessage(`${labelOf(items[index])} moved to position ${to + 1} of ${total}.`);
    },
    announcer: (
      <div class="sr-only" aria-live="assertive" aria-atomic="true">
        {message}
      </div>
    ),
  };
}
