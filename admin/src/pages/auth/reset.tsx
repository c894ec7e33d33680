// Reset password: the link mailed by "forgot password" carries ?code=; a new password signs
// the user in.
import { useState } from "preact/hooks";
import { api, setCsrfToken } from "../../api";
import { Link } from "../../router";
import { Button, TextField } from "../../ui";
import { AuthCard, FormAlert, PasswordRules, formErrors } from "./common";
import { focusFirstError, validateAccount } from "./register";

const FIELDS = ["password", "confirmPassword"];

export function ResetPasswordPage({ appName, code, onSignedIn }: { appName?: string; code: string | null; onSignedIn(): void }) {
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (!code) {
    return (
      <AuthCard appName={appName} title="Reset password">
        <div class="form-error" role="alert">
          This link has no reset code. Ask for a new link.
        </div>
        <p class="auth-links">
          <Link to="/auth/forgot-password">Ask for a new link</Link>
        </p>
      </AuthCard>
    );
  }

  const submit = async (event: Event) => {
    event.preventDefault();
    const found = validateAccount({ email: "x@x.xx", password, confirmPassword: confirm }, false);
    setErrors(found);
    setMessage(null);
    if (Object.keys(found).length) {
      focusFirstError(found, FIELDS, "reset-");
      return;
    }
    setBusy(true);
    try {
      const res = await api.post<{ data: { csrfToken: string } }>("/reset-password", { code, password });
      setCsrfToken(res.data.csrfToken);
      onSignedIn();
    } catch (e) {
      const f = formErrors(e, FIELDS);
      setErrors(f.fields);
      setMessage(f.message);
      setBusy(false);
      focusFirstError(f.fields, FIELDS, "reset-");
    }
  };

  return (
    <AuthCard appName={appName} title="Reset password" subtitle="Choose a new password for your account.">
      <form onSubmit={submit} noValidate aria-label="Reset password">
        <FormAlert message={message} />
        <TextField
          id="reset-password"
          label="Password"
          type="password"
          required
          value={password}
          onInput={setPassword}
          error={errors.password}
          autocomplete="new-password"
          autoFocus
          hint={<PasswordRules id="reset-password-rules" password={password} />}
        />
        <TextField id="reset-confirmPassword" label="Confirm password" type="password" required value={confirm} onInput={setConfirm} error={errors.confirmPassword} autocomplete="new-password" />
        <Button type="submit" loading={busy} class="button-block">
          Change password
        </Button>
      </form>
      {message && (
        <p class="auth-links">
          <Link to="/auth/forgot-password">Ask for a new link</Link>
        </p>
      )}
    </AuthCard>
  );
}
