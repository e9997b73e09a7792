"""Automatic compaction: the policy picks files, a pass rewrites them, loads go on beside it."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.cli import main
from iceberg_doris.engine import interleaving
from iceberg_doris.errors import TableStateError
from iceberg_doris.operations.auto_compact import compact_automatically
from tests.concurrency import once_for, readers_agree, snapshot_summary, unique_table, values

def small_files_table(spark, namespace) -> str:
    table = unique_table(spark, namespace, buckets=1)
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('doris.compaction.min-input-files' = '3')")
    return table


def counts(spark, table: str) -> tuple[int, int]:
    data = spark.sql(f"SELECT count(*) FROM {table}.data_files").collect()[0][0]
    deletes = spark.sql(f"SELECT count(*) FROM {table}.delete_files").collect()[0][0]
    return data, deletes


@pytest.mark.spark
def test_a_pass_merges_small_files_and_folds_deletes_in(spark, namespace, py_catalog):
    table = small_files_table(spark, namespace)
    for start in range(0, 12, 3):  # four small files of new keys
        doris.load(spark, table=table, query=values([f"({k},'v{k}',0)" for k in range(start, start + 3)]))
    doris.load(spark, table=table, query=values(["(1,'one',0)"]))  # a fifth file, and a DV on the first
    assert counts(spark, table) == (5, 1)
    expected = readers_agree(spark, py_catalog, table)
    [done] = compact_automatically(spark, table)
    assert (done.table, done.chosen_files, done.rewritten_data_files, done.added_data_files) == (table, 5, 5, 1)
    assert counts(spark, table) == (1, 0)
    assert readers_agree(spark, py_catalog, table) == expected
    # Nothing left to do: the next pass commits nothing.
    [again] = compact_automatically(spark, table)
    assert (again.chosen_files, again.snapshot_id) == (0, None)


@pytest.mark.spark
def test_a_load_during_a_pass_neither_fails_nor_is_lost(spark, namespace, py_catalog):
    table = small_files_table(spark, namespace)
    for start in range(0, 9, 3):
        doris.load(spark, table=table, query=values([f"({k},'v{k}',0)" for k in range(start, start + 3)]))

    def load() -> None:  # updates a row of a file the pass is rewriting
        doris.load(spark, table=table, query=values(["(4,'during',0)"]), label="during")

    with interleaving.inject(interleaving.BEFORE_COMMIT, once_for(table, load)):
        [done] = compact_automatically(spark, table)
    assert done.rewritten_data_files == 3 and done.error is None
    assert snapshot_summary(spark, table, "during")["doris.lookups"] == "1"
    rows = readers_agree(spark, py_catalog, table)
    assert rows == [(k, "during" if k == 4 else f"v{k}", 0) for k in range(9)]


@pytest.mark.spark
def test_a_disabled_or_misconfigured_table(spark, namespace):
    # Doris's own table property turns it off.
    table = unique_table(spark, namespace, buckets=1, properties='"disable_auto_compaction" = "true"')
    doris.load(spark, table=table, query=values(["(1,'a',0)"]))
    doris.load(spark, table=table, query=values(["(1,'b',0)"]))  # 100% of the first file deleted
    [done] = compact_automatically(spark, table)
    assert (done.chosen_files, done.snapshot_id) == (0, None)
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('doris.compaction.enabled' = 'sometimes')")
    with pytest.raises(TableStateError) as raised:
        compact_automatically(spark, table)
    assert str(raised.value) == (
        f"Table {table} has doris.compaction.enabled = 'sometimes', which is not true or false: "
        f"set it with ALTER TABLE {table} SET TBLPROPERTIES ('doris.compaction.enabled' = 'true')"
    )


def test_the_cli_runs_one_scheduler_per_process(capsys):
    assert main(["--compact-every", "60", "--dynamic-partitions-every", "60"]) == 2
    assert capsys.readouterr().err == (
        "iceberg-doris: run one scheduler per process: --compact-every or --dynamic-partitions-every\n"
    )
