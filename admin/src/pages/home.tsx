export function HomePage() {
  return <main id="main" class="page"><h1>Welcome</h1></main>;
}
