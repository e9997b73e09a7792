"""A competing commit forced between each commit path's plan and its commit, one test per path.

Each test makes the interleaving happen, deterministically, at a named point of the commit path
(:mod:`iceberg_doris.engine.interleaving`) and proves it happened: the competitor ran exactly once,
and where both commit snapshots, the competitor's snapshot is the parent of the operation's (so the
operation was rebuilt on the table the competitor left). The outcome is one of the two documented
ones: the operation is rebuilt on the new table and both changes are visible (rows every reader
sees, partitions ``show_partitions`` lists), or :class:`CommitConflictError` in words with nothing
of the operation committed.

Two kinds of competitor:

- At BEFORE_COMMIT the operation holds the table's commit lock, so the competitor is a writer
  that does not take it: plain Spark SQL (``INSERT``, ``DELETE``, ``ALTER TABLE ... SET
  TBLPROPERTIES``). The operation's catalog swap then fails and it rebuilds.
- At LOCK_BUSY another iceberg-doris operation, run in a second thread, holds the lock right
  before its own catalog swap; the operation under test has planned (staged its files) and found
  the lock taken. The competitor then commits, and the operation takes the lock afterwards: the
  race between two iceberg-doris writers that the lock serialises, as Doris serialises publish.

``tests/concurrency/test_forced_interleavings.py`` has the keyed-load races at LOOKED_UP (another
``doris.load`` between lookup and lock), a MERGE at the swap, a writer that never stops, an
unconfirmed commit and compact against a load; they are not repeated here.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import interleaving
from iceberg_doris.errors import CommitConflictError, PartitionError
from tests.concurrency import readers_agree, snapshot_summary, unique_table, values

pytestmark = pytest.mark.spark

# Long enough never to matter on a loaded machine; a test that waits this long has failed.
PATIENCE_SECONDS = 300


class Competitor:
    """A hook that commits ``action`` the first time ``table`` reaches its point, and remembers the
    main snapshot the competitor left (None if main has none)."""

    def __init__(self, spark: Any, table: str, action: Callable[[], Any]):
        self.spark, self.table, self.action = spark, table, action
        self.calls = 0
        self.snapshot: int | None = None

    def __call__(self, name: Any) -> None:
        if self.calls == 0 and name.qualified == self.table:
            self.calls += 1
            self.action()
            self.snapshot = main_snapshot(self.spark, self.table)


@contextmanager
def at_commit(spark: Any, table: str, *statements: str) -> Iterator[Competitor]:
    """Plain Spark SQL ``statements`` commit right before the operation's catalog swap."""
    competitor = Competitor(spark, table, lambda: [spark.sql(s) for s in statements])
    with interleaving.inject(interleaving.BEFORE_COMMIT, competitor):
        yield competitor


@contextmanager
def committed_while_waiting_for_the_lock(spark: Any, table: str, competitor: Callable[[], Any]) -> Iterator[list[Any]]:
    """``competitor`` (an iceberg-doris operation) runs in another thread and stops right before
    its catalog swap, holding the table's commit lock; the block's operation plans, finds the lock
    taken and, at that moment, lets the competitor commit. Yields the competitor's result (filled
    once it committed)."""
    worker = threading.current_thread()
    holding, go = threading.Event(), threading.Event()
    result: list[Any] = []
    errors: list[BaseException] = []
    busy_calls: list[str] = []

    def hold_before_swap(name: Any) -> None:
        if threading.current_thread() is not worker and name.qualified == table and not holding.is_set():
            holding.set()
            assert go.wait(PATIENCE_SECONDS)

    def release_on_busy(name: Any) -> None:
        if threading.current_thread() is worker and name.qualified == table and not busy_calls:
            busy_calls.append(name.qualified)
            go.set()

    def run() -> None:
        try:
            result.append(competitor())
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
            holding.set()

    with interleaving.inject(interleaving.BEFORE_COMMIT, hold_before_swap), interleaving.inject(interleaving.LOCK_BUSY, release_on_busy):
        thread = threading.Thread(target=run)
        thread.start()
        try:
            assert holding.wait(PATIENCE_SECONDS)
            assert not errors, errors
            yield result
        finally:
            go.set()
            thread.join(PATIENCE_SECONDS)
    assert not errors, errors
    assert busy_calls == [table], "the operation never found the lock taken: no interleaving"
    assert len(result) == 1


