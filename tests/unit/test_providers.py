"""Upload providers: the local one stores and removes files under the app's
public/uploads/ (served at /uploads), and the configuration chooses the provider."""

from __future__ import annotations

import asyncio
import io
import os
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

from folio.errors import ConfigError
from folio.files.providers import (
    LocalProvider,
    ObjectMissing,
    Provider,
    StaticMount,
    StoredObject,
    provider_for,
)
from folio.files.providers.local import COPY_CHUNK


def test_the_local_provider_stores_and_removes_files(tmp_path: Path) -> None:
    root = tmp_path / "public" / "uploads"
    provider = LocalProvider(root)

    async def run() -> None:
        # the directory is made on the first write
        assert await provider.put("a_1.png", b"png bytes", "image/png") == "/uploads/a_1.png"
        assert (root / "a_1.png").read_bytes() == b"png bytes"
        await provider.put("a_1.png", b"replaced", "image/png")
        assert (root / "a_1.png").read_bytes() == b"replaced"
        assert sorted(p.name for p in root.iterdir()) == ["a_1.png"]  # no partial file left
        await provider.delete("a_1.png")
        assert not (root / "a_1.png").exists()
        await provider.delete("a_1.png")  # already gone: not an error

    asyncio.run(run())
    assert provider.name == "local"
    assert provider.static_mount() == StaticMount("/uploads", root)


def test_the_local_provider_streams_files_and_streams(tmp_path: Path) -> None:
    root = tmp_path / "public" / "uploads"
    provider = LocalProvider(root)
    source = tmp_path / "upload.bin"
    source.write_bytes(b"x" * 3_000_000)

    async def run() -> None:
        await provider.put("a.bin", source, "application/octet-stream")
        await provider.put("b.bin", io.BytesIO(b"y" * 2_500_000), "application/octet-stream")

    asyncio.run(run())
    assert (root / "a.bin").read_bytes() == source.read_bytes()
    assert source.exists()  # the caller's file is left in place
    assert (root / "b.bin").read_bytes() == b"y" * 2_500_000
    assert sorted(p.name for p in root.iterdir()) == ["a.bin", "b.bin"]
    assert not provider.private and provider.signed_url("/uploads/a.bin") == "/uploads/a.bin"


@pytest.mark.parametrize("key", ["", ".", "..", "../escape.txt", "sub/file.txt", "/abs.txt"])
def test_the_local_provider_keeps_to_its_directory(tmp_path: Path, key: str) -> None:
    provider = LocalProvider(tmp_path / "uploads")
    with pytest.raises(ValueError, match="not a file name"):
        asyncio.run(provider.put(key, b"x", "text/plain"))
    with pytest.raises(ValueError, match="not a file name"):
        asyncio.run(provider.delete(key))
    assert not (tmp_path / "escape.txt").exists()


@pytest.mark.parametrize(
    "plugins",
    [
        {},
        {"upload": {"config": {"sizeLimit": 1000}}},
        {"upload": {"config": {"provider": "local", "providerOptions": {}}}},
        {"upload": {"provider": "local"}},  # the settings given without `config`
        {"upload": {"config": {"provider": None, "providerOptions": None}}},
    ],
)
def test_the_local_provider_is_the_default(tmp_path: Path, plugins: dict[str, Any]) -> None:
    provider = provider_for(plugins, tmp_path)
    assert isinstance(provider, LocalProvider)
    assert provider.root == tmp_path / "public" / "uploads"


def test_the_local_provider_reads_a_file_back_in_chunks(tmp_path: Path) -> None:
    provider = LocalProvider(tmp_path / "uploads")
    data = os.urandom(2 * COPY_CHUNK + 10)

    async def run() -> None:
        await provider.put("big.bin", data, "application/octet-stream")
        async with provider.open("big.bin") as stored:
            assert stored.size == len(data)
            chunks = [chunk async for chunk in stored.chunks]
        assert [len(c) for c in chunks] == [COPY_CHUNK, COPY_CHUNK, 10]
        assert b"".join(chunks) == data
        with pytest.raises(ObjectMissing):
            async with provider.open("missing.bin"):
                pass
        with pytest.raises(ValueError):
            async with provider.open("../outside"):
                pass

    asyncio.run(run())


@pytest.mark.parametrize("name", ["aws-s4", 3])
def test_an_unknown_provider_is_a_configuration_error(tmp_path: Path, name: Any) -> None:
    plugins = {"upload": {"config": {"provider": name}}}
    known = r"\(known: aws-s3, local\)"
    with pytest.raises(ConfigError, match=rf"unknown upload provider {name!r} {known}"):
        provider_for(plugins, tmp_path)


def test_provider_options_must_be_an_object(tmp_path: Path) -> None:
    plugins = {"upload": {"config": {"provider": "local", "providerOptions": ["x"]}}}
    with pytest.raises(ConfigError, match="providerOptions"):
        provider_for(plugins, tmp_path)


def test_a_provider_stores_elsewhere_unless_it_says_what_to_serve() -> None:
    class Remote(Provider):
        name = "remote"

        async def put(self, key: str, data: bytes, mime: str) -> str:
            return f"https://cdn.example/{key}"

        async def delete(self, key: str) -> None:
            return None

        def open(self, key: str) -> AbstractAsyncContextManager[StoredObject]:
            raise ObjectMissing(key)

    assert Remote().static_mount() is None
