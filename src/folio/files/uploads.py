"""Preparing uploaded files: names, hashes, type checks, size limits, image dimensions and
formats, and their storage through a provider. Database records are written by the caller.
An upload's bytes are in a file (the request's body streamed to disk), already on their way
to the store (a provider's writer, to be committed under the name chosen when they began)
or, for small ones made here, in memory; image work runs on the image pool
(`images.in_image_pool`)."""

from __future__ import annotations

import logging
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from folio.errors import PayloadTooLargeError, ValidationError
from folio.files.images import DECODABLE, header_size, in_image_pool, inspect
from folio.files.mime import guess_mime, permitted
from folio.files.providers import ObjectWriter, Provider

log = logging.getLogger("folio.files")


@dataclass
class UploadSettings:
    size_limit: int = 50 * 1024 * 1024  # bytes per file
    allowed_types: list[str] = field(default_factory=lambda: ["*"])
    denied_types: list[str] = field(default_factory=list)
    responsive_formats: bool = True
    # images with more pixels are refused (decoding one takes memory and time in proportion;
    # Pillow's own limit is 89 million)
    max_pixels: int = 40_000_000


@dataclass
class Incoming:
    """An uploaded file: its bytes (`source`: a file holding them, the bytes, or the
    writer they went to, with the name it stores them under: `digest`), its declared type
    and its size in bytes (given with a writer)."""

    filename: str
    source: Path | bytes | ObjectWriter
    mime: str | None
    size: int = -1
    digest: str | None = None

    def __post_init__(self) -> None:
        if self.size < 0:
            source = self.source
            if isinstance(source, ObjectWriter):
                raise ValueError("the size of streamed bytes is given")
            self.size = len(source) if isinstance(source, bytes) else source.stat().st_size


def _slug(text: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower()
    return slug[:60] or "file"


def new_digest(filename: str) -> str:
    """A new file's stored name (without its extension): its name's stem, and a random part."""
    stem = PurePath(filename.replace("\\", "/")).stem
    return f"{_slug(stem)}_{secrets.token_hex(5)}"


def extension(filename: str) -> str:
    """The stored extension: the name's last suffix, lower case, letters and digits only,
    at most 16 characters (else none): the file's URL is made of it."""
    ext = PurePath(filename.replace("\\", "/")).suffix.lower()
    if 1 < len(ext) <= 17 and re.fullmatch(r"\.[a-z0-9]+", ext):
        return ext
    return ""


def check(item: Incoming, settings: UploadSettings) -> str:
    """Size and type checks; returns the MIME type."""
    if item.size > settings.size_limit:
        raise PayloadTooLargeError(
            f"{item.filename} exceeds the size limit of {settings.size_limit} bytes",
            {"name": item.filename, "size": item.size, "limit": settings.size_limit},
        )
    mime = guess_mime(item.filename, item.mime)
    if not permitted(mime, settings.allowed_types, settings.denied_types):
        raise ValidationError(
            f"File type {mime} is not allowed",
            {
                "errors": [
                    {
                        "path": ["files"],
                        "message": f"File type {mime} is not allowed",
                        "name": "ValidationError",
                        "value": item.filename,
                    }
                ]
            },
        )
    check_image(item, mime, settings)
    return mime


def check_image(item: Incoming, mime: str, settings: UploadSettings) -> None:
    """An image type must hold an image (else it is refused: served under an image type,
    other content could be read by a browser as something else), of at most
    `max_pixels` pixels. SVG, being text, is not decoded."""
    if not mime.startswith("image/") or mime == "image/svg+xml":
        return
    if isinstance(item.source, ObjectWriter):
        raise ValueError("an image is read whole, not streamed")
    size = header_size(item.source)
    if size is None:
        if mime in DECODABLE:
            raise ValidationError(
                f"{item.filename} is not a valid {mime} file",
                {
                    "errors": [
                        {
                            "path": ["files"],
                            "message": f"File content is not {mime}",
                            "name": "ValidationError",
                            "value": item.filename,
                        }
                    ]
                },
            )
        return
    width, height = size
    if width * height > settings.max_pixels:
        message = (
            f"{item.filename} is {width}x{height} pixels: images may have at most "
            f"{settings.max_pixels} pixels"
        )
        raise ValidationError(
            message,
            {
                "errors": [
                    {
                        "path": ["files"],
                        "message": message,
                        "name": "ValidationError",
                        "value": item.filename,
                    }
                ]
            },
        )


async def store(
    item: Incoming,
    mime: str,
    info: dict[str, Any],
    provider: Provider,
    settings: UploadSettings,
    digest: str | None = None,
    written: list[str] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """Stores the bytes (and image formats) and returns the record's data with the keys
    written, so they can be removed if the database write fails; `written` (when given)
    gets each key as soon as it is stored, so that a failure half-way leaves them known.
    `digest`: the name of a file whose bytes are replaced (its URL stays)."""
    ext = extension(item.filename)
    name = info.get("name") or item.filename
    source = item.source
    if isinstance(source, ObjectWriter):
        # streamed: under the name chosen when its bytes began to go
        digest = item.digest
        if digest is None or source.key != digest + ext:
            raise ValueError("streamed bytes are stored under the name they began with")
        url = await source.commit()
    else:
        digest = digest or new_digest(item.filename)
        url = await provider.put(digest + ext, source, mime)
    keys: list[str] = [] if written is None else written
    keys.append(digest + ext)
    size = None
    made: list[Any] = []
    if mime.startswith("image/") and not isinstance(source, ObjectWriter):
        formats_wanted = settings.responsive_formats
        dimensions = header_size(source) if formats_wanted else None
        pixels = dimensions[0] * dimensions[1] if dimensions else 0
        size, made = await in_image_pool(lambda: inspect(source, mime, formats_wanted), pixels)
    formats: dict[str, Any] | None = None
    if size is not None and settings.responsive_formats:
        for variant in made:
            key = f"{variant.name}_{digest}{ext}"
            vurl = await provider.put(key, variant.data, mime)
            keys.append(key)
            formats = formats or {}
            formats[variant.name] = {
                "name": f"{variant.name}_{name}",
                "hash": f"{variant.name}_{digest}",
                "ext": ext,
                "mime": mime,
                "path": None,
                "width": variant.width,
                "height": variant.height,
                "size": round(len(variant.data) / 1000, 2),
                "sizeInBytes": len(variant.data),
                "url": vurl,
            }
    record = {
        "name": name,
        "alternativeText": info.get("alternativeText"),
        "caption": info.get("caption"),
        "focalPoint": info.get("focalPoint"),
        "width": size[0] if size else None,
        "height": size[1] if size else None,
        "formats": formats,
        "hash": digest,
        "ext": ext,
        "mime": mime,
        "size": round(item.size / 1000, 2),
        "url": url,
        "previewUrl": None,
        "provider": provider.name,
        "provider_metadata": None,
    }
    return record, list(keys)


async def discard(provider: Provider, keys: list[str]) -> None:
    """Removes stored objects that no record will name, as far as the store lets: a store
    that is down leaves them (logged), and the error that brought us here stands."""
    for key in keys:
        try:
            await provider.delete(key)
        except Exception:
            log.warning("upload: %s could not be removed from the file store", key)


def keys_of(record: dict[str, Any]) -> list[str]:
    """The stored objects of a file record: the original and its formats."""
    out = [f"{record['hash']}{record.get('ext') or ''}"]
    for fmt in (record.get("formats") or {}).values():
        if isinstance(fmt, dict) and fmt.get("hash"):
            out.append(f"{fmt['hash']}{fmt.get('ext') or ''}")
    return out
