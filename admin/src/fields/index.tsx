// The widget of each attribute kind (the `widget` the server names for it). Nested fields
// (inside components and zones) render through the same registry (render.tsx).
import type { FunctionComponent } from "preact";
import type { Widget } from "../meta";
import { BlocksField } from "./blocks";
import { ComponentField } from "./component";
import { MediaField } from "./media";
import { DateField, DateTimeField, TimeField } from "./datetime";
import { JsonField } from "./json";
import { NumberField } from "./number";
import { RelationField } from "./relation";
import { RichTextField } from "./richtext";
import { BooleanField, EnumerationField, PasswordField, StringField, TextField } from "./text";
import type { FieldProps } from "./types";
import { UidField } from "./uid";
import { ZoneField } from "./zone";

export const WIDGETS: Partial<Record<Widget, FunctionComponent<FieldProps>>> = {
  string: StringField,
  email: StringField,
  password: PasswordField,
  text: TextField,
  uid: UidField,
  enumeration: EnumerationField,
  boolean: BooleanField,
  integer: NumberField,
  biginteger: NumberField,
  decimal: NumberField,
  float: NumberField,
  date: DateField,
  datetime: DateTimeField,
  time: TimeField,
  richtext: RichTextField,
  component: ComponentField,
  dynamiczone: ZoneField,
  relation: RelationField,
  media: MediaField,
  blocks: BlocksField,
  json: JsonField,
};

export type { FieldProps } from "./types";
export { FieldRenderer, Fields } from "./render";
