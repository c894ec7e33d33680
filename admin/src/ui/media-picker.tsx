// The media picker: a dialog to choose files from the library (search, filter by type,
// sort, pages; one file or several) or to upload new ones, which are then chosen.
import type { JSX } from "preact";
import { useEffect, useId, useState } from "preact/hooks";
import { acceptFor, allowedKinds, allowedMime, fileSummary, KIND_LABELS, kindOf, SORTS, uploadFiles, type FileObject, type Kind } from "../pages/media/files";
import { FileThumb, KindSelect, LoadError, Modal, notifyUploads, Pager, SearchControl, SortSelect, takeFiles, useFiles } from "../pages/media/ui";
import { notify } from "./notify";

export interface MediaPickerProps {
  /** several files may be chosen */
  multiple: boolean;
  /** the field's allowedTypes (images, videos, audios, files); none: any */
  allowedTypes?: string[] | null;
  /** what the dialog is for, e.g. the field's name */
  title?: string;
  onClose(): void;
  /** ids of the files the field holds already (shown as such, not chosen again) */
  taken?: number[];
  /** the chosen files, in the order they were chosen */
  onSelect(files: FileObject[]): void;
}

const PAGE_SIZE = 12;

export function MediaPicker({ multiple, allowedTypes, title, taken = [], onClose, onSelect }: MediaPickerProps) {
  const kinds = allowedKinds(allowedTypes);
  const [q, setQ] = useState("");
  const [query, setQuery] = useState("");
  const [kind, setKind] = useState<Kind | "">("");
  const [sort, setSort] = useState(SORTS[0].value);
  const [page, setPage] = useState(1);
  const [chosen, setChosen] = useState<FileObject[]>([]);
  const [uploading, setUploading] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const searchId = useId();
  const kindId = useId();
  const sortId = useId();
  const uploadId = useId();
  const statusId = useId();

  // the search is sent once typing pauses
  useEffect(() => {
    const t = setTimeout(() => {
      setQuery(q.trim());
      setPage(1);
    }, 250);
    return () => clearTimeout(t);
  }, [q]);

  const { list, error, loading } = useFiles({ page, pageSize: PAGE_SIZE, sort, q: query, kinds: kind ? [kind] : kinds }, reload);

  const isChosen = (f: FileObject) => chosen.some((c) => c.id === f.id);
  const toggle = (f: FileObject) => {
    if (!multiple) {
      setChosen([f]);
      return;
    }
    setChosen((c) => (c.some((x) => x.id === f.id) ? c.filter((x) => x.id !== f.id) : [...c, f]));
  };

  const upload = async (files: File[]) => {
    const refused = files.filter((f) => !allowedMime(f.type || "application/octet-stream", allowedTypes));
    const accepted = files.filter((f) => !refused.includes(f));
    for (const f of refused) notify(`${f.name}: this field does not accept ${KIND_LABELS[kindOf(f.type)].toLowerCase()}.`, "error");
    if (accepted.length === 0) return;
    const outcome = await uploadFiles(accepted, (done, total) => setUploading(`Uploading ${Math.min(done + 1, total)} of ${total}…`));
    setUploading(null);
    notifyUploads(outcome);
    if (outcome.uploaded.length) {
      setChosen((c) => (multiple ? [...c, ...outcome.uploaded.filter((u) => !c.some((x) => x.id === u.id))] : [outcome.uploaded[0]]));
      setPage(1);
      setReload((r) => r + 1);
    }
  };

  const onFiles = (event: JSX.TargetedEvent<HTMLInputElement, Event>) => {
    const files = takeFiles(event);
    if (files.length) void upload(files);
  };

  const heading = title ? `Choose ${multiple ? "files" : "a file"} for ${title}` : multiple ? "Choose files" : "Choose a file";
  const count = chosen.length;
  return (
    <Modal
      title={heading}
      onClose={onClose}
      wide
      footer={
        <>
          <span class="rm-grow" id={statusId} aria-live="polite">
            {count === 0 ? "Nothing selected" : count === 1 ? "1 file selected" : `${count} files selected`}
          </span>
          <button type="button" class="button button-secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="button" class="button" disabled={count === 0} onClick={() => onSelect(chosen)}>
            {multiple ? "Add the selected files" : "Choose this file"}
          </button>
        </>
      }
    >
      <div
        class="rm-picker"
        onDragOver={(e) => {
          if (!e.dataTransfer?.types.includes("Files")) return;
          e.preventDefault();
          e.stopPropagation();
        }}
        onDrop={(e) => {
          if (!e.dataTransfer?.files.length) return;
          // dropped here, not on the field or the page around the dialog
          e.preventDefault();
          e.stopPropagation();
          void upload(Array.from(e.dataTransfer.files));
        }}
      >
        <div class="rm-toolbar">
          <SearchControl id={searchId} value={q} onInput={setQ} />
          {kinds.length > 1 && (
            <KindSelect
              id={kindId}
              kinds={kinds}
              value={kind}
              onChange={(k) => {
                setKind(k);
                setPage(1);
              }}
            />
          )}
          <SortSelect
            id={sortId}
            value={sort}
            onChange={(s) => {
              setSort(s);
              setPage(1);
            }}
          />
          <span class="rm-control rm-upload-control">
            <input
              id={uploadId}
              class="rm-file-input"
              type="file"
              multiple={multiple}
              accept={acceptFor(kinds)}
              onChange={onFiles}
              disabled={uploading !== null}
            />
            <label for={uploadId} class="button button-secondary">
              Upload new files
            </label>
          </span>
        </div>
        {uploading && (
          <p class="rm-progress" role="status">
            {uploading}
          </p>
        )}
        <LoadError error={error} onRetry={() => setReload((r) => r + 1)} />
        {list && list.data.length === 0 && !loading && (
          <p class="rm-empty">{query || kind ? "No file matches." : "The media library is empty: upload files, or drop them here."}</p>
        )}
        {list && list.data.length > 0 && (
          <ul class="rm-grid" aria-label="Files" aria-busy={loading}>
            {list.data.map((f) => {
              const already = multiple && taken.includes(f.id);
              const on = already || isChosen(f);
              const inputId = `${uploadId}-f${f.id}`;
              return (
                <li key={f.id} class={`rm-card${on ? " rm-card-on" : ""}`}>
                  <input
                    id={inputId}
                    class="rm-card-check"
                    type={multiple ? "checkbox" : "radio"}
                    name={multiple ? undefined : `${uploadId}-choice`}
                    checked={on}
                    disabled={already}
                    onChange={() => toggle(f)}
                  />
                  <label for={inputId} class="rm-card-label">
                    <FileThumb file={f} />
                    <span class="rm-card-name">{f.name}</span>
                    <span class="rm-card-meta">{fileSummary(f)}</span>
                    {already && <span class="rm-card-meta">{title ? `Already in ${title}` : "Already chosen"}</span>}
                  </label>
                </li>
              );
            })}
          </ul>
        )}
        {list && <Pager pagination={list.meta.pagination} onPage={setPage} label="Pages of files" />}
      </div>
    </Modal>
  );
}
