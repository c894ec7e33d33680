// The pages shown while nobody is signed in (/admin/auth/*). A visit to any other page goes
// to the login page, which remembers where the user was heading (?redirectTo=); a fresh app
// with no administrator asks for the first one.
import { useEffect } from "preact/hooks";
import { navigate } from "../../router";
import { useDocumentTitle } from "../../ui";
import { ForgotPasswordPage } from "./forgot";
import { LoginPage } from "./login";
import { RegisterPage } from "./register";
import { ResetPasswordPage } from "./reset";

const PAGES = ["/auth/login", "/auth/register-admin", "/auth/forgot-password", "/auth/reset-password"];

/** A panel path to return to after signing in: a local path, never an auth page. */
export function safeRedirect(value: string | null | undefined): string {
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/";
  const path = value.startsWith("/admin/") || value === "/admin" ? value.slice("/admin".length) || "/" : value;
  if (path.startsWith("/auth/") || path.startsWith("/api/")) return "/";
  return path;
}

/** Where a signed-out visitor of `path` must be: null when the page itself is right. */
function redirectFor(hasAdmin: boolean, path: string, search: URLSearchParams): string | null {
  if (!hasAdmin) {
    if (path === "/auth/register-admin") return null;
    const to = path.startsWith("/auth/") ? search.get("redirectTo") : path === "/" ? null : path + (search.toString() ? `?${search}` : "");
    return `/auth/register-admin${to ? `?redirectTo=${encodeURIComponent(to)}` : ""}`;
  }
  if (path === "/auth/register-admin") return `/auth/login${search.toString() ? `?${search}` : ""}`;
  if (PAGES.includes(path)) return null;
  if (path.startsWith("/auth/")) return "/auth/login";
  const here = path + (search.toString() ? `?${search}` : "");
  return path === "/" ? "/auth/login" : `/auth/login?redirectTo=${encodeURIComponent(here)}`;
}

const TITLES: Record<string, string> = {
  "/auth/login": "Sign in",
  "/auth/register-admin": "Create your first administrator",
  "/auth/forgot-password": "Password recovery",
  "/auth/reset-password": "Reset password",
};

export function AuthPage({
  hasAdmin,
  appName,
  path,
  search,
  notice,
  onSignedIn,
}: {
  hasAdmin: boolean;
  appName?: string;
  path: string;
  search: URLSearchParams;
  /** a message for the login page ("Your session has expired") */
  notice?: string | null;
  /** called once signed in, with the panel path to go to */
  onSignedIn(redirectTo: string): void;
}) {
  const target = redirectFor(hasAdmin, path, search);
  useEffect(() => {
    if (target) navigate(target, { replace: true, force: true });
  }, [target]);
  useDocumentTitle(TITLES[path] ?? "Sign in");
  if (target) return null;
  const done = () => onSignedIn(safeRedirect(search.get("redirectTo")));
  switch (path) {
    case "/auth/register-admin":
      return <RegisterPage appName={appName} onSignedIn={done} />;
    case "/auth/forgot-password":
      return <ForgotPasswordPage appName={appName} />;
    case "/auth/reset-password":
      return <ResetPasswordPage appName={appName} code={search.get("code")} onSignedIn={() => onSignedIn("/")} />;
    default:
      return <LoginPage appName={appName} onSignedIn={done} notice={notice} />;
  }
}
