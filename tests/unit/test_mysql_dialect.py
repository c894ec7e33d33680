"""MySQL's dialect without a server: the SQL it writes for MySQL 8 and MariaDB, and the
values it converts."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal

import pytest
from asyncmy.errors import IntegrityError, OperationalError

from folio.store.dialects.base import FOREIGN_KEY, INVALID, RETRY, TOO_LONG, UNIQUE
from folio.store.dialects.mysql import LockTimeout, MySQLDialect, split_terms


def mariadb() -> MySQLDialect:
    dialect = MySQLDialect()
    dialect.configure("10.11.19-MariaDB-0+deb12u1")
    return dialect


def mysql8() -> MySQLDialect:
    dialect = MySQLDialect()
    dialect.configure("8.0.36")
    return dialect


def test_the_flavour_decides_returning_and_the_collation() -> None:
    assert (mariadb().returning, mariadb().collation) == (True, "utf8mb4_nopad_bin")
    assert (mysql8().returning, mysql8().collation) == (False, "utf8mb4_0900_bin")


def test_index_terms_split_at_top_level_commas() -> None:
    expr = "document_id, (COALESCE(locale, '')), ((published_at IS NULL))"
    assert split_terms(expr) == [
        "document_id",
        "(COALESCE(locale, ''))",
        "((published_at IS NULL))",
    ]
    assert split_terms('"a", b') == ['"a"', "b"]


def test_an_expression_index_is_native_on_mysql_and_generated_columns_on_mariadb() -> None:
    expr = "document_id, (COALESCE(locale, '')), ((published_at IS NULL))"
    assert mysql8().create_index("t_uq", "t", expr, unique=True) == (
        f'CREATE UNIQUE INDEX "t_uq" ON "t" ({expr})'
    )
    sql = mariadb().create_index("t_uq", "t", expr, unique=True)
    assert sql.startswith('ALTER TABLE "t" ADD COLUMN IF NOT EXISTS "fx_')
    assert "VARCHAR(191) AS (COALESCE(locale, '')) VIRTUAL INVISIBLE" in sql
    assert "TINYINT AS (published_at IS NULL) VIRTUAL INVISIBLE" in sql
    assert 'ADD UNIQUE INDEX "t_uq" (document_id, "fx_' in sql
    # plain columns need no generated ones
    assert mariadb().create_index("t_i", "t", "a, b") == 'CREATE INDEX "t_i" ON "t" (a, b)'


def test_partial_and_covering_parts_are_left_out() -> None:
    sql = mysql8().create_index("i", "t", "locale, id", where="published_at IS NULL", include="x")
    assert sql == 'CREATE INDEX "i" ON "t" (locale, id)'


def test_a_reference_becomes_a_table_foreign_key() -> None:
    d = mariadb()
    sql = d.create_table("links", [("id", d.identity()), ("source_id", d.reference("articles"))])
    assert sql == (
        'CREATE TABLE "links" ("id" INT AUTO_INCREMENT PRIMARY KEY, "source_id" INT NOT NULL, '
        'INDEX "links_source_id_fk" ("source_id"), FOREIGN KEY "links_source_id_fk" '
        '("source_id") REFERENCES "articles" (id) ON DELETE CASCADE) '
        "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin"
    )
    assert d.add_column("links", "file_id", d.reference("files", cascade=False)) == (
        'ALTER TABLE "links" ADD COLUMN "file_id" INT NOT NULL, '
        'ADD INDEX "links_file_id_fk" ("file_id"), '
        'ADD FOREIGN KEY "links_file_id_fk" ("file_id") REFERENCES "files" (id)'
    )


def test_an_upsert_updates_on_a_duplicate_key() -> None:
    d = mysql8()
    assert d.upsert("s", ["key", "value"], ["key"], ["value"]) == (
        'INSERT INTO "s" ("key", "value") VALUES (?, ?) ON DUPLICATE KEY UPDATE '
        '"value" = VALUES("value")'
    )
    assert d.upsert("s", ["key"], ["key"]).endswith('ON DUPLICATE KEY UPDATE "key" = "key"')


def test_a_conditional_upsert_assigns_the_column_it_reads_last() -> None:
    """MySQL evaluates the assignments in order, each seeing the ones before: the
    condition's column is set after the others, which then see its old value."""
    sql = mysql8().upsert(
        "cursors",
        ["webhook", "last_event", "active"],
        ["webhook"],
        {"active": "1", "last_event": "excluded.last_event", "attempt": "0"},
        where='"cursors".active = 0',
    )
    tail = sql.split("ON DUPLICATE KEY UPDATE ", 1)[1]
    assert tail == (
        '"last_event" = IF("cursors".active = 0, VALUES(last_event), "last_event"), '
        '"attempt" = IF("cursors".active = 0, 0, "attempt"), '
        '"active" = IF("cursors".active = 0, 1, "active")'
    )
    with pytest.raises(ValueError):
        mysql8().upsert("t", ["k", "a", "b"], ["k"], ["a", "b"], where="a = 0 AND b = 0")


