"""SigV4 signing against the examples the S3 documentation publishes (the same credentials,
time, requests and signatures): a GET with a Range header, a PUT with a hashed payload,
two GETs with query strings, and a pre-signed URL."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import pytest

from folio.files.sigv4 import EMPTY_SHA256, Credentials, Signer, canonical_query, quote_path

EXAMPLE = Credentials("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
HOST = "examplebucket.s3.amazonaws.com"
WHEN = datetime(2013, 5, 24, tzinfo=UTC)
SCOPE = "Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request"


def signer() -> Signer:
    return Signer(EXAMPLE, "us-east-1")


@pytest.mark.parametrize(
    ("method", "path", "query", "headers", "payload", "signed", "signature"),
    [
        (
            "GET",
            "/test.txt",
            [],
            {"Range": "bytes=0-9"},
            EMPTY_SHA256,
            "host;range;x-amz-content-sha256;x-amz-date",
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
        ),
        (
            "PUT",
            quote_path("/test$file.text"),
            [],
            {"Date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"},
            hashlib.sha256(b"Welcome to Amazon S3.").hexdigest(),
            "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd",
        ),
        (
            "GET",
            "/",
            [("lifecycle", "")],
            {},
            EMPTY_SHA256,
            "host;x-amz-content-sha256;x-amz-date",
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543",
        ),
        (
            "GET",
            "/",
            [("max-keys", "2"), ("prefix", "J")],
            {},
            EMPTY_SHA256,
            "host;x-amz-content-sha256;x-amz-date",
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
        ),
    ],
)
def test_the_documented_header_signatures(
    method: str,
    path: str,
    query: list[tuple[str, str]],
    headers: dict[str, str],
    payload: str,
    signed: str,
    signature: str,
) -> None:
    added = signer().headers(method, HOST, path, query, headers, payload, now=WHEN)
    assert added["x-amz-date"] == "20130524T000000Z"
    assert added["x-amz-content-sha256"] == payload
    assert added["Authorization"] == (
        f"AWS4-HMAC-SHA256 {SCOPE}, SignedHeaders={signed}, Signature={signature}"
    )


def test_the_documented_presigned_url() -> None:
    query = signer().presign("GET", HOST, "/test.txt", 86400, now=WHEN)
    assert query == (
        "X-Amz-Algorithm=AWS4-HMAC-SHA256"
        "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
        "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
        "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
    )


def test_the_signing_key_follows_the_day() -> None:
    s = signer()
    first = s.presign("GET", HOST, "/test.txt", 60, now=WHEN)
    later = s.presign("GET", HOST, "/test.txt", 60, now=datetime(2013, 5, 25, tzinfo=UTC))
    assert "%2F20130525%2F" in later
    # back to the first day: the same URL as before (the key is derived anew)
    assert s.presign("GET", HOST, "/test.txt", 60, now=WHEN) == first


def test_a_session_token_is_signed() -> None:
    s = Signer(Credentials(EXAMPLE.access_key, EXAMPLE.secret_key, "tok/en+="), "us-east-1")
    query = s.presign("GET", HOST, "/test.txt", 60, now=WHEN)
    assert "&X-Amz-Security-Token=tok%2Fen%2B%3D&X-Amz-SignedHeaders=host" in query
    added = s.headers("GET", HOST, "/test.txt", now=WHEN)
    assert added["x-amz-security-token"] == "tok/en+="
    assert "x-amz-security-token" in added["Authorization"]


def test_canonical_forms() -> None:
    assert canonical_query([("b", "2"), ("a", "x y/z"), ("a", "1")]) == "a=1&a=x%20y%2Fz&b=2"
    assert quote_path("/dir/a b+c~d.png") == "/dir/a%20b%2Bc~d.png"
