// The signed-in administrator's profile: name and email, and a password change that needs
// the current password (the server then ends the user's other sessions).
import { useState } from "preact/hooks";
import { api } from "../api";
import { useSession, type AdminUser } from "../session";
import { Button, PageHeader, TextField, notify, useDocumentTitle } from "../ui";
import { FormAlert, NewPasswordFields, useFormSubmit } from "./auth/common";
import { emailProblem, newPasswordErrors } from "./auth/password";

function ProfileForm() {
  const session = useSession();
  const [form, setForm] = useState({ firstname: session.user.firstname ?? "", lastname: session.user.lastname ?? "", email: session.user.email });
  const { errors, message, busy, submit } = useFormSubmit(["firstname", "lastname", "email"], "profile-", true);
  const set = (key: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [key]: value }));

  const onSubmit = (event: Event) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!form.firstname.trim()) found.firstname = "The first name is required.";
    const email = emailProblem(form.email);
    if (email) found.email = email;
    void submit(found, async () => {
      const res = await api.put<{ data: AdminUser }>("/users/me", {
        firstname: form.firstname.trim(),
        lastname: form.lastname.trim() || null,
        email: form.email.trim(),
      });
      session.setUser(res.data);
      notify("Your profile was saved");
    });
  };

  return (
    <section class="panel" aria-labelledby="profile-info">
      <h2 class="panel-title" id="profile-info">
        Profile
      </h2>
      <form onSubmit={onSubmit} noValidate aria-labelledby="profile-info">
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
  const { errors, message, busy, submit } = useFormSubmit(["currentPassword", "password", "confirmPassword"], "profile-", true);
  const set = (key: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [key]: value }));

  const onSubmit = (event: Event) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!form.currentPassword) found.currentPassword = "Enter your current password.";
    void submit({ ...found, ...newPasswordErrors(form.password, form.confirmPassword, "Confirm the new password.") }, async () => {
      const res = await api.put<{ data: AdminUser }>("/users/me", { currentPassword: form.currentPassword, password: form.password });
      session.setUser(res.data);
      setForm(empty);
      notify("Your password was changed. Your other sessions were signed out.");
    });
  };

  return (
    <section class="panel" aria-labelledby="profile-password-title">
      <h2 class="panel-title" id="profile-password-title">
        Change password
      </h2>
      <form onSubmit={onSubmit} noValidate aria-labelledby="profile-password-title">
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
          <NewPasswordFields
            prefix="profile-"
            label="New password"
            password={form.password}
            confirm={form.confirmPassword}
            onPassword={set("password")}
            onConfirm={set("confirmPassword")}
            errors={errors}
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
