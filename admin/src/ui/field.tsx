// The form field wrapper: a label bound to the control (for=id), a required marker, a hint
// and an error. The control itself is rendered by the caller (a widget), which spreads
// `controlProps(id, ...)` on it so that aria-describedby and aria-invalid point at them.
import type { ComponentChildren } from "preact";

export interface FieldA11y {
  id: string;
  "aria-invalid"?: "true";
  "aria-describedby"?: string;
  "aria-required"?: "true";
}

/** The attributes of a field's control: its id, aria-invalid when in error, aria-describedby
 * naming the hint (`${id}-hint`) and the error (`${id}-error`), aria-required. */
export function controlProps(id: string, opts: { error?: string | null; hint?: ComponentChildren; required?: boolean } = {}): FieldA11y {
  const described = [opts.hint ? `${id}-hint` : "", opts.error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return {
    id,
    "aria-invalid": opts.error ? "true" : undefined,
    "aria-describedby": described || undefined,
    "aria-required": opts.required ? "true" : undefined,
  };
}

export interface FieldProps {
  /** the control's id (the label's for) */
  id: string;
  label: ComponentChildren;
  hint?: ComponentChildren;
  error?: string | null;
  required?: boolean;
  /** something beside the label (a "Shared" badge, a button) */
  labelExtra?: ComponentChildren;
  /** a group of controls (radio buttons, a component, a list): a fieldset whose legend is the label */
  group?: boolean;
  /** hides the label visually (it stays the control's accessible name) */
  hideLabel?: boolean;
  class?: string;
  children: ComponentChildren;
}

function Marker() {
  return (
    <span class="required-marker" aria-hidden="true" title="required">
      *
    </span>
  );
}

export function FieldHint({ id, hint }: { id: string; hint?: ComponentChildren }) {
  if (!hint) return null;
  return (
    <div class="field-hint" id={`${id}-hint`}>
      {hint}
    </div>
  );
}

export function FieldError({ id, error }: { id: string; error?: string | null }) {
  if (!error) return null;
  return (
    <p class="field-error" id={`${id}-error`}>
      {error}
    </p>
  );
}

export function Field({ id, label, hint, error, required, labelExtra, group, hideLabel, class: cls, children }: FieldProps) {
  const classes = `field${error ? " field-invalid" : ""}${cls ? ` ${cls}` : ""}`;
  if (group) {
    return (
      <fieldset
        class={`${classes} field-group`}
        aria-describedby={[hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined}
      >
        <legend class={hideLabel ? "sr-only" : "field-label"} id={`${id}-label`}>
          {label}
          {required && <Marker />}
          {labelExtra && <span class="field-label-extra">{labelExtra}</span>}
        </legend>
        {children}
        <FieldHint id={id} hint={hint} />
        <FieldError id={id} error={error} />
      </fieldset>
    );
  }
  return (
    <div class={classes}>
      <div class={hideLabel ? "sr-only" : "field-label-row"}>
        <span class="field-label-text">
          <label class="field-label" for={id} id={`${id}-label`}>
            {label}
          </label>
          {required && <Marker />}
        </span>
        {labelExtra && <span class="field-label-extra">{labelExtra}</span>}
      </div>
      {children}
      <FieldHint id={id} hint={hint} />
      <FieldError id={id} error={error} />
    </div>
  );
}

/** A labelled select of `options`: a form's field (`div.field`, with an optional hint) or,
 * `inline`, a toolbar's (`div.inline-field`). */
export function SelectField({
  id,
  label,
  value,
  options,
  onChange,
  hint,
  inline,
  autoFocus,
}: {
  id: string;
  label: ComponentChildren;
  value: string;
  options: { value: string; label: ComponentChildren }[];
  onChange(value: string): void;
  hint?: ComponentChildren;
  inline?: boolean;
  autoFocus?: boolean;
}) {
  return (
    <div class={inline ? "inline-field" : "field"}>
      <label class={inline ? undefined : "field-label"} for={id}>
        {label}
      </label>
      <select id={id} class="select" value={value} onChange={(e) => onChange(e.currentTarget.value)} autoFocus={autoFocus} aria-describedby={hint ? `${id}-hint` : undefined}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {hint && (
        <p class="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** A text input inside its Field: the forms of the auth and profile pages. */
export function TextField({
  id,
  label,
  hint,
  error,
  required,
  value,
  onInput,
  type = "text",
  autocomplete,
  disabled,
  autoFocus,
  name,
}: {
  id: string;
  label: ComponentChildren;
  hint?: ComponentChildren;
  error?: string | null;
  required?: boolean;
  value: string;
  onInput(value: string): void;
  type?: "text" | "email" | "password" | "search" | "url";
  autocomplete?: string;
  disabled?: boolean;
  autoFocus?: boolean;
  name?: string;
}) {
  return (
    <Field id={id} label={label} hint={hint} error={error} required={required}>
      <input
        {...controlProps(id, { error, hint, required })}
        class="input"
        type={type}
        name={name ?? id}
        value={value}
        required={required}
        disabled={disabled}
        autoComplete={autocomplete}
        autoFocus={autoFocus}
        onInput={(e) => onInput((e.currentTarget as HTMLInputElement).value)}
      />
    </Field>
  );
}
