// The locale versions of a document: a switcher showing each locale's status, and for a
// locale without a version yet, the choice to start it empty or filled from another locale.
import { useState } from "preact/hooks";
import type { Meta } from "../../meta";
import { statusText } from "../../ui/badge";
import { Button } from "../../ui/button";
import { Dialog } from "../../ui/dialog";

export interface LocaleVersion {
  locale: string;
  documentId?: string;
  status?: string | null;
  updatedAt?: string | null;
}

export function LocalePanel({
  meta,
  locale,
  versions,
  exists,
  status,
  canFill,
  onSwitch,
  onFill,
}: {
  meta: Meta;
  locale: string;
  versions: LocaleVersion[];
  exists: boolean;
  /** the status of the version shown */
  status: string | null;
  canFill: boolean;
  onSwitch(code: string): void;
  onFill(from: string): void;
}) {
  const byCode = new Map(versions.map((v) => [v.locale, v]));
  const others = meta.locales.filter((l) => l.code !== locale && byCode.has(l.code));
  const [from, setFrom] = useState(others[0]?.code ?? "");
  const [asking, setAsking] = useState(false);
  const describe = (code: string) => {
    const v = byCode.get(code);
    if (code === locale) return exists ? (status ? statusText(status).toLowerCase() : "created") : "not created yet";
    if (!v) return "not created yet";
    return v.status ? statusText(v.status).toLowerCase() : "created";
  };
  return (
    <section class="panel locale-panel">
      <h2 class="panel-title">Internationalization</h2>
      <label class="field-label" for="edit-locale">
        Locale
      </label>
      <select
        id="edit-locale"
        class="input select"
        value={locale}
        onChange={(e) => {
          const el = e.currentTarget;
          onSwitch(el.value);
          // a navigation refused by the unsaved-changes guard leaves the locale as it was
          requestAnimationFrame(() => {
            if (el.isConnected) el.value = new URLSearchParams(window.location.search).get("locale") ?? locale;
          });
        }}
      >
        {meta.locales.map((l) => (
          <option key={l.code} value={l.code}>
            {l.name} — {describe(l.code)}
          </option>
        ))}
      </select>
      {!exists && (
        <div class="locale-missing">
          <p>
            This document has no {meta.locales.find((l) => l.code === locale)?.name ?? locale} version yet: fill in the fields and save to create it
            {canFill && others.length > 0 ? ", or start from another locale's content." : "."}
          </p>
          {canFill && others.length > 0 && (
            <Button variant="secondary" size="s" onClick={() => {
                if (!others.some((l) => l.code === from)) setFrom(others[0].code);
                setAsking(true);
              }}>
              Fill in from another locale
            </Button>
          )}
        </div>
      )}
      {asking && (
        <Dialog
          title="Fill in from another locale"
          size="s"
          onClose={() => setAsking(false)}
          description="The localized fields take the content of the locale you choose; the shared fields stay as they are."
          footer={
            <>
              <Button variant="tertiary" onClick={() => setAsking(false)}>
                Cancel
              </Button>
              <Button
                disabled={!from}
                onClick={() => {
                  setAsking(false);
                  onFill(from);
                }}
              >
                Fill in
              </Button>
            </>
          }
        >
          <label class="field-label" for="fill-from">
            Copy from
          </label>
          <select id="fill-from" class="input select" value={from} onChange={(e) => setFrom(e.currentTarget.value)}>
            {others.map((l) => (
              <option key={l.code} value={l.code}>
                {l.name} — {describe(l.code)}
              </option>
            ))}
          </select>
        </Dialog>
      )}
    </section>
  );
}
