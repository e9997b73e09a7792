"""``CALL doris.describe``: a table's Doris model."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import TableNotFoundError
from tests.procedures.by_procedure import call, not_found, sql_error

pytestmark = pytest.mark.spark

SIGNATURE = "doris.describe(table string)"


@pytest.fixture(scope="module")
def table(spark, ns):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {ns}.u (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2",
    )
    return f"{ns}.u"


def test_positional_arguments(spark, table):
    rows = {(r[0], r[1]): r[2] for r in call(spark, f"CALL doris.describe('{table}')")}
    assert rows[("table", "name")] == table
    assert rows[("table", "keys_model")] == "UNIQUE"
    assert rows[("table", "key_columns")] == "k"
    assert rows[("table", "merge_on_write")] == "true"


def test_named_arguments(spark, table):
    assert call(spark, f"CALL doris.describe(table => '{table}')") == call(spark, f"CALL doris.describe('{table}')")
    assert ("table", "keys_model", "UNIQUE") in call(spark, f"CALL doris.describe(table => '{table}')")


def test_invalid_state(spark, ns):
    with pytest.raises(TableNotFoundError) as raised:
        doris.describe(spark, table=f"{ns}.nope")
    assert str(raised.value) == not_found(f"{ns}.nope")


def test_invalid_arguments(spark, table):
    assert sql_error(spark, "CALL doris.describe(1)") == "Wrong arg type for table: cannot cast bigint to string"
    assert sql_error(spark, f"CALL doris.describe(table => '{table}', verbose => true)") == (
        f"Unknown argument: verbose. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, "CALL doris.describe()") == f"Missing required parameters: [table]. Usage: {SIGNATURE}"
