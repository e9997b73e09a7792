"""``CALL doris.changes``: the change feed between two snapshots (its rows are checked against
time-travel diffs in tests/operations/test_changes.py)."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError, TableNotFoundError
from tests.procedures.by_procedure import call, not_found, sql_error

pytestmark = pytest.mark.spark

SIGNATURE = (
    "doris.changes(table string, start_snapshot bigint = NULL, end_snapshot bigint = NULL, net boolean = false, "
    "temp_partition string = NULL)"
)


@pytest.fixture(scope="module")
def table(spark, ns):
    name = f"{ns}.u"
    doris.create_table(spark, ddl=f"CREATE TABLE {name} (id BIGINT NOT NULL, v STRING) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1")
    doris.load(spark, table=name, query="SELECT 1L AS id, 'a' AS v")
    first = spark.sql(f"SELECT snapshot_id FROM {name}.refs WHERE name = 'main'").first()[0]
    doris.load(spark, table=name, query="SELECT 1L AS id, 'b' AS v")
    second = spark.sql(f"SELECT snapshot_id FROM {name}.refs WHERE name = 'main'").first()[0]
    return name, first, second


def test_positional_arguments(spark, table):
    name, first, second = table
    rows = call(spark, f"CALL doris.changes('{name}', {first}, {second})")
    assert [row[:4] for row in rows] == [(1, "a", "update_preimage", second), (1, "b", "update_postimage", second)]
    assert call(spark, f"CALL doris.changes('{name}', {first}, NULL, true)") == rows  # net: the same one change


def test_named_arguments(spark, table):
    name, first, second = table
    frame = spark.sql(f"CALL doris.changes(table => '{name}', start_snapshot => {first})")
    assert frame.columns == ["id", "v", "_change_type", "_commit_snapshot_id", "_commit_timestamp"]
    python = doris.changes(spark, table=name, start_snapshot=first)  # the Python form: a DataFrame
    assert python.columns == frame.columns and python.collect() == frame.collect()
    assert [r[:3] for r in call(spark, f"CALL doris.changes(table => '{name}')")] == [(1, "a", "insert"), (1, "a", "update_preimage"), (1, "b", "update_postimage")]


def test_invalid_state(spark, ns, table):
    name, first, second = table
    with pytest.raises(TableNotFoundError) as raised:
        doris.changes(spark, table=f"{ns}.nope")
    assert str(raised.value) == not_found(f"{ns}.nope")
    with pytest.raises(PartitionError, match="Cannot read changes of temporary partition tp of .*: it does not exist"):
        doris.changes(spark, table=name, temp_partition="tp")
    assert sql_error(spark, f"CALL doris.changes('{name}', {second}, {first})").startswith(
        f"Cannot read changes of {name} from snapshot {second} to {first}: {second} is not an ancestor of {first} on main"
    )


def test_invalid_arguments(spark, table):
    name, _, _ = table
    assert sql_error(spark, f"CALL doris.changes('{name}', 'x')") == "Wrong arg type for start_snapshot: cannot cast string to bigint"
    assert sql_error(spark, f"CALL doris.changes(table => '{name}', since => 1)") == f"Unknown argument: since. Usage: {SIGNATURE}"
    assert sql_error(spark, "CALL doris.changes()") == f"Missing required parameters: [table]. Usage: {SIGNATURE}"