def test_values_read_become_the_api_forms() -> None:
    d = mariadb()
    as_datetime = d.output("datetime")
    assert as_datetime is not None
    assert as_datetime(datetime(2024, 1, 2, 3, 4, 5, 678000)) == "2024-01-02T03:04:05.678Z"
    as_time = d.output("time")
    assert as_time is not None
    assert as_time(timedelta(hours=12, minutes=30, seconds=1, microseconds=500000)) == "12:30:01.5"
    assert as_time(timedelta(hours=7)) == "07:00:00"
    assert as_time(None) is None
    as_date = d.output("date")
    assert as_date is not None and as_date(date(2024, 2, 29)) == "2024-02-29"
    as_bool = d.output("boolean")
    assert as_bool is not None and (as_bool(1), as_bool(0), as_bool(None)) == (True, False, None)
    as_big = d.output("biginteger")
    assert as_big is not None and as_big(2**62) == str(2**62)
    as_decimal = d.output("decimal")
    assert as_decimal is not None and as_decimal(Decimal("3.14")) == 3.14


def test_timestamps_are_read_as_the_api_text() -> None:
    assert mysql8().select_expr("datetime", "t.x") == (
        "CONCAT(LEFT(DATE_FORMAT(t.x, '%Y-%m-%dT%H:%i:%s.%f'), 23), 'Z')"
    )
    assert mysql8().select_expr("date", "t.x") == "t.x"


def test_timestamps_are_bound_as_utc_without_a_zone() -> None:
    d = mysql8()
    paris = timezone(timedelta(hours=1))
    bound = d.bind_datetime(datetime(2024, 1, 2, 4, 4, 5, tzinfo=paris))
    assert bound == datetime(2024, 1, 2, 3, 4, 5)
    assert d.read_datetime(bound) == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert d.bind_time(time(1, 2)) == time(1, 2)


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (IntegrityError(1062, "Duplicate entry"), UNIQUE),
        (IntegrityError(1451, "a child row"), FOREIGN_KEY),
        (IntegrityError(1452, "a parent row"), FOREIGN_KEY),
        (OperationalError(1406, "Data too long"), TOO_LONG),
        (OperationalError(1264, "Out of range"), INVALID),
        (OperationalError(1213, "Deadlock found"), RETRY),
        (OperationalError(1205, "Lock wait timeout"), RETRY),
        (LockTimeout("not granted"), RETRY),
        (ValueError("int parameter out of 64-bit range for MySQL: 1"), INVALID),
        (OperationalError(2013, "Lost connection"), None),
    ],
)
def test_server_errors_are_named(exc: BaseException, kind: str | None) -> None:
    assert mysql8().error_kind(exc) == kind


def test_column_types() -> None:
    d = mysql8()
    assert d.column_type("string") == "VARCHAR(255)"
    assert d.column_type("string", 40) == "VARCHAR(40)"
    assert d.column_type("string", 1000) == "LONGTEXT"
    assert d.column_type("json") == "LONGTEXT"
    assert d.column_type("datetime") == "DATETIME(3)"
    assert d.text_key() == "VARCHAR(191)"
