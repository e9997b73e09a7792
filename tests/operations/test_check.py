"""``doris.check``'s ``revived_keys``: on a sequence table, a live row older (by its sequence value)
than a deleted version of its key, which a writer outside iceberg-doris appended after the key was
deleted. Doris would have discarded the row; ``doris.check`` reports it and the next keyed load
marks it deleted."""

from __future__ import annotations

import pytest

from iceberg_doris import doris, operations
from iceberg_doris.operations.check import REVIVED_KEYS
from tests.concurrency import readers_agree

pytestmark = pytest.mark.spark


def findings(spark, table: str) -> dict[str, tuple]:
    return {row[0]: (row[1], row[2]) for row in spark.sql(f"CALL doris.check(table => '{table}')").collect()}


def detail(spark, table: str, check: str) -> str:
    return next(f.detail for f in operations.check(spark, table) if f.check == check)


def snapshots(spark, table: str) -> list[tuple]:
    return [tuple(r) for r in spark.sql(f"SELECT snapshot_id, summary FROM {table}.snapshots ORDER BY committed_at").collect()]


def sequence_table(spark, table: str) -> None:
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (k INT NOT NULL, v STRING, s INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        'PROPERTIES ("function_column.sequence_col" = "s")'
    ))
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a', 5), (2, 'b', 5) AS t(k, v, s)")


def test_a_key_a_plain_insert_brings_back_past_its_tombstone_is_reported_then_deleted(spark, namespace, py_catalog):
    table = f"{namespace}.revived"
    sequence_table(spark, table)
    # Keys 1 and 2 deleted at sequence 1000 and 5: each tombstone is written and deleted in the same commit.
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a', 1000), (2, 'b', 5) AS t(k, v, s)", merge_type="DELETE")
    assert findings(spark, table)[REVIVED_KEYS] == ("OK", 0)
    # The session's statement rule is off: Spark's INSERT is a plain Iceberg append. A NULL
    # sequence value is below every value (Doris's rule), so key 2's row is older than its tombstone.
    assert spark.conf.get("spark.doris.sparkStatements.enabled") == "false"
    spark.sql(f"INSERT INTO {table} VALUES (1, 'back', 10), (2, 'null', NULL)")
    assert readers_agree(spark, py_catalog, table) == [(1, "back", 10), (2, "null", None)]  # what every reader sees now

    before = len(snapshots(spark, table))
    assert findings(spark, table) == {
        "repeated_keys": ("OK", 0), "unchecked_commits": ("PENDING", 1), REVIVED_KEYS: ("PENDING", 2),
        "dropped_tombstones": ("OK", 0),
    }
    text = detail(spark, table, REVIVED_KEYS)
    assert "k=1: live s=10 < deleted s=1000" in text and "k=2: live s=None < deleted s=5" in text
    assert len(snapshots(spark, table)) == before  # check changes nothing

    # The next keyed load applies Doris's rule first: the rows lose to the tombstones.
    result = doris.load(spark, table=table, query="SELECT 3 AS k, 'c' AS v, 1 AS s")[0]
    assert result.repaired_keys == 2
    repair = snapshots(spark, table)[-2][1]
    assert (repair["doris.operation"], repair["doris.repaired-keys"], repair["doris.deleted-rows"]) == ("repair keys", "2", "2")
    assert readers_agree(spark, py_catalog, table) == [(3, "c", 1)]
    assert findings(spark, table)[REVIVED_KEYS] == ("OK", 0)
    # The key stays deleted for an older row; a newer one (by sequence) brings it back, as in Doris.
    doris.load(spark, table=table, query="SELECT 1 AS k, 'old' AS v, 999 AS s")
    doris.load(spark, table=table, query="SELECT 1 AS k, 'new' AS v, 1000 AS s")
    assert readers_agree(spark, py_catalog, table) == [(1, "new", 1000), (3, "c", 1)]
    assert findings(spark, table)[REVIVED_KEYS] == ("OK", 0)


