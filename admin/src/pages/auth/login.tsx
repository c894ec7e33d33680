// Sign-in with email and password; the server's answer (invalid credentials, too many
// attempts) is shown above the form.
import { useState } from "preact/hooks";
import { api, setCsrfToken } from "../../api";
import { Link } from "../../router";
import { Button, TextField } from "../../ui";
import { AuthCard, FormAlert, formErrors } from "./common";
import { focusFirstError } from "./register";

const FIELDS = ["email", "password"];

export function LoginPage({ appName, onSignedIn, notice }: { appName?: string; onSignedIn(): void; notice?: string | null }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!email.trim()) found.email = "The email is required.";
    if (!password) found.password = "The password is required.";
    setErrors(found);
    setMessage(null);
    if (Object.keys(found).length) {
      focusFirstError(found, FIELDS, "login-");
      return;
    }
    setBusy(true);
    try {
      const res = await api.post<{ data: { csrfToken: string } }>("/login", { email: email.trim(), password });
      setCsrfToken(res.data.csrfToken);
      onSignedIn();
    } catch (e) {
      const f = formErrors(e, FIELDS);
      setErrors(f.fields);
      setMessage(f.message);
      setBusy(false);
      focusFirstError(f.fields, FIELDS, "login-");
    }
  };

  return (
    <AuthCard appName={appName} title="Welcome back!" subtitle="Sign in to your account">
      {notice && (
        <div class="form-success" role="status">
          {notice}
        </div>
      )}
      <form onSubmit={submit} noValidate aria-label="Sign in">
        <FormAlert message={message} />
        <TextField id="login-email" label="Email" type="email" required value={email} onInput={setEmail} error={errors.email} autocomplete="email" autoFocus />
        <TextField id="login-password" label="Password" type="password" required value={password} onInput={setPassword} error={errors.password} autocomplete="current-password" />
        <Button type="submit" loading={busy} class="button-block">
          Sign in
        </Button>
      </form>
      <p class="auth-links">
        <Link to="/auth/forgot-password">Forgot your password?</Link>
      </p>
    </AuthCard>
  );
}
