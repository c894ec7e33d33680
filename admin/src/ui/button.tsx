// Buttons of the panel: one component for the four looks, a busy state that keeps the
// button's size and says "busy" to assistive technology, and a link that looks like a button.
import type { ComponentChildren, JSX, Ref } from "preact";
import { Link } from "../router";

export type Variant = "primary" | "secondary" | "tertiary" | "danger" | "ghost";

type ButtonProps = Omit<JSX.ButtonHTMLAttributes<HTMLButtonElement>, "size" | "loading" | "type"> & {
  variant?: Variant;
  size?: "s" | "m";
  /** shows a spinner, disables the button and sets aria-busy */
  loading?: boolean;
  type?: "button" | "submit" | "reset";
  disabled?: boolean;
  /** the <button> element (function components take no ref) */
  innerRef?: Ref<HTMLButtonElement>;
  children?: ComponentChildren;
};

export function buttonClass(variant: Variant = "primary", size: "s" | "m" = "m", extra?: unknown): string {
  const parts = ["button"];
  if (variant !== "primary") parts.push(`button-${variant}`);
  if (size === "s") parts.push("button-s");
  if (typeof extra === "string" && extra) parts.push(extra);
  return parts.join(" ");
}

export function Button({ variant = "primary", size = "m", loading = false, type = "button", disabled, class: cls, className, innerRef, children, ...rest }: ButtonProps) {
  return (
    <button
      {...rest}
      ref={innerRef}
      type={type}
      class={buttonClass(variant, size, cls ?? className)}
      disabled={disabled || loading}
      aria-busy={loading ? "true" : undefined}
    >
      {loading && <span class="spinner spinner-inline" aria-hidden="true" />}
      {children}
    </button>
  );
}

type LinkButtonProps = Omit<JSX.HTMLAttributes<HTMLAnchorElement>, "href" | "size"> & {
  to: string;
  variant?: Variant;
  size?: "s" | "m";
  children?: ComponentChildren;
};

/** A panel link shown as a button (navigations are links, actions are buttons). */
export function LinkButton({ to, variant = "primary", size = "m", class: cls, className, children, ...rest }: LinkButtonProps) {
  return (
    <Link {...rest} to={to} class={buttonClass(variant, size, cls ?? className)}>
      {children}
    </Link>
  );
}

/** A button showing only an icon or a symbol: its accessible name is `label` (also its tooltip). */
export function IconButton({ label, children, variant = "ghost", size = "s", ...rest }: Omit<ButtonProps, "aria-label"> & { label: string }) {
  return (
    <Button {...rest} variant={variant} size={size} aria-label={label} title={label} class="icon-button">
      <span aria-hidden="true">{children}</span>
    </Button>
  );
}
