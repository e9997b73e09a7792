"""``CALL doris.check``: what other writers did to a table's keys, reported without changing anything."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import TableNotFoundError
from tests.procedures.by_procedure import call, not_found, sql_error

pytestmark = pytest.mark.spark

SIGNATURE = "doris.check(table string)"


@pytest.fixture(scope="module")
def table(spark, ns):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {ns}.c (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=f"{ns}.c", query="SELECT 1 AS k, 'a' AS v")
    return f"{ns}.c"


def test_positional_arguments(spark, table):
    rows = {r[0]: (r[1], r[2]) for r in call(spark, f"CALL doris.check('{table}')")}
    assert rows == {
        "repeated_keys": ("OK", 0), "unchecked_commits": ("OK", 0), "revived_keys": ("NOT APPLICABLE", 0),
        "dropped_tombstones": ("NOT APPLICABLE", 0),
    }


def test_named_arguments(spark, table):
    assert call(spark, f"CALL doris.check(table => '{table}')") == call(spark, f"CALL doris.check('{table}')")


def test_invalid_state(spark, ns):
    with pytest.raises(TableNotFoundError) as raised:
        doris.check(spark, table=f"{ns}.nope")
    assert str(raised.value) == not_found(f"{ns}.nope")


def test_invalid_arguments(spark, table):
    assert sql_error(spark, "CALL doris.check(1)") == "Wrong arg type for table: cannot cast bigint to string"
    assert sql_error(spark, f"CALL doris.check(table => '{table}', repair => true)") == (
        f"Unknown argument: repair. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, "CALL doris.check()") == f"Missing required parameters: [table]. Usage: {SIGNATURE}"
