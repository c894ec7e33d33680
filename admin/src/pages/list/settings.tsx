export function ListSettingsPage({ uid }: { uid: string }) {
  return <main id="main" class="page"><h1>Configure the view of {uid}</h1></main>;
}
