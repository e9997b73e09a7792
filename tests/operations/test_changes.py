"""The change feed (``doris.changes``) against an independent diff of the snapshots it spans, for
every operation that changes rows, on format v3 (deletion vectors) and v2 (position deletes)."""

from __future__ import annotations

import datetime
import json

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import TableStateError
from tests.operations.change_diff import check_range, feed, head, kinds

pytestmark = pytest.mark.spark

VERSIONS = ["3", "2"]


def unique_table(spark, namespace, version, *, name="u", properties="", columns="id BIGINT NOT NULL, v STRING, n BIGINT",
                 model="UNIQUE KEY(id)", partition=""):
    table = f"{namespace}.{name}"
    extra = f', {properties}' if properties else ""
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} ({columns}) {model} {partition} DISTRIBUTED BY HASH(id) BUCKETS 2 "
        f'PROPERTIES ("format-version" = "{version}"{extra})',
    )
    return table


def load(spark, table, values, names="id, v, n", **options):
    doris.load(spark, table=table, query=f"SELECT * FROM VALUES {values} AS t({names})", **options)
    return head(spark, table)


@pytest.mark.parametrize("version", VERSIONS)
def test_loads_deletes_and_compaction(spark, namespace, version):
    table = unique_table(spark, namespace, version)
    s0 = load(spark, table, "(1L, 'a', 1L), (2L, 'a', 2L), (3L, 'a', 3L), (4L, 'a', 4L), (5L, 'a', 5L)")
    s1 = load(spark, table, "(2L, 'b', 20L), (7L, 'b', 70L), (7L, 'c', 71L)")  # the later 7 wins within the batch
    doris.delete(spark, table=table, where="id = 3")
    s2 = head(spark, table)
    s3 = load(spark, table, "(4L, 'x', 0L), (5L, 'm', 50L), (9L, 'x', 0L)", merge_type="MERGE", delete_on="v = 'x'")
    doris.compact(spark, table=table)
    s4 = head(spark, table)
    s5 = load(spark, table, "(1L, 'd', 10L), (5L, 'd', 500L)")

    assert kinds(check_range(spark, table, None, s0)) == [("insert", (i, "a", i)) for i in range(1, 6)]
    assert kinds(check_range(spark, table, s0, s1)) == [
        ("update_preimage", (2, "a", 2)), ("update_postimage", (2, "b", 20)), ("insert", (7, "c", 71)),
    ]
    assert kinds(check_range(spark, table, s1, s2)) == [("delete", (3, "a", 3))]
    assert kinds(check_range(spark, table, s2, s3)) == [
        ("delete", (4, "a", 4)), ("update_preimage", (5, "a", 5)), ("update_postimage", (5, "m", 50)),
    ]
    assert check_range(spark, table, s3, s4) == []  # compaction changes no row
    assert kinds(check_range(spark, table, s4, s5)) == [
        ("update_preimage", (1, "a", 1)), ("update_postimage", (1, "d", 10)),
        ("update_preimage", (5, "m", 50)), ("update_postimage", (5, "d", 500)),
    ]
    whole = check_range(spark, table, None, s5)
    assert [r["_commit_snapshot_id"] for r in whole] == sorted(
        (r["_commit_snapshot_id"] for r in whole), key=[s0, s1, s2, s3, s4, s5].index
    )
    check_range(spark, table, s0, s5)
    assert feed(spark, table, s5) == [] and feed(spark, table, s3, s5) == feed(spark, table, s4, s5)


@pytest.mark.parametrize("version", VERSIONS)
def test_an_unchanged_upsert_is_an_update_and_net_drops_it(spark, namespace, version):
    table = unique_table(spark, namespace, version)
    s0 = load(spark, table, "(1L, 'a', 1L), (2L, 'a', 2L)")
    s1 = load(spark, table, "(1L, 'a', 1L)")
    s2 = load(spark, table, "(2L, 'b', 2L)")
    s3 = load(spark, table, "(2L, 'a', 2L)")  # back to what it was before s2
    assert kinds(feed(spark, table, s0, s1)) == [("update_preimage", (1, "a", 1)), ("update_postimage", (1, "a", 1))]
    assert feed(spark, table, s0, s1, net=True) == []
    assert feed(spark, table, s1, s3, net=True) == []
    assert len(feed(spark, table, s1, s3)) == 4
    check_range(spark, table, None, s2)


