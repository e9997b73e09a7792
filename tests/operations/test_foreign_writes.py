"""Writers outside iceberg-doris cannot silently break a key: a plain Iceberg append (what Spark's
own INSERT does in a session without the extension) or a pyiceberg append stores a second live
row for a key; ``doris.check`` reports it without changing anything, and the next keyed load
repairs it by Doris's rule, in a commit of its own, saying how many keys."""

from __future__ import annotations

import pyarrow as pa
import pytest

from iceberg_doris import doris
from iceberg_doris.engine import interleaving
from iceberg_doris.engine.iceberg_java import IcebergJava
from iceberg_doris.engine.staged_writes import stage_data_files
from iceberg_doris.errors import CommitConflictError
from tests.concurrency import readers_agree

pytestmark = pytest.mark.spark


def foreign_append(spark, table: str, query: str) -> None:
    """Commits ``query``'s rows with Iceberg's own append, as plain Spark does: no doris.* in the summary."""
    iceberg = IcebergJava(spark)
    name = iceberg.name(table)
    loaded = iceberg.load_table(name)
    files = stage_data_files(iceberg, name, spark.sql(query), table=loaded)
    append = loaded.newAppend()
    for data_file in files:
        append.appendFile(data_file)
    append.commit()


def findings(spark, table: str) -> dict[str, tuple]:
    return {row[0]: (row[1], row[2]) for row in spark.sql(f"CALL doris.check(table => '{table}')").collect()}


def snapshots(spark, table: str) -> list[tuple]:
    return [tuple(r) for r in spark.sql(f"SELECT snapshot_id, summary FROM {table}.snapshots ORDER BY committed_at").collect()]


def test_a_plain_append_is_reported_then_repaired_by_the_next_load(spark, namespace, py_catalog):
    table = f"{namespace}.u"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b'), (3, 'c') AS t(k, v)")
    # Key 2 twice in the foreign file: the later position is the newer version.
    foreign_append(spark, table, "SELECT * FROM VALUES (2, 'B'), (4, 'd'), (2, 'BB') AS t(k, v)")
    before = len(snapshots(spark, table))
    assert findings(spark, table) == {
        "repeated_keys": ("VIOLATION", 1), "unchecked_commits": ("PENDING", 1), "revived_keys": ("NOT APPLICABLE", 0),
        "dropped_tombstones": ("NOT APPLICABLE", 0),
    }
    assert len(snapshots(spark, table)) == before  # check changes nothing

    result = doris.load(spark, table=table, query="SELECT 5 AS k, 'e' AS v")[0]
    assert result.repaired_keys == 1
    history = snapshots(spark, table)
    repair, load = history[-2][1], history[-1][1]
    assert (repair["doris.operation"], repair["doris.repaired-keys"], repair["doris.deleted-rows"]) == ("repair keys", "1", "2")
    assert load["doris.keys-checked"] == str(history[-2][0])
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "BB"), (3, "c"), (4, "d"), (5, "e")]
    assert findings(spark, table)["repeated_keys"] == ("OK", 0)
    assert findings(spark, table)["unchecked_commits"] == ("OK", 0)

    # Checked once: the next load repairs nothing and commits once.
    again = doris.load(spark, table=table, query="SELECT 2 AS k, 'z' AS v")[0]
    assert again.repaired_keys == 0
    assert len(snapshots(spark, table)) == len(history) + 1
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "z"), (3, "c"), (4, "d"), (5, "e")]


def test_the_sequence_column_decides_which_version_stays(spark, namespace, py_catalog):
    table = f"{namespace}.s"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (k INT NOT NULL, v STRING, s INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        'PROPERTIES ("function_column.sequence_col" = "s")'
    ))
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a', 5), (2, 'b', 5) AS t(k, v, s)")
    # Written later, but key 1's version is older by its sequence value: the stored one stays.
    foreign_append(spark, table, "SELECT * FROM VALUES (1, 'old', 3), (2, 'new', 9) AS t(k, v, s)")
    result = doris.load(spark, table=table, query="SELECT 3 AS k, 'c' AS v, 1 AS s")[0]
    assert result.repaired_keys == 2
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 5), (2, "new", 9), (3, "c", 1)]