def main_snapshot(spark: Any, table: str) -> int | None:
    found = spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()
    return found[0][0] if found else None


def parent_of(spark: Any, table: str, snapshot_id: int) -> int | None:
    return spark.sql(f"SELECT parent_id FROM {table}.snapshots WHERE snapshot_id = {snapshot_id}").collect()[0][0]


def assert_rebuilt_on(spark: Any, table: str, before: int | None, competitor: Competitor, committed: int) -> None:
    """The competitor committed exactly once, on the table as it was, and the operation's snapshot
    sits right on top of the competitor's."""
    assert competitor.calls == 1
    assert competitor.snapshot is not None and competitor.snapshot != before
    assert parent_of(spark, table, competitor.snapshot) == before
    assert parent_of(spark, table, committed) == competitor.snapshot
    assert main_snapshot(spark, table) == committed


def snapshot_ids(spark: Any, table: str) -> set[int]:
    return {r[0] for r in spark.sql(f"SELECT snapshot_id FROM {table}.snapshots").collect()}


def rows(spark: Any, table: str, ref: str | None = None) -> list[tuple[Any, ...]]:
    version = f" VERSION AS OF '{ref}'" if ref else ""
    return [tuple(r) for r in spark.sql(f"SELECT * FROM {table}{version} ORDER BY 1, 2").collect()]


def partition_names(spark: Any, table: str, temporary: bool = False) -> list[str]:
    return [r.partition_name for r in doris.show_partitions(spark, table=table, temporary=temporary)]


def range_table(spark: Any, namespace: str, name: str = "d") -> str:
    """DUPLICATE KEY, RANGE(k): p0 [.., 10), p1 [10, 20); rows (1,'a'), (2,'b'), (11,'c')."""
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {namespace}.{name} (k INT NOT NULL, v STRING) DUPLICATE KEY(k) "
        "PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20)) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    table = f"{namespace}.{name}"
    doris.load(spark, table=table, query=values(["(1,'a')", "(2,'b')", "(11,'c')"], "k, v"), label="seed")
    return table


def with_temp_partition(spark: Any, table: str) -> None:
    """tp0 [.., 10) holding (5,'t')."""
    doris.add_partition(spark, table=table, partition="tp0", values_less_than="10", temporary=True)
    doris.load(spark, table=table, query=values(["(5,'t')"], "k, v"), temporary_partitions=["tp0"], label="staged")


# -- loads ------------------------------------------------------------------------------------


def test_append_rebuilt_on_a_plain_insert_keeps_both(spark, namespace, py_catalog):
    table = range_table(spark, namespace)
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"INSERT INTO {table} VALUES (3, 'plain'), (12, 'plain')") as competitor:
        result = doris.load(spark, table=table, query=values(["(4,'load')", "(13,'load')"], "k, v"), label="outer")
    assert_rebuilt_on(spark, table, before, competitor, result[0].snapshot_id)
    assert readers_agree(spark, py_catalog, table) == [
        (1, "a"), (2, "b"), (3, "plain"), (4, "load"), (11, "c"), (12, "plain"), (13, "load"),
    ]
    assert snapshot_summary(spark, table, "outer")["doris.loaded-rows"] == "2"


def test_append_whose_partition_was_dropped_while_it_waited_commits_nothing(spark, namespace):
    """Another iceberg-doris writer drops the partition the load's rows were routed to, between the
    load's plan (rows routed, files staged) and its commit: a conflict in words, no rows land."""
    table = range_table(spark, namespace)
    with committed_while_waiting_for_the_lock(
        spark, table, lambda: doris.drop_partition(spark, table=table, partition="p0")
    ) as dropped:
        with pytest.raises(CommitConflictError) as raised:
            doris.load(spark, table=table, query=values(["(4,'load')"], "k, v"), label="outer")
    assert str(raised.value) == (
        f"Cannot load into {table}: partition p0 changed while the load ran; nothing was committed. Run the load again."
    )
    assert main_snapshot(spark, table) == dropped[0][0].snapshot_id  # the drop is the last commit
    assert spark.sql(f"SELECT count(*) FROM {table}.snapshots WHERE summary['doris.label'] = 'outer'").collect()[0][0] == 0
    assert rows(spark, table) == [(11, "c")]
    assert partition_names(spark, table) == ["p1"]


