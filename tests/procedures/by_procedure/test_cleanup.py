"""``CALL doris.cleanup``: expire old snapshots and delete files nothing references."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import ProcedureArgumentError, TableNotFoundError
from tests.procedures.by_procedure import call, not_found, snapshot_count, sql_error, table_rows

pytestmark = pytest.mark.spark

SIGNATURE = "doris.cleanup(table string, older_than timestamp = NULL, retain_last bigint = 1)"


def overwritten(spark, table: str) -> str:
    """Two snapshots; the first one's data file is no longer current."""
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query="SELECT 1 AS k, 'old' AS v")
    doris.insert_overwrite(spark, table=table, query="SELECT 2, 'new'")
    return table


def test_positional_arguments(spark, ns):
    table = overwritten(spark, f"{ns}.pos")
    # Default older_than is 24 hours ago: these snapshots are younger, nothing goes.
    assert call(spark, f"CALL doris.cleanup('{table}')") == [(0, 0, 0, 0)]
    assert snapshot_count(spark, table) == 2


def test_named_arguments(spark, ns):
    table = overwritten(spark, f"{ns}.named")
    rows = call(
        spark, f"CALL doris.cleanup(table => '{table}', older_than => current_timestamp() + INTERVAL 1 MINUTE, retain_last => 1)"
    )
    assert rows == [(1, 1, 0, 0)]  # the first snapshot and the data file only it referenced
    assert snapshot_count(spark, table) == 1
    assert table_rows(spark, table) == [(2, "new")]


def test_invalid_state(spark, ns):
    with pytest.raises(TableNotFoundError) as raised:
        doris.cleanup(spark, table=f"{ns}.nope")
    assert str(raised.value) == not_found(f"{ns}.nope")


def test_invalid_arguments(spark, ns):
    table = f"{ns}.args"
    assert sql_error(spark, f"CALL doris.cleanup('{table}', NULL, 'all')") == (
        "Wrong arg type for retain_last: cannot cast string to bigint"
    )
    assert sql_error(spark, f"CALL doris.cleanup(table => '{table}', dry_run => true)") == f"Unknown argument: dry_run. Usage: {SIGNATURE}"
    assert sql_error(spark, "CALL doris.cleanup(retain_last => 2)") == f"Missing required parameters: [table]. Usage: {SIGNATURE}"
    with pytest.raises(ProcedureArgumentError) as raised:
        doris.cleanup(spark, table=table, retain_last=0)
    assert str(raised.value) == "retain_last must be at least 1, got 0: the current snapshot is always kept"
    with pytest.raises(ProcedureArgumentError) as raised:
        doris.cleanup(spark, table=table, older_than="yesterday")
    assert str(raised.value) == (
        "older_than must be a timestamp such as '2024-05-01 00:00:00' or a date such as '2024-05-01', got 'yesterday'; "
        "for a time relative to now pass an expression, e.g. older_than => current_timestamp() - INTERVAL 1 DAY"
    )
