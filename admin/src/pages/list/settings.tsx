// The list view's settings for one type: its columns (chosen and ordered, by buttons that
// work from the keyboard), the default sort, the page size and the entries' title field.
// Saved on the server (PUT configuration), per type.
import { useEffect, useRef, useState } from "preact/hooks";
import { describeError } from "../../api";
import { contentType, useMeta, type ContentTypeMeta } from "../../meta";
import { navigate } from "../../router";
import { Button, ErrorState, IconButton, LinkButton, PageHeader, SelectField, Spinner, notify, useDocumentTitle } from "../../ui";
import { CollectionTypeNotFound } from "./index";
import { PAGE_SIZES, fieldOf, listPath, listableFields, loadConfig, mainFieldChoices, saveConfig, type ListConfig } from "./model";

export function ListSettingsPage({ uid }: { uid: string }) {
  const meta = useMeta();
  const ct = contentType(meta, uid);
  useDocumentTitle(ct ? `Configure the view of ${ct.displayName}` : "Configure the view");
  if (!ct || ct.kind !== "collectionType") return <CollectionTypeNotFound uid={uid} />;
  return <Settings ct={ct} />;
}

function Settings({ ct }: { ct: ContentTypeMeta }) {
  const [config, setConfig] = useState<ListConfig | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    setError(null);
    loadConfig(ct.uid)
      .then(setConfig)
      .catch((e: unknown) => setError(describeError(e)));
  }, [ct.uid, attempt]);
  return (
    <main id="main" class="page page-narrow">
      <PageHeader
        back={{ to: listPath(ct.uid), label: `Back to ${ct.displayName}` }}
        title="Configure the view"
        subtitle={`The list of ${ct.displayName}: its columns, default sort and page size.`}
      />
      {error ? <ErrorState message={error} onRetry={() => setAttempt((n) => n + 1)} /> : !config ? <Spinner /> : <SettingsForm ct={ct} initial={config} />}
    </main>
  );
}

const SORT_ORDERS = [
  { value: "ASC", label: "Ascending" },
  { value: "DESC", label: "Descending" },
];
const sizeOptions = PAGE_SIZES.map((n) => ({ value: String(n), label: n }));

function SettingsForm({ ct, initial }: { ct: ContentTypeMeta; initial: ListConfig }) {
  const listable = listableFields(ct);
  const [columns, setColumns] = useState<string[]>(initial.columns);
  const [sortField, setSortField] = useState(initial.sort.split(":")[0]);
  const [sortOrder, setSortOrder] = useState((initial.sort.split(":")[1] ?? "ASC").toUpperCase());
  const [pageSize, setPageSize] = useState(initial.pageSize);
  const [mainField, setMainField] = useState(initial.mainField);
  const [adding, setAdding] = useState("");
  const [announce, setAnnounce] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const refocus = useRef<string | null>(null);

  useEffect(() => {
    if (refocus.current) {
      const el = document.getElementById(refocus.current);
      refocus.current = null;
      el?.focus();
    }
  });

  const available = listable.filter((f) => !columns.includes(f.name));
  const sortable = listable.filter((f) => f.sortable);
  const label = (name: string) => fieldOf(ct, name).label;

  const move = (index: number, by: number) => {
    const to = index + by;
    if (to < 0 || to >= columns.length) return;
    const next = [...columns];
    const [item] = next.splice(index, 1);
    next.splice(to, 0, item);
    setColumns(next);
    // keep focus on the pressed button unless it is now disabled (at an end)
    const edge = (by < 0 && to === 0) || (by > 0 && to === columns.length - 1);
    refocus.current = `col-${item}-${edge ? (by < 0 ? "down" : "up") : by < 0 ? "up" : "down"}`;
    setAnnounce(`${label(item)} moved to position ${to + 1} of ${next.length}`);
  };
  const remove = (index: number) => {
    const name = columns[index];
    const next = columns.filter((_, i) => i !== index);
    setColumns(next);
    const neighbour = next[Math.min(index, next.length - 1)];
    refocus.current = neighbour ? `col-${neighbour}-remove` : "add-column";
    setAnnounce(`${label(name)} removed from the columns`);
  };
  const add = () => {
    const name = adding || available[0]?.name;
    if (!name) return;
    setColumns([...columns, name]);
    setAdding("");
    setAnnounce(`${label(name)} added as column ${columns.length + 1}`);
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (columns.length === 0) {
      setError("Choose at least one column.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await saveConfig(ct.uid, { columns, sort: `${sortField}:${sortOrder}`, pageSize, mainField });
      notify("The view settings were saved");
      navigate(listPath(ct.uid));
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate aria-label="List view settings">
      {error && (
        <div class="form-error" role="alert">
          {error}
        </div>
      )}
      <section class="panel" aria-labelledby="settings-general">
        <h2 class="panel-title" id="settings-general">
          Settings
        </h2>
        <div class="form-grid">
          <SelectField id="settings-page-size" label="Entries per page" value={String(pageSize)} options={sizeOptions} onChange={(v) => setPageSize(Number(v))} />
          <SelectField
            id="settings-sort-field"
            label="Default sort attribute"
            value={sortField}
            options={sortable.map((f) => ({ value: f.name, label: f.label }))}
            onChange={setSortField}
          />
          <SelectField id="settings-sort-order" label="Default sort order" value={sortOrder} options={SORT_ORDERS} onChange={setSortOrder} />
          <SelectField
            id="settings-main-field"
            label="Entry title"
            value={mainField}
            options={mainFieldChoices(ct).map((name) => ({ value: name, label: label(name) }))}
            onChange={setMainField}
            hint="The field that names an entry in lists and relations."
          />
        </div>
      </section>
      <section class="panel" aria-labelledby="settings-columns">
        <h2 class="panel-title" id="settings-columns">
          Columns
        </h2>
        <p class="field-hint">The columns of the list, in order. Move them with the arrow buttons.</p>
        <ol class="column-list" aria-labelledby="settings-columns">
          {columns.map((name, i) => (
            <li key={name} class="column-item">
              <span class="column-pos" aria-hidden="true">
                {i + 1}
              </span>
              <span class="column-name">{label(name)}</span>
              <span class="column-actions">
                <IconButton id={`col-${name}-up`} label={`Move ${label(name)} up`} disabled={i === 0} onClick={() => move(i, -1)}>
                  ↑
                </IconButton>
                <IconButton id={`col-${name}-down`} label={`Move ${label(name)} down`} disabled={i === columns.length - 1} onClick={() => move(i, 1)}>
                  ↓
                </IconButton>
                <IconButton id={`col-${name}-remove`} label={`Remove ${label(name)}`} disabled={columns.length === 1} onClick={() => remove(i)}>
                  ×
                </IconButton>
              </span>
            </li>
          ))}
        </ol>
        {available.length > 0 && (
          <div class="add-column">
            <SelectField id="add-column" label="Add a column" value={adding || available[0].name} options={available.map((f) => ({ value: f.name, label: f.label }))} onChange={setAdding} />
            <Button variant="secondary" onClick={add}>
              Add
            </Button>
          </div>
        )}
        <p class="sr-only" aria-live="polite">
          {announce}
        </p>
      </section>
      <div class="form-actions">
        <LinkButton to={listPath(ct.uid)} variant="tertiary">
          Cancel
        </LinkButton>
        <Button type="submit" loading={busy}>
          Save
        </Button>
      </div>
    </form>
  );
}
