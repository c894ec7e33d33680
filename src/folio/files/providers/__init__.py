"""Upload providers, and the choice of one from the app's configuration:
`config/plugins.json` -> `upload.config.provider` ("local" unless set) with that provider's
`providerOptions`:

    {"upload": {"config": {"provider": "local", "providerOptions": {}}}}

Providers: `local` (public/uploads/ of the app, served by this server) and `aws-s3` (a
bucket of S3 or of a store speaking its API; options in s3_options.py). A new provider is
a `Provider` subclass (base.py) and an entry in PROVIDERS."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from folio.errors import ConfigError
from folio.files.providers.base import (
    ObjectMissing,
    ObjectWriter,
    Provider,
    Source,
    StaticMount,
    StoredObject,
    StoreUnavailable,
)
from folio.files.providers.local import LocalProvider
from folio.files.providers.s3 import S3Provider
from folio.files.providers.s3_options import read_options

__all__ = [
    "PROVIDERS",
    "LocalProvider",
    "ObjectMissing",
    "ObjectWriter",
    "Provider",
    "S3Provider",
    "Source",
    "StaticMount",
    "StoreUnavailable",
    "StoredObject",
    "provider_for",
]


def _local(options: dict[str, Any], app_dir: Path) -> Provider:
    # the local provider takes no options (the upload's own sizeLimit bounds what it stores)
    return LocalProvider(app_dir / "public" / "uploads")


def _s3(options: dict[str, Any], app_dir: Path) -> Provider:
    return S3Provider(read_options(options))


# provider name -> its factory, given the provider's options and the app directory
PROVIDERS: dict[str, Callable[[dict[str, Any], Path], Provider]] = {
    "local": _local,
    "aws-s3": _s3,
}


def provider_for(plugins: dict[str, Any], app_dir: Path) -> Provider:
    """The provider `plugins` (the app's plugins configuration) names; ConfigError for an
    unknown provider or options that are not an object."""
    upload = plugins.get("upload")
    upload = upload if isinstance(upload, dict) else {}
    # `upload.config`, or the upload object itself (as the upload settings are read)
    config = upload["config"] if isinstance(upload.get("config"), dict) else upload
    name = config.get("provider")
    name = "local" if name is None else name
    factory = PROVIDERS.get(name) if isinstance(name, str) else None
    if factory is None:
        known = ", ".join(sorted(PROVIDERS))
        raise ConfigError(f"config/plugins: unknown upload provider {name!r} (known: {known})")
    options = config.get("providerOptions")
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise ConfigError("config/plugins: upload `providerOptions` must be an object")
    return factory(options, app_dir)
