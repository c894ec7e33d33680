// What every edit-view widget receives. A widget renders its own control with `id`; the
// Field wrapper renders the label (for=id), the hint and the error (id `${id}-error`).
import type { Attribute, ContentTypeMeta } from "../meta";

export interface FieldProps {
  id: string;
  /** the attribute's name */
  name: string;
  /** where the value sits in the document: ["seo", "metaTitle"], ["blocks", "0", "body"] */
  path: string[];
  attr: Attribute;
  value: unknown;
  onChange(value: unknown): void;
  /** this field's own error, from the server's validation answer */
  error?: string;
  /** every error of the form by dotted path, for widgets holding nested fields */
  errors: Map<string, string>;
  disabled?: boolean;
  /** the locale being edited (null for a type without locales) */
  locale: string | null;
  /** the content type whose document is edited */
  ct: ContentTypeMeta;
  /** the whole document being edited (the uid widget reads its target field) */
  document: Record<string, unknown>;
}
