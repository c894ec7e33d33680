// Tabs (WAI-ARIA tabs pattern): a tablist of buttons, arrow keys move between them and
// select (automatic activation), only the selected panel is rendered.
import type { ComponentChildren } from "preact";
import { useId, useRef } from "preact/hooks";

export interface Tab {
  id: string;
  label: ComponentChildren;
  content: () => ComponentChildren;
}

export function Tabs({ label, tabs, selected, onSelect }: { label: string; tabs: Tab[]; selected: string; onSelect(id: string): void }) {
  const base = useId();
  const list = useRef<HTMLDivElement>(null);
  const current = tabs.find((t) => t.id === selected) ?? tabs[0];
  const move = (to: number) => {
    const t = tabs[(to + tabs.length) % tabs.length];
    onSelect(t.id);
    requestAnimationFrame(() => list.current?.querySelector<HTMLElement>(`#${CSS.escape(`${base}-tab-${t.id}`)}`)?.focus());
  };
  return (
    <div class="tabs">
      <div
        ref={list}
        role="tablist"
        aria-label={label}
        class="tablist"
        onKeyDown={(e) => {
          const at = tabs.indexOf(current);
          if (e.key === "ArrowRight") move(at + 1);
          else if (e.key === "ArrowLeft") move(at - 1);
          else if (e.key === "Home") move(0);
          else if (e.key === "End") move(tabs.length - 1);
          else return;
          e.preventDefault();
        }}
      >
        {tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`${base}-tab-${t.id}`}
            aria-selected={t === current ? "true" : "false"}
            aria-controls={`${base}-panel-${t.id}`}
            tabIndex={t === current ? 0 : -1}
            class="tab"
            onClick={() => onSelect(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      {current && (
        <div role="tabpanel" id={`${base}-panel-${current.id}`} aria-labelledby={`${base}-tab-${current.id}`} class="tabpanel" tabIndex={0}>
          {current.content()}
        </div>
      )}
    </div>
  );
}
