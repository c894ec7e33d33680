"""Upload providers, and the choice of one from the app's configuration:
`config/plugins.json` -> `upload.config.provider` ("local" unless set) with that provider's
`providerOptions`:

    {"upload": {"config": {"provider": "local", "providerOptions": {}}}}

A new provider is a `Provider` subclass (base.py) and an entry in PROVIDERS."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from folio.errors import ConfigError
from folio.files.providers.base import Provider, Source, StaticMount
from folio.files.providers.local import LocalProvider

__all__ = ["PROVIDERS", "LocalProvider", "Provider", "Source", "StaticMount", "provider_for"]


def _local(options: dict[str, Any], app_dir: Path) -> Provider:
    # the local provider takes no options (the upload's own sizeLimit bounds what it stores)
    return LocalProvider(app_dir / "public" / "uploads")


# provider name -> its factory, given the provider's options and the app directory
PROVIDERS: dict[str, Callable[[dict[str, Any], Path], Provider]] = {"local": _local}


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