def test_append_rebuilt_after_a_partition_added_while_it_waited(spark, namespace, py_catalog):
    table = range_table(spark, namespace)
    with committed_while_waiting_for_the_lock(
        spark, table, lambda: doris.add_partition(spark, table=table, partition="p2", values_less_than="30")
    ):
        result = doris.load(spark, table=table, query=values(["(4,'load')"], "k, v"), label="outer")
    assert result[0].status == "FINISHED"
    assert partition_names(spark, table) == ["p0", "p1", "p2"]
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "b"), (4, "load"), (11, "c")]


def test_unique_load_rebuilt_on_a_plain_insert_of_its_key_leaves_one_row_per_key(spark, namespace, py_catalog):
    """A plain INSERT (no lock, no merge-on-write) adds a second row for key 2 right before the
    load's swap. Serially the INSERT came first, so the load's row replaces both."""
    table = unique_table(spark, namespace, buckets=1)
    doris.load(spark, table=table, query=values(["(1,'a',0)", "(2,'b',0)"]))
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"INSERT INTO {table} VALUES (2, 'plain', 0), (3, 'plain', 0)") as competitor:
        result = doris.load(spark, table=table, query=values(["(2,'load',0)"]), label="outer")
    assert_rebuilt_on(spark, table, before, competitor, result[0].snapshot_id)
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 0), (2, "load", 0), (3, "plain", 0)]
    outer = snapshot_summary(spark, table, "outer")
    assert outer["doris.lookups"] == "2"  # looked up again under the lock, on the INSERT's rows


def test_aggregate_load_rebuilt_on_a_plain_insert_of_its_key_merges_it(spark, namespace, py_catalog):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {namespace}.agg (k INT NOT NULL, total BIGINT SUM, hi INT MAX) AGGREGATE KEY(k) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    table = f"{namespace}.agg"
    doris.load(spark, table=table, query=values(["(1, 10, 1)", "(2, 1, 1)"], "k, total, hi"))
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"INSERT INTO {table} VALUES (1, 7, 9)") as competitor:
        result = doris.load(spark, table=table, query=values(["(1, 5, 3)"], "k, total, hi"), label="outer")
    assert_rebuilt_on(spark, table, before, competitor, result[0].snapshot_id)
    assert readers_agree(spark, py_catalog, table) == [(1, 22, 9), (2, 1, 1)]
    assert snapshot_summary(spark, table, "outer")["doris.lookups"] == "2"


def test_overwrite_load_rebuilt_on_a_plain_write_replaces_its_partition_as_it_is_then(spark, namespace, py_catalog):
    table = range_table(spark, namespace)
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"INSERT INTO {table} VALUES (3, 'plain')", f"DELETE FROM {table} WHERE k = 11") as competitor:
        result = doris.load(spark, table=table, query=values(["(4,'new')"], "k, v"), overwrite=True, label="outer")
    # Two competing snapshots (INSERT, DELETE): the overwrite sits on the second.
    assert competitor.calls == 1
    assert parent_of(spark, table, parent_of(spark, table, competitor.snapshot)) == before
    assert parent_of(spark, table, result[0].snapshot_id) == competitor.snapshot
    # p0 as it was at commit time, the INSERT's row included, is replaced; p1 keeps the DELETE.
    assert readers_agree(spark, py_catalog, table) == [(4, "new")]
    assert partition_names(spark, table) == ["p0", "p1"]


def test_insert_overwrite_rebuilt_on_a_plain_insert_leaves_other_partitions_alone(spark, namespace, py_catalog):
    table = range_table(spark, namespace)
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"INSERT INTO {table} VALUES (3, 'plain'), (12, 'plain')") as competitor:
        result = spark.sql(
            f"CALL doris.insert_overwrite(table => '{table}', query => 'SELECT 7, \\'new\\'', partitions => array('p0'), "
            "label => 'outer')"
        ).collect()
    assert_rebuilt_on(spark, table, before, competitor, result[0].snapshot_id)
    assert readers_agree(spark, py_catalog, table) == [(7, "new"), (11, "c"), (12, "plain")]


# -- temp partitions: swap and replace --------------------------------------------------------


