"""Folio: content types defined as JSON schemas, served as a REST content API."""

__version__ = "0.1.0"
