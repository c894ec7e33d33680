"""The reference's encryption of transfer archives, as streams: AES-128-ECB with PKCS#7
padding under a key derived from the passphrase by scrypt (N=16384, r=8, p=1, 16 bytes).
The reference 5.54 writes and reads it without a header, the key derived with an empty
salt; its later releases start the file with a header (`STRAPI2\\0`, version 2, the salt's
length, a random 16-byte salt) and read both. Both are read here; the headerless form is
written unless asked otherwise (`legacy=False`), so that 5.54 reads what Folio exports."""

from __future__ import annotations

import functools
import hashlib
import io
import secrets
from typing import Any, BinaryIO

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

MAGIC = b"STRAPI2\0"
FORMAT_VERSION = 2
SALT_BYTES = 16
HEADER_BYTES = len(MAGIC) + 2 + SALT_BYTES
# key derivations tried on an archive without the header, in order: the older releases'
# empty salt, then the fixed salt one release line used
LEGACY_SALTS = (b"", b"strapi-data-transfer")
_CHUNK = 1 << 16


class ArchiveError(Exception):
    """An archive that cannot be read as asked: a missing or wrong key, a damaged file, a
    line that is not JSON. The message names the place."""


@functools.lru_cache(maxsize=8)
def derive_key(passphrase: str, salt: bytes) -> bytes:
    """scrypt costs some 50 ms by design: once per archive and key, not once per pass."""
    return hashlib.scrypt(passphrase.encode(), salt=salt, n=16384, r=8, p=1, dklen=16)


# ---------------------------------------------------------------------------- decryption
def looks_plain(head: bytes) -> bool:
    """Whether decrypted bytes start as a gzip stream or a tar archive would."""
    if head[:2] == b"\x1f\x8b":
        return True
    return len(head) >= 262 and head[257:262] == b"ustar"


class Decrypting(io.RawIOBase):
    """A read-only stream of the plaintext of an encrypted archive."""

    def __init__(self, raw: BinaryIO, passphrase: str, name: str) -> None:
        head = raw.read(HEADER_BYTES)
        candidates: list[tuple[bytes, int]] = []
        if (
            head[: len(MAGIC)] == MAGIC
            and len(head) == HEADER_BYTES
            and head[len(MAGIC)] == FORMAT_VERSION
            and head[len(MAGIC) + 1] == SALT_BYTES
        ):
            candidates.append((head[len(MAGIC) + 2 :], HEADER_BYTES))
        candidates += [(salt, 0) for salt in LEGACY_SALTS]
        self._raw = raw
        for salt, start in candidates:
            raw.seek(start)
            sample = raw.read(1024)
            key = derive_key(passphrase, salt)
            dec = Cipher(algorithms.AES(key), modes.ECB()).decryptor()
            if looks_plain(dec.update(sample[: len(sample) - len(sample) % 16])):
                raw.seek(start)
                self._dec = Cipher(algorithms.AES(key), modes.ECB()).decryptor()
                break
        else:
            raise ArchiveError(f"{name}: the key does not decrypt this archive (wrong key?)")
        self._unpad = padding.PKCS7(128).unpadder()
        self._buf = b""
        self._done = False

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        while not self._buf and not self._done:
            chunk = self._raw.read(_CHUNK)
            if chunk:
                self._buf = self._unpad.update(self._dec.update(chunk))
            else:
                try:
                    self._buf = self._unpad.update(self._dec.finalize()) + self._unpad.finalize()
                except ValueError as exc:
                    raise ArchiveError("the encrypted archive is truncated or damaged") from exc
                self._done = True
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


class Encrypting(io.RawIOBase):
    """A write-only stream that encrypts into `raw` (closing it on close)."""

    def __init__(self, raw: BinaryIO, passphrase: str, legacy: bool) -> None:
        if legacy:
            salt = LEGACY_SALTS[0]
        else:
            salt = secrets.token_bytes(SALT_BYTES)
            raw.write(MAGIC + bytes([FORMAT_VERSION, SALT_BYTES]) + salt)
        self._raw = raw
        self._enc = Cipher(algorithms.AES(derive_key(passphrase, salt)), modes.ECB()).encryptor()
        self._pad = padding.PKCS7(128).padder()

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        data = bytes(b)
        self._raw.write(self._enc.update(self._pad.update(data)))
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._raw.write(self._enc.update(self._pad.finalize()) + self._enc.finalize())
            self._raw.close()
        super().close()
