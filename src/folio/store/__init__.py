"""Database access: drivers (SQLite, PostgreSQL), dialect differences, schema sync."""
