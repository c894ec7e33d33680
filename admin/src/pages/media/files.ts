// The media library's file objects as the admin API answers them, and the helpers the
// library page, the picker dialog and the media widget share: kinds, thumbnails, the type
// filters in the REST syntax, sizes, and uploading several files one after another.
import { api } from "../../api";

export interface FileFormat {
  url: string;
  width?: number | null;
  height?: number | null;
  mime?: string;
  size?: number;
  name?: string;
}

export interface FileObject {
  id: number;
  documentId?: string;
  name: string;
  alternativeText?: string | null;
  caption?: string | null;
  width?: number | null;
  height?: number | null;
  formats?: Record<string, FileFormat> | null;
  hash?: string;
  ext?: string | null;
  mime: string;
  size: number;
  url: string;
  previewUrl?: string | null;
  provider?: string;
  focalPoint?: { x: number; y: number } | null;
  createdAt?: string;
  updatedAt?: string;
}

export interface Pagination {
  page: number;
  pageSize: number;
  pageCount: number;
  total: number;
}

export interface FileList {
  data: FileObject[];
  meta: { pagination: Pagination };
}

/** The kinds editors filter by; "files" are the ones that are none of the others. */
export type Kind = "images" | "videos" | "audios" | "files";
export const KINDS: Kind[] = ["images", "videos", "audios", "files"];
export const KIND_LABELS: Record<Kind, string> = {
  images: "Images",
  videos: "Videos",
  audios: "Audio",
  files: "Other files",
};
const PREFIX: Record<Exclude<Kind, "files">, string> = { images: "image/", videos: "video/", audios: "audio/" };

export function kindOf(mime: string | null | undefined): Kind {
  const m = (mime ?? "").toLowerCase();
  if (m.startsWith("image/")) return "images";
  if (m.startsWith("video/")) return "videos";
  if (m.startsWith("audio/")) return "audios";
  return "files";
}

/** Whether a file of this mime type may go into a field allowing `allowed` (none: any). */
export function allowedMime(mime: string, allowed: string[] | undefined | null): boolean {
  if (!allowed || allowed.length === 0) return true;
  return allowed.includes(kindOf(mime));
}

/** The REST filter (an object for queryString) keeping files of the given kinds; undefined for all kinds. */
export function kindFilter(kinds: Kind[]): Record<string, unknown> | undefined {
  const wanted = KINDS.filter((k) => kinds.includes(k));
  if (wanted.length === 0 || wanted.length === KINDS.length) return undefined;
  const one = (k: Kind): Record<string, unknown> =>
    k === "files"
      ? { $and: (["images", "videos", "audios"] as const).map((o) => ({ $not: { mime: { $startsWith: PREFIX[o] } } })) }
      : { mime: { $startsWith: PREFIX[k] } };
  if (wanted.length === 1) return one(wanted[0]);
  return { $or: wanted.map(one) };
}

/** The kinds a field allows, as Kind values (unknown names dropped; none: every kind). */
export function allowedKinds(allowed: string[] | undefined | null): Kind[] {
  if (!allowed || allowed.length === 0) return KINDS;
  const kinds = KINDS.filter((k) => allowed.includes(k));
  return kinds.length ? kinds : KINDS;
}

/** The small picture of a file: its thumbnail format, else the image itself; null for non-images. */
export function thumbnailUrl(file: FileObject): string | null {
  if (kindOf(file.mime) !== "images") return null;
  const formats = file.formats ?? {};
  return formats.thumbnail?.url ?? formats.small?.url ?? file.url;
}

/** A larger picture for the details view (the image, or its medium/large format when it is big). */
export function previewUrl(file: FileObject): string | null {
  if (kindOf(file.mime) !== "images") return null;
  return file.url;
}

/** The file's address as a full URL (to copy). */
export function absoluteUrl(url: string): string {
  try {
    return new URL(url, window.location.origin).href;
  } catch {
    return url;
  }
}

/** File sizes: the API gives kilobytes (as the reference does). */
export function formatSize(kb: number | null | undefined): string {
  if (kb === null || kb === undefined || Number.isNaN(kb)) return "";
  if (kb < 1) return `${Math.round(kb * 1024)} B`;
  if (kb < 1024) return `${kb.toFixed(kb < 10 ? 1 : 0)} KB`;
  return `${(kb / 1024).toFixed(1)} MB`;
}

/** A file's kind, dimensions (of a picture) and size, as a card shows them. */
export function fileSummary(file: FileObject): string {
  const dimensions = file.width && file.height ? `${file.width}×${file.height} · ` : "";
  return `${KIND_LABELS[kindOf(file.mime)]} · ${dimensions}${formatSize(file.size)}`;
}

export function extensionOf(file: FileObject): string {
  const ext = file.ext ?? (file.name.includes(".") ? file.name.slice(file.name.lastIndexOf(".")) : "");
  return ext.replace(/^\./, "").toUpperCase();
}

export const SORTS: { value: string; label: string }[] = [
  { value: "createdAt:desc", label: "Most recent uploads" },
  { value: "createdAt:asc", label: "Oldest uploads" },
  { value: "name:asc", label: "Alphabetical order (A to Z)" },
  { value: "name:desc", label: "Reverse alphabetical order (Z to A)" },
  { value: "updatedAt:desc", label: "Most recent updates" },
  { value: "updatedAt:asc", label: "Oldest updates" },
];

export interface FileQuery {
  page: number;
  pageSize: number;
  sort: string;
  q: string;
  kinds: Kind[];
}

export function listFiles(query: FileQuery): Promise<FileList> {
  const filters = kindFilter(query.kinds);
  return api.get<FileList>("/upload/files", {
    page: query.page,
    pageSize: query.pageSize,
    sort: query.sort,
    _q: query.q || undefined,
    filters,
  });
}

export interface UploadOutcome {
  uploaded: FileObject[];
  failed: { name: string; message: string }[];
}

/** Uploads files one request each (so that progress can be told and one refusal does not
 * stop the rest); `progress(done, total)` after each. */
export async function uploadFiles(files: File[], progress?: (done: number, total: number, current: string) => void): Promise<UploadOutcome> {
  const outcome: UploadOutcome = { uploaded: [], failed: [] };
  let done = 0;
  for (const file of files) {
    progress?.(done, files.length, file.name);
    const form = new FormData();
    form.append("files", file, file.name);
    try {
      const answer = await api.upload<{ data: FileObject[] } | FileObject[]>("/upload/files", form);
      const list = Array.isArray(answer) ? answer : answer.data;
      outcome.uploaded.push(...list);
    } catch (e) {
      outcome.failed.push({ name: file.name, message: e instanceof Error ? e.message : String(e) });
    }
    done += 1;
    progress?.(done, files.length, file.name);
  }
  return outcome;
}

/** Replaces a file's bytes (same id). */
export async function replaceFile(id: number, file: File): Promise<FileObject> {
  const form = new FormData();
  form.append("files", file, file.name);
  const answer = await api.upload<{ data: FileObject } | FileObject>(`/upload/files/${id}/replace`, form);
  return "data" in answer && answer.data && typeof answer.data === "object" ? (answer.data as FileObject) : (answer as FileObject);
}

/** The `accept` attribute of a file input for the allowed kinds. */
export function acceptFor(kinds: Kind[]): string | undefined {
  if (kinds.length === KINDS.length || kinds.includes("files")) return undefined;
  return kinds.map((k) => (k === "files" ? "" : `${PREFIX[k]}*`)).filter(Boolean).join(",");
}
