// The home page: a greeting and the way to every content type of the app.
import { useMeta, type ContentTypeMeta } from "../meta";
import { Link } from "../router";
import { useSession } from "../session";
import { PageHeader, useDocumentTitle } from "../ui";

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
