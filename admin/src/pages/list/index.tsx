export function ListPage({ uid }: { uid: string; search: URLSearchParams }) {
  return <main id="main" class="page"><h1>{uid}</h1></main>;
}
