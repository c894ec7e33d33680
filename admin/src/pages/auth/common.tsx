// What the sign-in pages (and the profile's forms) share: the centred card, the new password
// fields with their rules list, field errors from the server's validation answers, and the
// submission of a form that shows them.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { ApiError, api, describeError, setCsrfToken } from "../../api";
import { TextField } from "../../ui";
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

/** A new password (its rules listed under it) and its confirmation: fields `${prefix}password`
 * and `${prefix}confirmPassword`. */
export function NewPasswordFields({
  prefix,
  label = "Password",
  password,
  confirm,
  onPassword,
  onConfirm,
  errors,
  autoFocus,
}: {
  prefix: string;
  label?: string;
  password: string;
  confirm: string;
  onPassword(value: string): void;
  onConfirm(value: string): void;
  errors: Record<string, string>;
  autoFocus?: boolean;
}) {
  return (
    <>
      <TextField
        id={`${prefix}password`}
        label={label}
        type="password"
        required
        value={password}
        onInput={onPassword}
        error={errors.password}
        autocomplete="new-password"
        autoFocus={autoFocus}
        hint={<PasswordRules id={`${prefix}password-rules`} password={password} />}
      />
      <TextField
        id={`${prefix}confirmPassword`}
        label="Confirm password"
        type="password"
        required
        value={confirm}
        onInput={onConfirm}
        error={errors.confirmPassword}
        autocomplete="new-password"
      />
    </>
  );
}

/** Sends a form that opens a session (sign-in, first administrator, new password): the
 * answer's CSRF token kept, then `onSignedIn`. */
export async function openSession(path: string, body: unknown, onSignedIn: () => void): Promise<void> {
  const res = await api.post<{ data: { csrfToken: string } }>(path, body);
  setCsrfToken(res.data.csrfToken);
  onSignedIn();
}

/** Moves focus to the first field in error (after the errors are rendered). */
export function focusFirstError(errors: Record<string, string>, order: string[], prefix: string): void {
  const first = order.find((name) => errors[name]);
  if (first) requestAnimationFrame(() => document.getElementById(`${prefix}${first}`)?.focus());
}

/** A form's field errors, message and busy state, and its submission: `submit(found, send)`
 * shows the client's own errors `found` (nothing is sent while there are some), else runs
 * `send`; a failure shows the server's field errors and message. The first field in error
 * (ids `${prefix}${field}`, in the order of `fields`) takes the focus. `stay`: the form stays
 * on the page once sent (busy then ends; otherwise the page is left, busy). */
export function useFormSubmit(fields: string[], prefix: string, stay = false) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (found: Record<string, string>, send: () => Promise<void>) => {
    setErrors(found);
    setMessage(null);
    if (Object.keys(found).length) {
      focusFirstError(found, fields, prefix);
      return;
    }
    setBusy(true);
    try {
      await send();
      if (stay) setBusy(false);
    } catch (e) {
      const f = formErrors(e, fields);
      setErrors(f.fields);
      setMessage(f.message);
      setBusy(false);
      focusFirstError(f.fields, fields, prefix);
    }
  };
  return { errors, message, busy, submit };
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
