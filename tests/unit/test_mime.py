"""MIME types of uploads: the declared or guessed type, allowed and denied patterns, and the
media groups a media attribute's allowedTypes names."""

from __future__ import annotations

import pytest

from folio.files.mime import guess_mime, in_media_groups, matches, media_group, permitted


@pytest.mark.parametrize(
    ("filename", "declared", "expected"),
    [
        ("a.png", "image/png", "image/png"),
        ("a.txt", "Text/Plain; charset=utf-8", "text/plain"),
        ("a.png", "application/octet-stream", "image/png"),  # the generic type: guessed
        ("a.png", None, "image/png"),
        ("noext", None, "application/octet-stream"),
    ],
)
def test_the_declared_type_else_the_guessed_one(
    filename: str, declared: str | None, expected: str
) -> None:
    assert guess_mime(filename, declared) == expected


def test_patterns_name_any_type_a_family_or_one_type() -> None:
    assert matches("image/png", ["*"])
    assert matches("image/png", ["image/*"])
    assert matches("image/png", ["text/plain", "image/png"])
    assert not matches("image/png", ["image/jpeg", "video/*"])
    assert not matches("image/png", [])
    # a family is the part before the slash, not a prefix of it
    assert not matches("imagex/png", ["image/*"])


def test_a_denial_wins_over_an_allowance() -> None:
    assert permitted("image/png", ["*"], [])
    assert not permitted("image/svg+xml", ["image/*"], ["image/svg+xml"])
    assert not permitted("text/html", ["image/*"], [])


@pytest.mark.parametrize(
    ("mime", "group"),
    [
        ("image/png", "images"),
        ("video/mp4", "videos"),
        ("audio/mpeg", "audios"),
        ("application/pdf", "files"),
        ("", "files"),
    ],
)
def test_media_groups(mime: str, group: str) -> None:
    assert media_group(mime) == group
    assert in_media_groups(mime, (group,))
    assert not in_media_groups(mime, tuple({"images", "videos", "audios", "files"} - {group}))
