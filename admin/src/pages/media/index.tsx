// The media library (/admin/plugins/upload): every file in a grid or a list, uploads of
// several files (file input, or dropped onto the page) with their progress, search, a
// filter by type, sort, pages, bulk select and delete, and each file's details dialog.
// The search, filter, sort, page and view are kept in the URL.
import type { JSX } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { api } from "../../api";
import { href, navigate } from "../../router";
import { formatDateTime } from "../../ui/format";
import { notify } from "../../ui/notify";
import { FileDetails } from "./details";
import { fileSummary, formatSize, KIND_LABELS, KINDS, kindOf, SORTS, uploadFiles, type FileObject, type Kind } from "./files";
import { Confirm, FileThumb, KindSelect, LoadError, notifyUploads, Pager, SearchControl, SortSelect, takeFiles, useFiles } from "./ui";

const PAGE_SIZES = [10, 20, 50, 100];

interface Query {
  page: number;
  pageSize: number;
  sort: string;
  q: string;
  type: Kind | "";
  view: "grid" | "list";
}

function readQuery(search: URLSearchParams): Query {
  const n = (v: string | null, d: number) => {
    const x = Number(v);
    return Number.isInteger(x) && x > 0 ? x : d;
  };
  const type = search.get("type") ?? "";
  const sort = search.get("sort") ?? "";
  return {
    page: n(search.get("page"), 1),
    pageSize: PAGE_SIZES.includes(n(search.get("pageSize"), 20)) ? n(search.get("pageSize"), 20) : 20,
    sort: SORTS.some((s) => s.value === sort) ? sort : SORTS[0].value,
    q: search.get("_q") ?? "",
    type: (KINDS as string[]).includes(type) ? (type as Kind) : "",
    view: search.get("view") === "list" ? "list" : "grid",
  };
}

