// The edit view's entry: its styles load with the panel, its code (the form and every
// widget) as a separate chunk on first use, so that the first page stays small.
import type { FunctionComponent } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Spinner } from "../../ui/spinner";
import type { EditViewProps } from "./view";
// the lazily loaded widgets' styles ride with the panel's stylesheet (the page links only it)
import "../../styles/relation.css";
import "../../styles/media.css";
import "prosemirror-view/style/prosemirror.css";
import "prosemirror-gapcursor/style/gapcursor.css";
import "../../fields/blocks/blocks.css";
import "../../fields/json/json.css";
import "./edit.css";

let loaded: FunctionComponent<EditViewProps> | null = null;

export function EditPage(props: EditViewProps) {
  const [View, setView] = useState<FunctionComponent<EditViewProps> | null>(() => loaded);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    if (View) return;
    import("./view").then(
      (m) => {
        loaded = m.EditView;
        setView(() => m.EditView);
      },
      (e: unknown) => setFailed(e instanceof Error ? e.message : String(e)),
    );
  }, []);
  if (View) return <View {...props} />;
  return (
    <main id="main" class="page" aria-busy={failed ? undefined : "true"}>
      {failed ? <p role="alert">The editor could not be loaded: {failed}</p> : <Spinner label="Loading the editor" />}
    </main>
  );
}