# pyiceberg warns that it ignores the table's Bloom filter size property.
@pytest.mark.filterwarnings("ignore:Parquet writer option")
def test_a_pyiceberg_append_to_an_aggregate_table_is_counted_once(spark, namespace, py_catalog):
    table = f"{namespace}.a"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (k INT NOT NULL, total BIGINT SUM, top INT MAX, last STRING REPLACE) "
        # BUCKETS AUTO: no bucket partition field, which pyiceberg writes only with pyiceberg-core.
        'AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS AUTO PROPERTIES ("format-version" = "2")'
    ))
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 10L, 5, 'a'), (2, 20L, 1, 'b') AS t(k, total, top, last)")
    arrow = py_catalog.load_table(table)
    schema = pa.schema([
        pa.field("k", pa.int32(), nullable=False), pa.field("total", pa.int64()), pa.field("top", pa.int32()),
        pa.field("last", pa.string()),
    ])
    arrow.append(pa.table({"k": [1], "total": [5], "top": [9], "last": ["x"]}, schema=schema))
    assert findings(spark, table)["repeated_keys"] == ("VIOLATION", 1)

    result = doris.load(spark, table=table, query="SELECT 3 AS k, 1L AS total, 1 AS top, 'c' AS last")[0]
    assert result.repaired_keys == 1
    # Each stored row counted once: 10 + 5, the larger MAX, the newer REPLACE.
    assert readers_agree(spark, py_catalog, table) == [(1, 15, 9, "x"), (2, 20, 1, "b"), (3, 1, 1, "c")]
    # A later load merges into the one repaired row, not into each of the two.
    doris.load(spark, table=table, query="SELECT 1 AS k, 1L AS total, 0 AS top, 'y' AS last")
    assert readers_agree(spark, py_catalog, table) == [(1, 16, 9, "y"), (2, 20, 1, "b"), (3, 1, 1, "c")]
    assert findings(spark, table)["repeated_keys"] == ("OK", 0)


def test_a_rewrite_that_dropped_sequence_tombstones_is_reported(spark, namespace, caplog):
    import logging

    table = f"{namespace}.t"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (k INT NOT NULL, v STRING, s INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        'PROPERTIES ("function_column.sequence_col" = "s")'
    ))
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a', 5), (2, 'b', 5) AS t(k, v, s)")
    doris.delete(spark, table=table, where="k = 1")  # leaves a tombstone with sequence value 5
    assert findings(spark, table)["dropped_tombstones"] == ("OK", 0)
    doris.compact(spark, table=table)  # iceberg-doris's compaction keeps the tombstone
    assert findings(spark, table)["dropped_tombstones"] == ("OK", 0)

    spark.sql(f"CALL system.rewrite_data_files(table => '{table}', options => map('rewrite-all', 'true'))")
    assert findings(spark, table)["dropped_tombstones"] == ("VIOLATION", 1)
    # With the tombstone gone, nothing is left to compare an older row with: revived_keys cannot tell.
    assert findings(spark, table)["revived_keys"] == ("OK", 0)
    with caplog.at_level(logging.WARNING, logger="iceberg_doris.operations.repair_keys"):
        doris.load(spark, table=table, query="SELECT 3 AS k, 'c' AS v, 1 AS s")
    assert any("dropped deleted rows" in r.getMessage() for r in caplog.records)
    # What the finding warns of: the tombstone is gone, so an older row brings key 1 back.
    doris.load(spark, table=table, query="SELECT 1 AS k, 'old' AS v, 2 AS s")
    assert sorted(tuple(r) for r in spark.table(table).collect()) == [(1, "old", 2), (2, "b", 5), (3, "c", 1)]
    assert findings(spark, table)["dropped_tombstones"] == ("VIOLATION", 1)  # still named: the keys cannot be told


def test_a_plain_spark_insert_is_reported_then_repaired_by_the_next_load(spark, namespace, py_catalog):
    """Spark's own INSERT in a session whose statement rule is off (the test session's setting, as a
    session without the extension would write): a plain Iceberg append with a second row for key 2."""
    assert spark.conf.get("spark.doris.sparkStatements.enabled") == "false"
    table = f"{namespace}.plain_insert"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(k, v)")
    spark.sql(f"INSERT INTO {table} VALUES (2, 'B')")
    assert sorted(tuple(r) for r in spark.table(table).collect()) == [(1, "a"), (2, "B"), (2, "b")]
    assert findings(spark, table)["repeated_keys"] == ("VIOLATION", 1)
    result = doris.load(spark, table=table, query="SELECT 3 AS k, 'c' AS v")[0]
    assert result.repaired_keys == 1
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "B"), (3, "c")]
    assert findings(spark, table)["repeated_keys"] == ("OK", 0)


