// Notifications: short messages shown in a live region (success, error), dismissable.
import { useEffect, useState } from "preact/hooks";

export type Tone = "success" | "error" | "info";
interface Note {
  id: number;
  tone: Tone;
  text: string;
}

let next = 1;
const listeners = new Set<(notes: Note[]) => void>();
let notes: Note[] = [];

function publish(): void {
  for (const l of listeners) l(notes);
}

export function notify(text: string, tone: Tone = "success"): void {
  const note = { id: next++, tone, text };
  notes = [...notes, note];
  publish();
  if (tone !== "error") {
    setTimeout(() => dismiss(note.id), 5000);
  }
}

export function dismiss(id: number): void {
  notes = notes.filter((n) => n.id !== id);
  publish();
}

export function Notifications() {
  const [shown, setShown] = useState<Note[]>(notes);
  useEffect(() => {
    listeners.add(setShown);
    return () => {
      listeners.delete(setShown);
    };
  }, []);
  return (
    <div class="notifications" aria-live="polite" role="status">
      {shown.map((n) => (
        <div key={n.id} class={`note note-${n.tone}`} role={n.tone === "error" ? "alert" : undefined}>
          <span>{n.text}</span>
          <button type="button" class="note-close" aria-label="Dismiss notification" onClick={() => dismiss(n.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
