// The first visit to a fresh app: create the first administrator (only while none exists).
import { useState } from "preact/hooks";
import { Button, TextField } from "../../ui";
import { AuthCard, FormAlert, NewPasswordFields, openSession, useFormSubmit } from "./common";
import { emailProblem, newPasswordErrors } from "./password";

type Form = { firstname: string; lastname: string; email: string; password: string; confirmPassword: string };
const FIELDS = ["firstname", "lastname", "email", "password", "confirmPassword"];

export function validateAccount(form: Form): Record<string, string> {
  const errors: Record<string, string> = {};
  if (!form.firstname.trim()) errors.firstname = "The first name is required.";
  const email = emailProblem(form.email);
  if (email) errors.email = email;
  return { ...errors, ...newPasswordErrors(form.password, form.confirmPassword) };
}

export function RegisterPage({ appName, onSignedIn }: { appName?: string; onSignedIn(): void }) {
  const [form, setForm] = useState<Form>({ firstname: "", lastname: "", email: "", password: "", confirmPassword: "" });
  const { errors, message, busy, submit } = useFormSubmit(FIELDS, "register-");
  const set = (key: keyof Form) => (value: string) => setForm((f) => ({ ...f, [key]: value }));

  const onSubmit = (event: Event) => {
    event.preventDefault();
    const account = { firstname: form.firstname.trim(), lastname: form.lastname.trim() || null, email: form.email.trim(), password: form.password };
    void submit(validateAccount(form), () => openSession("/register-admin", account, onSignedIn));
  };

  return (
    <AuthCard appName={appName} title="Create your first administrator" subtitle="This account manages the app's content and settings. You can add more administrators later.">
      <form onSubmit={onSubmit} noValidate aria-label="Create your first administrator">
        <FormAlert message={message} />
        <div class="form-grid form-grid-2">
          <TextField id="register-firstname" label="First name" required value={form.firstname} onInput={set("firstname")} error={errors.firstname} autocomplete="given-name" autoFocus />
          <TextField id="register-lastname" label="Last name" value={form.lastname} onInput={set("lastname")} error={errors.lastname} autocomplete="family-name" />
        </div>
        <TextField id="register-email" label="Email" type="email" required value={form.email} onInput={set("email")} error={errors.email} autocomplete="email" />
        <NewPasswordFields prefix="register-" password={form.password} confirm={form.confirmPassword} onPassword={set("password")} onConfirm={set("confirmPassword")} errors={errors} />
        <Button type="submit" loading={busy} class="button-block">
          Let's start
        </Button>
      </form>
    </AuthCard>
  );
}