def test_a_row_no_load_will_repair_is_a_violation_until_the_key_is_deleted_again(spark, namespace, py_catalog):
    table = f"{namespace}.passed"
    sequence_table(spark, table)
    # A plain INSERT gives key 1 a newer version, and a plain DELETE (merge-on-read: a deletion
    # vector, no tombstone) removes only that one: Doris's key 1 is gone, but its older row, written
    # by iceberg-doris, shows again. No file a foreign commit added holds it, so no load repairs it.
    # (Key 9 shares the file, so Iceberg cannot drop the whole file and keeps the deleted row.)
    spark.sql(f"INSERT INTO {table} VALUES (1, 'newer', 1000), (9, 'nine', 1)")
    spark.sql(f"DELETE FROM {table} WHERE k = 1 AND s = 1000")
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 5), (2, "b", 5), (9, "nine", 1)]
    assert findings(spark, table)[REVIVED_KEYS] == ("VIOLATION", 1)
    text = detail(spark, table, REVIVED_KEYS)
    assert "k=1: live s=5 < deleted s=1000" in text and "merge_type => 'DELETE'" in text

    result = doris.load(spark, table=table, query="SELECT 3 AS k, 'c' AS v, 1 AS s")[0]
    assert result.repaired_keys == 0
    assert findings(spark, table)[REVIVED_KEYS] == ("VIOLATION", 1)
    # doris.delete deletes with the row's own sequence value, which loses to the deleted 1000.
    doris.delete(spark, table=table, where="k = 1")
    assert findings(spark, table)[REVIVED_KEYS] == ("VIOLATION", 1)
    # What the detail says to do: a delete at the deleted version's sequence value.
    doris.load(spark, table=table, query="SELECT 1 AS k, 'x' AS v, 1000 AS s", merge_type="DELETE")
    assert findings(spark, table)[REVIVED_KEYS] == ("OK", 0)
    assert readers_agree(spark, py_catalog, table) == [(2, "b", 5), (3, "c", 1), (9, "nine", 1)]


def test_a_clean_sequence_table_is_ok(spark, namespace):
    table = f"{namespace}.clean"
    sequence_table(spark, table)
    doris.load(spark, table=table, query="SELECT 1 AS k, 'x' AS v, 8 AS s", merge_type="DELETE")  # tombstone at 8
    doris.load(spark, table=table, query="SELECT 1 AS k, 'older' AS v, 3 AS s")  # discarded by the load
    doris.load(spark, table=table, query="SELECT 2 AS k, 'same' AS v, 5 AS s")  # an equal value replaces
    doris.load(spark, table=table, query="SELECT 1 AS k, 'again' AS v, 8 AS s")  # an equal value brings it back
    assert sorted(tuple(r) for r in spark.table(table).collect()) == [(1, "again", 8), (2, "same", 5)]
    assert findings(spark, table) == {
        "repeated_keys": ("OK", 0), "unchecked_commits": ("OK", 0), REVIVED_KEYS: ("OK", 0), "dropped_tombstones": ("OK", 0),
    }


@pytest.mark.parametrize("ddl", [
    "(k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    "(k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    "(k INT NOT NULL, v BIGINT SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
], ids=["unique", "duplicate", "aggregate"])
def test_without_a_sequence_column_it_does_not_apply(spark, namespace, ddl):
    table = f"{namespace}.plain"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} {ddl}")
    doris.load(spark, table=table, query="SELECT 1 AS k, 1 AS v")
    if "UNIQUE" in ddl:  # the later row wins without a sequence column: a key deleted, then appended, is live
        doris.delete(spark, table=table, where="k = 1")
        spark.sql(f"INSERT INTO {table} VALUES (1, 'back')")
    assert findings(spark, table)[REVIVED_KEYS] == ("NOT APPLICABLE", 0)
