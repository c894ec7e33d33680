"""MIME types of uploaded files: the type of an upload (declared, else guessed from its
name), matching a type against the upload settings' allowed and denied patterns (`*`,
`image/*`, `image/png`), and the media group a type falls in, which a media attribute's
`allowedTypes` names (images, videos, audios, files)."""

from __future__ import annotations

import mimetypes
from collections.abc import Iterable

OCTET_STREAM = "application/octet-stream"
MEDIA_GROUPS = frozenset({"images", "videos", "audios", "files"})
# a type outside these prefixes is in the catch-all group "files"
_GROUP_PREFIXES = (("image/", "images"), ("video/", "videos"), ("audio/", "audios"))


def guess_mime(filename: str, declared: str | None) -> str:
    """The declared type without its parameters, lowercased; else (none, or the generic
    octet stream a client sends when it does not know) the one the file name suggests."""
    if declared and declared != OCTET_STREAM:
        return declared.split(";")[0].strip().lower()
    guessed, _ = mimetypes.guess_type(filename)
    return guessed or OCTET_STREAM


def matches(mime: str, patterns: Iterable[str]) -> bool:
    """Whether a pattern names the type: `*` (any), `major/*` (a family) or the type."""
    for pattern in patterns:
        if pattern == "*" or pattern == mime:
            return True
        if pattern.endswith("/*") and mime.startswith(pattern[:-1]):
            return True
    return False


def permitted(mime: str, allowed: Iterable[str], denied: Iterable[str]) -> bool:
    """Allowed and not denied (a denial wins over an allowance)."""
    return matches(mime, allowed) and not matches(mime, denied)


def media_group(mime: str) -> str:
    return next((group for prefix, group in _GROUP_PREFIXES if mime.startswith(prefix)), "files")


def in_media_groups(mime: str, groups: Iterable[str]) -> bool:
    """Whether the type's media group is one of `groups` (a media attribute's allowedTypes)."""
    return media_group(mime) in groups
