// The blocks widget: the editor itself (ProseMirror, ./editor.tsx) is a chunk of its own,
// loaded when a blocks field is first shown; its styles are small and ship with the panel's.
import "prosemirror-view/style/prosemirror.css";
import "prosemirror-gapcursor/style/gapcursor.css";
import "./blocks.css";
import { lazyWidget } from "../lazy";

export const BlocksField = lazyWidget(() => import("./editor").then((m) => m.BlocksEditor));
