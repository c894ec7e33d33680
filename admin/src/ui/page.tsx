// The top of a page: an optional back link, the title (the page's h1), a subtitle and the
// page's main actions; and the document title kept in step.
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { Link } from "../router";

export function useDocumentTitle(title: string | null | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} | Folio admin` : "Folio admin";
  }, [title]);
}

export function PageHeader({
  title,
  subtitle,
  back,
  actions,
  secondary,
  titleExtra,
}: {
  title: ComponentChildren;
  subtitle?: ComponentChildren;
  /** a link above the title ("Back" to the list) */
  back?: { to: string; label?: string };
  /** the main actions, on the right of the title */
  actions?: ComponentChildren;
  /** a row of secondary controls under the title (locale switcher, search) */
  secondary?: ComponentChildren;
  /** beside the title (a status badge) */
  titleExtra?: ComponentChildren;
}) {
  return (
    <header class="page-header">
      {back && (
        <Link to={back.to} class="back-link">
          <span aria-hidden="true">← </span>
          {back.label ?? "Back"}
        </Link>
      )}
      <div class="page-header-row">
        <div class="page-title-block">
          <div class="page-title-line">
            <h1 class="page-title">{title}</h1>
            {titleExtra}
          </div>
          {subtitle && <p class="page-subtitle">{subtitle}</p>}
        </div>
        {actions && <div class="page-actions">{actions}</div>}
      </div>
      {secondary && <div class="page-secondary">{secondary}</div>}
    </header>
  );
}
