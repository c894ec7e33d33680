// A file's details: preview, name / alternative text / caption, the focal point (a click on
// the image, or the x and y inputs), the facts, where the file is used, copy its link,
// replace its bytes, delete it.
import type { JSX } from "preact";
import { useContext, useEffect, useId, useState } from "preact/hooks";
import { api, ApiError, describeError } from "../../api";
import { contentType, MetaContext, type Meta } from "../../meta";
import { Link } from "../../router";
import { formatDateTime } from "../../ui/format";
import { notify } from "../../ui/notify";
import { absoluteUrl, extensionOf, formatSize, KIND_LABELS, kindOf, replaceFile, type FileObject } from "./files";
import { Confirm, FileThumb, Modal } from "./ui";

interface Usage {
  uid: string;
  displayName?: string;
  documentId: string;
  locale?: string | null;
  field: string;
  label?: string | null;
}

const clamp = (n: number) => Math.min(100, Math.max(0, Math.round(n * 10) / 10));

function editLink(u: Usage, meta: Meta | null): string {
  const single = (meta && contentType(meta, u.uid)?.kind === "singleType") ?? false;
  const q = u.locale ? `?locale=${encodeURIComponent(u.locale)}` : "";
  return single ? `/content-manager/single-types/${u.uid}${q}` : `/content-manager/collection-types/${u.uid}/${u.documentId}${q}`;
}

