// What every edit-view widget receives. A widget renders its own control with `id`; the
// Field wrapper (fields/field.tsx) renders the label (for=id), the hint (id `${id}-hint`) and
// the error (id `${id}-error`); `controlProps(props)` gives a widget's control the matching
// aria attributes.
import type { Attribute, ContentTypeMeta } from "../meta";

export interface FieldProps {
  id: string;
  /** the attribute's name */
  name: string;
  /** where the value sits in the document: ["seo", "metaTitle"], ["blocks", "0", "body"] */
  path: string[];
  attr: Attribute;
  value: unknown;
  /** replaces the field's value (the form keeps one state object; only this field re-renders) */
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
  /** A live view of the whole form's values (the uid widget reads its target field). It always
   * reads the current values, but a widget is not re-rendered when another field changes:
   * read it in event handlers and effects. */
  document: Record<string, unknown>;
}
