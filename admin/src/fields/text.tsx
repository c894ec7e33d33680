// string, email, password and text: an empty control is a null value.
import { useState } from "preact/hooks";
import { controlProps } from "./field";
import type { FieldProps } from "./types";

function text(value: unknown): string {
  return value === null || value === undefined ? "" : String(value);
}

export function StringField(props: FieldProps) {
  const { attr, value, onChange } = props;
  const type = attr.widget === "email" ? "email" : "text";
  return (
    <input
      {...controlProps(props)}
      class="input"
      type={type}
      value={text(value)}
      maxLength={typeof attr.maxLength === "number" ? attr.maxLength : undefined}
      autoComplete="off"
      onInput={(e) => {
        const v = e.currentTarget.value;
        onChange(v === "" ? null : v);
      }}
    />
  );
}

export function TextField(props: FieldProps) {
  const { value, onChange } = props;
  return (
    <textarea
      {...controlProps(props)}
      class="input textarea"
      rows={4}
      value={text(value)}
      onInput={(e) => {
        const v = e.currentTarget.value;
        onChange(v === "" ? null : v);
      }}
    />
  );
}

/** The server never sends a password back: an empty control leaves the stored one as it is. */
export function PasswordField(props: FieldProps) {
  const { value, onChange } = props;
  const [shown, setShown] = useState(false);
  return (
    <div class="input-row">
      <input
        {...controlProps(props)}
        class="input"
        type={shown ? "text" : "password"}
        value={text(value)}
        autoComplete="new-password"
        onInput={(e) => {
          const v = e.currentTarget.value;
          onChange(v === "" ? undefined : v);
        }}
      />
      <button
        type="button"
        class="button button-secondary button-s"
        aria-pressed={shown}
        aria-label={`Show ${props.name}`}
        onClick={() => setShown(!shown)}
      >
        Show
      </button>
    </div>
  );
}

export function EnumerationField(props: FieldProps) {
  const { attr, value, onChange } = props;
  const options = attr.enum ?? [];
  return (
    <select {...controlProps(props)} class="input select" value={value === null || value === undefined ? "" : String(value)} onChange={(e) => {
      const v = e.currentTarget.value;
      onChange(v === "" ? null : v);
    }}>
      <option value="">{attr.required ? "Choose here" : "Not set"}</option>
      {options.map((o) => (
        <option key={o} value={o}>
          {o}
        </option>
      ))}
    </select>
  );
}

/** A checkbox: true, false, or (when the field is not required) not set, shown as mixed. */
export function BooleanField(props: FieldProps) {
  const { attr, value, onChange, disabled } = props;
  const unset = value === null || value === undefined;
  return (
    <div class="input-row boolean">
      <input
        {...controlProps(props)}
        class="checkbox"
        type="checkbox"
        checked={value === true}
        indeterminate={unset}
        onChange={(e) => onChange(e.currentTarget.checked)}
      />
      <span class="boolean-state" aria-hidden="true">
        {unset ? "Not set" : value ? "True" : "False"}
      </span>
      {!attr.required && !unset && (
        <button type="button" class="link-button" disabled={disabled} aria-label={`Clear ${props.name}`} onClick={() => onChange(null)}>
          Clear
        </button>
      )}
    </div>
  );
}