def test_swap_rebuilt_on_a_plain_insert_moves_main_as_it_is_at_commit(spark, namespace, py_catalog):
    table = range_table(spark, namespace)
    with_temp_partition(spark, table)
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"INSERT INTO {table} VALUES (3, 'plain'), (12, 'plain')") as competitor:
        result = doris.swap_temp_partition(spark, table=table, partitions=["p0"], temp_partitions=["tp0"])
    assert_rebuilt_on(spark, table, before, competitor, result[0].snapshot_id)
    assert readers_agree(spark, py_catalog, table) == [(5, "t"), (11, "c"), (12, "plain")]
    # The replaced rows, the INSERT's row in p0 among them, moved to the temp partition.
    assert rows(spark, table, "doris_temp_tp0") == [(1, "a"), (2, "b"), (3, "plain")]
    assert partition_names(spark, table) == ["p0", "p1"]
    assert partition_names(spark, table, temporary=True) == ["tp0"]


def test_replace_rebuilt_on_a_plain_delete_keeps_it(spark, namespace, py_catalog):
    table = range_table(spark, namespace)
    with_temp_partition(spark, table)
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"DELETE FROM {table} WHERE k = 11") as competitor:
        result = doris.replace_partition(spark, table=table, partitions=["p0"], temp_partitions=["tp0"])
    assert_rebuilt_on(spark, table, before, competitor, result[0].snapshot_id)
    assert readers_agree(spark, py_catalog, table) == [(5, "t")]
    assert partition_names(spark, table) == ["p0", "p1"]
    assert partition_names(spark, table, temporary=True) == []


def test_swap_after_a_load_into_its_temp_partition_while_it_waited_moves_those_rows_too(spark, namespace, py_catalog):
    table = range_table(spark, namespace)
    with_temp_partition(spark, table)
    with committed_while_waiting_for_the_lock(
        spark, table,
        lambda: doris.load(spark, table=table, query=values(["(6,'late')"], "k, v"), temporary_partitions=["tp0"], label="late"),
    ):
        doris.swap_temp_partition(spark, table=table, partitions=["p0"], temp_partitions=["tp0"])
    assert readers_agree(spark, py_catalog, table) == [(5, "t"), (6, "late"), (11, "c")]
    assert rows(spark, table, "doris_temp_tp0") == [(1, "a"), (2, "b")]


# -- partitions: add, drop, temporary, dynamic --------------------------------------------------


def test_add_partition_rebuilt_on_a_plain_property_change_keeps_both(spark, namespace):
    table = range_table(spark, namespace)
    with at_commit(spark, table, f"ALTER TABLE {table} SET TBLPROPERTIES ('competitor' = 'yes')") as competitor:
        doris.add_partition(spark, table=table, partition="p2", values_less_than="30")
    assert competitor.calls == 1
    assert partition_names(spark, table) == ["p0", "p1", "p2"]
    properties = dict(spark.sql(f"SHOW TBLPROPERTIES {table}").collect())
    assert properties["competitor"] == "yes"


def test_add_partition_rechecks_overlap_after_a_partition_added_while_it_waited(spark, namespace):
    table = range_table(spark, namespace)
    with committed_while_waiting_for_the_lock(
        spark, table, lambda: doris.add_partition(spark, table=table, partition="p2", values_less_than="30")
    ):
        with pytest.raises(PartitionError) as raised:
            doris.add_partition(spark, table=table, partition="p2b", values_range=["25", "40"])
    assert str(raised.value) == (
        "Range [types: [INT]; keys: [25]; ..types: [INT]; keys: [40]; ) is intersected with range: "
        "[types: [INT]; keys: [20]; ..types: [INT]; keys: [30]; ) (conflicting partition: p2)"
    )
    assert partition_names(spark, table) == ["p0", "p1", "p2"]


def test_drop_partition_rebuilt_on_a_plain_insert_drops_the_partition_as_it_is_then(spark, namespace, py_catalog):
    table = range_table(spark, namespace)
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"INSERT INTO {table} VALUES (3, 'plain'), (12, 'plain')") as competitor:
        result = doris.drop_partition(spark, table=table, partition="p0")
    assert_rebuilt_on(spark, table, before, competitor, result[0].snapshot_id)
    assert result[0].deleted_rows == 3  # the INSERT's row in p0 went with the partition
    assert readers_agree(spark, py_catalog, table) == [(11, "c"), (12, "plain")]
    assert partition_names(spark, table) == ["p1"]


