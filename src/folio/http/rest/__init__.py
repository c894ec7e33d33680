"""The REST content API: query-string parsing, find parameters, endpoints."""
