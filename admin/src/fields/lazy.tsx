// A widget loaded on first use (the big editors: blocks, json): a placeholder until its
// module arrives, then the widget itself.
import type { FunctionComponent } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { FieldProps } from "./types";

export function lazyWidget(load: () => Promise<FunctionComponent<FieldProps>>): FunctionComponent<FieldProps> {
  let loaded: FunctionComponent<FieldProps> | null = null;
  let pending: Promise<FunctionComponent<FieldProps>> | null = null;
  return function LazyWidget(props: FieldProps) {
    const [Widget, setWidget] = useState<FunctionComponent<FieldProps> | null>(() => loaded);
    const [failed, setFailed] = useState<string | null>(null);
    useEffect(() => {
      if (Widget) return;
      pending ??= load();
      pending.then(
        (w) => {
          loaded = w;
          setWidget(() => w);
        },
        (e: unknown) => {
          pending = null;
          setFailed(e instanceof Error ? e.message : String(e));
        },
      );
    }, []);
    if (Widget) return <Widget {...props} />;
    return (
      <p class="muted" id={props.id} role={failed ? "alert" : undefined} aria-busy={failed ? undefined : "true"}>
        {failed ? `The editor could not be loaded: ${failed}` : "Loading the editor…"}
      </p>
    );
  };
}