def test_add_temp_partition_rebuilt_on_a_plain_insert_starts_empty(spark, namespace):
    table = range_table(spark, namespace)
    with at_commit(spark, table, f"INSERT INTO {table} VALUES (3, 'plain')") as competitor:
        doris.add_partition(spark, table=table, partition="tp0", values_less_than="10", temporary=True)
    assert competitor.calls == 1
    assert partition_names(spark, table, temporary=True) == ["tp0"]
    assert rows(spark, table, "doris_temp_tp0") == []  # not main's rows, the INSERT's included
    assert rows(spark, table) == [(1, "a"), (2, "b"), (3, "plain"), (11, "c")]


def test_drop_temp_partition_rebuilt_on_a_plain_write_to_its_branch_drops_it(spark, namespace):
    table = range_table(spark, namespace)
    with_temp_partition(spark, table)
    with at_commit(spark, table, f"INSERT INTO {table}.branch_doris_temp_tp0 VALUES (6, 'plain')") as competitor:
        doris.drop_partition(spark, table=table, partition="tp0", temporary=True)
    assert competitor.calls == 1
    assert partition_names(spark, table, temporary=True) == []
    assert spark.sql(f"SELECT count(*) FROM {table}.refs WHERE name = 'doris_temp_tp0'").collect()[0][0] == 0
    assert rows(spark, table) == [(1, "a"), (2, "b"), (11, "c")]


def test_set_properties_rebuilt_on_a_plain_property_change_reports_the_value_it_replaced(spark, namespace):
    table = range_table(spark, namespace)
    doris.set_properties(spark, table=table, properties={"replication_num": "1"})
    with at_commit(
        spark, table, f"ALTER TABLE {table} SET TBLPROPERTIES ('doris.property.replication_num' = '3', 'competitor' = 'yes')"
    ) as competitor:
        result = doris.set_properties(spark, table=table, properties={"replication_num": "2"})
    assert competitor.calls == 1
    # Built again on the competitor's properties: the old value it reports is the competitor's.
    assert [tuple(r) for r in result] == [("replication_num", "3", "2")]
    properties = dict(spark.sql(f"SHOW TBLPROPERTIES {table}").collect())
    assert properties["doris.property.replication_num"] == "2"
    assert properties["competitor"] == "yes"


def _day(offset: int) -> dt.date:
    return dt.datetime.now(dt.timezone.utc).date() + dt.timedelta(days=offset)


def test_run_dynamic_partition_rebuilt_on_a_plain_insert_drops_the_expired_partition_as_it_is_then(spark, namespace, py_catalog):
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.ev (d DATE NOT NULL, id INT NOT NULL) DUPLICATE KEY(d)
        PARTITION BY RANGE(d) () DISTRIBUTED BY HASH(id) BUCKETS 1
        PROPERTIES ("dynamic_partition.enable" = "true", "dynamic_partition.time_unit" = "DAY",
                    "dynamic_partition.start" = "-2", "dynamic_partition.end" = "1",
                    "dynamic_partition.prefix" = "p", "dynamic_partition.create_history_partition" = "true")""",
    )
    table = f"{namespace}.ev"
    old, today = _day(-2), _day(0)
    doris.load(spark, table=table, query=f"SELECT DATE'{old}' AS d, 1 AS id UNION ALL SELECT DATE'{today}', 2")
    doris.set_properties(spark, table=table, properties={"dynamic_partition.start": "-1"})
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"INSERT INTO {table} VALUES (DATE'{old}', 3), (DATE'{today}', 4)") as competitor:
        actions = doris.run_dynamic_partition(spark, table=table)
    assert [(r.action, r.partition_name) for r in actions] == [("DROP", f"p{old:%Y%m%d}")]
    assert_rebuilt_on(spark, table, before, competitor, main_snapshot(spark, table))
    assert rows(spark, table) == [(today, 2), (today, 4)]
    assert sorted(tuple(r.values()) for r in py_catalog.load_table(table).scan().to_arrow().to_pylist()) == [(today, 2), (today, 4)]
    assert f"p{old:%Y%m%d}" not in partition_names(spark, table)



def test_retention_pass_rebuilt_on_a_plain_insert_drops_the_history_partitions_as_they_are_then(spark, namespace, py_catalog):
    # partition_p0/auto_partition/test_auto_new_recycle.groovy: partition.retention_count = 1 keeps the newest
    # history partition; the rows a plain INSERT put into a dropped one go with it, those of the kept one stay.
    table = f"{namespace}.auto_recycle"
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {table} (k0 DATETIME NOT NULL, n INT NOT NULL) DUPLICATE KEY(k0)
        AUTO PARTITION BY RANGE (date_trunc(k0, 'day')) () DISTRIBUTED BY HASH(n) BUCKETS 1
        PROPERTIES ("partition.retention_count" = "1")""",
    )
    noon = [dt.datetime(2020, 1, day, 12) for day in (1, 2, 3)]
    doris.load(spark, table=table, query=values([f"(TIMESTAMP_NTZ'{t}', {i})" for i, t in enumerate(noon)], "k0, n"))
    before = main_snapshot(spark, table)
    late = "INSERT INTO {t} VALUES (TIMESTAMP_NTZ'2020-01-01 13:00:00', 7), (TIMESTAMP_NTZ'2020-01-03 13:00:00', 8)"
    with at_commit(spark, table, late.format(t=table)) as competitor:
        actions = doris.run_dynamic_partition(spark, table=table)
    assert [(r.action, r.partition_name) for r in actions] == [("DROP", "p20200101000000"), ("DROP", "p20200102000000")]
    assert_rebuilt_on(spark, table, before, competitor, main_snapshot(spark, table))
    kept = [(noon[2], 2), (dt.datetime(2020, 1, 3, 13), 8)]
    assert rows(spark, table) == kept
    assert sorted(tuple(r.values()) for r in py_catalog.load_table(table).scan().to_arrow().to_pylist()) == kept
    assert partition_names(spark, table) == ["p20200103000000"]


