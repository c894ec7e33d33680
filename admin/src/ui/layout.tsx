// The frame of every signed-in page: a skip link, the navigation (content types, media
// library, profile, sign-out) and the page.
import type { ComponentChildren } from "preact";
import { useMeta } from "../meta";
import { Link, useLocation } from "../router";
import { useSession } from "../session";

export function Layout({ children }: { children: ComponentChildren }) {
  const meta = useMeta();
  const session = useSession();
  const { path } = useLocation();
  const collections = meta.contentTypes.filter((ct) => ct.kind === "collectionType");
  const singles = meta.contentTypes.filter((ct) => ct.kind === "singleType");
  const current = (to: string) => (path === to || path.startsWith(`${to}/`) ? "page" : undefined);
  return (
    <div class="frame">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <nav class="sidebar" aria-label="Main">
        <p class="brand">Folio</p>
        <h2 class="nav-heading" id="nav-collections">
          Collection types
        </h2>
        <ul aria-labelledby="nav-collections">
          {collections.map((ct) => {
            const to = `/content-manager/collection-types/${ct.uid}`;
            return (
              <li key={ct.uid}>
                <Link to={to} aria-current={current(to)}>
                  {ct.displayName}
                </Link>
              </li>
            );
          })}
        </ul>
        {singles.length > 0 && (
          <>
            <h2 class="nav-heading" id="nav-singles">
              Single types
            </h2>
            <ul aria-labelledby="nav-singles">
              {singles.map((ct) => {
                const to = `/content-manager/single-types/${ct.uid}`;
                return (
                  <li key={ct.uid}>
                    <Link to={to} aria-current={current(to)}>
                      {ct.displayName}
                    </Link>
                  </li>
                );
              })}
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
          <li>
            <Link to="/me" aria-current={current("/me")}>
              Profile ({session.user.email})
            </Link>
          </li>
        </ul>
        <button type="button" class="button button-secondary sign-out" onClick={() => void session.signOut()}>
          Sign out
        </button>
      </nav>
      <div class="content">{children}</div>
    </div>
  );
}
