// The frame of every signed-in page: a skip link, the navigation (home, content types, media
// library, profile, sign-out) and the page.
import type { ComponentChildren } from "preact";
import { useMeta } from "../meta";
import { Link, useLocation } from "../router";
import { useSession } from "../session";

export function initials(first: string | null | undefined, last: string | null | undefined, email: string): string {
  const s = `${(first ?? "").trim().charAt(0)}${(last ?? "").trim().charAt(0)}`;
  return (s || email.charAt(0)).toUpperCase();
}

export function displayName(user: { firstname: string | null; lastname: string | null; email: string }): string {
  return [user.firstname, user.lastname].filter(Boolean).join(" ") || user.email;
}

/** The navigation's items of some content types: a link each to `${base}/${uid}`. */
function TypeLinks({ types, base, current }: { types: { uid: string; displayName: string }[]; base: string; current(to: string): "page" | undefined }) {
  return (
    <>
      {types.map((ct) => {
        const to = `${base}/${ct.uid}`;
        return (
          <li key={ct.uid}>
            <Link to={to} aria-current={current(to)}>
              {ct.displayName}
            </Link>
          </li>
        );
      })}
    </>
  );
}

export function Layout({ children }: { children: ComponentChildren }) {
  const meta = useMeta();
  const session = useSession();
  const { path } = useLocation();
  const byName = (a: { displayName: string }, b: { displayName: string }) => a.displayName.localeCompare(b.displayName);
  const collections = meta.contentTypes.filter((ct) => ct.kind === "collectionType").sort(byName);
  const singles = meta.contentTypes.filter((ct) => ct.kind === "singleType").sort(byName);
  const current = (to: string) => (path === to || path.startsWith(`${to}/`) ? "page" : undefined);
  const user = session.user;
  return (
    <div class="frame">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <nav class="sidebar" aria-label="Main">
        <p class="brand">
          <span class="brand-mark" aria-hidden="true">
            F
          </span>
          <Link to="/" aria-current={path === "/" ? "page" : undefined}>
            Folio
          </Link>
        </p>
        <h2 class="nav-heading" id="nav-collections">
          Collection types
        </h2>
        <ul aria-labelledby="nav-collections">
          <TypeLinks types={collections} base="/content-manager/collection-types" current={current} />
          {collections.length === 0 && <li class="nav-empty">None yet</li>}
        </ul>
        {singles.length > 0 && (
          <>
            <h2 class="nav-heading" id="nav-singles">
              Single types
            </h2>
            <ul aria-labelledby="nav-singles">
              <TypeLinks types={singles} base="/content-manager/single-types" current={current} />
            </ul>
          </>
        )}
        <h2 class="nav-heading" id="nav-more">
          General
        </h2>
        <ul aria-labelledby="nav-more">
          <li>
            <Link to="/plugins/upload" aria-current={current("/plugins/upload")}>
              Media Library
            </Link>
          </li>
        </ul>
        <div class="sidebar-foot">
          <Link to="/me" aria-current={current("/me")} class="user-chip">
            <span class="avatar" aria-hidden="true">
              {initials(user.firstname, user.lastname, user.email)}
            </span>
            <span>
              <span class="sr-only">Your profile: </span>
              {displayName(user)}
              <span class="user-email">{user.email}</span>
            </span>
          </Link>
          <button type="button" class="button button-tertiary sign-out" onClick={() => void session.signOut()}>
            Sign out
          </button>
        </div>
      </nav>
      <div class="content">{children}</div>
    </div>
  );
}
