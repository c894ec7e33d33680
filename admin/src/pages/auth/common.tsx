// What the sign-in pages share: the centred card, the password rules list, field errors
// from the server's validation answers.
import type { ComponentChildren } from "preact";
import { ApiError, describeError } from "../../api";
import { PASSWORD_RULES } from "./password";

export function AuthCard({ title, subtitle, children, appName }: { title: string; subtitle?: ComponentChildren; children: ComponentChildren; appName?: string }) {
  return (
    <main id="main" class="auth">
      <div class="auth-card">
        <p class="auth-brand">
          <span class="brand-mark" aria-hidden="true">
            F
          </span>
          <span>{appName || "Folio"}</span>
        </p>
        <h1 class="auth-title">{title}</h1>
        {subtitle && <p class="auth-subtitle">{subtitle}</p>}
        {children}
      </div>
    </main>
  );
}

/** The password rules, each marked as met or not while the user types. */
export function PasswordRules({ id, password }: { id: string; password: string }) {
  return (
    <ul class="password-rules" id={id} aria-label="Password rules">
      {PASSWORD_RULES.map((rule) => {
        const ok = rule.test(password);
        return (
          <li key={rule.id} class={ok ? "rule-ok" : "rule-todo"}>
            <span aria-hidden="true" class="rule-mark">
              {ok ? "✓" : "•"}
            </span>
            {rule.text}
            <span class="sr-only">{ok ? " (met)" : " (not met yet)"}</span>
          </li>
        );
      })}
    </ul>
  );
}

/** Splits a failed request into field errors (ValidationError paths) and a message for the form. */
export function formErrors(error: unknown, fields: string[]): { fields: Record<string, string>; message: string | null } {
  const found: Record<string, string> = {};
  if (error instanceof ApiError) {
    for (const [path, message] of error.fieldErrors()) {
      const name = path.split(".")[0];
      if (fields.includes(name) && !found[name]) found[name] = message;
    }
    if (Object.keys(found).length > 0) return { fields: found, message: null };
    if (error.status === 429) {
      const retry = Number((error.details as { retryAfter?: number }).retryAfter);
      const wait = Number.isFinite(retry) && retry > 0 ? ` Try again in ${Math.ceil(retry)} seconds.` : " Wait a moment before trying again.";
      return { fields: found, message: `${error.message || "Too many attempts."}${error.message?.includes("again") ? "" : wait}` };
    }
  }
  return { fields: found, message: describeError(error) };
}

/** A form-level message (role=alert, announced when it appears). */
export function FormAlert({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <div class="form-error" role="alert">
      {message}
    </div>
  );
}
