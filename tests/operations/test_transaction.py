"""Load transactions (Doris BEGIN; INSERT ...; COMMIT): several loads into one table commit in one
snapshot or not at all, and later loads see the rows of earlier ones."""

from __future__ import annotations

import pytest

import iceberg_doris
from iceberg_doris import doris
from iceberg_doris.errors import LoadError
from tests.concurrency import readers_agree, values

pytestmark = pytest.mark.spark


def unique_table(spark, namespace: str, name: str) -> str:
    table = f"{namespace}.{name}"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    doris.load(spark, table=table, query=values(["(1,'stored')", "(2,'stored')"], "k, v"))
    return table


def snapshots(spark, table: str) -> list[int]:
    return [r[0] for r in spark.sql(f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at").collect()]


def test_loads_commit_once_and_later_loads_see_earlier_ones(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, "tx")
    before = snapshots(spark, table)
    with iceberg_doris.transaction(spark, table, label="tx_1") as tx:
        tx.load(spark.sql(values(["(2,'first')", "(3,'first')", "(4,'first')"], "k, v")))
        tx.load(query=values(["(3,'second')", "(5,'second')"], "k, v"))  # upserts a key the first load wrote
        tx.load(query=values(["(4,'x')", "(1,'x')"], "k, v"), merge_type="DELETE")  # deletes a new and a stored key
        tx.load(query=values(["(5,'gone')", "(6,'kept')"], "k, v"), merge_type="MERGE", delete_on="v = 'gone'")
        assert snapshots(spark, table) == before  # nothing is written before the commit
    after = snapshots(spark, table)
    assert after[:-1] == before and len(after) == len(before) + 1  # one snapshot for the whole transaction
    assert tx.result is not None and tx.result.snapshot_id == after[-1] and tx.result.label == "tx_1"
    assert readers_agree(spark, py_catalog, table) == [(2, "first"), (3, "second"), (6, "kept")]
    summary = spark.sql(f"SELECT summary FROM {table}.snapshots WHERE snapshot_id = {after[-1]}").collect()[0][0]
    assert (summary["doris.label"], summary["doris.operation"]) == ("tx_1", "transaction")


def test_an_exception_rolls_back_and_the_table_is_unchanged(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, "tx_fail")
    before = snapshots(spark, table)
    with pytest.raises(ZeroDivisionError):
        with iceberg_doris.transaction(spark, table) as tx:
            tx.load(query=values(["(1,'changed')", "(9,'new')"], "k, v"))
            1 / 0
    assert snapshots(spark, table) == before
    assert readers_agree(spark, py_catalog, table) == [(1, "stored"), (2, "stored")]
    with pytest.raises(LoadError) as raised:
        tx.load(query=values(["(1,'late')"], "k, v"))
    assert str(raised.value) == (
        "Cannot load into a transaction that is already rolled back: start a new one with "
        "iceberg_doris.transaction(spark, table)"
    )


def test_a_failing_load_commits_nothing(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, "tx_filtered")
    before = snapshots(spark, table)
    tx = iceberg_doris.transaction(spark, table)
    tx.load(query=values(["(7,'ok')"], "k, v"))
    tx.load(query="SELECT CAST(NULL AS INT) AS k, 'null key' AS v")  # filtered: NOT NULL, ratio 0
    with pytest.raises(LoadError) as raised:
        tx.commit()
    assert "too many filtered rows" in str(raised.value)
    assert snapshots(spark, table) == before
    assert readers_agree(spark, py_catalog, table) == [(1, "stored"), (2, "stored")]
    with pytest.raises(LoadError) as raised:
        tx.load(query=values(["(8,'a')"], "k, v"), merge_type="MERGE")
    assert str(raised.value).startswith("Cannot load into a transaction that is already committed")
    other = iceberg_doris.transaction(spark, table)
    with pytest.raises(LoadError) as raised:
        other.load(query=values(["(8,'a')"], "k, v"), merge_type="MERGE")
    assert str(raised.value) == "Excepted DELETE ON clause when merge type is MERGE."
    other.load(query=values(["(8,'a')"], "k, v"))
    with pytest.raises(LoadError) as raised:
        other.load(query="SELECT 9 AS k")
    assert str(raised.value).startswith("Every load of a transaction gives the same columns: this one gives k, the first")
