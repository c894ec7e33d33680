// Pages: previous, the page numbers around the current one (with gaps) and next. Links when
// `hrefFor` is given (the list view keeps its page in the URL), buttons otherwise.
import { Link } from "../router";

/** The pages to show: 1 … p-1 p p+1 … last (null is a gap). */
export function pageWindow(page: number, pageCount: number): (number | null)[] {
  const shown = new Set<number>([1, pageCount, page - 1, page, page + 1]);
  if (page <= 3) [2, 3, 4].forEach((p) => shown.add(p));
  if (page >= pageCount - 2) [pageCount - 3, pageCount - 2, pageCount - 1].forEach((p) => shown.add(p));
  const pages = [...shown].filter((p) => p >= 1 && p <= pageCount).sort((a, b) => a - b);
  const out: (number | null)[] = [];
  pages.forEach((p, i) => {
    if (i > 0 && p - pages[i - 1] > 1) out.push(null);
    out.push(p);
  });
  return out;
}

export function Pagination({
  page,
  pageCount,
  onChange,
  hrefFor,
  label = "Pagination",
}: {
  page: number;
  pageCount: number;
  onChange?(page: number): void;
  hrefFor?(page: number): string;
  label?: string;
}) {
  if (pageCount <= 1) return null;
  const item = (p: number, text: string, name: string, current = false, disabled = false) => {
    if (disabled) {
      return (
        <span class="page-link page-link-disabled" aria-disabled="true" role="link" aria-label={name}>
          <span aria-hidden="true">{text}</span>
        </span>
      );
    }
    if (hrefFor) {
      return (
        <Link to={hrefFor(p)} class={`page-link${current ? " page-link-current" : ""}`} aria-label={name} aria-current={current ? "page" : undefined}>
          {text}
        </Link>
      );
    }
    return (
      <button type="button" class={`page-link${current ? " page-link-current" : ""}`} aria-label={name} aria-current={current ? "page" : undefined} onClick={() => onChange?.(p)}>
        {text}
      </button>
    );
  };
  return (
    <nav class="pagination" aria-label={label}>
      <ul>
        <li>{item(page - 1, "‹", "Go to previous page", false, page <= 1)}</li>
        {pageWindow(page, pageCount).map((p, i) =>
          p === null ? (
            <li key={`gap${i}`} aria-hidden="true" class="page-gap">
              …
            </li>
          ) : (
            <li key={p}>{item(p, String(p), `Go to page ${p}`, p === page)}</li>
          ),
        )}
        <li>{item(page + 1, "›", "Go to next page", false, page >= pageCount)}</li>
      </ul>
    </nav>
  );
}
