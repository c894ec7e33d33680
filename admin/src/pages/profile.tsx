// The signed-in administrator's profile: name and email, and a password change that needs
// the current password (the server then ends the user's other sessions).
import { useState } from "preact/hooks";
import { api } from "../api";
import { useSession, type AdminUser } from "../session";
import { Button, PageHeader, TextField, notify, useDocumentTitle } from "../ui";
import { FormAlert, PasswordRules, formErrors } from "./auth/common";
import { EMAIL_PATTERN, passwordProblem } from "./auth/password";
import { focusFirstError } from "./auth/register";

function ProfileForm() {
  const session = useSession();
  const [form, setForm] = useState({ firstname: session.user.firstname ?? "", lastname: session.user.lastname ?? "", email: session.user.email });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (key: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [key]: value }));

  const submit = async (event: Event) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!form.firstname.trim()) found.firstname = "The first name is required.";
    if (!form.email.trim()) found.email = "The email is required.";
    else if (!EMAIL_PATTERN.test(form.email.trim())) found.email = "This is not a valid email address.";
    setErrors(found);
    setMessage(null);
    if (Object.keys(found).length) {
      focusFirstError(found, ["firstname", "lastname", "email"], "profile-");
      return;
    }
    setBusy(true);
    try {
      const res = await api.put<{ data: AdminUser }>("/users/me", {
        firstname: form.firstname.trim(),
        lastname: form.lastname.trim() || null,
        email: form.email.trim(),
      });
      session.setUser(res.data);
      notify("Your profile was saved");
    } catch (e) {
      const f = formErrors(e, ["firstname", "lastname", "email"]);
      setErrors(f.fields);
      setMessage(f.message);
      focusFirstError(f.fields, ["firstname", "lastname", "email"], "profile-");
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="panel" aria-labelledby="profile-info">
      <h2 class="panel-title" id="profile-info">
        Profile
      </h2>
      <form onSubmit={submit} noValidate aria-labelledby="profile-info">
        <FormAlert message={message} />
        <div class="form-grid">
          <TextField id="profile-firstname" label="First name" required value={form.firstname} onInput={set("firstname")} error={errors.firstname} autocomplete="given-name" />
          <TextField id="profile-lastname" label="Last name" value={form.lastname} onInput={set("lastname")} error={errors.lastname} autocomplete="family-name" />
          <TextField id="profile-email" label="Email" type="email" required value={form.email} onInput={set("email")} error={errors.email} autocomplete="email" />
        </div>
        <Button type="submit" loading={busy}>
          Save
        </Button>
      </form>
    </section>
  );
}

function PasswordForm() {
  const session = useSession();
  const empty = { currentPassword: "", password: "", confirmPassword: "" };
  const [form, setForm] = useState(empty);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (key: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [key]: value }));
  const order = ["currentPassword", "password", "confirmPassword"];

  const submit = async (event: Event) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!form.currentPassword) found.currentPassword = "Enter your current password.";
    const pw = passwordProblem(form.password);
    if (pw) found.password = pw;
    if (!form.confirmPassword) found.confirmPassword = "Confirm the new password.";
    else if (form.confirmPassword !== form.password) found.confirmPassword = "The passwords do not match.";
    setErrors(found);
    setMessage(null);
    if (Object.keys(found).length) {
      focusFirstError(found, order, "profile-");
      return;
    }
    setBusy(true);
    try {
      const res = await api.put<{ data: AdminUser }>("/users/me", { currentPassword: form.currentPassword, password: form.password });
      session.setUser(res.data);
      setForm(empty);
      notify("Your password was changed. Your other sessions were signed out.");
    } catch (e) {
      const f = formErrors(e, order);
      setErrors(f.fields);
      setMessage(f.message);
      focusFirstError(f.fields, order, "profile-");
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="panel" aria-labelledby="profile-password-title">
      <h2 class="panel-title" id="profile-password-title">
        Change password
      </h2>
      <form onSubmit={submit} noValidate aria-labelledby="profile-password-title">
        <FormAlert message={message} />
        <div class="form-grid">
          <TextField
            id="profile-currentPassword"
            label="Current password"
            type="password"
            required
            value={form.currentPassword}
            onInput={set("currentPassword")}
            error={errors.currentPassword}
            autocomplete="current-password"
          />
        </div>
        <div class="form-grid">
          <TextField
            id="profile-password"
            label="New password"
            type="password"
            required
            value={form.password}
            onInput={set("password")}
            error={errors.password}
            autocomplete="new-password"
            hint={<PasswordRules id="profile-password-rules" password={form.password} />}
          />
          <TextField
            id="profile-confirmPassword"
            label="Confirm password"
            type="password"
            required
            value={form.confirmPassword}
            onInput={set("confirmPassword")}
            error={errors.confirmPassword}
            autocomplete="new-password"
          />
        </div>
        <Button type="submit" loading={busy}>
          Change password
        </Button>
      </form>
    </section>
  );
}

export function ProfilePage() {
  const { user } = useSession();
  useDocumentTitle("Profile");
  const name = [user.firstname, user.lastname].filter(Boolean).join(" ") || user.email;
  return (
    <main id="main" class="page page-narrow">
      <PageHeader title={name} subtitle={user.email} />
      <ProfileForm />
      <PasswordForm />
    </main>
  );
}
