"""Fuzzers that `scripts/fuzz` runs against a served app (not collected by pytest)."""
