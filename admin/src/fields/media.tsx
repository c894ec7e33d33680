// The media widget: one file or several (attr.multiple), restricted to attr.allowedTypes.
// Files come from the library (the picker dialog) or are uploaded here (the file input, or
// dropped onto the field); several files are reordered by drag or by the move buttons;
// each may be removed. The value is the file object (or the array of them); the form sends
// their ids.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { describeError } from "../api";
import {
  acceptFor,
  allowedKinds,
  allowedMime,
  formatSize,
  KIND_LABELS,
  kindOf,
  uploadFiles,
  type FileObject,
} from "../pages/media/files";
import { FileThumb, notifyUploads, takeFiles } from "../pages/media/ui";
import { MediaPicker } from "../ui/media-picker";
import { notify } from "../ui/notify";
import { useSortable } from "./sortable";
import type { FieldProps } from "./types";
import "../styles/media.css";

function asFiles(value: unknown): FileObject[] {
  if (Array.isArray(value)) return value.filter((v): v is FileObject => !!v && typeof v === "object" && "id" in v);
  if (value && typeof value === "object" && "id" in value) return [value as FileObject];
  return [];
}

function humanize(name: string): string {
  const s = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function MediaField(props: FieldProps) {
  const { id, name, attr, value, onChange, error, disabled } = props;
  const multiple = !!attr.multiple;
  const files = asFiles(value);
  const allowed = attr.allowedTypes ?? null;
  const kinds = allowedKinds(allowed);
  const label = humanize(name);
  const [picking, setPicking] = useState(false);
  const [uploading, setUploading] = useState<string | null>(null);
  const [dragOver, setDragOver] = useState(false);

  const set = (next: FileObject[]) => onChange(multiple ? next : (next[0] ?? null));
  const add = (chosen: FileObject[]) => {
    if (multiple) {
      const known = new Set(files.map((f) => f.id));
      set([...files, ...chosen.filter((f) => !known.has(f.id))]);
    } else if (chosen.length) {
      set([chosen[0]]);
    }
  };

  const sortable = useSortable<FileObject>({
    items: files,
    keyOf: (f) => String(f.id),
    labelOf: (f) => f.name,
    onReorder: set,
    disabled: disabled || !multiple,
  });

  const upload = async (list: File[]) => {
    if (!multiple && list.length > 1) {
      notify(`${label} holds one file: only ${list[0].name} is uploaded.`, "info");
      list = list.slice(0, 1);
    }
    const refused = list.filter((f) => !allowedMime(f.type || "application/octet-stream", allowed));
    for (const f of refused) {
      notify(`${f.name}: ${label} does not accept ${KIND_LABELS[kindOf(f.type)].toLowerCase()}.`, "error");
    }
    const accepted = list.filter((f) => !refused.includes(f));
    if (!accepted.length) return;
    try {
      const outcome = await uploadFiles(accepted, (done, total) => setUploading(`Uploading ${Math.min(done + 1, total)} of ${total}…`));
      if (outcome.uploaded.length) add(outcome.uploaded);
      notifyUploads(outcome);
    } catch (e) {
      notify(describeError(e), "error");
    } finally {
      setUploading(null);
    }
  };

  const onInput = (event: JSX.TargetedEvent<HTMLInputElement, Event>) => {
    const list = takeFiles(event);
    if (list.length) void upload(list);
  };

  const dropProps = disabled
    ? {}
    : {
        onDragOver: (e: JSX.TargetedDragEvent<HTMLDivElement>) => {
          if (!e.dataTransfer?.types.includes("Files")) return;
          e.preventDefault();
          e.dataTransfer.dropEffect = "copy";
          setDragOver(true);
        },
        onDragLeave: (e: JSX.TargetedDragEvent<HTMLDivElement>) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragOver(false);
        },
        onDrop: (e: JSX.TargetedDragEvent<HTMLDivElement>) => {
          setDragOver(false);
          if (!e.dataTransfer?.files.length) return;
          e.preventDefault();
          void upload(Array.from(e.dataTransfer.files));
        },
      };

  const describedBy = error ? `${id}-error` : undefined;
  const kindsText = kinds.length === 4 ? "any file" : kinds.map((k) => KIND_LABELS[k].toLowerCase()).join(", ");
  const total = files.length;

  return (
    <div
      class={`rm-media${dragOver ? " rm-media-over" : ""}${error ? " rm-invalid" : ""}`}
      {...dropProps}
    >
      {total > 0 && (
        <ul class={`rm-media-list${multiple ? " rm-media-multi" : ""}`} aria-label="Chosen files">
          {sortable.view.map(({ item: f, key }, index) => (
            <li key={key} class="rm-media-item" {...sortable.itemProps(key)}>
              {multiple && total > 1 && (
                <button class="rm-handle" aria-label={`Drag ${f.name}`} title="Drag to reorder, or press Space then the arrow keys" {...sortable.handleProps(key)}>
                  ⠿
                </button>
              )}
              <a class="rm-media-preview" href={f.url} target="_blank" rel="noopener noreferrer" aria-label={`Open ${f.name} in a new tab`}>
                <FileThumb file={f} />
              </a>
              <span class="rm-media-name" title={f.name}>
                {f.name}
              </span>
              <span class="rm-media-meta">
                {KIND_LABELS[kindOf(f.mime)]} · {formatSize(f.size)}
              </span>
              <span class="rm-media-actions">
                {multiple && total > 1 && (
                  <>
                    <button
                      type="button"
                      class="rm-icon-button"
                      aria-label={`Move ${f.name} earlier`}
                      disabled={disabled || index === 0 || sortable.lifted !== null}
                      onClick={() => sortable.move(index, -1)}
                    >
                      ←
                    </button>
                    <button
                      type="button"
                      class="rm-icon-button"
                      aria-label={`Move ${f.name} later`}
                      disabled={disabled || index === total - 1 || sortable.lifted !== null}
                      onClick={() => sortable.move(index, 1)}
                    >
                      →
                    </button>
                  </>
                )}
                <button
                  type="button"
                  class="rm-icon-button rm-danger"
                  aria-label={`Remove ${f.name}`}
                  disabled={disabled}
                  onClick={() => set(files.filter((x) => x.id !== f.id))}
                >
                  ×
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      {(multiple || total === 0) && (
        <p class="rm-media-empty">
          {total === 0 ? "No file yet." : null} Drop {multiple ? "files" : "a file"} here ({kindsText}), or:
        </p>
      )}
      <div class="rm-media-buttons">
        <button type="button" class="button button-secondary" disabled={disabled} onClick={() => setPicking(true)}>
          {total > 0 && !multiple ? `Replace ${label} from the library` : `Add ${label} from the library`}
        </button>
        <input
          id={id}
          class="rm-file-input"
          type="file"
          multiple={multiple}
          accept={acceptFor(kinds)}
          disabled={disabled || uploading !== null}
          onChange={onInput}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
        />
        <label for={id} class="button button-secondary">
          Upload {multiple ? "files" : "a file"}
        </label>
      </div>
      {uploading && (
        <p class="rm-progress" role="status">
          {uploading}
        </p>
      )}
      {sortable.announcer}
      {picking && (
        <MediaPicker
          multiple={multiple}
          allowedTypes={allowed}
          title={label}
          taken={files.map((f) => f.id)}
          onClose={() => setPicking(false)}
          onSelect={(chosen) => {
            setPicking(false);
            add(chosen);
          }}
        />
      )}
    </div>
  );
}
