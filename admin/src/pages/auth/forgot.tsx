// Forgotten password: the server mails a link to reset it (and answers the same whether or
// not the address is known).
import { useState } from "preact/hooks";
import { api } from "../../api";
import { Link } from "../../router";
import { Button, TextField } from "../../ui";
import { AuthCard, FormAlert, formErrors } from "./common";
import { emailProblem } from "./password";

export function ForgotPasswordPage({ appName }: { appName?: string }) {
  const [email, setEmail] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setMessage(null);
    const problem = emailProblem(email);
    if (problem) {
      setError(problem);
      requestAnimationFrame(() => document.getElementById("forgot-email")?.focus());
      return;
    }
    setError(undefined);
    setBusy(true);
    try {
      await api.post("/forgot-password", { email: email.trim() });
      setSent(true);
    } catch (e) {
      const f = formErrors(e, ["email"]);
      setError(f.fields.email);
      setMessage(f.message);
    } finally {
      setBusy(false);
    }
  };

  if (sent) {
    return (
      <AuthCard appName={appName} title="Email sent">
        <p role="status">If an administrator account uses {email.trim()}, a link to choose a new password is on its way. It can take a few minutes to arrive.</p>
        <p class="auth-links">
          <Link to="/auth/login">Back to sign in</Link>
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard appName={appName} title="Password recovery" subtitle="Enter the email of your account: we will send you a link to choose a new password.">
      <form onSubmit={submit} noValidate aria-label="Password recovery">
        <FormAlert message={message} />
        <TextField id="forgot-email" label="Email" type="email" required value={email} onInput={setEmail} error={error} autocomplete="email" autoFocus />
        <Button type="submit" loading={busy} class="button-block">
          Send email
        </Button>
      </form>
      <p class="auth-links">
        <Link to="/auth/login">Ready to sign in?</Link>
      </p>
    </AuthCard>
  );
}
