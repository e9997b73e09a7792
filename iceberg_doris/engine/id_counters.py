"""Counters of AUTO_INCREMENT columns: blocks of values reserved by loads, unique across processes.

A Doris auto-increment column takes values unique in its table, not dense: each backend caches a
block of ids the frontend hands out, and blocks never overlap. Here a load reserves one block, as
many values as its batch has rows, from a counter kept in the JDBC catalog's own database (the
SQLite file or PostgreSQL database Iceberg's JdbcCatalog keeps its tables in), so every process
and machine sharing the catalog shares the counters, and no Iceberg commit is spent on them.

- One row per column: ``(table_uuid, field_id) -> next_value``. Keyed by the Iceberg table's UUID
  and the column's field id, never by names: a renamed or swapped table keeps its counter.
- A reservation is one statement in one short transaction: insert the row (first value: the
  column's start) or add the block's size to it, returning the new end. Concurrent reservations
  are serialised by the database (PostgreSQL's row lock; SQLite's write lock, waited for up to the
  commit lock's timeout), so two blocks never overlap.
- Values of a block that a load does not commit (it failed, or its rows were filtered) are gaps,
  as in Doris.

Any other catalog (Hadoop, REST, Hive, an in-memory SQLite) has no database iceberg-doris can
share; AUTO_INCREMENT is refused there by name. User text never becomes SQL: the table name is a
constant and every value is a bound parameter.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from iceberg_doris.engine.table_lock import lock_timeout, postgres_parameters, sqlite_file
from iceberg_doris.errors import ConfigurationError, DorisError
from iceberg_doris.spark_session.secrets import read_secret_setting

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["IdCounters", "COUNTER_TABLE", "BIGINT_MAX", "counters_for_catalog"]

COUNTER_TABLE = "iceberg_doris_auto_increment"
BIGINT_MAX = 2**63 - 1

_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {COUNTER_TABLE} ("
    "table_uuid VARCHAR(36) NOT NULL, field_id INTEGER NOT NULL, next_value BIGINT NOT NULL, "
    "PRIMARY KEY (table_uuid, field_id))"
)
# The first reservation inserts start + count; later ones add count. Either way the returned value
# is the end of this reservation's block, so its first value is that minus count.
_RESERVE = (
    f"INSERT INTO {COUNTER_TABLE} (table_uuid, field_id, next_value) VALUES ({{p}}, {{p}}, {{p}}) "
    f"ON CONFLICT (table_uuid, field_id) DO UPDATE SET next_value = {COUNTER_TABLE}.next_value + {{p}} "
    "RETURNING next_value"
)


class IdCounters(Protocol):
    """One catalog's auto-increment counters."""

    where: str  # for messages: where the counters live

    def reserve(self, table_uuid: str, field_id: int, start: int, count: int) -> int:
        """Reserves ``count`` values of the column's counter; returns the first (the block is
        ``first .. first + count - 1``; the first block starts at ``start``)."""
        ...


def counters_for_catalog(spark: "SparkSession", catalog_name: str) -> IdCounters:
    """The counters of the session's catalog ``catalog_name``; :class:`ConfigurationError` naming
    the catalog's kind when it has no database to keep them in."""
    prefix = f"spark.sql.catalog.{catalog_name}"
    uri = spark.conf.get(f"{prefix}.uri", None) or ""
    timeout = lock_timeout(spark)
    if uri.startswith("jdbc:postgresql:"):
        user = spark.conf.get(f"{prefix}.jdbc.user", None)
        password = read_secret_setting(spark, f"{prefix}.jdbc.password")
        return PostgresCounters(postgres_parameters(uri, user, password), timeout)
    catalog_file = sqlite_file(uri) if uri.startswith("jdbc:sqlite:") else None
    if catalog_file is not None:
        return SqliteCounters(catalog_file, timeout)
    if uri.startswith("jdbc:sqlite:"):
        kind = "an in-memory SQLite catalog, which only its own JVM can open"
    else:
        kind = (
            spark.conf.get(f"{prefix}.type", None) or spark.conf.get(f"{prefix}.catalog-impl", None)
            or (uri.split(":", 2)[1] if uri.startswith("jdbc:") else None) or "unknown"
        )
        kind = f"a catalog of type {kind}"
    raise ConfigurationError(
        f"AUTO_INCREMENT is not supported on catalog {catalog_name}: it is {kind}. iceberg-doris keeps the counters "
        "of auto-increment columns in the database of a JDBC catalog on a SQLite file or PostgreSQL, shared by "
        "every process that loads the table; use such a catalog, or load the column's values yourself from a "
        "column without AUTO_INCREMENT"
    )


