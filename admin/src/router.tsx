// A small history router for the panel's URLs (all under /admin): the current location as
// state, links that navigate without a reload, and blockers that may stop a navigation
// (the edit view's unsaved-changes guard).
import type { ComponentChildren, JSX } from "preact";
import { useEffect, useState } from "preact/hooks";

export const ROOT = "/admin";

export interface Location {
  path: string; // without the /admin prefix, "/" at least
  search: URLSearchParams;
}

function current(): Location {
  let path = window.location.pathname;
  if (path.startsWith(ROOT)) path = path.slice(ROOT.length);
  if (!path.startsWith("/")) path = `/${path}`;
  return { path: decodeURI(path), search: new URLSearchParams(window.location.search) };
}

const listeners = new Set<() => void>();
/** A blocker answers true to let a navigation go on (it may ask the user first). */
export type Blocker = () => boolean;
const blockers = new Set<Blocker>();

export function addBlocker(blocker: Blocker): () => void {
  blockers.add(blocker);
  return () => blockers.delete(blocker);
}

function allowed(): boolean {
  for (const b of blockers) if (!b()) return false;
  return true;
}

/** Asks the blockers whether the page may be left (before an action that leaves it without
 * a navigation, such as signing out). */
export function mayLeave(): boolean {
  return allowed();
}

/** Goes to `to` (a panel path such as "/content-manager/..." with its query, or a full /admin URL). */
export function navigate(to: string, options: { replace?: boolean; force?: boolean } = {}): void {
  const url = to.startsWith(ROOT) ? to : `${ROOT}${to.startsWith("/") ? "" : "/"}${to}`;
  if (url === window.location.pathname + window.location.search) return;
  if (!options.force && !allowed()) return;
  if (options.replace) window.history.replaceState(null, "", url);
  else window.history.pushState(null, "", url);
  for (const l of listeners) l();
}

let lastUrl = window.location.pathname + window.location.search;
window.addEventListener("popstate", () => {
  if (!allowed()) {
    // undo the browser's move
    window.history.pushState(null, "", lastUrl);
    return;
  }
  for (const l of listeners) l();
});
listeners.add(() => {
  lastUrl = window.location.pathname + window.location.search;
});

export function useLocation(): Location {
  const [loc, setLoc] = useState<Location>(current);
  useEffect(() => {
    const update = () => setLoc(current());
    listeners.add(update);
    return () => {
      listeners.delete(update);
    };
  }, []);
  return loc;
}

/** Matches "/content-manager/collection-types/:uid/:documentId" against a path. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split("/").filter(Boolean);
  const s = path.split("/").filter(Boolean);
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(":")) params[p[i].slice(1)] = s[i];
    else if (p[i] !== s[i]) return null;
  }
  return params;
}

/** The URL of a panel path with query parameters (empty values left out). */
export function href(path: string, query: Record<string, string | number | null | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== null && v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return `${ROOT}${path}${s ? `?${s}` : ""}`;
}

type LinkProps = Omit<JSX.HTMLAttributes<HTMLAnchorElement>, "href"> & { to: string; children?: ComponentChildren };

/** An anchor that navigates inside the panel (modified clicks open a new tab as usual). */
export function Link({ to, children, onClick, ...rest }: LinkProps) {
  const url = to.startsWith(ROOT) ? to : `${ROOT}${to}`;
  return (
    <a
      {...rest}
      href={url}
      onClick={(event: JSX.TargetedMouseEvent<HTMLAnchorElement>) => {
        if (onClick) (onClick as (e: JSX.TargetedMouseEvent<HTMLAnchorElement>) => void)(event);
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(url);
      }}
    >
      {children}
    </a>
  );
}
