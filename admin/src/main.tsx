// The panel's entry: reads whether an administrator exists and who is signed in, loads the
// models, and shows the page the URL names.
import { render } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, ApiError, describeError, onSignedOut, setCsrfToken } from "./api";
import { MetaContext, type Meta } from "./meta";
import { Link, match, mayLeave, navigate, useLocation } from "./router";
import { SessionContext, type AdminUser, type Session } from "./session";
import { Layout } from "./ui/layout";
import { Notifications } from "./ui/notify";
import { Spinner } from "./ui/spinner";
import { AuthPage } from "./pages/auth";
import { HomePage } from "./pages/home";
import { ProfilePage } from "./pages/profile";
import { ListPage } from "./pages/list";
import { ListSettingsPage } from "./pages/list/settings";
import { EditPage } from "./pages/edit";
import { MediaLibraryPage } from "./pages/media";
import "./styles/base.css";

interface Init {
  hasAdmin: boolean;
  defaultLocale: string;
  appName?: string;
}

type State =
  | { kind: "loading" }
  | { kind: "failed"; message: string }
  | { kind: "signed-out"; hasAdmin: boolean; appName?: string; notice?: string | null }
  | { kind: "signed-in"; user: AdminUser; meta: Meta };

let appName: string | undefined;

function App() {
  const [state, setState] = useState<State>({ kind: "loading" });
  const location = useLocation();

  const load = useCallback(async () => {
    try {
      // the three reads go together (one round trip instead of three); the models' answer
      // is a 401 when nobody is signed in, and is then not needed
      const [init, session, models] = await Promise.allSettled([
        api.get<{ data: Init }>("/init"),
        api.get<{ data: { user: AdminUser; csrfToken: string } }>("/session"),
        api.get<{ data: Meta }>("/content-manager/init"),
      ]);
      if (init.status === "rejected") throw init.reason;
      appName = init.value.data.appName;
      if (!init.value.data.hasAdmin) {
        setState({ kind: "signed-out", hasAdmin: false, appName });
        return;
      }
      if (session.status === "rejected") {
        const e = session.reason;
        if (e instanceof ApiError && e.status === 401) {
          setState({ kind: "signed-out", hasAdmin: true, appName });
          return;
        }
        throw e;
      }
      setCsrfToken(session.value.data.csrfToken);
      const user = session.value.data.user;
      // signed in meanwhile (the models were asked before the session was known)
      const meta = models.status === "fulfilled" ? models.value : await api.get<{ data: Meta }>("/content-manager/init");
      setState({ kind: "signed-in", user, meta: meta.data });
    } catch (e) {
      setState({ kind: "failed", message: describeError(e) });
    }
  }, []);

  useEffect(() => {
    void load();
    const out = () => {
      setCsrfToken(null);
      setState((s) =>
        s.kind === "signed-in" ? { kind: "signed-out", hasAdmin: true, appName, notice: "Your session has ended. Sign in again to go on." } : s,
      );
    };
    onSignedOut.add(out);
    return () => {
      onSignedOut.delete(out);
    };
  }, [load]);

  if (state.kind === "loading") {
    return (
      <main class="center" aria-busy="true">
        <Spinner label="Loading the admin panel" />
      </main>
    );
  }
  if (state.kind === "failed") {
    return (
      <main class="center">
        <h1>The admin panel could not start</h1>
        <p role="alert">{state.message}</p>
        <button type="button" class="button" onClick={() => void load()}>
          Try again
        </button>
      </main>
    );
  }
  if (state.kind === "signed-out") {
    return (
      <AuthPage
        hasAdmin={state.hasAdmin}
        appName={state.appName}
        notice={state.notice}
        path={location.path}
        search={location.search}
        onSignedIn={(to) => {
          setState({ kind: "loading" });
          navigate(to, { replace: true, force: true });
          void load();
        }}
      />
    );
  }
  const session: Session = {
    user: state.user,
    setUser: (user) => setState((s) => (s.kind === "signed-in" ? { ...s, user } : s)),
    signOut: async () => {
      if (!mayLeave()) return;
      try {
        await api.post("/logout");
      } finally {
        setCsrfToken(null);
        navigate("/auth/login", { force: true });
        setState({ kind: "signed-out", hasAdmin: true, appName });
      }
    },
  };
  return (
    <SessionContext.Provider value={session}>
      <MetaContext.Provider value={state.meta}>
        <Layout>
          <Routes path={location.path} search={location.search} />
        </Layout>
      </MetaContext.Provider>
    </SessionContext.Provider>
  );
}

function Routes({ path, search }: { path: string; search: URLSearchParams }) {
  let m: Record<string, string> | null;
  if ((m = match("/content-manager/collection-types/:uid/configurations/list", path))) {
    return <ListSettingsPage uid={m.uid} />;
  }
  if ((m = match("/content-manager/collection-types/:uid/create", path))) {
    return <EditPage key={`${m.uid}/create`} uid={m.uid} documentId={null} search={search} />;
  }
  if ((m = match("/content-manager/collection-types/:uid/:documentId", path))) {
    return <EditPage key={`${m.uid}/${m.documentId}`} uid={m.uid} documentId={m.documentId} search={search} />;
  }
  if ((m = match("/content-manager/collection-types/:uid", path))) {
    return <ListPage key={m.uid} uid={m.uid} search={search} />;
  }
  if ((m = match("/content-manager/single-types/:uid", path))) {
    return <EditPage key={`${m.uid}/single`} uid={m.uid} documentId={null} single search={search} />;
  }
  if (match("/plugins/upload", path)) return <MediaLibraryPage search={search} />;
  if (match("/me", path)) return <ProfilePage />;
  if (path.startsWith("/auth/")) return <LeaveAuth />;
  if (path === "/" || path === "") return <HomePage />;
  return (
    <main id="main" class="page">
      <h1>Page not found</h1>
      <p>Nothing is at this address in the admin panel.</p>
      <Link to="/">Go to the home page</Link>
    </main>
  );
}

/** A signed-in user on a sign-in page (back button after signing in) goes home. */
function LeaveAuth() {
  useEffect(() => navigate("/", { replace: true, force: true }), []);
  return null;
}

render(
  <>
    <App />
    <Notifications />
  </>,
  document.getElementById("app")!,
);
