// The JSON widget: a code editor (CodeMirror, ./json/editor.tsx) loaded on first use, which
// shows where the text stops being JSON. While it does, the field holds an InvalidJson
// marker (./json-marker.ts) that the form refuses to save.
import "./json/json.css";
import { lazyWidget } from "./lazy";

export const JsonField = lazyWidget(() => import("./json/editor").then((m) => m.JsonEditor));
export { findInvalidJson, isInvalidJson, type InvalidJson } from "./json-marker";