@pytest.mark.parametrize("version", VERSIONS)
def test_sequence_tombstones_and_the_delete_sign(spark, namespace, version):
    table = unique_table(
        spark, namespace, version, columns="id BIGINT NOT NULL, v STRING, s BIGINT",
        properties='"function_column.sequence_col" = "s"',
    )
    s0 = load(spark, table, "(1L, 'a', 5L), (2L, 'a', 5L), (3L, 'a', 5L)", names="id, v, s")
    s1 = load(spark, table, "(1L, 'gone', 6L), (2L, 'old', 1L)", names="id, v, s", merge_type="DELETE")  # 2's is older
    s2 = load(spark, table, "(1L, 'late', 3L)", names="id, v, s")  # older than the tombstone: stays deleted
    doris.load(spark, table=table, query="SELECT 3L AS id, 'x' AS v, 9L AS s, 1 AS __DORIS_DELETE_SIGN__")
    s3 = head(spark, table)
    doris.delete(spark, table=table, where="id = 2")
    s4 = head(spark, table)
    assert kinds(check_range(spark, table, s0, s1)) == [("delete", (1, "a", 5))]  # no tombstone row shows
    assert check_range(spark, table, s1, s2) == []
    assert kinds(check_range(spark, table, s2, s3)) == [("delete", (3, "a", 5))]
    assert kinds(check_range(spark, table, s3, s4)) == [("delete", (2, "a", 5))]
    check_range(spark, table, None, s4)
    doris.compact(spark, table=table)  # keeps the tombstone files (retention), changes nothing
    assert feed(spark, table, s4) == []


@pytest.mark.parametrize("version", VERSIONS)
def test_partial_updates_and_aggregate_keys(spark, namespace, version):
    table = unique_table(spark, namespace, version)
    s0 = load(spark, table, "(1L, 'a', 1L), (2L, 'a', 2L)")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1L, 100L), (3L, 300L) AS t(id, n)", partial_columns=True)
    s1 = head(spark, table)
    assert kinds(check_range(spark, table, s0, s1)) == [
        ("update_preimage", (1, "a", 1)), ("update_postimage", (1, "a", 100)), ("insert", (3, None, 300)),
    ]
    sums = unique_table(spark, namespace, version, name="agg", columns="id BIGINT NOT NULL, v STRING REPLACE, n BIGINT SUM",
                        model="AGGREGATE KEY(id)")
    a0 = load(spark, sums, "(1L, 'a', 1L), (2L, 'a', 2L)")
    a1 = load(spark, sums, "(1L, 'b', 10L), (1L, 'c', 5L), (4L, 'd', 4L)")
    assert kinds(check_range(spark, sums, a0, a1)) == [
        ("update_preimage", (1, "a", 1)), ("update_postimage", (1, "c", 16)), ("insert", (4, "d", 4)),
    ]
    check_range(spark, sums, None, a1)


@pytest.mark.parametrize("version", VERSIONS)
def test_overwrite_truncate_and_partitions(spark, namespace, version):
    table = unique_table(
        spark, namespace, version, columns="id BIGINT NOT NULL, v STRING, n BIGINT",
        partition="PARTITION BY RANGE(id) (PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (20), "
        "PARTITION p3 VALUES LESS THAN (30))",
    )
    s0 = load(spark, table, "(1L, 'a', 1L), (2L, 'a', 2L), (11L, 'a', 11L), (12L, 'a', 12L), (21L, 'a', 21L)")
    s1 = load(spark, table, "(2L, 'b', 2L)")  # a deletion vector on p1's file
    doris.insert_overwrite(spark, table=table, query="SELECT * FROM VALUES (2L, 'o', 2L), (3L, 'o', 3L) AS t(id, v, n)",
                           partitions=["p1"])
    s2 = head(spark, table)
    # Every old row of p1 is deleted (the replaced row 2 'a' was not live any more) and every new one inserted.
    assert sorted(kinds(check_range(spark, table, s1, s2))) == sorted([
        ("delete", (1, "a", 1)), ("delete", (2, "b", 2)), ("insert", (2, "o", 2)), ("insert", (3, "o", 3)),
    ])
    doris.truncate(spark, table=table, partitions=["p2"])
    s3 = head(spark, table)
    assert sorted(kinds(check_range(spark, table, s2, s3))) == [("delete", (11, "a", 11)), ("delete", (12, "a", 12))]
    doris.drop_partition(spark, table=table, partition="p3")
    s4 = head(spark, table)
    assert kinds(check_range(spark, table, s3, s4)) == [("delete", (21, "a", 21))]
    doris.recover_partition(spark, table=table, partition="p3")
    s5 = head(spark, table)
    assert kinds(check_range(spark, table, s4, s5)) == [("insert", (21, "a", 21))]
    doris.insert_overwrite(spark, table=table, query="SELECT * FROM VALUES (3L, 'w', 3L), (13L, 'w', 13L) AS t(id, v, n)")
    s6 = head(spark, table)
    check_range(spark, table, s5, s6)
    doris.truncate(spark, table=table)
    s7 = head(spark, table)
    assert sorted(kinds(check_range(spark, table, s6, s7))) == [("delete", (3, "w", 3)), ("delete", (13, "w", 13))]
    check_range(spark, table, None, s7)