# -- compact ----------------------------------------------------------------------------------


def _table_with_deletes(spark: Any, namespace: str) -> str:
    table = unique_table(spark, namespace, buckets=1)
    doris.load(spark, table=table, query=values(["(1,'a',0)", "(2,'b',0)", "(3,'c',0)"]))
    doris.load(spark, table=table, query=values(["(1,'a2',0)"]))  # a DV on the first file: work for compact
    return table


def test_compact_rebuilt_on_a_plain_insert_keeps_it(spark, namespace, py_catalog):
    table = _table_with_deletes(spark, namespace)
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"INSERT INTO {table} VALUES (9, 'plain', 0)") as competitor:
        result = doris.compact(spark, table=table)
    assert_rebuilt_on(spark, table, before, competitor, result[0].snapshot_id)
    assert readers_agree(spark, py_catalog, table) == [(1, "a2", 0), (2, "b", 0), (3, "c", 0), (9, "plain", 0)]
    assert spark.sql(f"SELECT count(*) FROM {table}.delete_files").collect()[0][0] == 0


def test_compact_racing_a_plain_delete_of_rows_it_rewrites_carries_the_delete_over(spark, namespace, py_catalog):
    table = _table_with_deletes(spark, namespace)
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"DELETE FROM {table} WHERE k = 2") as competitor:
        [result] = doris.compact(spark, table=table)
    assert_rebuilt_on(spark, table, before, competitor, result.snapshot_id)
    assert readers_agree(spark, py_catalog, table) == [(1, "a2", 0), (3, "c", 0)]


def test_delete_rebuilt_on_a_plain_insert_deletes_its_matching_row_too(spark, namespace, py_catalog):
    doris.create_table(
        spark, ddl=f"CREATE TABLE {namespace}.dup_delete (k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
    )
    table = f"{namespace}.dup_delete"
    doris.load(spark, table=table, query=values(["(1,'x')", "(2,'y')"], "k, v"))
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"INSERT INTO {table} VALUES (3, 'x'), (4, 'z')") as competitor:
        [result] = doris.delete(spark, table=table, where="v = 'x'", label="outer")
    # Rebuilt on the table the INSERT left: its matching row goes too, as when Doris publishes
    # the delete after the insert.
    assert_rebuilt_on(spark, table, before, competitor, result.snapshot_id)
    assert result.deleted_rows == 2
    assert readers_agree(spark, py_catalog, table) == [(2, "y"), (4, "z")]


