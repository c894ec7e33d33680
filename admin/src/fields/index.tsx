// The widget of each attribute kind (the `widget` the server names for it).
import type { FunctionComponent } from "preact";
import type { Widget } from "../meta";
import type { FieldProps } from "./types";

export const WIDGETS: Partial<Record<Widget, FunctionComponent<FieldProps>>> = {};