@pytest.mark.parametrize("version", VERSIONS)
def test_swap_and_replace_of_temp_partitions(spark, namespace, version):
    table = unique_table(
        spark, namespace, version,
        partition="PARTITION BY RANGE(id) (PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (20))",
    )
    s0 = load(spark, table, "(1L, 'a', 1L), (2L, 'a', 2L), (11L, 'a', 11L)")
    doris.add_temp_partition(spark, table=table, partition="tp1", values_less_than="10")
    load(spark, table, "(2L, 't', 2L), (5L, 't', 5L)", temporary_partitions=["tp1"])
    load(spark, table, "(5L, 'u', 50L)", temporary_partitions=["tp1"])
    # The temp partition's own changes, from its branch.
    temp = feed(spark, table, None, temp_partition="tp1")
    assert [k for k in kinds(temp) if k[1][0] in (2, 5) and k[1][1] in ("t", "u")] == [
        ("insert", (2, "t", 2)), ("insert", (5, "t", 5)), ("update_preimage", (5, "t", 5)), ("update_postimage", (5, "u", 50)),
    ]
    main_before = head(spark, table)
    doris.swap_temp_partition(spark, table=table, partitions=["p1"], temp_partitions=["tp1"])
    s1 = head(spark, table)
    assert sorted(kinds(check_range(spark, table, main_before, s1))) == sorted([
        ("delete", (1, "a", 1)), ("delete", (2, "a", 2)), ("insert", (2, "t", 2)), ("insert", (5, "u", 50)),
    ])
    doris.replace_partition(spark, table=table, partitions=["p1"], temp_partitions=["tp1"])  # the swapped-out rows come back
    s2 = head(spark, table)
    check_range(spark, table, s1, s2)
    check_range(spark, table, s0, s2)


def test_expired_snapshots_are_refused_naming_cleanup(spark, namespace):
    table = unique_table(spark, namespace, "3")
    s0 = load(spark, table, "(1L, 'a', 1L)")
    s1 = load(spark, table, "(1L, 'b', 1L)")
    s2 = load(spark, table, "(1L, 'c', 1L)")
    doris.cleanup(spark, table=table, older_than=datetime.datetime.now() + datetime.timedelta(minutes=1), retain_last=2)
    with pytest.raises(TableStateError, match=rf"after snapshot {s0}: the table no longer has it .*doris.cleanup"):
        feed(spark, table, s0)
    with pytest.raises(TableStateError, match=r"from its first snapshot: snapshot .* is gone .*retain_last"):
        feed(spark, table, None)
    assert kinds(feed(spark, table, s1, s2)) == [("update_preimage", (1, "b", 1)), ("update_postimage", (1, "c", 1))]
    with pytest.raises(TableStateError, match=rf"{s2} is not an ancestor of {s1}"):
        feed(spark, table, s2, s1)