def test_unique_delete_rebuilt_on_a_plain_insert_of_its_key(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, name="u_delete", properties='"function_column.sequence_col" = "s"')
    doris.load(spark, table=table, query=values(["(1,'a',5)", "(2,'b',5)"]))
    before = main_snapshot(spark, table)
    # A plain INSERT bypasses the model: key 1 now has two live rows. The delete reads the table it
    # deletes from (a read-modify-write): holding the lock, it finds the table changed since its
    # read and runs again on the table as it is. The keyed load's repair first takes the plain row
    # (sequence 4 loses to 5); the delete then takes the row it matched.
    with at_commit(spark, table, f"INSERT INTO {table} VALUES (1, 'plain', 4)") as competitor:
        [result] = doris.delete(spark, table=table, where="k = 1", label="outer")
    assert competitor.calls == 1 and parent_of(spark, table, competitor.snapshot) == before
    repair = parent_of(spark, table, result.snapshot_id)
    assert parent_of(spark, table, repair) == competitor.snapshot
    assert result.deleted_rows == 1
    assert readers_agree(spark, py_catalog, table) == [(2, "b", 5)]
    assert snapshot_summary(spark, table, "outer")["doris.lookups"] == "1"


# -- recover, rename, truncate, temp partitions of an unpartitioned table -----------------------


def test_recover_partition_rebuilt_on_a_plain_insert_brings_the_partition_back_beside_it(spark, namespace, py_catalog):
    table = range_table(spark, namespace)
    doris.drop_partition(spark, table=table, partition="p0")
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"INSERT INTO {table} VALUES (12, 'plain')") as competitor:
        [result] = doris.recover_partition(spark, table=table, partition="p0")
    assert_rebuilt_on(spark, table, before, competitor, result.snapshot_id)
    assert result.recovered_rows == 2
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "b"), (11, "c"), (12, "plain")]
    assert partition_names(spark, table) == ["p0", "p1"]


def test_recover_partition_rechecks_after_a_partition_added_while_it_waited(spark, namespace):
    """Another iceberg-doris writer adds an overlapping partition between the recovery's plan and
    its commit: the recovery's checks run again on the new model and refuse it, nothing committed."""
    table = range_table(spark, namespace)
    doris.drop_partition(spark, table=table, partition="p0")
    before = main_snapshot(spark, table)
    with committed_while_waiting_for_the_lock(
        spark, table, lambda: doris.add_partition(spark, table=table, partition="q0", values_range=["5", "10"])
    ):
        with pytest.raises(PartitionError) as raised:
            doris.recover_partition(spark, table=table, partition="p0")
    assert str(raised.value) == (
        "Can not recover partition[p0]. Partition item conflict. It overlaps partition q0; drop that partition first "
        "(force => true keeps it out of the recycle bin)"
    )
    assert main_snapshot(spark, table) == before  # neither the add (metadata only) nor the recovery made a snapshot
    assert rows(spark, table) == [(11, "c")]
    assert partition_names(spark, table) == ["q0", "p1"]


def test_rename_partition_rebuilt_on_a_plain_write_keeps_both(spark, namespace, py_catalog):
    table = range_table(spark, namespace)
    before = main_snapshot(spark, table)
    with at_commit(
        spark, table, f"INSERT INTO {table} VALUES (3, 'plain')", f"ALTER TABLE {table} SET TBLPROPERTIES ('competitor' = 'yes')"
    ) as competitor:
        doris.rename_partition(spark, table=table, partition="p0", new_name="first")
    # The rename is metadata only (no snapshot): it committed on the competitor's metadata, which
    # keeps both the INSERT's snapshot and the property.
    assert competitor.calls == 1
    assert competitor.snapshot != before and main_snapshot(spark, table) == competitor.snapshot
    assert partition_names(spark, table) == ["first", "p1"]
    assert dict(spark.sql(f"SHOW TBLPROPERTIES {table}").collect())["competitor"] == "yes"
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "b"), (3, "plain"), (11, "c")]


def test_rename_partition_rechecks_a_name_taken_while_it_waited(spark, namespace):
    table = range_table(spark, namespace)
    with committed_while_waiting_for_the_lock(
        spark, table, lambda: doris.add_partition(spark, table=table, partition="second", values_less_than="30")
    ):
        with pytest.raises(PartitionError) as raised:
            doris.rename_partition(spark, table=table, partition="p0", new_name="second")
    assert str(raised.value) == "Partition name[second] is already used"
    assert partition_names(spark, table) == ["p0", "p1", "second"]