export function MediaLibraryPage({ search }: { search: URLSearchParams }) {
  const query = readQuery(search);
  const [text, setText] = useState(query.q);
  const [reload, setReload] = useState(0);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [details, setDetails] = useState<FileObject | null>(null);
  const [confirmBulk, setConfirmBulk] = useState(false);
  const [progress, setProgress] = useState<{ done: number; total: number; name: string } | null>(null);
  const [dragOver, setDragOver] = useState(false);
  const ids = { search: useId(), type: useId(), sort: useId(), size: useId(), upload: useId(), all: useId() };
  const depth = useRef(0);

  const go = (changes: Partial<Query>, replace = false) => {
    const next = { ...query, ...changes };
    navigate(
      href("/plugins/upload", {
        page: next.page > 1 ? next.page : null,
        pageSize: next.pageSize !== 20 ? next.pageSize : null,
        sort: next.sort !== SORTS[0].value ? next.sort : null,
        _q: next.q || null,
        type: next.type || null,
        view: next.view === "list" ? "list" : null,
      }),
      { replace },
    );
  };

  // the search box follows the URL (back / forward) and sends what is typed once typing pauses
  useEffect(() => setText(query.q), [query.q]);
  useEffect(() => {
    if (text.trim() === query.q) return;
    const t = setTimeout(() => go({ q: text.trim(), page: 1 }, true), 300);
    return () => clearTimeout(t);
  }, [text]);

  const filesQuery = { page: query.page, pageSize: query.pageSize, sort: query.sort, q: query.q, kinds: query.type ? [query.type] : KINDS };
  const { list, setList, error, loading } = useFiles(filesQuery, reload, (answer) => {
    // a page past the last one (after deletions) shows the last one
    const pg = answer.meta.pagination;
    if (answer.data.length === 0 && pg.page > 1 && pg.pageCount >= 1 && pg.page > pg.pageCount) go({ page: pg.pageCount }, true);
  });

  // the selection keeps only files still shown
  useEffect(() => {
    if (!list) return;
    setSelected((s) => new Set([...s].filter((id) => list.data.some((f) => f.id === id))));
  }, [list]);

  const upload = async (files: File[]) => {
    if (!files.length) return;
    const outcome = await uploadFiles(files, (done, total, name) => setProgress({ done, total, name }));
    setProgress(null);
    notifyUploads(outcome);
    if (outcome.uploaded.length) {
      if (query.page !== 1 || query.sort !== SORTS[0].value) go({ page: 1, sort: SORTS[0].value });
      else setReload((r) => r + 1);
    }
  };

  const onInput = (event: JSX.TargetedEvent<HTMLInputElement, Event>) => void upload(takeFiles(event));

  const bulkDelete = async () => {
    const chosen = [...selected];
    const answer = await api.post<{ data: { count: number } }>("/upload/files/actions/bulkDelete", { ids: chosen });
    const count = answer?.data?.count ?? chosen.length;
    notify(count === 1 ? "1 file deleted" : `${count} files deleted`);
    setSelected(new Set());
    setReload((r) => r + 1);
  };

  const files = list?.data ?? [];
  const allOn = files.length > 0 && files.every((f) => selected.has(f.id));
  const someOn = files.some((f) => selected.has(f.id));
  const toggle = (id: number) =>
    setSelected((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  const toggleAll = () => setSelected(allOn ? new Set() : new Set(files.map((f) => f.id)));
  const total = list?.meta.pagination.total ?? 0;

  // while a dialog is open, files dropped on it are not uploaded to the library
  const dropHandlers = details || confirmBulk ? {} : {
    onDragEnter: (e: JSX.TargetedDragEvent<HTMLElement>) => {
      if (!e.dataTransfer?.types.includes("Files")) return;
      depth.current += 1;
      setDragOver(true);
    },
    onDragOver: (e: JSX.TargetedDragEvent<HTMLElement>) => {
      if (!e.dataTransfer?.types.includes("Files")) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = "copy";
    },
    onDragLeave: () => {
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setDragOver(false);
    },
    onDrop: (e: JSX.TargetedDragEvent<HTMLElement>) => {
      depth.current = 0;
      setDragOver(false);
      if (!e.dataTransfer?.files.length) return;
      e.preventDefault();
      void upload(Array.from(e.dataTransfer.files));
    },
  };

  return (
    <main id="main" class="page rm-page" {...dropHandlers}>
      <div class="rm-head">
        <div>
          <h1>Media Library</h1>
          <p class="rm-card-meta" aria-live="polite">
            {list ? (total === 1 ? "1 file" : `${total} files`) : "Loading…"}
          </p>
        </div>
        <span class="rm-upload-control">
          <input id={ids.upload} class="rm-file-input" type="file" multiple onChange={onInput} disabled={progress !== null} />
          <label for={ids.upload} class="button">
            Upload files
          </label>
        </span>
      </div>

      <div class={`rm-drop${dragOver ? " rm-drop-over" : ""}`}>
        {progress ? (
          <div role="status">
            <label>
              Uploading {Math.min(progress.done + 1, progress.total)} of {progress.total}: {progress.name}{" "}
              <progress max={progress.total} value={progress.done} />
            </label>
          </div>
        ) : (
          <p>{dragOver ? "Drop the files to upload them" : "Drop files anywhere on this page to upload them, or use Upload files."}</p>
        )}
      </div>

      <div class="rm-toolbar" role="search" aria-label="Files">
        <SearchControl id={ids.search} value={text} onInput={setText} />
        <KindSelect id={ids.type} kinds={KINDS} value={query.type} onChange={(type) => go({ type, page: 1 })} />
        <SortSelect id={ids.sort} value={query.sort} onChange={(sort) => go({ sort, page: 1 })} />
        <span class="rm-control">
          <label for={ids.size}>Files per page</label>
          <select id={ids.size} value={String(query.pageSize)} onChange={(e) => go({ pageSize: Number(e.currentTarget.value), page: 1 })}>
            {PAGE_SIZES.map((n) => (
              <option key={n} value={String(n)}>
                {n}
              </option>
            ))}
          </select>
        </span>
        <span class="rm-grow" />
        <div class="rm-view-toggle" role="group" aria-label="View">
          <button type="button" aria-pressed={query.view === "grid"} onClick={() => go({ view: "grid" }, true)}>
            Grid view
          </button>
          <button type="button" aria-pressed={query.view === "list"} onClick={() => go({ view: "list" }, true)}>
            List view
          </button>
        </div>
      </div>

      <div class="rm-bulk">
        <input
          id={ids.all}
          type="checkbox"
          checked={allOn}
          disabled={files.length === 0}
          ref={(el) => {
            if (el) el.indeterminate = someOn && !allOn;
          }}
          onChange={toggleAll}
        />
        <label for={ids.all}>Select all files on this page</label>
        {selected.size > 0 && (
          <>
            <span aria-live="polite">{selected.size === 1 ? "1 file selected" : `${selected.size} files selected`}</span>
            <button type="button" class="button button-danger" onClick={() => setConfirmBulk(true)}>
              Delete the selected files
            </button>
          </>
        )}
      </div>

      <LoadError error={error} onRetry={() => setReload((r) => r + 1)} />
      {list && files.length === 0 && !loading && !error && (
        <p class="rm-empty">{query.q || query.type ? "No file matches the search or the filter." : "The media library is empty. Upload files to start."}</p>
      )}

      {files.length > 0 && query.view === "grid" && (
        <ul class="rm-grid" aria-label="Files" aria-busy={loading}>
          {files.map((f) => (
            <li key={f.id} class={`rm-card${selected.has(f.id) ? " rm-card-on" : ""}`}>
              <input
                class="rm-card-check"
                type="checkbox"
                aria-label={`Select ${f.name}`}
                checked={selected.has(f.id)}
                onChange={() => toggle(f.id)}
              />
              <button type="button" class="rm-card-open" onClick={() => setDetails(f)}>
                <FileThumb file={f} decorative />
                <span class="rm-card-name">
                  <span class="sr-only">Edit </span>
                  {f.name}
                </span>
              </button>
              <span class="rm-card-meta rm-card-after">{fileSummary(f)}</span>
            </li>
          ))}
        </ul>
      )}

      {files.length > 0 && query.view === "list" && (
        <table class="rm-table" aria-busy={loading}>
          <caption class="sr-only">Files</caption>
          <thead>
            <tr>
              <th scope="col">
                <span class="sr-only">Selected</span>
              </th>
              <th scope="col">
                <span class="sr-only">Preview</span>
              </th>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Size</th>
              <th scope="col">Dimensions</th>
              <th scope="col">Uploaded</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {files.map((f) => (
              <tr key={f.id}>
                <td>
                  <input type="checkbox" aria-label={`Select ${f.name}`} checked={selected.has(f.id)} onChange={() => toggle(f.id)} />
                </td>
                <td>
                  <FileThumb file={f} size="small" />
                </td>
                <td>
                  <button type="button" class="rm-link-button" onClick={() => setDetails(f)}>
                    <span class="sr-only">Edit </span>
                    {f.name}
                  </button>
                </td>
                <td>{KIND_LABELS[kindOf(f.mime)]}</td>
                <td>{formatSize(f.size)}</td>
                <td>{f.width && f.height ? `${f.width}×${f.height}` : "—"}</td>
                <td>{formatDateTime(f.createdAt)}</td>
                <td>{formatDateTime(f.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      {list && <Pager pagination={list.meta.pagination} onPage={(page) => go({ page })} label="Pages of files" />}

      {details && (
        <FileDetails
          key={details.id}
          file={details}
          onClose={() => setDetails(null)}
          onChanged={(f) => setList((l) => (l ? { ...l, data: l.data.map((x) => (x.id === f.id ? f : x)) } : l))}
          onDeleted={() => {
            setDetails(null);
            setReload((r) => r + 1);
          }}
        />
      )}
      {confirmBulk && (
        <Confirm
          title={selected.size === 1 ? "Delete 1 file?" : `Delete ${selected.size} files?`}
          action="Delete"
          onCancel={() => setConfirmBulk(false)}
          onConfirm={bulkDelete}
        >
          The selected files will be deleted, and removed from the entries using them. This cannot be undone.
        </Confirm>
      )}
    </main>
  );
}
