"""Image inspection and responsive formats (thumbnail, small, medium, large), each made only
when the original is larger than its size."""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

THUMBNAIL = ("thumbnail", 245, 156)
BREAKPOINTS = (("large", 1000), ("medium", 750), ("small", 500))
RESIZABLE = frozenset(
    {"image/jpeg", "image/png", "image/webp", "image/gif", "image/tiff", "image/avif"}
)
PIL_FORMATS = {
    "image/jpeg": "JPEG",
    "image/png": "PNG",
    "image/webp": "WEBP",
    "image/gif": "GIF",
    "image/tiff": "TIFF",
    "image/avif": "AVIF",
}


# types Pillow reads: a file declared as one of them must decode as one
DECODABLE = RESIZABLE | {"image/bmp", "image/x-icon", "image/vnd.microsoft.icon"}


def header_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the image's header, without decoding its pixels (None: not an
    image Pillow reads). A header declaring a decompression bomb reports its size."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            return int(image.width), int(image.height)
    except Image.DecompressionBombError:
        return (1 << 20, 1 << 20)
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        return None


@dataclass
class Variant:
    name: str
    data: bytes
    width: int
    height: int


def dimensions(data: bytes) -> tuple[int, int] | None:
    try:
        with Image.open(io.BytesIO(data)) as image:
            return int(image.width), int(image.height)
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return None


def variants(data: bytes, mime: str) -> list[Variant]:
    """The formats to store for an image, smallest first."""
    if mime not in RESIZABLE:
        return []
    try:
        with Image.open(io.BytesIO(data)) as original:
            original.load()
            width, height = original.size
            out: list[Variant] = []
            name, box_w, box_h = THUMBNAIL
            if width > box_w or height > box_h:
                out.append(_resize(original, name, (box_w, box_h), mime))
            for name, size in reversed(BREAKPOINTS):
                if width > size or height > size:
                    out.append(_resize(original, name, (size, size), mime))
            return out
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return []


def _resize(original: Image.Image, name: str, box: tuple[int, int], mime: str) -> Variant:
    image = original.copy()
    image.thumbnail(box)
    fmt = PIL_FORMATS[mime]
    if fmt == "JPEG" and image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return Variant(name, buffer.getvalue(), image.width, image.height)
