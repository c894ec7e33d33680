"""What a provider stores may come as a file (an upload streamed to disk), a stream or
bytes: the local provider stores each whole, leaves the given file in place for its owner to
remove, and leaves no partial file when a source fails."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from folio.files.providers import LocalProvider


def test_files_streams_and_bytes_are_stored_whole(tmp_path: Path) -> None:
    root = tmp_path / "public" / "uploads"
    provider = LocalProvider(root)
    upload = tmp_path / "upload.part"
    upload.write_bytes(b"f" * 3_000_000)

    async def run() -> None:
        assert await provider.put("a.bin", upload, "application/octet-stream") == "/uploads/a.bin"
        await provider.put("b.bin", io.BytesIO(b"s" * 2_500_000), "application/octet-stream")
        await provider.put("c.bin", b"bytes", "application/octet-stream")

    asyncio.run(run())
    # the caller removes its file once stored: the stored one stays whole
    upload.unlink()
    assert (root / "a.bin").read_bytes() == b"f" * 3_000_000
    assert (root / "b.bin").read_bytes() == b"s" * 2_500_000
    assert (root / "c.bin").read_bytes() == b"bytes"
    assert sorted(p.name for p in root.iterdir()) == ["a.bin", "b.bin", "c.bin"]


class Failing(io.RawIOBase):
    """A stream that fails after its first bytes (a client gone, a remote store down)."""

    def __init__(self) -> None:
        self.calls = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        self.calls += 1
        if self.calls > 1:
            raise OSError("the source went away")
        buffer[:4] = b"part"
        return 4


def test_a_failing_source_leaves_nothing(tmp_path: Path) -> None:
    root = tmp_path / "uploads"
    provider = LocalProvider(root)
    asyncio.run(provider.put("kept.bin", b"old", "application/octet-stream"))
    with pytest.raises(OSError, match="went away"):
        asyncio.run(
            provider.put("kept.bin", io.BufferedReader(Failing()), "application/octet-stream")
        )
    # the stored object is as it was, and no partial file is left
    assert sorted(p.name for p in root.iterdir()) == ["kept.bin"]
    assert (root / "kept.bin").read_bytes() == b"old"
