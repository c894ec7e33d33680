export function ProfilePage() {
  return <main id="main" class="page"><h1>Profile</h1></main>;
}