export function FileDetails({
  file: initial,
  onClose,
  onChanged,
  onDeleted,
}: {
  file: FileObject;
  onClose(): void;
  onChanged(file: FileObject): void;
  onDeleted(id: number): void;
}) {
  const [file, setFile] = useState(initial);
  const [name, setName] = useState(initial.name);
  const [alt, setAlt] = useState(initial.alternativeText ?? "");
  const [caption, setCaption] = useState(initial.caption ?? "");
  const [focal, setFocal] = useState<{ x: number; y: number } | null>(initial.focalPoint ?? null);
  const [errors, setErrors] = useState<Map<string, string>>(new Map());
  const [saving, setSaving] = useState(false);
  const [replacing, setReplacing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [usage, setUsage] = useState<Usage[] | null>(null);
  const [usageError, setUsageError] = useState<string | null>(null);
  const ids = {
    name: useId(),
    alt: useId(),
    caption: useId(),
    x: useId(),
    y: useId(),
    url: useId(),
    replace: useId(),
    focalHint: useId(),
  };
  const image = kindOf(file.mime) === "images";
  const meta = useContext(MetaContext);

  useEffect(() => {
    let live = true;
    api
      .get<{ data: Usage[] }>(`/upload/files/${file.id}/usage`)
      .then((a) => live && setUsage(a.data ?? []))
      .catch((e) => live && setUsageError(describeError(e)));
    return () => {
      live = false;
    };
  }, [file.id]);

  const samePoint = (a: { x: number; y: number } | null, b: { x: number; y: number } | null | undefined) =>
    (a === null && (b === null || b === undefined)) || (!!a && !!b && a.x === b.x && a.y === b.y);
  const dirty =
    name !== file.name || alt !== (file.alternativeText ?? "") || caption !== (file.caption ?? "") || !samePoint(focal, file.focalPoint ?? null);

  const save = async (event?: Event) => {
    event?.preventDefault();
    if (!name.trim()) {
      setErrors(new Map([["name", "The name is required."]]));
      return;
    }
    setSaving(true);
    try {
      const answer = await api.put<{ data: FileObject }>(`/upload/files/${file.id}`, {
        name: name.trim(),
        alternativeText: alt || null,
        caption: caption || null,
        focalPoint: focal,
      });
      setFile(answer.data);
      setName(answer.data.name);
      setErrors(new Map());
      onChanged(answer.data);
      notify(`${answer.data.name} saved`);
    } catch (e) {
      if (e instanceof ApiError) {
        const found = new Map<string, string>();
        for (const [k, v] of e.fieldErrors()) found.set(k.split(".").pop() ?? k, v);
        setErrors(found);
      }
      notify(describeError(e), "error");
    } finally {
      setSaving(false);
    }
  };

  const onReplace = async (event: JSX.TargetedEvent<HTMLInputElement, Event>) => {
    const input = event.currentTarget;
    const chosen = input.files?.[0];
    input.value = "";
    if (!chosen) return;
    setReplacing(true);
    try {
      const updated = await replaceFile(file.id, chosen);
      setFile(updated);
      setName(updated.name);
      setFocal(updated.focalPoint ?? null);
      onChanged(updated);
      notify(`The file was replaced by ${chosen.name}`);
    } catch (e) {
      notify(`The file could not be replaced: ${describeError(e)}`, "error");
    } finally {
      setReplacing(false);
    }
  };

  const remove = async () => {
    await api.del(`/upload/files/${file.id}`);
    notify(`${file.name} deleted`);
    onDeleted(file.id);
  };

  const copy = async () => {
    const url = absoluteUrl(file.url);
    try {
      await navigator.clipboard.writeText(url);
      notify("Link copied to the clipboard");
    } catch {
      const input = document.getElementById(ids.url) as HTMLInputElement | null;
      if (input) {
        input.focus();
        input.select();
        const ok = document.execCommand?.("copy");
        notify(ok ? "Link copied to the clipboard" : "The link is selected: copy it with Ctrl+C", ok ? "success" : "info");
      }
    }
  };

  const pointAt = (event: JSX.TargetedMouseEvent<HTMLDivElement>) => {
    const img = event.currentTarget.querySelector("img");
    if (!img) return;
    const r = img.getBoundingClientRect();
    if (!r.width || !r.height) return;
    setFocal({ x: clamp(((event.clientX - r.left) / r.width) * 100), y: clamp(((event.clientY - r.top) / r.height) * 100) });
  };

  const setAxis = (axis: "x" | "y", raw: string) => {
    if (raw === "") return;
    const n = Number(raw);
    if (Number.isNaN(n)) return;
    setFocal((f) => ({ x: f?.x ?? 50, y: f?.y ?? 50, [axis]: clamp(n) }));
  };

  const kind = kindOf(file.mime);
  return (
    <>
      <Modal
        title={`Details of ${file.name}`}
        onClose={onClose}
        wide
        footer={
          <>
            <button type="button" class="button button-danger" onClick={() => setConfirming(true)}>
              Delete
            </button>
            <span class="rm-grow" />
            <button type="button" class="button button-secondary" onClick={onClose}>
              {dirty ? "Cancel" : "Close"}
            </button>
            <button type="submit" form={`${ids.name}-form`} class="button" disabled={saving || !dirty}>
              {saving ? "Saving…" : "Save"}
            </button>
          </>
        }
      >
        <div class="rm-details">
          <div>
            {image ? (
              <>
                <div class="rm-focal" onClick={pointAt} aria-describedby={ids.focalHint}>
                  <img src={`${file.url}${file.updatedAt ? `?v=${encodeURIComponent(file.updatedAt)}` : ""}`} alt={alt || file.name} />
                  {focal && <span class="rm-focal-dot" style={{ left: `${focal.x}%`, top: `${focal.y}%` }} />}
                </div>
                <p id={ids.focalHint} class="rm-hint">
                  Click on the image to set its focal point (the part kept when it is cropped), or type it below.
                </p>
              </>
            ) : kind === "videos" ? (
              <video src={file.url} controls preload="metadata" class="rm-thumb-large" aria-label={`Preview of ${file.name}`} />
            ) : kind === "audios" ? (
              <audio src={file.url} controls preload="metadata" aria-label={`Preview of ${file.name}`} />
            ) : (
              <FileThumb file={file} size="large" />
            )}
            <dl class="rm-facts">
              <dt>Type</dt>
              <dd>
                {KIND_LABELS[kind]} ({file.mime}
                {extensionOf(file) ? `, ${extensionOf(file)}` : ""})
              </dd>
              <dt>Size</dt>
              <dd>{formatSize(file.size)}</dd>
              {file.width && file.height ? (
                <>
                  <dt>Dimensions</dt>
                  <dd>
                    {file.width}×{file.height}
                  </dd>
                </>
              ) : null}
              <dt>Uploaded</dt>
              <dd>{formatDateTime(file.createdAt)}</dd>
              <dt>Updated</dt>
              <dd>{formatDateTime(file.updatedAt)}</dd>
            </dl>
            <div class="rm-form">
              <div>
                <label for={ids.url}>File URL</label>
                <input id={ids.url} type="text" readOnly value={absoluteUrl(file.url)} onFocus={(e) => e.currentTarget.select()} />
              </div>
            </div>
            <div class="rm-actions-row">
              <button type="button" class="button button-secondary" onClick={() => void copy()}>
                Copy link
              </button>
              <a class="button button-secondary" href={file.url} target="_blank" rel="noopener noreferrer">
                Open the file
              </a>
              <input id={ids.replace} class="rm-file-input" type="file" onChange={onReplace} disabled={replacing} />
              <label for={ids.replace} class="button button-secondary">
                {replacing ? "Replacing…" : "Replace the file"}
              </label>
            </div>
          </div>
          <div>
            <form id={`${ids.name}-form`} class="rm-form" onSubmit={(e) => void save(e)} noValidate>
              <div>
                <label for={ids.name}>File name</label>
                <input
                  id={ids.name}
                  type="text"
                  value={name}
                  required
                  aria-invalid={errors.has("name") ? true : undefined}
                  aria-describedby={errors.has("name") ? `${ids.name}-error` : undefined}
                  onInput={(e) => setName(e.currentTarget.value)}
                />
                {errors.has("name") && (
                  <p id={`${ids.name}-error`} class="rm-error">
                    {errors.get("name")}
                  </p>
                )}
              </div>
              <div>
                <label for={ids.alt}>Alternative text</label>
                <input
                  id={ids.alt}
                  type="text"
                  value={alt}
                  aria-describedby={`${ids.alt}-hint`}
                  onInput={(e) => setAlt(e.currentTarget.value)}
                />
                <p id={`${ids.alt}-hint`} class="rm-hint">
                  What the image shows, for people who cannot see it.
                  {errors.has("alternativeText") && <span class="rm-error"> {errors.get("alternativeText")}</span>}
                </p>
              </div>
              <div>
                <label for={ids.caption}>Caption</label>
                <textarea id={ids.caption} rows={3} value={caption} onInput={(e) => setCaption(e.currentTarget.value)} />
                {errors.has("caption") && <p class="rm-error">{errors.get("caption")}</p>}
              </div>
              {image && (
                <fieldset class="rm-xy-set">
                  <legend>Focal point (percent of width and height)</legend>
                  <div class="rm-xy">
                    {(["x", "y"] as const).map((axis) => (
                      <span key={axis}>
                        <label for={ids[axis]}>{`Focal point ${axis.toUpperCase()}`}</label>
                        <input
                          id={ids[axis]}
                          type="number"
                          min={0}
                          max={100}
                          step={0.1}
                          value={focal ? focal[axis] : ""}
                          onInput={(e) => setAxis(axis, e.currentTarget.value)}
                        />
                      </span>
                    ))}
                    <button type="button" class="button button-secondary" disabled={!focal} onClick={() => setFocal(null)}>
                      Clear focal point
                    </button>
                  </div>
                  {errors.has("focalPoint") && <p class="rm-error">{errors.get("focalPoint")}</p>}
                </fieldset>
              )}
            </form>
            <h3>Where it is used</h3>
            {usageError ? (
              <p class="rm-error" role="alert">
                {usageError}
              </p>
            ) : usage === null ? (
              <p class="rm-hint">Loading…</p>
            ) : usage.length === 0 ? (
              <p class="rm-hint">This file is not used by any entry.</p>
            ) : (
              <ul class="rm-usage" aria-label="Entries using this file">
                {usage.map((u, i) => (
                  <li key={i}>
                    <Link to={editLink(u, meta)} onClick={() => onClose()}>
                      {u.displayName ?? u.uid}: {u.label || u.documentId}
                    </Link>{" "}
                    <span class="rm-card-meta">
                      ({u.field}
                      {u.locale ? `, ${u.locale}` : ""})
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </div>
        </div>
      </Modal>
      {confirming && (
        <Confirm
          title="Delete this file?"
          action="Delete the file"
          onCancel={() => setConfirming(false)}
          onConfirm={remove}
        >
          {file.name} will be deleted{usage && usage.length ? `, and removed from the ${usage.length} entries using it` : ""}. This cannot be undone.
        </Confirm>
      )}
    </>
  );
}
