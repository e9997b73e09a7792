"""``CALL doris.show_partitions``: formal or temporary partitions, from metadata."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import TableNotFoundError
from tests.procedures.by_procedure import call, not_found, sql_error

pytestmark = pytest.mark.spark

SIGNATURE = "doris.show_partitions(table string, temporary boolean = false)"
P0 = "[types: [INT]; keys: [-2147483648]; ..types: [INT]; keys: [10]; )"
P1 = "[types: [INT]; keys: [10]; ..types: [INT]; keys: [20]; )"


@pytest.fixture(scope="module")
def table(spark, ns):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {ns}.d (k INT NOT NULL, v STRING) DUPLICATE KEY(k) "
        "PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20)) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    table = f"{ns}.d"
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b'), (11, 'c') AS t(k, v)")
    doris.add_partition(spark, table=table, partition="tp0", values_less_than="10", temporary=True)
    return table


def test_positional_arguments(spark, table):
    rows = call(spark, f"CALL doris.show_partitions('{table}')")
    assert [(r[0], r[1], r[2], r[3], r[4], r[9], r[10]) for r in rows] == [
        ("p0", "k", P0, 2, 1, False, None),
        ("p1", "k", P1, 1, 1, False, None),
    ]
    assert all(r[7] is not None for r in rows)  # visible_snapshot_id


def test_named_arguments(spark, table):
    rows = call(spark, f"CALL doris.show_partitions(table => '{table}', temporary => true)")
    assert [(r[0], r[2], r[3], r[9], r[10]) for r in rows] == [("tp0", P0, 0, True, "doris_temp_tp0")]


def test_invalid_state(spark, ns):
    with pytest.raises(TableNotFoundError) as raised:
        doris.show_partitions(spark, table=f"{ns}.nope")
    assert str(raised.value) == not_found(f"{ns}.nope")


def test_invalid_arguments(spark, table):
    assert sql_error(spark, f"CALL doris.show_partitions('{table}', 'yes')") == (
        "Wrong arg type for temporary: cannot cast string to boolean"
    )
    assert sql_error(spark, f"CALL doris.show_partitions(table => '{table}', partition => 'p0')") == (
        f"Unknown argument: partition. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, "CALL doris.show_partitions(temporary => true)") == (
        f"Missing required parameters: [table]. Usage: {SIGNATURE}"
    )
