// The frame of one field: its label, the rules it must follow as a hint, the server's error
// beside it, and "shared across locales" for a localized type's non-localized fields.
import type { ComponentChildren } from "preact";
import type { Attribute, ContentTypeMeta } from "../meta";
import { Field } from "../ui/field";
import type { FieldProps } from "./types";

/** The widths of the edit grid: wide widgets take the whole row. */
const WIDE = new Set(["text", "richtext", "blocks", "json", "component", "dynamiczone"]);

export function isWide(attr: Attribute): boolean {
  return WIDE.has(attr.widget) || (attr.widget === "media" && attr.multiple === true);
}

/** Widgets holding several controls: framed as a labelled group rather than a <label>. */
export function isGroup(attr: Attribute): boolean {
  return attr.widget === "component" || attr.widget === "dynamiczone";
}

function plural(n: number | string, word: string): string {
  return `${n} ${word}${Number(n) === 1 ? "" : "s"}`;
}

/** The rules a value must follow, in words (required is shown by the label's mark). */
export function rulesOf(attr: Attribute): string[] {
  const rules: string[] = [];
  const { min, max, minLength, maxLength } = attr;
  const numeric = ["integer", "biginteger", "decimal", "float"].includes(attr.widget);
  const counted = attr.widget === "component" || attr.widget === "dynamiczone" || attr.widget === "media" || attr.widget === "relation";
  if (numeric) {
    if (min !== undefined && max !== undefined) rules.push(`Between ${min} and ${max}`);
    else if (min !== undefined) rules.push(`At least ${min}`);
    else if (max !== undefined) rules.push(`At most ${max}`);
  } else if (counted) {
    if (min !== undefined && max !== undefined) rules.push(`Between ${min} and ${plural(max, "entry").replace("entrys", "entries")}`);
    else if (min !== undefined) rules.push(`At least ${plural(min, "entry").replace("entrys", "entries")}`);
    else if (max !== undefined) rules.push(`At most ${plural(max, "entry").replace("entrys", "entries")}`);
  }
  if (minLength !== undefined && maxLength !== undefined) rules.push(`Between ${minLength} and ${maxLength} characters`);
  else if (minLength !== undefined) rules.push(`At least ${plural(minLength, "character")}`);
  else if (maxLength !== undefined) rules.push(`At most ${plural(maxLength, "character")}`);
  if (attr.regex) rules.push(`Must match ${attr.regex}`);
  if (attr.unique) rules.push("Unique");
  if (attr.widget === "uid") rules.push("Letters, digits and - _ . ~ only");
  return rules;
}

/** Whether a field is shared by every locale of the document (shown at the top level only). */
export function isShared(ct: ContentTypeMeta, path: string[], attr: Attribute): boolean {
  return ct.localized && path.length === 1 && attr.localized === false;
}

export function hintOf(attr: Attribute, ct: ContentTypeMeta, path: string[]): string | null {
  const parts = rulesOf(attr);
  if (isShared(ct, path, attr)) parts.unshift("Shared across locales");
  return parts.length ? parts.join(" · ") : null;
}

/** The aria attributes of a widget's main control, matching its Field wrapper. */
export function controlProps(props: FieldProps) {
  const hint = hintOf(props.attr, props.ct, props.path);
  const described = [hint ? `${props.id}-hint` : "", props.error ? `${props.id}-error` : ""].filter(Boolean).join(" ");
  return {
    id: props.id,
    name: props.path.join("."),
    disabled: props.disabled,
    "aria-invalid": props.error ? (true as const) : undefined,
    "aria-required": props.attr.required ? (true as const) : undefined,
    "aria-describedby": described || undefined,
  };
}

export interface FieldFrameProps {
  id: string;
  label: string;
  attr: Attribute;
  hint: string | null;
  error?: string;
  shared?: boolean;
  children: ComponentChildren;
}

/** The shared Field wrapper (ui/field.tsx) with the edit grid's width and the shared badge. */
export function FieldFrame({ id, label, attr, hint, error, shared, children }: FieldFrameProps) {
  return (
    <Field
      id={id}
      label={label}
      hint={hint}
      error={error}
      required={attr.required}
      group={isGroup(attr)}
      class={`edit-field${isWide(attr) ? " field-wide" : ""}`}
      labelExtra={
        shared ? (
          <span class="shared-mark" title="Shared across locales">
            <span aria-hidden="true">⇄ </span>shared
          </span>
        ) : undefined
      }
    >
      {children}
    </Field>
  );
}