@pytest.mark.parametrize("mode", ["merge-on-read", "copy-on-write"])
@pytest.mark.parametrize("version", VERSIONS)
def test_plain_spark_writes(spark, namespace, version, mode):
    table = f"{namespace}.plain"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, v STRING) USING iceberg TBLPROPERTIES ('format-version' = '{version}', "
        f"'write.delete.mode' = '{mode}', 'write.update.mode' = '{mode}', 'write.merge.mode' = '{mode}')"
    )
    spark.sql(f"INSERT INTO {table} VALUES (1, 'a'), (2, 'a'), (3, 'a'), (3, 'a')")
    s0 = head(spark, table)
    spark.sql(f"INSERT INTO {table} VALUES (4, 'b')")
    s1 = head(spark, table)
    assert kinds(check_range(spark, table, s0, s1, key=None)) == [("insert", (4, "b"))]
    spark.sql(f"DELETE FROM {table} WHERE id = 2")
    s2 = head(spark, table)
    assert kinds(check_range(spark, table, s1, s2, key=None)) == [("delete", (2, "a"))]  # no carry-over rows
    spark.sql(f"MERGE INTO {table} t USING (SELECT 1L AS id, 'm' AS v UNION ALL SELECT 9L, 'n') s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
    s3 = head(spark, table)
    assert sorted(kinds(check_range(spark, table, s2, s3, key=None))) == [("delete", (1, "a")), ("insert", (1, "m")), ("insert", (9, "n"))]
    check_range(spark, table, None, s3, key=None)


def test_a_load_of_new_keys_only_commits_an_append_that_iceberg_reads_incrementally(spark, namespace):
    table = unique_table(spark, namespace, "3")
    s0 = load(spark, table, "(1L, 'a', 1L), (2L, 'a', 2L)")
    s1 = load(spark, table, "(3L, 'n', 3L), (4L, 'n', 4L)")  # only new keys: nothing replaced
    s2 = load(spark, table, "(1L, 'u', 1L), (5L, 'n', 5L)")
    operations = dict(spark.sql(f"SELECT snapshot_id, operation FROM {table}.snapshots").collect())
    assert (operations[s0], operations[s1], operations[s2]) == ("append", "append", "overwrite")
    incremental = spark.read.format("iceberg").option("start-snapshot-id", s0).option("end-snapshot-id", s1).load(table)
    assert sorted(r.id for r in incremental.collect()) == [3, 4]
    assert kinds(feed(spark, table, s0, s1)) == [("insert", (3, "n", 3)), ("insert", (4, "n", 4))]



class ConsumerDied(Exception):
    """The consumer's process ended before it stored its cursor."""


class CursorConsumer:
    """The documented continuous reader (docs/change-streams.md, "Reading changes continuously"):
    pins the head, reads the changes after its cursor up to it, applies them to its replica, and
    stores the replica, the changes it saw and the new cursor together in one file (one atomic
    rename, as a target's transaction would). A new instance is a restarted process: it knows only
    the file."""

    def __init__(self, spark, table, state_file):
        self.spark, self.table, self.state_file = spark, table, state_file
        state = json.loads(state_file.read_text()) if state_file.exists() else {"cursor": None, "replica": {}, "seen": []}
        self.cursor, self.replica, self.seen = state["cursor"], state["replica"], state["seen"]

    def round(self, *, between_pin_and_read=lambda: None, crash_before_storing=False) -> int:
        end = head(self.spark, self.table)
        between_pin_and_read()  # a commit after the pin belongs to the next round
        if end == self.cursor:
            return 0
        rows = doris.changes(self.spark, table=self.table, start_snapshot=self.cursor, end_snapshot=end).collect()
        for row in rows:
            values = [row["id"], row["v"], row["n"]]
            if row["_change_type"] in ("delete", "update_preimage"):
                assert self.replica.pop(str(row["id"])) == values, f"{row['_change_type']} of a row the replica does not hold"
            else:
                assert str(row["id"]) not in self.replica, f"{row['_change_type']} of a key the replica holds"
                self.replica[str(row["id"])] = values
            self.seen.append([row["_change_type"], *values, row["_commit_snapshot_id"]])
        if crash_before_storing:
            raise ConsumerDied("before storing its cursor")
        staged = self.state_file.with_suffix(".tmp")
        staged.write_text(json.dumps({"cursor": end, "replica": self.replica, "seen": self.seen}))
        staged.rename(self.state_file)
        self.cursor = end
        return len(rows)


def test_a_cursor_kept_across_restarts_sees_every_change_exactly_once(spark, namespace, tmp_path):
    table = unique_table(spark, namespace, "3")
    state = tmp_path / "consumer.json"
    load(spark, table, "(1L, 'a', 1L), (2L, 'a', 2L), (3L, 'a', 3L)")
    assert CursorConsumer(spark, table, state).round() == 3  # from the first snapshot

    load(spark, table, "(2L, 'b', 20L), (4L, 'b', 40L)")
    consumer = CursorConsumer(spark, table, state)  # restarted
    # A load commits after the round pinned its end: not in this round, not lost either.
    assert consumer.round(between_pin_and_read=lambda: doris.delete(spark, table=table, where="id = 1")) == 3
    assert consumer.round() == 1 and consumer.round() == 0  # the delete; then nothing new

    load(spark, table, "(3L, 'c', 30L), (5L, 'c', 50L)", merge_type="MERGE", delete_on="n = 50")
    doris.compact(spark, table=table)  # changes nothing
    with pytest.raises(ConsumerDied):
        CursorConsumer(spark, table, state).round(crash_before_storing=True)
    load(spark, table, "(4L, 'd', 41L)")
    consumer = CursorConsumer(spark, table, state)  # restarted from the cursor stored before the crash
    assert consumer.round() == 4  # 3 updated, 5 deleted before it existed (nothing), 4 updated
    assert CursorConsumer(spark, table, state).round() == 0

    final = head(spark, table)
    whole = doris.changes(spark, table=table, end_snapshot=final).collect()
    assert len(whole) == 11
    assert sorted(consumer.seen) == sorted([r["_change_type"], r["id"], r["v"], r["n"], r["_commit_snapshot_id"]] for r in whole)
    commits = [s[-1] for s in consumer.seen]
    assert commits == sorted(commits, key=[r["_commit_snapshot_id"] for r in whole].index)  # in commit order
    assert sorted(consumer.replica.values()) == sorted(list(r) for r in spark.table(table).collect())
    assert json.loads(state.read_text())["cursor"] == final
