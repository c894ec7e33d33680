"""The `folio` command line."""
