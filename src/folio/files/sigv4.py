"""AWS Signature Version 4, as S3 and the stores that speak its API check it: the
`Authorization` header of a request (`Signer.headers`), and the query string of a
pre-signed URL (`Signer.presign`), which lets whoever holds the URL read one object until it
expires.

Signing is local computation: a canonical form of the request, its SHA-256, and one HMAC
with a key derived from the secret, the day, the region and the service. The derived key is
kept for its day, so that a pre-signed URL costs one hash and one HMAC (a page of files with
their formats signs dozens of URLs).

Payloads are not hashed (`UNSIGNED-PAYLOAD`, as S3 allows): hashing a large upload would
cost a pass over its bytes before sending them; TLS carries their integrity on the way.

S3's canonical path is the request's path encoded once (`/` kept), not normalized: callers
pass the path as sent (see `quote_path`)."""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote

ALGORITHM = "AWS4-HMAC-SHA256"
UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"
# the SHA-256 of no bytes: the payload hash of a request without a body
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
# how long a pre-signed URL may last at most (S3 refuses longer ones)
MAX_EXPIRES = 7 * 24 * 3600


@dataclass(frozen=True)
class Credentials:
    access_key: str
    secret_key: str
    # temporary credentials' token (sent as X-Amz-Security-Token)
    session_token: str | None = None


def quote_path(path: str) -> str:
    """A path encoded as S3 expects it, once: unreserved characters and `/` kept."""
    return quote(path, safe="/~")


def _quote(text: str) -> str:
    # RFC 3986 unreserved characters only: `/` is encoded in query names and values
    return quote(text, safe="~")


def canonical_query(params: Iterable[tuple[str, str]]) -> str:
    """The query string in canonical form: each name and value encoded, sorted by name
    (then value)."""
    return "&".join(f"{k}={v}" for k, v in sorted((_quote(k), _quote(v)) for k, v in params))


def amz_date(now: datetime) -> str:
    return now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


class Signer:
    """Signs requests for one set of credentials, region and service (`s3`)."""

    def __init__(self, credentials: Credentials, region: str, service: str = "s3") -> None:
        self.credentials = credentials
        self.region = region
        self.service = service
        self._day = ""
        self._key = b""
        self._query_day = ""
        self._query_head = ""
        self._second = -1
        self._stamp = ""

    def _signing_key(self, day: str) -> bytes:
        # derived once per day (the scope's date), not per request
        if day != self._day:
            key = ("AWS4" + self.credentials.secret_key).encode()
            for part in (day, self.region, self.service, "aws4_request"):
                key = hmac.digest(key, part.encode(), "sha256")
            self._day, self._key = day, key
        return self._key

    def _scope(self, day: str) -> str:
        return f"{day}/{self.region}/{self.service}/aws4_request"

    def _signature(self, stamp: str, canonical_request: str) -> str:
        day = stamp[:8]
        to_sign = "\n".join(
            (
                ALGORITHM,
                stamp,
                self._scope(day),
                hashlib.sha256(canonical_request.encode()).hexdigest(),
            )
        )
        return hmac.digest(self._signing_key(day), to_sign.encode(), "sha256").hex()

    def headers(
        self,
        method: str,
        host: str,
        path: str,
        query: Iterable[tuple[str, str]] = (),
        headers: Mapping[str, str] | None = None,
        payload_hash: str = UNSIGNED_PAYLOAD,
        now: datetime | None = None,
    ) -> dict[str, str]:
        """The headers that sign a request: `x-amz-date`, `x-amz-content-sha256`, the
        session token when there is one, and `Authorization`. `path` as sent (encoded);
        `headers`: the others to sign (`host` is always signed)."""
        stamp = amz_date(now or datetime.now(UTC))
        added = {"x-amz-date": stamp, "x-amz-content-sha256": payload_hash}
        if self.credentials.session_token:
            added["x-amz-security-token"] = self.credentials.session_token
        signed = {"host": host, **added}
        for name, value in (headers or {}).items():
            signed[name.lower()] = " ".join(str(value).split())
        names = sorted(signed)
        canonical_headers = "".join(f"{n}:{signed[n]}\n" for n in names)
        signed_names = ";".join(names)
        canonical_request = "\n".join(
            (
                method,
                path,
                canonical_query(query),
                canonical_headers,
                signed_names,
                payload_hash,
            )
        )
        signature = self._signature(stamp, canonical_request)
        credential = f"{self.credentials.access_key}/{self._scope(stamp[:8])}"
        added["Authorization"] = (
            f"{ALGORITHM} Credential={credential}, SignedHeaders={signed_names}, "
            f"Signature={signature}"
        )
        return added

    def presign(
        self,
        method: str,
        host: str,
        path: str,
        expires: int,
        now: datetime | None = None,
    ) -> str:
        """The query string of a pre-signed URL for `path` on `host` (its `host` header
        signed only), valid `expires` seconds from `now`."""
        stamp = amz_date(now) if now is not None else self._now()
        day = stamp[:8]
        if day != self._query_day:
            # the names are in canonical order already; only the credential and the
            # token need encoding, once a day
            credential = _quote(f"{self.credentials.access_key}/{self._scope(day)}")
            self._query_day = day
            self._query_head = f"X-Amz-Algorithm={ALGORITHM}&X-Amz-Credential={credential}"
        token = self.credentials.session_token
        tail = f"&X-Amz-Security-Token={_quote(token)}" if token else ""
        query = (
            f"{self._query_head}&X-Amz-Date={stamp}&X-Amz-Expires={expires}"
            f"{tail}&X-Amz-SignedHeaders=host"
        )
        canonical_request = f"{method}\n{path}\n{query}\nhost:{host}\n\nhost\n{UNSIGNED_PAYLOAD}"
        return f"{query}&X-Amz-Signature={self._signature(stamp, canonical_request)}"

    def _now(self) -> str:
        # the time stamp, formatted once per second
        second = int(time.time())
        if second != self._second:
            self._second = second
            self._stamp = amz_date(datetime.fromtimestamp(second, UTC))
        return self._stamp
