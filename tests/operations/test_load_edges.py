"""A newcomer's edges of loads (issue 39): a reused label is its own error with the label and
the snapshot; a streaming DataFrame is refused pointing to foreachBatch; INSERT OVERWRITE takes a
DataFrame."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import LabelAlreadyUsedError, LoadError

pytestmark = pytest.mark.spark

DDL = "CREATE TABLE {table} (k INT NOT NULL, v STRING) {model} KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"


def rows(spark, table):
    return sorted(tuple(r) for r in spark.table(table).collect())


@pytest.mark.parametrize("model", ["DUPLICATE", "UNIQUE"])
def test_a_reused_label_names_the_label_and_the_snapshot_that_used_it(spark, namespace, model):
    table = f"{namespace}.t"
    doris.create_table(spark, ddl=DDL.format(table=table, model=model))
    [first] = doris.load(spark, table=table, query="SELECT 1 AS k, 'a' AS v", label="once_only")
    with pytest.raises(LabelAlreadyUsedError) as raised:
        doris.load(spark, table=table, query="SELECT 2 AS k, 'b' AS v", label="once_only")
    error = raised.value
    assert isinstance(error, LoadError)  # callers catching the load error still catch it
    assert (error.label, error.snapshot_id, error.table) == ("once_only", first.snapshot_id, table)
    assert str(error) == (
        f"Label [once_only] has already been used on {table} (snapshot {first.snapshot_id}); "
        "a label loads once: choose a new one"
    )
    assert rows(spark, table) == [(1, "a")]


def test_a_streaming_dataframe_is_refused_pointing_to_foreach_batch(spark, namespace):
    table = f"{namespace}.t"
    doris.create_table(spark, ddl=DDL.format(table=table, model="UNIQUE"))
    stream = spark.readStream.format("rate").load().selectExpr("CAST(value AS INT) AS k", "'x' AS v")
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, source=stream)
    message = str(raised.value)
    assert message.startswith("source is a streaming DataFrame (spark.readStream): a load reads one finished batch.")
    assert "foreachBatch" in message and "report" not in message
    with pytest.raises(LoadError, match="foreachBatch"):
        doris.insert_overwrite(spark, table=table, query=stream)


def test_insert_overwrite_takes_a_dataframe(spark, namespace):
    table = f"{namespace}.t"
    doris.create_table(spark, ddl=DDL.format(table=table, model="DUPLICATE"))
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(k, v)")
    frame = spark.createDataFrame([(7, "new"), (8, "newer")], "id int, text string")  # by position, as INSERT
    [row] = doris.insert_overwrite(spark, table=table, query=frame, label="from_frame")
    assert (row.label, row.status, row.loaded_rows) == ("from_frame", "FINISHED", 2)
    assert rows(spark, table) == [(7, "new"), (8, "newer")]
