// Sign-in with email and password; the server's answer (invalid credentials, too many
// attempts) is shown above the form.
import { useState } from "preact/hooks";
import { Link } from "../../router";
import { Button, TextField } from "../../ui";
import { AuthCard, FormAlert, openSession, useFormSubmit } from "./common";

const FIELDS = ["email", "password"];

export function LoginPage({ appName, onSignedIn, notice }: { appName?: string; onSignedIn(): void; notice?: string | null }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const { errors, message, busy, submit } = useFormSubmit(FIELDS, "login-");

  const onSubmit = (event: Event) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!email.trim()) found.email = "The email is required.";
    if (!password) found.password = "The password is required.";
    void submit(found, () => openSession("/login", { email: email.trim(), password }, onSignedIn));
  };

  return (
    <AuthCard appName={appName} title="Welcome back!" subtitle="Sign in to your account">
      {notice && (
        <div class="form-success" role="status">
          {notice}
        </div>
      )}
      <form onSubmit={onSubmit} noValidate aria-label="Sign in">
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
