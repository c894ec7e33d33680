// Reset password: the link mailed by "forgot password" carries ?code=; a new password signs
// the user in.
import { useState } from "preact/hooks";
import { Link } from "../../router";
import { Button } from "../../ui";
import { AuthCard, FormAlert, NewPasswordFields, openSession, useFormSubmit } from "./common";
import { newPasswordErrors } from "./password";

const FIELDS = ["password", "confirmPassword"];

export function ResetPasswordPage({ appName, code, onSignedIn }: { appName?: string; code: string | null; onSignedIn(): void }) {
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const { errors, message, busy, submit } = useFormSubmit(FIELDS, "reset-");

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

  const onSubmit = (event: Event) => {
    event.preventDefault();
    void submit(newPasswordErrors(password, confirm), () => openSession("/reset-password", { code, password }, onSignedIn));
  };

  return (
    <AuthCard appName={appName} title="Reset password" subtitle="Choose a new password for your account.">
      <form onSubmit={onSubmit} noValidate aria-label="Reset password">
        <FormAlert message={message} />
        <NewPasswordFields prefix="reset-" password={password} confirm={confirm} onPassword={setPassword} onConfirm={setConfirm} errors={errors} autoFocus />
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
