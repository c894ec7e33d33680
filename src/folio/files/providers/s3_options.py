"""The S3 provider's settings: `config/plugins.json` -> `upload.config.providerOptions`,
named as the reference's S3 provider names them, each overridden by an environment variable
when that is set (and not empty):

    {"upload": {"config": {"provider": "aws-s3", "providerOptions": {
        "baseUrl": "https://cdn.example.com",            CDN_URL
        "rootPath": "uploads",                           CDN_ROOT_PATH
        "s3Options": {
            "credentials": {
                "accessKeyId": "...",                    AWS_ACCESS_KEY_ID
                "secretAccessKey": "...",                AWS_ACCESS_SECRET or AWS_SECRET_ACCESS_KEY
                "sessionToken": "..."                    AWS_SESSION_TOKEN
            },
            "endpoint": "https://s3.example.com",        AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL
            "region": "eu-west-1",                       AWS_REGION
            "forcePathStyle": false,                     AWS_S3_FORCE_PATH_STYLE
            "params": {
                "Bucket": "my-bucket",                   AWS_BUCKET
                "ACL": "private",                        AWS_ACL
                "signedUrlExpires": 900                  AWS_SIGNED_URL_EXPIRES
            }
        },
        "providerConfig": {"multipart": {"partSize": 8388608, "queueSize": 4}}
    }}}}

As the reference does: `params` is required; `ACL` is `public-read` unless given (`null`
sends none, for stores that refuse ACLs); `ACL: "private"` makes the bucket private (its
files' URLs are pre-signed in every answer, for `signedUrlExpires` seconds, 15 minutes by
default); the credentials may also sit in `s3Options` itself or beside it (the reference's
older forms), and so may the other S3 options. Without `endpoint` the store is AWS S3 in
`region` (`us-east-1` by default)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from folio.errors import ConfigError

WHERE = "config/plugins: upload.config.providerOptions"
MIB = 1024 * 1024
# S3's bounds: parts of at least 5 MiB (but the last), at most 10,000 of them
MIN_PART_SIZE = 5 * MIB
MAX_PART_SIZE = 5 * 1024 * MIB
DEFAULT_PART_SIZE = 8 * MIB
DEFAULT_QUEUE_SIZE = 4
DEFAULT_EXPIRES = 15 * 60
MAX_EXPIRES = 7 * 24 * 3600
# the root-level keys that are the provider's own; any other is an S3 option (older form)
OWN_KEYS = frozenset({"baseUrl", "rootPath", "s3Options", "providerConfig"})


@dataclass(frozen=True)
class S3Options:
    bucket: str
    access_key: str
    secret_key: str
    session_token: str | None = None
    region: str = "us-east-1"
    # scheme://host[:port] of the store; None: AWS S3 in `region`
    endpoint: str | None = None
    force_path_style: bool = False
    acl: str | None = "public-read"
    signed_url_expires: int = DEFAULT_EXPIRES
    base_url: str | None = None
    root_path: str = ""
    part_size: int = DEFAULT_PART_SIZE
    queue_size: int = DEFAULT_QUEUE_SIZE

    @property
    def private(self) -> bool:
        """A private bucket (ACL `private`, as the reference decides): its files are
        shown with pre-signed URLs."""
        return self.acl == "private"


def _object(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be an object")
    return value


def _env(*names: str) -> str | None:
    for name in names:
        value = os.environ.get(name, "")
        if value != "":
            return value
    return None


def _text(value: Any, where: str, *env: str) -> str | None:
    found = _env(*env)
    if found is not None:
        return found
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{where} must be a text (got {value!r})")
    return value


def _flag(value: Any, where: str, env: str) -> bool:
    raw: Any = _env(env)
    if raw is None:
        raw = value
    if raw is None:
        return False
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in ("true", "1", "yes", "false", "0", "no"):
        return raw.strip().lower() in ("true", "1", "yes")
    raise ConfigError(f"{where} must be true or false (got {raw!r})")


def _whole(value: Any, where: str, low: int, high: int, default: int, env: str = "") -> int:
    raw: Any = _env(env) if env else None
    if raw is None:
        raw = value
    if raw is None:
        return default
    number: int | None = None
    if isinstance(raw, int) and not isinstance(raw, bool):
        number = raw
    elif isinstance(raw, str) and raw.strip().isdecimal():
        number = int(raw.strip())
    if number is None or not low <= number <= high:
        raise ConfigError(f"{where} must be a whole number from {low} to {high} (got {raw!r})")
    return number


def _endpoint(value: str | None, where: str) -> str | None:
    """`scheme://host[:port]` (https when only a host is given); a path is refused."""
    if value is None:
        return None
    text = value.strip().rstrip("/")
    if "://" not in text:
        text = "https://" + text
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path:
        raise ConfigError(f"{where} must be an address like https://s3.example.com (got {value!r})")
    return f"{parts.scheme}://{parts.netloc}"


def read_options(options: Mapping[str, Any]) -> S3Options:
    """The settings `options` (the provider's `providerOptions`) and the environment give;
    ConfigError naming the key for a missing or bad one."""
    s3_where = f"{WHERE}.s3Options"
    given = _object(options.get("s3Options"), s3_where)
    # the reference's older form: S3 options beside s3Options (they win, as there)
    s3 = {**given, **{k: v for k, v in options.items() if k not in OWN_KEYS}}
    params_where = f"{s3_where}.params"
    if "params" not in s3 and _env("AWS_BUCKET") is None:
        raise ConfigError(f"{params_where} is required (with its Bucket)")
    params = _object(s3.get("params"), params_where)
    creds_where = f"{s3_where}.credentials"
    creds = _object(s3.get("credentials"), creds_where)
    access = _text(
        creds.get("accessKeyId", s3.get("accessKeyId")),
        f"{creds_where}.accessKeyId",
        "AWS_ACCESS_KEY_ID",
    )
    secret = _text(
        creds.get("secretAccessKey", s3.get("secretAccessKey")),
        f"{creds_where}.secretAccessKey",
        "AWS_ACCESS_SECRET",
        "AWS_SECRET_ACCESS_KEY",
    )
    if access is None or secret is None:
        raise ConfigError(
            f"{creds_where}: accessKeyId and secretAccessKey are required "
            "(or AWS_ACCESS_KEY_ID and AWS_ACCESS_SECRET)"
        )
    bucket = _text(params.get("Bucket"), f"{params_where}.Bucket", "AWS_BUCKET")
    if bucket is None:
        raise ConfigError(f"{params_where}.Bucket is required (or AWS_BUCKET)")
    acl: str | None = "public-read"
    if "ACL" in params:
        acl = _text(params["ACL"], f"{params_where}.ACL")
    acl = _env("AWS_ACL") or acl
    multipart = _object(
        _object(options.get("providerConfig"), f"{WHERE}.providerConfig").get("multipart"),
        f"{WHERE}.providerConfig.multipart",
    )
    base_url = _text(options.get("baseUrl"), f"{WHERE}.baseUrl", "CDN_URL")
    root = _text(options.get("rootPath"), f"{WHERE}.rootPath", "CDN_ROOT_PATH") or ""
    return S3Options(
        bucket=bucket,
        access_key=access,
        secret_key=secret,
        session_token=_text(
            creds.get("sessionToken"), f"{creds_where}.sessionToken", "AWS_SESSION_TOKEN"
        ),
        region=_text(s3.get("region"), f"{s3_where}.region", "AWS_REGION") or "us-east-1",
        endpoint=_endpoint(
            _text(
                s3.get("endpoint"),
                f"{s3_where}.endpoint",
                "AWS_ENDPOINT_URL_S3",
                "AWS_ENDPOINT_URL",
            ),
            f"{s3_where}.endpoint",
        ),
        force_path_style=_flag(
            s3.get("forcePathStyle"), f"{s3_where}.forcePathStyle", "AWS_S3_FORCE_PATH_STYLE"
        ),
        acl=acl,
        signed_url_expires=_whole(
            params.get("signedUrlExpires"),
            f"{params_where}.signedUrlExpires",
            1,
            MAX_EXPIRES,
            DEFAULT_EXPIRES,
            "AWS_SIGNED_URL_EXPIRES",
        ),
        base_url=base_url.rstrip("/") if base_url else None,
        root_path=root.strip("/"),
        part_size=_whole(
            multipart.get("partSize"),
            f"{WHERE}.providerConfig.multipart.partSize",
            MIN_PART_SIZE,
            MAX_PART_SIZE,
            DEFAULT_PART_SIZE,
        ),
        queue_size=_whole(
            multipart.get("queueSize"),
            f"{WHERE}.providerConfig.multipart.queueSize",
            1,
            16,
            DEFAULT_QUEUE_SIZE,
        ),
    )