def _checked_block(end: int, count: int, where: str) -> int:
    first = end - count
    if end > BIGINT_MAX:
        raise DorisError(
            f"AUTO_INCREMENT values are used up: the counter ({where}) would pass BIGINT's largest value; "
            "nothing was loaded"
        )
    return first


class SqliteCounters:
    """Counters in the SQLite catalog file, beside JdbcCatalog's tables."""

    def __init__(self, catalog_file: Path, timeout: float):
        self.catalog_file = catalog_file
        self.timeout = timeout
        self.where = f"table {COUNTER_TABLE} in {catalog_file}"

    def reserve(self, table_uuid: str, field_id: int, start: int, count: int) -> int:
        if not self.catalog_file.exists():
            raise DorisError(f"Cannot reserve AUTO_INCREMENT values: the catalog file {self.catalog_file} does not exist")
        # isolation_level=None: transactions are this code's own; BEGIN IMMEDIATE takes the write
        # lock first, so two reservations queue instead of failing on a lock upgrade.
        connection = sqlite3.connect(str(self.catalog_file), timeout=self.timeout, isolation_level=None)
        try:
            connection.execute(_CREATE)
            connection.execute("BEGIN IMMEDIATE")
            try:
                end = connection.execute(_RESERVE.format(p="?"), (table_uuid, field_id, start + count, count)).fetchone()[0]
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
        except sqlite3.Error as error:
            raise DorisError(f"Cannot reserve AUTO_INCREMENT values ({self.where}): {error}") from None
        finally:
            connection.close()
        return _checked_block(int(end), count, self.where)


class PostgresCounters:
    """Counters in the PostgreSQL catalog database, beside JdbcCatalog's tables."""

    def __init__(self, parameters: dict[str, str], timeout: float):
        self._parameters = parameters
        self.timeout = timeout
        hosts = parameters.get("host", "localhost")
        port = parameters.get("port")
        self.where = f"table {COUNTER_TABLE} in PostgreSQL {hosts}{':' + port if port else ''}/{parameters.get('dbname', '')}"

    def reserve(self, table_uuid: str, field_id: int, start: int, count: int, *, created: bool = False) -> int:
        import psycopg2
        from psycopg2 import errors

        try:
            connection = psycopg2.connect(**self._parameters, application_name="iceberg-doris auto increment")
        except psycopg2.Error as error:
            raise DorisError(f"Cannot reserve AUTO_INCREMENT values ({self.where}): {_first_line(error)}") from None
        try:
            with connection:  # one transaction, committed on leaving the block
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = %s", (f"{max(1, int(self.timeout * 1000))}ms",))
                    cursor.execute(_RESERVE.format(p="%s"), (table_uuid, field_id, start + count, count))
                    end = cursor.fetchone()[0]
            return _checked_block(int(end), count, self.where)
        except errors.UndefinedTable:
            if created:
                raise
            # The first reservation in this database: the table is created once, outside it.
            _create_postgres_table(connection)
            return self.reserve(table_uuid, field_id, start, count, created=True)
        except psycopg2.Error as error:
            raise DorisError(f"Cannot reserve AUTO_INCREMENT values ({self.where}): {_first_line(error)}") from None
        finally:
            connection.close()


def _create_postgres_table(connection: Any) -> None:
    """Creates the counter table; two processes creating it at once are fine (the loser's error is
    ignored, the table is there either way)."""
    import psycopg2

    try:
        with connection:
            with connection.cursor() as cursor:
                cursor.execute(_CREATE)
    except (psycopg2.errors.UniqueViolation, psycopg2.errors.DuplicateTable):
        connection.rollback()


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
