"""``CALL doris.create_table``: an Iceberg table from a Doris CREATE TABLE statement."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import TableStateError
from tests.procedures.by_procedure import call, sql_error

pytestmark = pytest.mark.spark

SIGNATURE = "doris.create_table(ddl string)"


def ddl(table: str, tail: str = "DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1") -> str:
    return f"CREATE TABLE {table} (k INT NOT NULL, v STRING) {tail}"


def test_positional_arguments(spark, ns, py_catalog):
    assert call(spark, f"CALL doris.create_table('{ddl(f'{ns}.pos')}')") == [(f"{ns}.pos", "DUPLICATE", "bucket(1, k)", 0, "CREATED")]
    created = py_catalog.load_table(f"{ns}.pos")
    assert [f.name for f in created.schema().fields] == ["k", "v"]
    assert created.properties["doris.keys-model"] == "DUPLICATE"


def test_named_arguments(spark, ns, py_catalog):
    statement = ddl(
        f"{ns}.named",
        "UNIQUE KEY(k) PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20)) "
        "DISTRIBUTED BY HASH(k) BUCKETS 2",
    )
    assert call(spark, f"CALL doris.create_table(ddl => '{statement}')") == [
        (f"{ns}.named", "UNIQUE", "truncate(10, k), bucket(2, k)", 2, "CREATED"),
    ]
    assert py_catalog.load_table(f"{ns}.named").properties["doris.keys-model"] == "UNIQUE"
    assert [r[0] for r in call(spark, f"CALL doris.show_partitions('{ns}.named')")] == ["p0", "p1"]


def test_invalid_state(spark, ns):
    doris.create_table(spark, ddl=ddl(f"{ns}.taken"))
    with pytest.raises(TableStateError) as raised:
        doris.create_table(spark, ddl=ddl(f"{ns}.taken"))
    assert str(raised.value) == f"Table 'taken' already exists in {ns}"
    with pytest.raises(TableStateError) as raised:
        doris.create_table(spark, ddl=ddl("no_such_db.t"))
    assert str(raised.value) == "Unknown database 'no_such_db': create it first with CREATE NAMESPACE no_such_db"


def test_invalid_arguments(spark, ns):
    assert sql_error(spark, "CALL doris.create_table(1)") == "Wrong arg type for ddl: cannot cast bigint to string"
    assert sql_error(spark, f"CALL doris.create_table(ddl => '{ddl(f'{ns}.x')}', if_not_exists => true)") == (
        f"Unknown argument: if_not_exists. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, "CALL doris.create_table()") == f"Missing required parameters: [ddl]. Usage: {SIGNATURE}"
