export function MediaLibraryPage(props: { search: URLSearchParams }) {
  void props;
  return <main id="main" class="page"><h1>Media Library</h1></main>;
}
