// The edit view of a document (collection type: create or edit; single type): the form's
// values as one state object, dirty when they differ from the last saved state (with a guard
// on leaving), the actions of Draft & Publish, the locale versions, and the server's
// validation errors beside their fields with a summary on top.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, ApiError, describeError } from "../../api";
import { contentType, useMeta, type ContentTypeMeta, type Meta } from "../../meta";
import { addBlocker, href, navigate } from "../../router";
import { Button, ConfirmDialog, ErrorState, PageHeader, Spinner, StatusBadge, notify, useDocumentTitle } from "../../ui";
import { formatDateTime } from "../../ui/format";
import { Fields } from "../../fields/render";
import { findInvalidJson, isInvalidJson } from "../../fields/json-marker";
import { deepEqual, FormContext, setIn, type FormApi } from "../../fields/form";
import { emptyValues, fillFrom, graftIds, newLocaleValues, normalizeValues, writeValues, type Values } from "./data";
import { ErrorSummary } from "./summary";
import { LocalePanel, type LocaleVersion } from "./locales";

export interface EditViewProps {
  uid: string;
  documentId: string | null;
  single?: boolean;
  search: URLSearchParams;
}

type Status = "draft" | "published" | "modified";

interface DocState {
  /** the document's id (null while it is not created) */
  documentId: string | null;
  /** whether this locale's version exists */
  exists: boolean;
  status: Status | null;
  updatedAt: string | null;
  locales: LocaleVersion[];
}

interface ReadAnswer {
  data: Values;
  meta?: { availableLocales?: LocaleVersion[] };
}

/** Every locale version of a read document: the others the server lists, and its own. */
function versionsOf(res: ReadAnswer): LocaleVersion[] {
  const list = (res.meta?.availableLocales ?? []).slice();
  const own = res.data.locale;
  if (typeof own === "string" && !list.some((l) => l.locale === own)) {
    list.push({
      locale: own,
      documentId: res.data.documentId as string | undefined,
      status: (res.data.status as string | undefined) ?? null,
      updatedAt: (res.data.updatedAt as string | undefined) ?? null,
    });
  }
  return list;
}

type Confirm = null | "discard" | "delete" | "unpublish";

const NO_ERRORS: Map<string, string> = new Map();

/** A document just created, handed to the view its new address mounts (no second read). */
let handoff: { uid: string; documentId: string; locale: string | null; data: Values; previous: Values } | null = null;

export function EditView(props: EditViewProps) {
  const meta = useMeta();
  const ct = contentType(meta, props.uid);
  if (!ct) {
    return (
      <main id="main" class="page">
        <h1>Content type not found</h1>
        <p>No content type is named {props.uid}.</p>
      </main>
    );
  }
  return <Editor {...props} ct={ct} meta={meta} />;
}

function base(ct: ContentTypeMeta, single: boolean | undefined): string {
  return single ? `/content-manager/single-types/${ct.uid}` : `/content-manager/collection-types/${ct.uid}`;
}

