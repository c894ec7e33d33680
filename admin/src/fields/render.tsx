// FieldRenderer: one attribute of the form, its widget from the registry framed by Field.
// Memoized: a keystroke re-renders the field it changes (and the containers along its path),
// not its neighbours. `Fields` lays out the attributes of a component entry the same way.
import { useMemo } from "preact/hooks";
import type { Attribute, ContentTypeMeta } from "../meta";
import { FieldFrame, hintOf, isGroup, isShared } from "./field";
import { useForm } from "./form";
import { memo } from "./memo";
import { WIDGETS } from "./index";
import type { FieldProps } from "./types";

export interface RenderProps {
  name: string;
  path: string[];
  attr: Attribute;
  value: unknown;
  errors: Map<string, string>;
  disabled?: boolean;
  locale: string | null;
  ct: ContentTypeMeta;
  document: Record<string, unknown>;
  /** another value this field depends on (a uid's target field): re-renders it when it changes */
  watch?: unknown;
}

export function fieldId(path: string[]): string {
  return `field-${path.join("-").replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

/** The error of a field: its own, or (for a widget without nested fields) the first one
 * inside its value, such as "content.0.children" for a blocks field. */
export function errorAt(errors: Map<string, string>, key: string, nested: boolean): string | undefined {
  const own = errors.get(key);
  if (own !== undefined || nested || errors.size === 0) return own;
  const prefix = `${key}.`;
  for (const [k, v] of errors) if (k.startsWith(prefix)) return v;
  return undefined;
}

function Unsupported(props: FieldProps) {
  return (
    <p class="muted" id={props.id}>
      This field ({props.attr.widget}) cannot be edited here yet.
    </p>
  );
}

function FieldRendererImpl(props: RenderProps) {
  const { name, path, attr, value, errors, disabled, locale, ct, document } = props;
  const form = useForm();
  const key = path.join(".");
  const onChange = useMemo(() => (v: unknown) => form.update(path, v), [key, form]);
  const id = fieldId(path);
  const group = isGroup(attr);
  const error = errorAt(errors, key, group);
  const Widget = WIDGETS[attr.widget] ?? Unsupported;
  return (
    <FieldFrame id={id} label={name} attr={attr} hint={hintOf(attr, ct, path)} error={error} shared={isShared(ct, path, attr)}>
      <Widget
        id={id}
        name={name}
        path={path}
        attr={attr}
        value={value}
        onChange={onChange}
        error={error}
        errors={errors}
        disabled={disabled}
        locale={locale}
        ct={ct}
        document={document}
      />
    </FieldFrame>
  );
}

export const FieldRenderer = memo(FieldRendererImpl);

export interface FieldsProps {
  attributes: Record<string, Attribute>;
  /** the path of the object holding these attributes ([] for the document) */
  base: string[];
  values: Record<string, unknown>;
  errors: Map<string, string>;
  disabled?: boolean;
  locale: string | null;
  ct: ContentTypeMeta;
  document: Record<string, unknown>;
}

/** The attributes of an object (the document, a component entry) in the edit grid. */
export function Fields({ attributes, base, values, errors, disabled, locale, ct, document }: FieldsProps) {
  return (
    <div class="field-grid">
      {Object.entries(attributes).map(([name, attr]) => (
        <FieldRenderer
          key={name}
          name={name}
          path={[...base, name]}
          attr={attr}
          value={values[name]}
          errors={errors}
          disabled={disabled}
          locale={locale}
          ct={ct}
          document={document}
          watch={attr.widget === "uid" && attr.targetField ? values[attr.targetField] : undefined}
        />
      ))}
    </div>
  );
}
