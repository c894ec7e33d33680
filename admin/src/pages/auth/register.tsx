// The first visit to a fresh app: create the first administrator (only while none exists).
import { useState } from "preact/hooks";
import { api, setCsrfToken } from "../../api";
import { Button, TextField } from "../../ui";
import { AuthCard, FormAlert, PasswordRules, formErrors } from "./common";
import { EMAIL_PATTERN, passwordProblem } from "./password";

type Form = { firstname: string; lastname: string; email: string; password: string; confirmPassword: string };
const FIELDS = ["firstname", "lastname", "email", "password", "confirmPassword"];

export function validateAccount(form: Pick<Form, "email" | "password" | "confirmPassword"> & { firstname?: string }, checkName = true): Record<string, string> {
  const errors: Record<string, string> = {};
  if (checkName && !form.firstname?.trim()) errors.firstname = "The first name is required.";
  if (!form.email.trim()) errors.email = "The email is required.";
  else if (!EMAIL_PATTERN.test(form.email.trim())) errors.email = "This is not a valid email address.";
  const pw = passwordProblem(form.password);
  if (pw) errors.password = pw;
  if (!form.confirmPassword) errors.confirmPassword = "Confirm the password.";
  else if (form.confirmPassword !== form.password) errors.confirmPassword = "The passwords do not match.";
  return errors;
}

/** Moves focus to the first field in error (after the errors are rendered). */
export function focusFirstError(errors: Record<string, string>, order: string[], prefix: string): void {
  const first = order.find((name) => errors[name]);
  if (first) requestAnimationFrame(() => document.getElementById(`${prefix}${first}`)?.focus());
}

export function RegisterPage({ appName, onSignedIn }: { appName?: string; onSignedIn(): void }) {
  const [form, setForm] = useState<Form>({ firstname: "", lastname: "", email: "", password: "", confirmPassword: "" });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (key: keyof Form) => (value: string) => setForm((f) => ({ ...f, [key]: value }));

  const submit = async (event: Event) => {
    event.preventDefault();
    const found = validateAccount(form);
    setErrors(found);
    setMessage(null);
    if (Object.keys(found).length) {
      focusFirstError(found, FIELDS, "register-");
      return;
    }
    setBusy(true);
    try {
      const res = await api.post<{ data: { csrfToken: string } }>("/register-admin", {
        firstname: form.firstname.trim(),
        lastname: form.lastname.trim() || null,
        email: form.email.trim(),
        password: form.password,
      });
      setCsrfToken(res.data.csrfToken);
      onSignedIn();
    } catch (e) {
      const f = formErrors(e, FIELDS);
      setErrors(f.fields);
      setMessage(f.message);
      focusFirstError(f.fields, FIELDS, "register-");
      setBusy(false);
    }
  };

  return (
    <AuthCard appName={appName} title="Create your first administrator" subtitle="This account manages the app's content and settings. You can add more administrators later.">
      <form onSubmit={submit} noValidate aria-label="Create your first administrator">
        <FormAlert message={message} />
        <div class="form-grid form-grid-2">
          <TextField id="register-firstname" label="First name" required value={form.firstname} onInput={set("firstname")} error={errors.firstname} autocomplete="given-name" autoFocus />
          <TextField id="register-lastname" label="Last name" value={form.lastname} onInput={set("lastname")} error={errors.lastname} autocomplete="family-name" />
        </div>
        <TextField id="register-email" label="Email" type="email" required value={form.email} onInput={set("email")} error={errors.email} autocomplete="email" />
        <TextField
          id="register-password"
          label="Password"
          type="password"
          required
          value={form.password}
          onInput={set("password")}
          error={errors.password}
          autocomplete="new-password"
          hint={<PasswordRules id="register-password-rules" password={form.password} />}
        />
        <TextField
          id="register-confirmPassword"
          label="Confirm password"
          type="password"
          required
          value={form.confirmPassword}
          onInput={set("confirmPassword")}
          error={errors.confirmPassword}
          autocomplete="new-password"
        />
        <Button type="submit" loading={busy} class="button-block">
          Let's start
        </Button>
      </form>
    </AuthCard>
  );
}
