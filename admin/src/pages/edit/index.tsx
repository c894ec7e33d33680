export function EditPage({ uid }: { uid: string; documentId: string | null; single?: boolean; search: URLSearchParams }) {
  return <main id="main" class="page"><h1>{uid}</h1></main>;
}
