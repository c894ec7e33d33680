// The home page: a greeting and the way to every content type of the app.
import { useEffect, useState } from "preact/hooks";
import { api, describeError } from "../api";
import { useMeta, type ContentTypeMeta, type Meta } from "../meta";
import { Link } from "../router";
import { useSession } from "../session";
import { PageHeader, Spinner, StatusBadge, formatDateTime, relativeTime, useDocumentTitle } from "../ui";

function typeLink(ct: ContentTypeMeta): string {
  return ct.kind === "singleType" ? `/content-manager/single-types/${ct.uid}` : `/content-manager/collection-types/${ct.uid}`;
}

function describe(ct: ContentTypeMeta): string {
  const parts = [ct.kind === "singleType" ? "Single type" : "Collection type"];
  if (ct.draftAndPublish) parts.push("draft & publish");
  if (ct.localized) parts.push("localized");
  return parts.join(" · ");
}

function TypeList({ title, id, types }: { title: string; id: string; types: ContentTypeMeta[] }) {
  if (types.length === 0) return null;
  return (
    <section class="panel" aria-labelledby={id}>
      <h2 class="panel-title" id={id}>
        {title}
      </h2>
      <ul class="type-cards">
        {types.map((ct) => (
          <li key={ct.uid}>
            <Link to={typeLink(ct)} class="type-card">
              <span class="type-card-name">{ct.displayName}</span>
              <span class="type-card-meta">{describe(ct)}</span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

interface Recent {
  ct: ContentTypeMeta;
  documentId: string;
  locale: string | null;
  label: string;
  status: string | null;
  updatedAt: string;
}

const RECENT_TYPES = 8;
const RECENT_SHOWN = 8;

/** The last edited entries across the collection types (a few per type, merged). */
function LastEdited({ meta }: { meta: Meta }) {
  const [items, setItems] = useState<Recent[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const types = meta.contentTypes.filter((ct) => ct.kind === "collectionType").slice(0, RECENT_TYPES);
    Promise.all(
      types.map((ct) =>
        api
          .get<{ data: Record<string, unknown>[] }>(`/content-manager/collection-types/${ct.uid}`, { sort: "updatedAt:DESC", pageSize: 5 })
          .then((res) =>
            res.data.map((row) => {
              const main = row[ct.mainField];
              return {
                ct,
                documentId: String(row.documentId),
                locale: (row.locale as string | null) ?? null,
                label: main === null || main === undefined || main === "" ? String(row.documentId) : String(main),
                status: ct.draftAndPublish ? ((row.status as string) ?? null) : null,
                updatedAt: String(row.updatedAt),
              };
            }),
          ),
      ),
    )
      .then((lists) => setItems(lists.flat().sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1)).slice(0, RECENT_SHOWN)))
      .catch((e: unknown) => setError(describeError(e)));
  }, [meta]);
  if (error) return <p class="muted">The last edited entries could not be read: {error}</p>;
  if (!items) return <Spinner label="Loading the last edited entries" />;
  if (items.length === 0) return <p class="muted">No entry yet.</p>;
  return (
    <table class="table recent-table">
      <thead>
        <tr>
          <th scope="col">Entry</th>
          <th scope="col">Type</th>
          <th scope="col">Updated</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      <tbody>
        {items.map((r) => (
          <tr key={`${r.ct.uid}/${r.documentId}/${r.locale}`}>
            <td>
              <Link to={`/content-manager/collection-types/${r.ct.uid}/${r.documentId}${r.locale ? `?locale=${encodeURIComponent(r.locale)}` : ""}`}>{r.label}</Link>
            </td>
            <td>{r.ct.displayName}</td>
            <td>
              <time dateTime={r.updatedAt} title={formatDateTime(r.updatedAt)}>
                {relativeTime(r.updatedAt)}
              </time>
            </td>
            <td>{r.status ? <StatusBadge status={r.status} /> : null}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function HomePage() {
  const meta = useMeta();
  const { user } = useSession();
  useDocumentTitle("Home");
  const byName = (a: ContentTypeMeta, b: ContentTypeMeta) => a.displayName.localeCompare(b.displayName);
  const collections = meta.contentTypes.filter((ct) => ct.kind === "collectionType").sort(byName);
  const singles = meta.contentTypes.filter((ct) => ct.kind === "singleType").sort(byName);
  return (
    <main id="main" class="page">
      <PageHeader
        title={`Hello ${user.firstname || user.email}`}
        subtitle="Welcome to your administration panel. Choose what to edit."
      />
      {collections.length > 0 && (
        <section class="panel" aria-labelledby="home-recent">
          <h2 class="panel-title" id="home-recent">
            Last edited entries
          </h2>
          <LastEdited meta={meta} />
        </section>
      )}
      <TypeList title="Collection types" id="home-collections" types={collections} />
      <TypeList title="Single types" id="home-singles" types={singles} />
      {meta.contentTypes.length === 0 && (
        <section class="panel">
          <p>This app has no content types yet. Add one under the app's <code>src/api</code> folder, then reload.</p>
        </section>
      )}
      <section class="panel" aria-labelledby="home-more">
        <h2 class="panel-title" id="home-more">
          More
        </h2>
        <ul class="type-cards">
          <li>
            <Link to="/plugins/upload" class="type-card">
              <span class="type-card-name">Media Library</span>
              <span class="type-card-meta">Images, videos and files</span>
            </Link>
          </li>
          <li>
            <Link to="/me" class="type-card">
              <span class="type-card-name">Your profile</span>
              <span class="type-card-meta">Name, email and password</span>
            </Link>
          </li>
        </ul>
      </section>
    </main>
  );
}
