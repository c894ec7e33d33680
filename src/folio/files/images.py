"""Image inspection and responsive formats (thumbnail, small, medium, large), each made only
when the original is larger than its size.

Decoding is what costs memory: a 6,300 x 6,300 PNG of 154 KB takes 160 MB once decoded. So
the formats are made from one decode of the original (a JPEG decoded at the smallest scale
that still covers the largest format), the largest format first and the smaller ones from
it; images are worked on by a pool of `FOLIO_IMAGE_WORKERS` threads, off the event loop,
and no more pixels at once than the pixel budget (`FOLIO_IMAGE_PIXELS`) allows, the others
waiting their turn without holding a thread; and what a decode took is handed back to the
system after (glibc keeps freed blocks of that size otherwise: six such images at once
left the process 1.9 GB larger)."""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import io
import math
import os
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

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
# errors of a file Pillow cannot read as an image
_UNREADABLE = (UnidentifiedImageError, OSError, ValueError, SyntaxError)


def image_workers() -> int:
    """Images decoded at once (`FOLIO_IMAGE_WORKERS`; by default the CPUs, at most 4): each
    holds up to `maxImagePixels` x 4 bytes while it is worked on."""
    raw = os.environ.get("FOLIO_IMAGE_WORKERS", "")
    if raw.strip():
        return max(1, int(raw))
    return max(1, min(os.cpu_count() or 1, 4))


# decoded pixels worked on at once by default: one image of the default maximum size
# (40 million pixels, 160 MB decoded as RGBA) at a time, smaller ones side by side
PIXEL_BUDGET = 48_000_000


