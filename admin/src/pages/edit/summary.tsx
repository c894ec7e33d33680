// The list of the server's validation errors above the form, focused after a refused save;
// each links to its field.
import type { Ref } from "preact";
import { fieldId } from "../../fields/render";

function readable(path: string): string {
  return path
    .split(".")
    .map((p) => (/^\d+$/.test(p) ? `#${Number(p) + 1}` : p))
    .join(" › ");
}

function target(path: string[]): HTMLElement | null {
  // the deepest field of the path that is on the page (an entry may be closed)
  for (let n = path.length; n > 0; n--) {
    const el = document.getElementById(fieldId(path.slice(0, n)));
    if (el) return el;
  }
  return null;
}

export function ErrorSummary({ errors, innerRef }: { errors: Map<string, string>; innerRef: Ref<HTMLDivElement> }) {
  if (errors.size === 0) return null;
  const n = errors.size;
  return (
    <div class="error-summary" ref={innerRef} tabIndex={-1} role="region" aria-labelledby="error-summary-title">
      <h2 id="error-summary-title" class="error-summary-title">
        {n === 1 ? "1 field needs attention" : `${n} fields need attention`}
      </h2>
      <ul>
        {[...errors.entries()].map(([path, message]) => (
          <li key={path}>
            <a
              href={`#${fieldId(path.split("."))}`}
              onClick={(e) => {
                e.preventDefault();
                const el = target(path.split("."));
                if (el) {
                  el.scrollIntoView({ block: "center" });
                  el.focus();
                }
              }}
            >
              {readable(path)}
            </a>
            : {message}
          </li>
        ))}
      </ul>
    </div>
  );
}
