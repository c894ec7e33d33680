"""The S3 provider's settings as the reference names them (config/plugins.json
`providerOptions`), their environment overrides and defaults, and the keys and URLs they
give (path or virtual-host style, rootPath, baseUrl, AWS without endpoint); no store needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from folio.errors import ConfigError
from folio.files.providers import S3Provider, provider_for
from folio.files.providers.s3_options import read_options

ENV = (
    "AWS_ACCESS_KEY_ID",
    "AWS_ACCESS_SECRET",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_REGION",
    "AWS_ENDPOINT_URL_S3",
    "AWS_ENDPOINT_URL",
    "AWS_S3_FORCE_PATH_STYLE",
    "AWS_BUCKET",
    "AWS_ACL",
    "AWS_SIGNED_URL_EXPIRES",
    "CDN_URL",
    "CDN_ROOT_PATH",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


def options(**s3: Any) -> dict[str, Any]:
    params = s3.pop("params", {"Bucket": "media"})
    return {
        "s3Options": {
            "credentials": {"accessKeyId": "AK", "secretAccessKey": "SK"},
            "params": params,
            **s3,
        }
    }


def test_the_reference_defaults() -> None:
    got = read_options(options())
    assert (got.bucket, got.access_key, got.secret_key) == ("media", "AK", "SK")
    assert got.region == "us-east-1" and got.endpoint is None
    assert got.acl == "public-read" and not got.private
    assert got.signed_url_expires == 15 * 60
    assert got.part_size == 8 * 1024 * 1024 and got.queue_size == 4
    assert (got.base_url, got.root_path, got.force_path_style) == (None, "", False)


def test_every_option() -> None:
    raw = options(
        endpoint="https://s3.example.com:9000/",
        region="eu-west-3",
        forcePathStyle=True,
        params={"Bucket": "b", "ACL": "private", "signedUrlExpires": 60},
    )
    raw["s3Options"]["credentials"]["sessionToken"] = "T"
    raw.update(baseUrl="https://cdn.example.com/", rootPath="/a/b/")
    raw["providerConfig"] = {"multipart": {"partSize": 16 * 1024 * 1024, "queueSize": 2}}
    got = read_options(raw)
    assert got.endpoint == "https://s3.example.com:9000" and got.region == "eu-west-3"
    assert got.force_path_style and got.private and got.signed_url_expires == 60
    assert got.session_token == "T"
    assert (got.base_url, got.root_path) == ("https://cdn.example.com", "a/b")
    assert (got.part_size, got.queue_size) == (16 * 1024 * 1024, 2)


def test_the_older_forms_of_the_reference() -> None:
    # credentials in s3Options itself, and S3 options beside s3Options
    got = read_options(
        {
            "accessKeyId": "A",
            "secretAccessKey": "S",
            "endpoint": "s3.fr-par.scw.cloud",
            "params": {"Bucket": "x", "ACL": None},
        }
    )
    assert (got.access_key, got.secret_key, got.bucket) == ("A", "S", "x")
    assert got.endpoint == "https://s3.fr-par.scw.cloud"
    assert got.acl is None  # null: no ACL header, for stores that refuse them


def test_the_environment_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    values = {
        "AWS_ACCESS_KEY_ID": "envAK",
        "AWS_ACCESS_SECRET": "envSK",
        "AWS_SESSION_TOKEN": "envT",
        "AWS_REGION": "ap-south-1",
        "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:8333",
        "AWS_S3_FORCE_PATH_STYLE": "true",
        "AWS_BUCKET": "envbucket",
        "AWS_ACL": "private",
        "AWS_SIGNED_URL_EXPIRES": "300",
        "CDN_URL": "https://cdn.example.org",
        "CDN_ROOT_PATH": "site",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    got = read_options(options())
    assert (got.access_key, got.secret_key, got.session_token) == ("envAK", "envSK", "envT")
    assert (got.region, got.endpoint, got.force_path_style) == (
        "ap-south-1",
        "http://127.0.0.1:8333",
        True,
    )
    assert (got.bucket, got.acl, got.signed_url_expires) == ("envbucket", "private", 300)
    assert (got.base_url, got.root_path) == ("https://cdn.example.org", "site")
    # the SDK's own name for the secret, and the environment alone (no params in the file)
    monkeypatch.delenv("AWS_ACCESS_SECRET")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "sdkSK")
    assert read_options({}).secret_key == "sdkSK"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"s3Options": {"credentials": {"accessKeyId": "A", "secretAccessKey": "S"}}}, "params"),
        (options(params={}), "Bucket is required"),
        (options(params={"Bucket": 3}), "Bucket must be a text"),
        ({"s3Options": {"params": {"Bucket": "b"}}}, "accessKeyId and secretAccessKey"),
        (options(params={"Bucket": "b", "signedUrlExpires": 0}), "signedUrlExpires"),
        (options(params={"Bucket": "b", "signedUrlExpires": 10**7}), "signedUrlExpires"),
        (options(endpoint="ftp://x"), "endpoint"),
        (options(endpoint="https://s3.example.com/path"), "endpoint"),
        (options(forcePathStyle="maybe"), "forcePathStyle"),
        ({**options(), "providerConfig": {"multipart": {"partSize": 1024}}}, "partSize"),
        ({**options(), "s3Options": []}, "s3Options must be an object"),
    ],
)
def test_bad_options_stop_start_up(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        read_options(raw)


def provider(**s3: Any) -> S3Provider:
    extra = {k: s3.pop(k) for k in ("baseUrl", "rootPath") if k in s3}
    return S3Provider(read_options({**options(**s3), **extra}))


def test_keys_and_urls() -> None:
    # AWS, no endpoint: virtual-host style in the region
    assert provider(region="eu-west-1").url("a_1.png") == (
        "https://media.s3.eu-west-1.amazonaws.com/a_1.png"
    )
    # an endpoint by IP address or localhost, or forcePathStyle: path style
    assert provider(endpoint="http://127.0.0.1:8333").url("a.png") == (
        "http://127.0.0.1:8333/media/a.png"
    )
    assert provider(endpoint="http://localhost:9000").url("a.png") == (
        "http://localhost:9000/media/a.png"
    )
    assert provider(endpoint="https://s3.example.com", forcePathStyle=True).url("a.png") == (
        "https://s3.example.com/media/a.png"
    )
    assert provider(endpoint="https://s3.example.com").url("a.png") == (
        "https://media.s3.example.com/a.png"
    )
    # a bucket name with dots is no DNS label of its own
    dotted = provider(params={"Bucket": "my.bucket"}, endpoint="https://s3.example.com")
    assert dotted.url("a.png") == "https://s3.example.com/my.bucket/a.png"
    # rootPath prefixes the key; baseUrl replaces the store's address
    rooted = provider(endpoint="http://127.0.0.1:1", rootPath="up/loads/")
    assert rooted.url("a.png") == "http://127.0.0.1:1/media/up/loads/a.png"
    cdn = provider(rootPath="up", baseUrl="https://cdn.example.com/")
    assert cdn.url("a.png") == "https://cdn.example.com/up/a.png"
    # the origins a page showing the files must allow
    assert cdn.origins() == ("https://cdn.example.com",)
    assert rooted.origins() == ("http://127.0.0.1:1",)
    assert provider(region="eu-west-1").origins() == ("https://media.s3.eu-west-1.amazonaws.com",)


def test_signed_urls() -> None:
    private = provider(endpoint="http://127.0.0.1:1", params={"Bucket": "media", "ACL": "private"})
    url = private.url("a.png")
    signed = urlsplit(private.signed_url(url))
    assert f"{signed.scheme}://{signed.netloc}{signed.path}" == url
    query = parse_qs(signed.query)
    assert query["X-Amz-Expires"] == ["900"]
    assert query["X-Amz-Credential"][0].startswith("AK/")
    # the bucket's objects at another address (the store moved): signed for this one
    moved = private.signed_url("http://10.0.0.1:9000/media/a.png")
    assert moved.startswith("http://127.0.0.1:1/media/a.png?X-Amz-")
    # other URLs, a public bucket's, and a CDN's are shown as recorded
    for other in ("/uploads/a.png", "https://elsewhere.example/other/a.png"):
        assert private.signed_url(other) == other
    assert provider(endpoint="http://127.0.0.1:1").signed_url(url) == url
    cdn = provider(baseUrl="https://cdn.example.com", params={"Bucket": "m", "ACL": "private"})
    assert cdn.signed_url("https://cdn.example.com/a.png") == "https://cdn.example.com/a.png"


def test_the_provider_is_chosen_by_name() -> None:
    plugins = {"upload": {"config": {"provider": "aws-s3", "providerOptions": options()}}}
    chosen = provider_for(plugins, Path("."))
    assert isinstance(chosen, S3Provider) and chosen.name == "aws-s3"
    assert chosen.static_mount() is None
