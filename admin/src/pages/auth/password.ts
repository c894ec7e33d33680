// The password rules of admin accounts (as the reference): 8 characters or more, a lowercase
// letter, an uppercase letter and a number, at most 72 bytes (bcrypt's limit).
export interface Rule {
  id: string;
  text: string;
  test(password: string): boolean;
}

export const PASSWORD_RULES: Rule[] = [
  { id: "length", text: "At least 8 characters", test: (p) => p.length >= 8 },
  { id: "lower", text: "One lowercase letter", test: (p) => /[a-z]/.test(p) },
  { id: "upper", text: "One uppercase letter", test: (p) => /[A-Z]/.test(p) },
  { id: "number", text: "One number", test: (p) => /\d/.test(p) },
  { id: "bytes", text: "At most 72 bytes", test: (p) => new TextEncoder().encode(p).length <= 72 },
];

/** The first rule the password breaks, as a sentence, or null. */
export function passwordProblem(password: string): string | null {
  if (!password) return "The password is required.";
  if (password.length < 8) return "The password must be at least 8 characters long.";
  if (!/[a-z]/.test(password)) return "The password must contain at least one lowercase letter.";
  if (!/[A-Z]/.test(password)) return "The password must contain at least one uppercase letter.";
  if (!/\d/.test(password)) return "The password must contain at least one number.";
  if (new TextEncoder().encode(password).length > 72) return "The password must be at most 72 bytes long.";
  return null;
}

export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** What is wrong with an email address (required, then its shape), or null. */
export function emailProblem(email: string): string | null {
  if (!email.trim()) return "The email is required.";
  if (!EMAIL_PATTERN.test(email.trim())) return "This is not a valid email address.";
  return null;
}

/** The errors of a new password and its confirmation (keys password and confirmPassword). */
export function newPasswordErrors(password: string, confirm: string, confirmMissing = "Confirm the password."): Record<string, string> {
  const errors: Record<string, string> = {};
  const pw = passwordProblem(password);
  if (pw) errors.password = pw;
  if (!confirm) errors.confirmPassword = confirmMissing;
  else if (confirm !== password) errors.confirmPassword = "The passwords do not match.";
  return errors;
}
