// Waiting and nothing-to-show states.
import type { ComponentChildren } from "preact";

/** A spinner with a text for assistive technology (role=status). */
export function Spinner({ label = "Loading", inline }: { label?: string; inline?: boolean }) {
  return (
    <div class={inline ? "spinner-wrap spinner-wrap-inline" : "spinner-wrap"} role="status">
      <span class="spinner" aria-hidden="true" />
      <span class="sr-only">{label}</span>
    </div>
  );
}

export function EmptyState({ title, children, action }: { title: ComponentChildren; children?: ComponentChildren; action?: ComponentChildren }) {
  return (
    <div class="empty-state">
      <svg class="empty-icon" viewBox="0 0 48 48" width="48" height="48" aria-hidden="true" focusable="false">
        <rect x="8" y="6" width="32" height="36" rx="3" fill="none" stroke="currentColor" stroke-width="2" />
        <path d="M15 16h18M15 23h18M15 30h10" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
      </svg>
      <p class="empty-title">{title}</p>
      {children && <div class="empty-text">{children}</div>}
      {action && <div class="empty-action">{action}</div>}
    </div>
  );
}

/** An error of a page or a panel, with a way to try again. */
export function ErrorState({ message, onRetry }: { message: string; onRetry?(): void }) {
  return (
    <div class="error-state" role="alert">
      <p>{message}</p>
      {onRetry && (
        <button type="button" class="button button-secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}