def test_truncate_table_rebuilt_on_a_plain_insert_empties_the_table_as_it_is_then(spark, namespace, py_catalog):
    table = range_table(spark, namespace)
    with_temp_partition(spark, table)
    before = main_snapshot(spark, table)
    with at_commit(
        spark, table, f"INSERT INTO {table} VALUES (3, 'plain'), (12, 'plain')"
    ) as competitor:
        [result] = doris.truncate(spark, table=table)
    assert_rebuilt_on(spark, table, before, competitor, result.snapshot_id)
    assert result.deleted_rows == 5  # the INSERT's rows went too
    assert result.dropped_temp_partitions == "tp0"
    assert readers_agree(spark, py_catalog, table) == []
    assert partition_names(spark, table) == ["p0", "p1"]
    assert partition_names(spark, table, temporary=True) == []
    assert spark.sql(f"SELECT count(*) FROM {table}.refs WHERE name = 'doris_temp_tp0'").collect()[0][0] == 0


def test_truncate_table_drops_a_temp_partition_added_while_it_waited(spark, namespace):
    """The whole-table truncate's list of temp partitions to drop is taken again at commit: one
    added meanwhile (by another iceberg-doris writer) goes too, as Doris drops every one."""
    table = range_table(spark, namespace)
    with committed_while_waiting_for_the_lock(
        spark, table, lambda: doris.add_temp_partition(spark, table=table, partition="tp1", values_less_than="10")
    ):
        [result] = doris.truncate(spark, table=table)
    assert result.dropped_temp_partitions == "tp1"
    assert partition_names(spark, table, temporary=True) == []
    assert spark.sql(f"SELECT count(*) FROM {table}.refs WHERE name = 'doris_temp_tp1'").collect()[0][0] == 0
    assert rows(spark, table) == []


def test_truncate_partitions_rebuilt_on_a_plain_insert_empties_them_as_they_are_then(spark, namespace, py_catalog):
    table = range_table(spark, namespace)
    with_temp_partition(spark, table)
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"INSERT INTO {table} VALUES (3, 'plain'), (12, 'plain')") as competitor:
        [result] = doris.truncate(spark, table=table, partitions=["p0"])
    assert_rebuilt_on(spark, table, before, competitor, result.snapshot_id)
    assert result.deleted_rows == 3  # the INSERT's row in p0 went with it; the one in p1 stays
    assert readers_agree(spark, py_catalog, table) == [(11, "c"), (12, "plain")]
    assert rows(spark, table, "doris_temp_tp0") == [(5, "t")]  # named partitions leave temp partitions alone


def flat_table(spark: Any, namespace: str, name: str = "flat") -> str:
    """DUPLICATE KEY, unpartitioned; rows (1,'a'), (2,'b')."""
    table = f"{namespace}.{name}"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query=values(["(1,'a')", "(2,'b')"], "k, v"), label="seed")
    return table


def test_add_temp_partition_of_an_unpartitioned_table_rebuilt_on_a_plain_insert_starts_empty(spark, namespace, py_catalog):
    table = flat_table(spark, namespace)
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"INSERT INTO {table} VALUES (3, 'plain')") as competitor:
        doris.add_temp_partition(spark, table=table, partition="staging")
    assert competitor.calls == 1 and competitor.snapshot != before
    assert partition_names(spark, table, temporary=True) == ["staging"]
    assert rows(spark, table, "doris_temp_staging") == []  # not main's rows, the INSERT's included
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "b"), (3, "plain")]


def test_drop_temp_partition_of_an_unpartitioned_table_rebuilt_on_a_plain_write_to_its_branch_drops_it(spark, namespace, py_catalog):
    table = flat_table(spark, namespace)
    doris.add_temp_partition(spark, table=table, partition="staging")
    with at_commit(spark, table, f"INSERT INTO {table}.branch_doris_temp_staging VALUES (6, 'plain')") as competitor:
        doris.drop_temp_partition(spark, table=table, partition="staging")
    assert competitor.calls == 1
    assert partition_names(spark, table, temporary=True) == []
    assert spark.sql(f"SELECT count(*) FROM {table}.refs WHERE name = 'doris_temp_staging'").collect()[0][0] == 0
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "b")]