def pixel_budget() -> int:
    """Pixels decoded at once (`FOLIO_IMAGE_PIXELS`; by default PIXEL_BUDGET, less on a
    machine whose available memory would not hold that many 16 times over)."""
    raw = os.environ.get("FOLIO_IMAGE_PIXELS", "")
    if raw.strip():
        return max(1, int(raw))
    available = _available_memory()
    if available is None:
        return PIXEL_BUDGET
    return max(4_000_000, min(PIXEL_BUDGET, available // 16))


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


class PixelGate:
    """Admits image work while the pixels being worked on stay within `budget`; work
    larger than the budget runs alone. Waiting happens on the event loop, first come first
    served."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0
        self._waiting: list[tuple[int, asyncio.Future[None]]] = []

    async def acquire(self, pixels: int) -> int:
        """Waits for room for `pixels` and takes it; returns what to `release`."""
        pixels = min(max(pixels, 0), self.budget)
        if not self._waiting and self.used + pixels <= self.budget:
            self.used += pixels
            return pixels
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((pixels, turn))
        try:
            await turn
        except BaseException:
            if turn.done() and not turn.cancelled():
                # admitted as it was cancelled: the room goes to the next in line
                self.release(pixels)
            else:
                self._waiting.remove((pixels, turn))
                self._admit()
            raise
        return pixels

    def release(self, pixels: int) -> None:
        self.used -= pixels
        self._admit()

    def _admit(self) -> None:
        while self._waiting:
            pixels, turn = self._waiting[0]
            if self.used + pixels > self.budget and self.used > 0:
                return
            self._waiting.pop(0)
            self.used += pixels
            turn.set_result(None)


_pool: ThreadPoolExecutor | None = None
# one gate per event loop (a gate's waiters are futures of its loop)
_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, PixelGate] = (
    weakref.WeakKeyDictionary()
)
T = TypeVar("T")

Source = bytes | Path
# an image is reduced by whole factors to no less than this many times a format's size,
# then resampled (Pillow's `thumbnail` default); bands of this many lines at a time
REDUCING_GAP = 2
BAND_LINES = 256


def _open(source: Source) -> Image.Image:
    return Image.open(io.BytesIO(source) if isinstance(source, bytes) else source)


def header_size(source: Source) -> tuple[int, int] | None:
    """Width and height from the image's header, without decoding its pixels (None: not an
    image Pillow reads). A header declaring a decompression bomb reports its size."""
    try:
        with _open(source) as image:
            return int(image.width), int(image.height)
    except Image.DecompressionBombError:
        return (1 << 20, 1 << 20)
    except _UNREADABLE:
        return None


@dataclass
class Variant:
    name: str
    data: bytes
    width: int
    height: int


def fitted(size: tuple[int, int], box: tuple[int, int]) -> tuple[int, int] | None:
    """The size an image of `size` is shrunk to so as to fit in `box`, its aspect ratio kept
    (each side rounded to whichever of its floor and ceiling keeps the ratio closer, at least
    one pixel), as Pillow's `thumbnail` sizes it; None when it already fits."""
    width, height = size
    box_w, box_h = box
    if width <= box_w and height <= box_h:
        return None
    ratio = width / height
    if box_w / box_h >= ratio:
        # the height is the tighter side
        options = {math.floor(box_h * ratio), math.ceil(box_h * ratio)}
        new_w = min(options, key=lambda w: abs(ratio - w / box_h))
        return max(new_w, 1), box_h
    options = {math.floor(box_w / ratio), math.ceil(box_w / ratio)}
    new_h = min(options, key=lambda h: abs(ratio - box_w / h) if h else math.inf)
    return box_w, max(new_h, 1)


def _boxes(size: tuple[int, int]) -> list[tuple[str, tuple[int, int]]]:
    """The formats an image of `size` gets, with their sizes, largest first."""
    out = []
    for name, side in BREAKPOINTS:
        got = fitted(size, (side, side))
        if got is not None:
            out.append((name, got))
    name, box_w, box_h = THUMBNAIL
    got = fitted(size, (box_w, box_h))
    if got is not None:
        out.append((name, got))
    return out


def variants(source: Source, mime: str) -> list[Variant]:
    """The formats to store for an image, smallest first. The original is decoded once (a
    JPEG at a reduced scale when the largest format allows), reduced band by band, and
    shrunk to the largest format, which the smaller ones are made from."""
    if mime not in RESIZABLE:
        return []
    try:
        with _open(source) as original:
            boxes = _boxes(original.size)
            if not boxes:
                return []
            first = boxes[0][1]
            # JPEG: decoded at 1/2, 1/4 or 1/8 scale when that still leaves the reduction
            # its margin
            original.draft(None, (first[0] * REDUCING_GAP, first[1] * REDUCING_GAP))
            original.load()
            reduced = _reduced(original, first)
            try:
                largest = reduced.resize(first, Image.Resampling.LANCZOS)
            finally:
                if reduced is not original:
                    reduced.close()
        try:
            out = [_encoded(largest, boxes[0][0], mime)]
            for name, box in boxes[1:]:
                with largest.resize(box, Image.Resampling.LANCZOS) as image:
                    out.append(_encoded(image, name, mime))
        finally:
            largest.close()
        out.reverse()
        return out
    except (*_UNREADABLE, Image.DecompressionBombError):
        return []


def _reduced(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """`image` (loaded) reduced by whole factors (each pixel the mean of a block) to no
    less than REDUCING_GAP times `size`, or `image` itself when it is not that large. Done
    in bands of lines, so that what it takes besides the image is the reduced image and one
    band (a whole reduction of an RGBA image first copies it whole, premultiplied)."""
    factor_x = max(1, int(image.width / size[0] / REDUCING_GAP))
    factor_y = max(1, int(image.height / size[1] / REDUCING_GAP))
    if (factor_x == 1 and factor_y == 1) or image.mode in ("1", "P"):
        # palette images are resized by nearest pixel, which needs no reduction first
        return image
    out = Image.new(image.mode, (-(-image.width // factor_x), -(-image.height // factor_y)))
    step = factor_y * max(1, BAND_LINES // factor_y)
    try:
        for top in range(0, image.height, step):
            bottom = min(image.height, top + step)
            with (
                image.crop((0, top, image.width, bottom)) as band,
                band.reduce((factor_x, factor_y)) as small,
            ):
                out.paste(small, (0, top // factor_y))
    except ValueError:
        # a mode Pillow does not reduce: resized whole
        out.close()
        return image
    return out


def _encoded(image: Image.Image, name: str, mime: str) -> Variant:
    fmt = PIL_FORMATS[mime]
    if fmt == "JPEG" and image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return Variant(name, buffer.getvalue(), image.width, image.height)


def inspect(
    source: Source, mime: str, formats: bool
) -> tuple[tuple[int, int] | None, list[Variant]]:
    """An image's size (None: not an image Pillow reads) and, if `formats`, its formats."""
    try:
        with _open(source) as image:
            size = int(image.width), int(image.height)
    except (*_UNREADABLE, Image.DecompressionBombError):
        return None, []
    if not formats:
        return size, []
    try:
        return size, variants(source, mime)
    finally:
        _give_back()


def gate() -> PixelGate:
    """The running event loop's pixel gate."""
    loop = asyncio.get_running_loop()
    found = _gates.get(loop)
    if found is None:
        found = _gates[loop] = PixelGate(pixel_budget())
    return found


async def in_image_pool(work: Callable[[], T], pixels: int = 0) -> T:
    """`work` on the image pool's threads, once the pixel gate has room for the `pixels`
    it decodes, the event loop serving meanwhile."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(image_workers(), thread_name_prefix="folio-image")
    pixel_gate = gate()
    taken = await pixel_gate.acquire(pixels)
    try:
        return await asyncio.get_running_loop().run_in_executor(_pool, work)
    finally:
        pixel_gate.release(taken)


def _load_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None  # not glibc
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_trim = _load_trim()


def _give_back() -> None:
    """Freed memory handed back to the system (glibc keeps it for the process otherwise)."""
    if _trim is not None:
        _trim(0)
