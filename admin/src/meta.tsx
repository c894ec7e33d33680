// The app's models as the panel sees them (GET /admin/api/content-manager/init), loaded once
// after sign-in and given to every page through a context.
import { createContext } from "preact";
import { useContext } from "preact/hooks";

export type Widget =
  | "string" | "text" | "email" | "password" | "uid" | "enumeration" | "boolean" | "integer"
  | "biginteger" | "decimal" | "float" | "date" | "datetime" | "time" | "json" | "richtext"
  | "blocks" | "media" | "relation" | "component" | "dynamiczone";

export interface Attribute {
  type: string;
  widget: Widget;
  required?: boolean;
  unique?: boolean;
  private?: boolean;
  min?: number | string;
  max?: number | string;
  minLength?: number;
  maxLength?: number;
  regex?: string;
  enum?: string[];
  default?: unknown;
  targetField?: string;
  relation?: string;
  target?: string;
  targetMainField?: string;
  targetDraftAndPublish?: boolean;
  targetLocalized?: boolean;
  multiple?: boolean;
  allowedTypes?: string[];
  component?: string;
  repeatable?: boolean;
  components?: string[];
  localized?: boolean;
  [key: string]: unknown;
}

export interface ContentTypeMeta {
  uid: string;
  kind: "collectionType" | "singleType";
  displayName: string;
  singularName: string;
  pluralName: string;
  draftAndPublish: boolean;
  localized: boolean;
  mainField: string;
  attributes: Record<string, Attribute>;
}

export interface ComponentMeta {
  uid: string;
  category: string;
  displayName: string;
  attributes: Record<string, Attribute>;
}

export interface LocaleMeta {
  code: string;
  name: string;
  isDefault: boolean;
}

export interface Meta {
  contentTypes: ContentTypeMeta[];
  components: ComponentMeta[];
  locales: LocaleMeta[];
  defaultLocale: string;
}

export const MetaContext = createContext<Meta | null>(null);

export function useMeta(): Meta {
  const meta = useContext(MetaContext);
  if (!meta) throw new Error("the models are not loaded");
  return meta;
}

export function contentType(meta: Meta, uid: string): ContentTypeMeta | undefined {
  return meta.contentTypes.find((ct) => ct.uid === uid);
}

export function component(meta: Meta, uid: string): ComponentMeta | undefined {
  return meta.components.find((c) => c.uid === uid);
}
