// The edit form's data: the document as the server reads it made into form values (each
// component and zone entry given a client key), and form values made into the write format
// (relations as {set: [...]}, media as file ids, component entries keeping their ids).
import type { Attribute, ContentTypeMeta, Meta } from "../../meta";
import { defaultsOf } from "../../fields/entries";
import { newKey } from "../../fields/form";

export type Values = Record<string, unknown>;

function compAttrs(meta: Meta, uid: unknown): Record<string, Attribute> {
  return meta.components.find((c) => c.uid === uid)?.attributes ?? {};
}

function isObject(v: unknown): v is Values {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

function normalizeEntry(meta: Meta, attributes: Record<string, Attribute>, entry: Values, previous: unknown): Values {
  const prev = isObject(previous) ? previous : null;
  const key = prev && typeof prev.__key === "string" && (prev.id === entry.id || prev.id === undefined) ? prev.__key : newKey();
  return { ...normalizeValues(meta, attributes, entry, prev), __key: key };
}

/** Form values of an object read from the server; `previous` (the values before a save)
 * lends its entries' keys, so that entries stay mounted (open, focused) across a save. */
export function normalizeValues(meta: Meta, attributes: Record<string, Attribute>, data: Values, previous: Values | null = null): Values {
  const out: Values = { ...data };
  for (const [name, attr] of Object.entries(attributes)) {
    const v = data[name];
    const p = previous ? previous[name] : undefined;
    if (attr.widget === "component") {
      const attrs = compAttrs(meta, attr.component);
      if (attr.repeatable) {
        out[name] = Array.isArray(v) ? v.map((e, i) => normalizeEntry(meta, attrs, isObject(e) ? e : {}, Array.isArray(p) ? p[i] : undefined)) : [];
      } else {
        out[name] = isObject(v) ? normalizeEntry(meta, attrs, v, p) : null;
      }
    } else if (attr.widget === "dynamiczone") {
      out[name] = Array.isArray(v)
        ? v.map((e, i) => {
            const entry = isObject(e) ? e : {};
            const pe = Array.isArray(p) ? p[i] : undefined;
            return normalizeEntry(meta, compAttrs(meta, entry.__component), entry, isObject(pe) && pe.__component === entry.__component ? pe : undefined);
          })
        : [];
    }
  }
  return out;
}

export function emptyValues(meta: Meta, ct: ContentTypeMeta): Values {
  return defaultsOf(meta, ct.attributes);
}

function mediaId(v: unknown): unknown {
  if (isObject(v)) return v.id ?? null;
  return v ?? null;
}

function relationSet(v: unknown): unknown {
  if (isObject(v) && ("set" in v || "connect" in v || "disconnect" in v)) return v;
  const list = Array.isArray(v) ? v : v ? [v] : [];
  return {
    set: list
      .filter((t) => t !== null && t !== undefined)
      .map((t) => {
        if (!isObject(t)) return { documentId: String(t) };
        return t.locale ? { documentId: t.documentId, locale: t.locale } : { documentId: t.documentId };
      }),
  };
}

function writeEntry(meta: Meta, attributes: Record<string, Attribute>, entry: Values, zone: boolean): Values {
  const out = writeValues(meta, attributes, entry);
  if (entry.id !== undefined && entry.id !== null) out.id = entry.id;
  if (zone) out.__component = entry.__component;
  return out;
}

/** The request body's `data` of form values. */
export function writeValues(meta: Meta, attributes: Record<string, Attribute>, values: Values): Values {
  const out: Values = {};
  for (const [name, attr] of Object.entries(attributes)) {
    if (!(name in values)) continue;
    const v = values[name];
    switch (attr.widget) {
      case "relation":
        out[name] = relationSet(v);
        break;
      case "media":
        out[name] = attr.multiple ? (Array.isArray(v) ? v.map(mediaId).filter((x) => x !== null) : []) : Array.isArray(v) ? mediaId(v[0]) : mediaId(v);
        break;
      case "component": {
        const attrs = compAttrs(meta, attr.component);
        if (attr.repeatable) out[name] = Array.isArray(v) ? v.map((e) => writeEntry(meta, attrs, isObject(e) ? e : {}, false)) : [];
        else out[name] = isObject(v) ? writeEntry(meta, attrs, v, false) : null;
        break;
      }
      case "dynamiczone":
        out[name] = Array.isArray(v) ? v.filter(isObject).map((e) => writeEntry(meta, compAttrs(meta, e.__component), e, true)) : [];
        break;
      case "password":
        if (typeof v === "string" && v !== "") out[name] = v;
        break;
      default:
        out[name] = v === undefined ? null : v;
    }
  }
  return out;
}

/** A value copied to another locale version: component entries lose their ids (they are
 * that version's own rows) and get new keys. */
export function copiedValue(meta: Meta, attr: Attribute, v: unknown): unknown {
  const entry = (e: unknown, attrs: Record<string, Attribute>): Values => {
    const src = isObject(e) ? e : {};
    const out: Values = { ...src, __key: newKey() };
    delete out.id;
    for (const [n, a] of Object.entries(attrs)) if (n in src) out[n] = copiedValue(meta, a, src[n]);
    return out;
  };
  if (attr.widget === "component") {
    const attrs = compAttrs(meta, attr.component);
    if (attr.repeatable) return Array.isArray(v) ? v.map((e) => entry(e, attrs)) : [];
    return isObject(v) ? entry(v, attrs) : null;
  }
  if (attr.widget === "dynamiczone") return Array.isArray(v) ? v.map((e) => entry(e, compAttrs(meta, isObject(e) ? e.__component : null))) : [];
  return v;
}

export function isLocalized(ct: ContentTypeMeta, attr: Attribute): boolean {
  return ct.localized && attr.localized !== false;
}

/** The values of a locale version not created yet: the shared fields of another version,
 * the defaults for the localized ones. */
export function newLocaleValues(meta: Meta, ct: ContentTypeMeta, other: Values | null): Values {
  const out = emptyValues(meta, ct);
  if (other) {
    for (const [name, attr] of Object.entries(ct.attributes)) {
      if (!isLocalized(ct, attr) && name in other) out[name] = other[name];
    }
  }
  return out;
}

/** Copies the localized fields of another locale's document into the values. */
export function fillFrom(meta: Meta, ct: ContentTypeMeta, values: Values, source: Values): Values {
  const out: Values = { ...values };
  for (const [name, attr] of Object.entries(ct.attributes)) {
    if (!isLocalized(ct, attr) || !(name in source)) continue;
    out[name] = copiedValue(meta, attr, source[name]);
  }
  return out;
}

/** The values typed while a save was on its way, given the ids the server gave the
 * component and zone entries that save created (matched by their client keys), so that the
 * next save updates those entries rather than making them again. */
export function graftIds(current: unknown, server: unknown): unknown {
  if (Array.isArray(current)) {
    if (!Array.isArray(server)) return current;
    const byKey = new Map<unknown, unknown>();
    for (const s of server) if (isObject(s) && s.__key !== undefined) byKey.set(s.__key, s);
    let changed = false;
    const out = current.map((c) => {
      const g = isObject(c) ? graftIds(c, byKey.get(c.__key)) : c;
      if (g !== c) changed = true;
      return g;
    });
    return changed ? out : current;
  }
  if (!isObject(current) || !isObject(server)) return current;
  if (current.__key !== undefined && server.__key !== current.__key) return current;
  let out = current;
  const set = (k: string, v: unknown) => {
    if (out === current) out = { ...current };
    out[k] = v;
  };
  if (current.__key !== undefined && (current.id === undefined || current.id === null) && server.id !== undefined) set("id", server.id);
  for (const k of Object.keys(current)) {
    if (k === "__key" || k === "id") continue;
    const g = graftIds(current[k], server[k]);
    if (g !== current[k]) set(k, g);
  }
  return out;
}
