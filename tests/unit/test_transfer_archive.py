"""The transfer archive's container: what the writer makes is what the reader reads (tar,
gzip, encrypted, unpacked), files rolled at their size, and the reference's two encryption
formats."""

from __future__ import annotations

import hashlib
import tarfile
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from folio.transfer.archive import ArchiveError, ArchiveReader, ArchiveWriter
from folio.transfer.encryption import MAGIC

LINES = [{"type": "api::tag.tag", "id": i, "data": {"name": f"tag {i}"}} for i in range(50)]


def _write(base: Path, **kw: object) -> Path:
    with ArchiveWriter(base, max_jsonl_bytes=600, **kw) as w:  # type: ignore[arg-type]
        w.add_line("schemas", {"uid": "api::tag.tag"})
        for line in LINES:
            w.add_line("entities", line)
        w.add_asset("a_1.png", {"id": 1, "hash": "a_1", "mime": "image/png"}, b"\x89PNG bytes")
        w.add_line("links", {"kind": "relation.basic"})
        w.set_metadata({"strapi": {"version": "5.54.0"}})
    return w.path


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        ({}, "x.tar.gz"),
        ({"compress": False}, "x.tar"),
        ({"key": "k1"}, "x.tar.gz.enc"),
        ({"key": "k1", "compress": False, "legacy_encryption": False}, "x.tar.enc"),
    ],
)
def test_what_is_written_reads_back(tmp_path: Path, kw: dict[str, object], name: str) -> None:
    path = _write(tmp_path / "x", **kw)
    assert path.name == name
    reader = ArchiveReader(path, key=kw.get("key"))  # type: ignore[arg-type]
    assert list(reader.lines("entities")) == LINES
    assert list(reader.lines("configuration")) == []
    assert [(a.filename, a.metadata["hash"], a.read()) for a in reader.assets()] == [
        ("a_1.png", "a_1", b"\x89PNG bytes")
    ]
    assert reader.metadata() == {"strapi": {"version": "5.54.0"}}


def test_files_roll_at_their_size_in_the_references_order(tmp_path: Path) -> None:
    with tarfile.open(_write(tmp_path / "x")) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    entities = [m for m in members if m.name.startswith("entities/")]
    assert [m.name for m in entities[:2]] == [
        "entities/entities_00001.jsonl",
        "entities/entities_00002.jsonl",
    ]
    assert len(entities) > 3 and all(m.size <= 600 for m in entities)
    first = [n.split("/")[0] for n in names]
    assert list(dict.fromkeys(first)) == ["schemas", "entities", "assets", "links", "metadata.json"]


def test_records_are_counted_without_being_read(tmp_path: Path) -> None:
    reader = ArchiveReader(_write(tmp_path / "x"))
    assert reader.count_lines() == {"schemas": 1, "entities": 50, "links": 1, "configuration": 0}
    assert reader.count_lines(skip=b'"tag 1') == {
        "schemas": 1,
        "entities": 39,  # "tag 1", "tag 10" ... "tag 19" passed over
        "links": 1,
        "configuration": 0,
    }


def test_an_unpacked_directory_reads_as_the_archive(tmp_path: Path) -> None:
    with tarfile.open(_write(tmp_path / "x")) as tar:
        tar.extractall(tmp_path / "dir", filter="data")
    reader = ArchiveReader(tmp_path / "dir")
    assert list(reader.lines("entities")) == LINES
    assert [a.read() for a in reader.assets()] == [b"\x89PNG bytes"]


def _reference_v2(plain: bytes, passphrase: str, salt: bytes) -> bytes:
    """What the reference writes: its header, then AES-128-ECB (PKCS#7) under
    scrypt(passphrase, salt, N=16384, r=8, p=1, 16 bytes)."""
    key = hashlib.scrypt(passphrase.encode(), salt=salt, n=16384, r=8, p=1, dklen=16)
    padder = padding.PKCS7(128).padder()
    enc = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    body = enc.update(padder.update(plain) + padder.finalize()) + enc.finalize()
    return MAGIC + bytes([2, 16]) + salt + body


def test_the_references_encryption_is_read_and_a_wrong_key_refused(tmp_path: Path) -> None:
    plain = _write(tmp_path / "plain").read_bytes()
    sealed = tmp_path / "ref.tar.gz.enc"
    sealed.write_bytes(_reference_v2(plain, "s3cret", b"0123456789abcdef"))
    assert list(ArchiveReader(sealed, key="s3cret").lines("entities")) == LINES
    with pytest.raises(ArchiveError, match="does not decrypt"):
        ArchiveReader(sealed, key="other")
    with pytest.raises(ArchiveError, match="encrypted"):
        ArchiveReader(sealed)


def test_encryption_is_written_as_the_reference_5_54_reads_it(tmp_path: Path) -> None:
    """No header: AES-128-ECB under scrypt(passphrase, empty salt), over the gzip stream."""
    sealed = _write(tmp_path / "x", key="s3cret").read_bytes()
    assert not sealed.startswith(MAGIC)
    key = hashlib.scrypt(b"s3cret", salt=b"", n=16384, r=8, p=1, dklen=16)
    dec = Cipher(algorithms.AES(key), modes.ECB()).decryptor()
    assert (dec.update(sealed) + dec.finalize())[:2] == b"\x1f\x8b"


def test_a_damaged_line_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "dir" / "entities"
    folder.mkdir(parents=True)
    (folder / "entities_00001.jsonl").write_bytes(b'{"a": 1}\n{"b": \n')
    with pytest.raises(ArchiveError, match=r"entities/entities_00001\.jsonl, line 2: not JSON"):
        list(ArchiveReader(tmp_path / "dir").lines("entities"))