def test_a_compaction_repairs_other_writers_keys_before_it_rewrites_their_files(spark, namespace, py_catalog):
    """Rewritten by a compaction, the older row of key 2 would become iceberg-doris's own and newer
    than the other writer's: the compaction repairs first, so the other writer's newer row stays."""
    table = f"{namespace}.compacted"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b'), (3, 'c') AS t(k, v)")
    doris.delete(spark, table=table, where="k = 1")  # a deleted row: the first file is worth compacting
    foreign_append(spark, table, "SELECT 2 AS k, 'B' AS v")
    doris.compact(spark, table=table)
    assert doris.load(spark, table=table, query="SELECT 4 AS k, 'd' AS v")[0].repaired_keys == 0
    assert readers_agree(spark, py_catalog, table) == [(2, "B"), (3, "c"), (4, "d")]
    assert findings(spark, table)["repeated_keys"] == ("OK", 0)
    operations = [summary.get("doris.operation") for _, summary in snapshots(spark, table)]
    assert operations == ["load", "delete", None, "repair keys", "compact", "load"], operations


class WriterAtEachRepair:
    """Plain Spark SQL committed right before the repair's catalog swap, the first ``times`` times;
    the i-th statement is ``statement(i)``."""

    def __init__(self, spark, table: str, statement, times: int):
        self.spark, self.table, self.statement, self.times = spark, table, statement, times
        self.calls = 0

    def __call__(self, name) -> None:
        if name.qualified == self.table and self.calls < self.times:
            self.calls += 1
            self.spark.sql(self.statement(self.calls))


def table_with_a_foreign_duplicate(spark, namespace: str, name: str) -> str:
    table = f"{namespace}.{name}"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b'), (3, 'c') AS t(k, v)")
    doris.delete(spark, table=table, where="k = 1")
    foreign_append(spark, table, "SELECT 2 AS k, 'B' AS v")
    return table


@pytest.mark.parametrize(
    "name, writer, rows, operations",
    [
        # The writer deletes the older row itself: checked again, nothing is left to repair.
        ("raced_delete", "DELETE FROM {table} WHERE v = 'b'", [(2, "B"), (3, "c")], ["load", "delete", None, None, "compact"]),
        # The writer adds another row: checked again, the repair covers both foreign commits.
        ("raced_insert", "INSERT INTO {table} VALUES (7, 'g')", [(2, "B"), (3, "c"), (7, "g")], ["load", "delete", None, None, "repair keys", "compact"]),
    ],
    ids=["deletes-the-older-row", "adds-a-row"],
)
def test_a_writer_committing_during_the_compactions_repair_makes_it_check_again(spark, namespace, py_catalog, name, writer, rows, operations):
    table = table_with_a_foreign_duplicate(spark, namespace, name)
    competitor = WriterAtEachRepair(spark, table, lambda i: writer.format(table=table), times=1)
    with interleaving.inject(interleaving.BEFORE_COMMIT, competitor):
        doris.compact(spark, table=table)
    assert competitor.calls == 1
    assert readers_agree(spark, py_catalog, table) == rows
    assert [summary.get("doris.operation") for _, summary in snapshots(spark, table)] == operations
    assert findings(spark, table)["repeated_keys"] == ("OK", 0)


def test_a_compaction_whose_repair_keeps_losing_to_another_writer_commits_nothing(spark, namespace):
    table = table_with_a_foreign_duplicate(spark, namespace, "raced_always")
    before = snapshots(spark, table)
    competitor = WriterAtEachRepair(spark, table, lambda i: f"INSERT INTO {table} VALUES ({10 + i}, 'w')", times=100)
    with interleaving.inject(interleaving.BEFORE_COMMIT, competitor), pytest.raises(CommitConflictError) as raised:
        doris.compact(spark, table=table)
    assert str(raised.value) == (
        f"Cannot compact {table}: other writers kept changing the keys stored twice that it repairs first "
        "(3 attempts); nothing was committed. Run it again"
    )
    assert competitor.calls == 3
    after = snapshots(spark, table)
    assert after[: len(before)] == before and [s.get("doris.operation") for _, s in after[len(before):]] == [None] * 3
    # Key 2 still twice (ties make readers_agree's ordering unstable): sorted here.
    assert sorted(tuple(r) for r in spark.table(table).collect()) == [(2, "B"), (2, "b"), (3, "c"), (11, "w"), (12, "w"), (13, "w")]
