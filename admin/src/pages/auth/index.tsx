// Placeholder until the sign-in pages are built.
export function AuthPage(props: { hasAdmin: boolean; path: string; search: URLSearchParams; onSignedIn(): void }) {
  void props;
  return <main id="main" class="center"><h1>Sign in</h1></main>;
}