function Editor({ ct, meta, documentId: routeId, single, search }: EditViewProps & { ct: ContentTypeMeta; meta: Meta }) {
  const locale = ct.localized ? search.get("locale") || meta.defaultLocale : null;
  const creating = !single && routeId === null;
  // a document just created arrives with its address: shown at once, not read again
  const [given] = useState(() => {
    const g = handoff;
    if (g && g.uid === ct.uid && g.documentId === routeId && g.locale === locale) {
      handoff = null;
      return { values: normalizeValues(meta, ct.attributes, g.data, g.previous), data: g.data };
    }
    return null;
  });
  const skipRead = useRef(given !== null);
  const [phase, setPhase] = useState<{ kind: "loading" } | { kind: "failed"; message: string } | { kind: "ready" }>(given ? { kind: "ready" } : { kind: "loading" });
  const [values, setValues] = useState<Values>(given?.values ?? {});
  const [saved, setSaved] = useState<Values>(given?.values ?? {});
  const [doc, setDoc] = useState<DocState>(() => {
    if (!given) return { documentId: routeId, exists: false, status: null, updatedAt: null, locales: [] };
    const status = (given.data.status as Status | undefined) ?? null;
    const updatedAt = (given.data.updatedAt as string | undefined) ?? null;
    return { documentId: routeId, exists: true, status, updatedAt, locales: locale ? [{ locale, documentId: routeId ?? undefined, status, updatedAt }] : [] };
  });
  const [errors, setErrors] = useState<Map<string, string>>(NO_ERRORS);
  const [busy, setBusy] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<Confirm>(null);
  const [deleteAll, setDeleteAll] = useState(false);
  const [loadCount, setLoadCount] = useState(0);
  const summaryRef = useRef<HTMLDivElement>(null);
  const [focusSummary, setFocusSummary] = useState(0);

  // the values as a live object for widgets that read other fields (the uid's target)
  const valuesRef = useRef(values);
  valuesRef.current = values;
  const live = useMemo(
    () =>
      new Proxy({} as Values, {
        get: (_t, k) => (typeof k === "string" ? valuesRef.current[k] : undefined),
        has: (_t, k) => typeof k === "string" && k in valuesRef.current,
        ownKeys: () => Reflect.ownKeys(valuesRef.current),
        getOwnPropertyDescriptor: (_t, k) => {
          const d = Reflect.getOwnPropertyDescriptor(valuesRef.current, k);
          return d ? { ...d, configurable: true } : undefined;
        },
      }),
    [],
  );
  const form = useMemo<FormApi>(() => ({ update: (path, v) => setValues((prev) => setIn(prev, path, v) as Values) }), []);

  const dirty = phase.kind === "ready" && !deepEqual(values, saved);
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;

  // the unsaved-changes guard: navigations inside the panel ask, leaving the page warns
  useEffect(() => {
    const remove = addBlocker(() => !dirtyRef.current || window.confirm("You have unsaved changes. Leave this page and lose them?"));
    const beforeUnload = (e: BeforeUnloadEvent) => {
      if (!dirtyRef.current) return;
      e.preventDefault();
      e.returnValue = "";
    };
    window.addEventListener("beforeunload", beforeUnload);
    return () => {
      remove();
      window.removeEventListener("beforeunload", beforeUnload);
    };
  }, []);

  const path = base(ct, single);
  const docPath = single ? path : `${path}/${doc.documentId ?? routeId}`;
  const title = single
    ? ct.displayName
    : (values[ct.mainField] as string | null | undefined) || (doc.exists ? "Untitled" : creating ? "Create an entry" : ct.displayName);
  useDocumentTitle(single ? title : `${title} · ${ct.displayName}`);

  /** Shows a document read from the server (after a read or a write). `sent`: the values a
   * write sent; what was typed since it left is kept (and stays unsaved). */
  const show = (data: Values, locales: LocaleVersion[] | null, previous: Values | null, sent = false) => {
    const v = normalizeValues(meta, ct.attributes, data, previous);
    setValues((current) => (sent && previous && current !== previous ? (graftIds(current, v) as Values) : v));
    setSaved(v);
    setErrors(NO_ERRORS);
    setDoc((d) => {
      const status = (data.status as Status | undefined) ?? null;
      const updatedAt = (data.updatedAt as string | undefined) ?? null;
      let list = locales ?? d.locales;
      if (locale && !locales) {
        const mine = { locale, documentId: String(data.documentId ?? d.documentId), status, updatedAt } as LocaleVersion;
        list = list.some((l) => l.locale === locale) ? list.map((l) => (l.locale === locale ? mine : l)) : [...list, mine];
      }
      return { documentId: (data.documentId as string | undefined) ?? d.documentId, exists: true, status, updatedAt, locales: list };
    });
  };

  // reading the document (again when the locale changes)
  useEffect(() => {
    if (skipRead.current) {
      skipRead.current = false;
      return;
    }
    let alive = true;
    setPhase({ kind: "loading" });
    setConfirm(null);
    const read = (loc: string | null) => api.get<ReadAnswer>(single ? path : `${path}/${routeId}`, loc ? { locale: loc } : undefined);
    const missing = (e: unknown) => e instanceof ApiError && e.status === 404;
    (async () => {
      if (creating) {
        const v = normalizeValues(meta, ct.attributes, emptyValues(meta, ct));
        setValues(v);
        setSaved(v);
        setDoc({ documentId: null, exists: false, status: null, updatedAt: null, locales: [] });
        setPhase({ kind: "ready" });
        return;
      }
      try {
        const res = await read(locale);
        if (!alive) return;
        show(res.data, versionsOf(res), null);
        setPhase({ kind: "ready" });
      } catch (e) {
        if (!alive) return;
        if (!missing(e)) {
          setPhase({ kind: "failed", message: describeError(e) });
          return;
        }
        // this locale's version does not exist: find another one for the shared fields
        let other: ReadAnswer | null = null;
        if (ct.localized) {
          for (const l of meta.locales) {
            if (l.code === locale) continue;
            try {
              other = await read(l.code);
              break;
            } catch (e2) {
              if (!missing(e2)) break;
            }
          }
        }
        if (!alive) return;
        if (!other && !single) {
          setPhase({ kind: "failed", message: "This document does not exist (it may have been deleted)." });
          return;
        }
        const v = normalizeValues(meta, ct.attributes, newLocaleValues(meta, ct, other?.data ?? null));
        setValues(v);
        setSaved(v);
        setErrors(NO_ERRORS);
        setDoc({
          documentId: (other?.data.documentId as string | undefined) ?? routeId,
          exists: false,
          status: null,
          updatedAt: null,
          locales: other ? versionsOf(other) : [],
        });
        setPhase({ kind: "ready" });
      }
    })();
    return () => {
      alive = false;
    };
  }, [locale, loadCount]);

  useEffect(() => {
    if (focusSummary) summaryRef.current?.focus();
  }, [focusSummary]);

  const failed = (e: unknown, what: string) => {
    if (e instanceof ApiError && e.name === "ValidationError") {
      const found = e.fieldErrors();
      const general = found.get("");
      found.delete("");
      if (found.size > 0) {
        setErrors(found);
        setFocusSummary((n) => n + 1);
        if (general) notify(general, "error");
        return;
      }
    }
    notify(`${what}: ${describeError(e)}`, "error");
  };

  const params = locale ? { locale } : undefined;

  /** Saves the draft (creating the document or this locale's version); the document read. */
  const write = async (): Promise<Values> => {
    const data = writeValues(meta, ct.attributes, values);
    if (single) return (await api.put<{ data: Values }>(path, { data }, params)).data;
    if (doc.documentId) return (await api.put<{ data: Values }>(`${path}/${doc.documentId}`, { data }, params)).data;
    return (await api.post<{ data: Values }>(path, { data }, params)).data;
  };

  const afterCreate = (data: Values) => {
    if (creating && data.documentId) {
      handoff = { uid: ct.uid, documentId: String(data.documentId), locale, data, previous: valuesRef.current };
      navigate(href(`${path}/${String(data.documentId)}`, { locale }), { replace: true, force: true });
      return true;
    }
    return false;
  };

  /** A JSON field whose text is not JSON stops a write: its error is shown instead. */
  const invalid = (): boolean => {
    const at = findInvalidJson(values);
    if (!at) return false;
    let v: unknown = values;
    for (const p of at) v = (v as Record<string, unknown>)[p];
    const message = isInvalidJson(v) ? `Not valid JSON: ${v.message}` : "Not valid JSON";
    setErrors(new Map([[at.join("."), message]]));
    setFocusSummary((n) => n + 1);
    return true;
  };

  const run = async (name: string, action: () => Promise<void>) => {
    if (busy || invalid()) return;
    setBusy(name);
    try {
      await action();
    } finally {
      setBusy(null);
    }
  };

  const save = () =>
    run("save", async () => {
      try {
        const data = await write();
        notify(doc.exists ? "Saved" : "Created");
        show(data, null, values, true);
        afterCreate(data);
      } catch (e) {
        failed(e, "The document could not be saved");
      }
    });

  const publish = () =>
    run("publish", async () => {
      try {
        let data: Values;
        if (!single && !doc.documentId) {
          const created = await write();
          data = (await api.post<{ data: Values }>(`${path}/${String(created.documentId)}/actions/publish`, {}, params)).data;
        } else {
          const body = { data: writeValues(meta, ct.attributes, values) };
          data = (await api.post<{ data: Values }>(`${docPath}/actions/publish`, body, params)).data;
        }
        notify("Published");
        show(data, null, values, true);
        afterCreate(data);
      } catch (e) {
        failed(e, "The document could not be published");
      }
    });

  const unpublish = async () => {
    try {
      const data = (await api.post<{ data: Values }>(`${docPath}/actions/unpublish`, {}, params)).data;
      notify("Unpublished");
      show(data, null, values);
    } catch (e) {
      notify(`The document could not be unpublished: ${describeError(e)}`, "error");
    }
  };

  const discard = async () => {
    try {
      const data = (await api.post<{ data: Values }>(`${docPath}/actions/discard`, {}, params)).data;
      notify("Changes discarded");
      show(data, null, null);
    } catch (e) {
      notify(`The changes could not be discarded: ${describeError(e)}`, "error");
    }
  };

  const remove = async () => {
    try {
      await api.del(docPath, locale ? { locale: deleteAll ? "*" : locale } : undefined);
      notify(deleteAll ? "Deleted in every locale" : "Deleted");
      setSaved(values); // nothing left to guard
      dirtyRef.current = false;
      if (single) setLoadCount((n) => n + 1);
      else navigate(href(path, { locale }), { force: true });
    } catch (e) {
      notify(`The document could not be deleted: ${describeError(e)}`, "error");
    }
  };

  const fill = async (from: string) => {
    try {
      const res = await api.get<ReadAnswer>(single ? path : `${path}/${doc.documentId}`, { locale: from });
      const source = normalizeValues(meta, ct.attributes, res.data);
      setValues((v) => fillFrom(meta, ct, v, source));
      notify(`Filled in from ${meta.locales.find((l) => l.code === from)?.name ?? from}`, "info");
    } catch (e) {
      notify(`That locale could not be read: ${describeError(e)}`, "error");
    }
  };

  const switchLocale = (code: string) => {
    navigate(single ? href(path, { locale: code }) : href(doc.documentId ? `${path}/${doc.documentId}` : `${path}/create`, { locale: code }));
  };

  if (phase.kind === "loading") {
    return (
      <main id="main" class="page" aria-busy="true">
        <Spinner label="Loading the document" />
      </main>
    );
  }
  if (phase.kind === "failed") {
    return (
      <main id="main" class="page">
        <PageHeader title={ct.displayName} back={single ? undefined : { to: href(path, { locale }), label: "Back to the list" }} />
        <ErrorState message={phase.message} onRetry={() => setLoadCount((n) => n + 1)} />
      </main>
    );
  }

  const dp = ct.draftAndPublish;
  const status: Status | null = doc.exists ? doc.status ?? (dp ? "draft" : null) : null;
  const canPublish = dp && (dirty || status !== "published");
  const localeName = locale ? meta.locales.find((l) => l.code === locale)?.name ?? locale : null;

  return (
    <main id="main" class="page edit-page">
      <PageHeader
        title={title}
        back={single ? undefined : { to: href(path, { locale }), label: `Back to ${ct.displayName}` }}
        titleExtra={
          <span class="edit-badges">
            {dp && status && <StatusBadge status={status} prefix />}
            {dp && !status && <span class="badge badge-neutral">Not created yet</span>}
            {dirty && (
              <span class="badge badge-warning" role="status">
                Unsaved changes
              </span>
            )}
          </span>
        }
        subtitle={
          <>
            {ct.displayName}
            {localeName && ` · ${localeName}`}
            {doc.updatedAt && ` · last saved ${formatDateTime(doc.updatedAt)}`}
          </>
        }
        actions={
          <div class="edit-actions" role="group" aria-label="Document actions">
            <Button variant={dp ? "secondary" : "primary"} loading={busy === "save"} disabled={!!busy || (doc.exists && !dirty)} onClick={() => void save()}>
              Save
            </Button>
            {dp && (
              <Button loading={busy === "publish"} disabled={!!busy || !canPublish} onClick={() => void publish()}>
                Publish
              </Button>
            )}
            {dp && (status === "published" || status === "modified") && (
              <Button variant="secondary" disabled={!!busy} onClick={() => setConfirm("unpublish")}>
                Unpublish
              </Button>
            )}
            {dp && status === "modified" && (
              <Button variant="secondary" disabled={!!busy} onClick={() => setConfirm("discard")}>
                Discard changes
              </Button>
            )}
            {doc.exists && (
              <Button variant="danger" disabled={!!busy} onClick={() => (setDeleteAll(false), setConfirm("delete"))}>
                Delete
              </Button>
            )}
          </div>
        }
      />
      <ErrorSummary innerRef={summaryRef} errors={errors} />
      <div class="edit-layout">
        <form
          class="edit-form"
          aria-label={`${ct.displayName} fields`}
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
          }}
          onKeyDown={(e) => {
            if ((e.ctrlKey || e.metaKey) && e.key === "s") {
              e.preventDefault();
              void save();
            }
          }}
        >
          <FormContext.Provider value={form}>
            <Fields attributes={ct.attributes} base={[]} values={values} errors={errors} locale={locale} ct={ct} document={live} />
          </FormContext.Provider>
        </form>
        <aside class="edit-aside" aria-label="Document information">
          {ct.localized && locale && (
            <LocalePanel
              meta={meta}
              locale={locale}
              versions={doc.locales}
              exists={doc.exists}
              status={status}
              canFill={!!doc.documentId || single === true}
              onSwitch={switchLocale}
              onFill={(from) => void fill(from)}
            />
          )}
          <section class="panel edit-info" aria-labelledby="edit-info-title">
            <h2 class="panel-title" id="edit-info-title">
              Information
            </h2>
            <dl>
              {dp && (
                <>
                  <dt>Status</dt>
                  <dd>{status ? <StatusBadge status={status} /> : "Not created yet"}</dd>
                </>
              )}
              <dt>Last update</dt>
              <dd>{doc.updatedAt ? formatDateTime(doc.updatedAt) : "—"}</dd>
              {doc.documentId && (
                <>
                  <dt>Document id</dt>
                  <dd>
                    <code>{doc.documentId}</code>
                  </dd>
                </>
              )}
            </dl>
          </section>
        </aside>
      </div>
      {confirm === "discard" && (
        <ConfirmDialog
          title="Discard changes"
          message="The draft goes back to the published version. The changes made since it was published are lost."
          confirmLabel="Discard changes"
          danger
          onConfirm={discard}
          onClose={() => setConfirm(null)}
        />
      )}
      {confirm === "unpublish" && (
        <ConfirmDialog
          title="Unpublish"
          message={dirty ? "The document is unpublished; your unsaved changes are lost." : "The document is no longer published; its draft stays."}
          confirmLabel="Unpublish"
          onConfirm={unpublish}
          onClose={() => setConfirm(null)}
        />
      )}
      {confirm === "delete" && (
        <ConfirmDialog
          title="Delete"
          message={ct.localized ? "Delete this document? Choose which versions go." : "Delete this document? This cannot be undone."}
          confirmLabel="Delete"
          danger
          onConfirm={remove}
          onClose={() => setConfirm(null)}
        >
          {ct.localized && (
            <fieldset class="delete-choice">
              <legend>Versions to delete</legend>
              <label>
                <input type="radio" name="delete-scope" checked={!deleteAll} onChange={() => setDeleteAll(false)} /> This locale only ({localeName})
              </label>
              <label>
                <input type="radio" name="delete-scope" checked={deleteAll} onChange={() => setDeleteAll(true)} /> Every locale
              </label>
            </fieldset>
          )}
        </ConfirmDialog>
      )}
    </main>
  );
}

