"""Temporary partitions as branches, loads into them, swap/replace, overwrite, concurrency."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from pyspark.errors import IllegalArgumentException

from iceberg_doris import doris
from iceberg_doris.engine.commit import commit_atomically
from iceberg_doris.engine.iceberg_java import IcebergJava
from iceberg_doris.errors import LoadError
from tests.support import duckdb_reader

pytestmark = pytest.mark.spark


def monthly_table(spark, namespace: str) -> str:
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.s (dt DATE NOT NULL, id INT NOT NULL, v INT) DUPLICATE KEY(dt, id)
        PARTITION BY RANGE(dt) (PARTITION p1 VALUES LESS THAN ("2024-02-01"), PARTITION p2 VALUES LESS THAN ("2024-03-01"))
        DISTRIBUTED BY HASH(id) BUCKETS AUTO""",
    )
    table = f"{namespace}.s"
    doris.load(spark, table=table, query="SELECT * FROM VALUES (date'2024-01-05', 1, 10), (date'2024-02-05', 2, 20), (date'2024-02-06', 3, 30) AS t(dt, id, v)")
    return table


def ids(spark, table: str, version: str | int | None = None) -> list[int]:
    clause = "" if version is None else f" VERSION AS OF {version!r}" if isinstance(version, str) else f" VERSION AS OF {version}"
    return sorted(r.id for r in spark.sql(f"SELECT id FROM {table}{clause}").collect())


def main_snapshot(spark, table: str) -> int:
    return IcebergJava(spark).load_table(IcebergJava(spark).name(table)).currentSnapshot().snapshotId()


def add_temp(spark, table: str, name: str, lower: str, upper: str) -> None:
    spark.sql(
        f"CALL doris.add_partition(table => '{table}', partition => '{name}', "
        f"values_range => array('{lower}', '{upper}'), temporary => true)"
    )


def load_temp(spark, table: str, name: str, values: str, **options: object) -> object:
    return doris.load(spark, table=table, query=f"SELECT * FROM VALUES {values} AS t(dt, id, v)", temporary_partitions=[name], **options)[0]


def test_temp_partition_rules(spark, namespace):
    table = monthly_table(spark, namespace)
    add_temp(spark, table, "tp1", "2024-01-01", "2024-03-01")  # may overlap formal partitions
    with pytest.raises(IllegalArgumentException, match=r"is intersected with range.*\(conflicting partition: tp1\)$"):
        add_temp(spark, table, "tp2", "2024-02-15", "2024-04-01")
    with pytest.raises(IllegalArgumentException, match="^Duplicate partition name p1"):
        add_temp(spark, table, "p1", "2024-05-01", "2024-06-01")
    shown = spark.sql(f"CALL doris.show_partitions(table => '{table}', temporary => true)").collect()
    assert [(r.partition_name, r.is_temp, r.branch, r.row_count) for r in shown] == [("tp1", True, "doris_temp_tp1", 0)]
    assert ids(spark, table, "doris_temp_tp1") == []
    spark.sql(f"CALL doris.drop_partition(table => '{table}', partition => 'tp1', temporary => true)")
    assert spark.sql(f"CALL doris.show_partitions(table => '{table}', temporary => true)").collect() == []
    with pytest.raises(IllegalArgumentException, match="^Error in list of partitions to tp1: the table has no temporary partition tp1"):
        spark.sql(f"CALL doris.drop_partition(table => '{table}', partition => 'tp1', temporary => true)")
    assert spark.sql(f"CALL doris.drop_partition(table => '{table}', partition => 'tp1', temporary => true, if_exists => true)").collect()[0].dropped is False
    assert ids(spark, table) == [1, 2, 3]


def test_load_into_temp_partition_leaves_main_untouched(spark, namespace):
    table = monthly_table(spark, namespace)
    before = main_snapshot(spark, table)
    add_temp(spark, table, "tp2", "2024-02-01", "2024-03-01")
    result = load_temp(spark, table, "tp2", "(date'2024-02-10', 7, 70), (date'2024-04-01', 9, 90)", max_filter_ratio=0.5)
    assert (result.loaded_rows, result.filtered_rows) == (1, 1)
    assert ids(spark, table, "doris_temp_tp2") == [7]
    assert ids(spark, table) == [1, 2, 3]
    assert main_snapshot(spark, table) == before
    with pytest.raises(LoadError, match=r"^Temp partition\[nope\] does not exist"):
        load_temp(spark, table, "nope", "(date'2024-02-10', 7, 70)")


def test_swap_moves_files_and_deletion_vectors_in_one_commit(spark, namespace, py_catalog):
    table = monthly_table(spark, namespace)
    spark.sql(f"DELETE FROM {table} WHERE id = 3")  # a deletion vector in formal p2
    add_temp(spark, table, "tp2", "2024-02-01", "2024-03-01")
    load_temp(spark, table, "tp2", "(date'2024-02-10', 7, 70), (date'2024-02-11', 8, 80)")
    spark.sql(f"DELETE FROM {table}.branch_doris_temp_tp2 WHERE id = 8")  # and one in the temp partition
    before = main_snapshot(spark, table)
    history_before = spark.sql(f"SELECT count(*) FROM {table}.history").collect()[0][0]
    row = spark.sql(
        f"CALL doris.swap_temp_partition(table => '{table}', partitions => array('p2'), temp_partitions => array('tp2'))"
    ).collect()[0]
    assert (row.partition_name, row.from_temp_partition, row.row_count, row.data_files, row.delete_files, row.replaced_by_temp) == (
        "p2", "tp2", 1, 1, 1, "tp2",
    )
    assert spark.sql(f"SELECT count(*) FROM {table}.history").collect()[0][0] == history_before + 1
    snapshot = spark.sql(f"SELECT operation, summary FROM {table}.snapshots WHERE snapshot_id = {row.snapshot_id}").collect()[0]
    assert snapshot.operation == "overwrite" and "added-records" not in snapshot.summary or snapshot.summary.get("added-records") == "2"
    assert ids(spark, table) == [1, 7]
    assert ids(spark, table, "doris_temp_tp2") == [2]  # the replaced formal rows, their DV still applied
    assert ids(spark, table, before) == [1, 2]
    metadata = py_catalog.load_table(table).metadata_location
    assert duckdb_reader.read_rows(metadata, "id", order_by="id") == [(1,), (7,)]
    spark.sql(f"CALL doris.drop_partition(table => '{table}', partition => 'tp2', temporary => true)")
    assert ids(spark, table) == [1, 7]


def test_swap_replaces_what_main_holds_at_swap_time(spark, namespace):
    table = monthly_table(spark, namespace)
    add_temp(spark, table, "tp2", "2024-02-01", "2024-03-01")
    load_temp(spark, table, "tp2", "(date'2024-02-10', 7, 70)")
    doris.load(spark, table=table, query="SELECT date'2024-02-20' AS dt, 4 AS id, 40 AS v")  # main changes after
    spark.sql(f"CALL doris.swap_temp_partition(table => '{table}', partitions => array('p2'), temp_partitions => array('tp2'))")
    assert ids(spark, table) == [1, 7]
    assert ids(spark, table, "doris_temp_tp2") == [2, 3, 4]


def test_replace_partition_rules_and_naming(spark, namespace):
    table = monthly_table(spark, namespace)
    add_temp(spark, table, "tpa", "2024-01-01", "2024-01-20")
    add_temp(spark, table, "tpb", "2024-01-20", "2024-02-01")
    load_temp(spark, table, "tpa", "(date'2024-01-02', 11, 1)")
    load_temp(spark, table, "tpb", "(date'2024-01-25', 12, 1)")
    with pytest.raises(IllegalArgumentException, match="range lists are not stricly matched"):
        spark.sql(f"CALL doris.replace_partition(table => '{table}', partitions => array('p1'), temp_partitions => array('tpa'))")
    with pytest.raises(IllegalArgumentException, match=r"^Partition\[p9\] does not exist"):
        spark.sql(f"CALL doris.replace_partition(table => '{table}', partitions => array('p9'), temp_partitions => array('tpa'))")
    rows = spark.sql(
        f"CALL doris.replace_partition(table => '{table}', partitions => array('p1'), temp_partitions => array('tpa', 'tpb'), strict_range => false)"
    ).collect()
    assert [(r.partition_name, r.from_temp_partition) for r in rows] == [("tpa", "tpa"), ("tpb", "tpb")]
    assert ids(spark, table) == [2, 3, 11, 12]
    names = [r.partition_name for r in spark.sql(f"CALL doris.show_partitions('{table}')").collect()]
    assert names == ["tpa", "tpb", "p2"]
    assert spark.sql(f"CALL doris.show_partitions(table => '{table}', temporary => true)").collect() == []
    refs = spark.sql(f"SELECT name FROM {table}.refs").collect()
    assert [r.name for r in refs] == ["main"]


def test_replace_pairwise_renames_to_formal_names(spark, namespace):
    table = monthly_table(spark, namespace)
    add_temp(spark, table, "tp1", "2024-01-01", "2024-02-01")
    load_temp(spark, table, "tp1", "(date'2024-01-03', 21, 1)")
    spark.sql(
        f"CALL doris.replace_partition(table => '{table}', partitions => array('p1'), temp_partitions => array('tp1'), strict_range => false)"
    )
    assert [r.partition_name for r in spark.sql(f"CALL doris.show_partitions('{table}')").collect()] == ["p1", "p2"]
    assert ids(spark, table) == [2, 3, 21]


def test_insert_overwrite_modes(spark, namespace):
    table = monthly_table(spark, namespace)
    start = main_snapshot(spark, table)
    doris.insert_overwrite(spark, table=table, query="SELECT date'2024-01-09', 100, 1", partitions=["*"])
    assert ids(spark, table) == [2, 3, 100]  # only p1 was touched
    with pytest.raises(
        LoadError, match=r"^Insert has filtered data in strict mode \(first rejected row: no partition for this tuple\); nothing was committed"
    ):
        doris.insert_overwrite(spark, table=table, query="SELECT date'2024-09-09', 101, 1", partitions=["p1"])
    doris.insert_overwrite(spark, table=table, query="SELECT date'2024-02-09', 102, 1", partitions=["p2"])
    assert ids(spark, table) == [100, 102]
    overwrite = spark.sql(f"CALL doris.insert_overwrite(table => '{table}', query => 'SELECT * FROM {table} WHERE false')").collect()[0]
    assert ids(spark, table) == []  # an empty source empties the whole table
    assert spark.sql(f"SELECT operation FROM {table}.snapshots WHERE snapshot_id = {overwrite.snapshot_id}").collect()[0][0] in ("overwrite", "delete")
    assert ids(spark, table, start) == [1, 2, 3]
    assert [r.partition_name for r in spark.sql(f"CALL doris.show_partitions('{table}')").collect()] == ["p1", "p2"]


def test_overwrite_load_replaces_touched_partitions(spark, namespace):
    table = monthly_table(spark, namespace)
    result = doris.load(spark, table=table, query="SELECT date'2024-02-28' AS dt, 50 AS id, 5 AS v", overwrite=True)[0]
    assert result.loaded_rows == 1
    assert ids(spark, table) == [1, 50]


def test_insert_overwrite_auto_partition_rules(spark, namespace):
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.a (d DATE NOT NULL, id INT) DUPLICATE KEY(d)
        AUTO PARTITION BY RANGE (date_trunc(d, 'month')) () DISTRIBUTED BY HASH(id) BUCKETS AUTO""",
    )
    table = f"{namespace}.a"
    doris.load(spark, table=table, query="SELECT date'2024-01-05' AS d, 1 AS id")
    with pytest.raises(LoadError, match="^Insert has filtered data in strict mode"):
        doris.insert_overwrite(spark, table=table, query="SELECT date'2024-05-05', 2", partitions=["*"])
    doris.insert_overwrite(spark, table=table, query="SELECT date'2024-05-05', 2", partitions=["*"], auto_create=True)
    assert ids(spark, table) == [1, 2]
    assert [r.partition_name for r in spark.sql(f"CALL doris.show_partitions('{table}')").collect()] == ["p20240101000000", "p20240501000000"]


def test_a_racing_commit_is_rebuilt_on_not_lost(spark, namespace):
    table = monthly_table(spark, namespace)
    iceberg = IcebergJava(spark)
    attempts = []

    def build(java_table, transaction):
        attempts.append(1)
        if len(attempts) == 1:  # another writer commits between our read and our commit
            spark.sql(f"INSERT INTO {table} VALUES (date'2024-01-07', 60, 6)")
        transaction.updateProperties().set("doris.test-marker", str(len(attempts))).commit()
        return len(attempts)

    assert commit_atomically(iceberg, iceberg.name(table), build, operation="mark").result == 2
    reloaded = iceberg.load_table(iceberg.name(table))
    assert reloaded.properties().get("doris.test-marker") == "2"
    assert ids(spark, table) == [1, 2, 3, 60]


def test_concurrent_writers_and_a_swap_lose_nothing(spark, namespace):
    table = monthly_table(spark, namespace)
    add_temp(spark, table, "tp2", "2024-02-01", "2024-03-01")
    load_temp(spark, table, "tp2", "(date'2024-02-10', 7, 70)")
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            for i in range(4):
                doris.load(spark, table=table, query=f"SELECT date'2024-01-1{i}' AS dt, {200 + i} AS id, 0 AS v")
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    thread = threading.Thread(target=writer)
    thread.start()
    spark.sql(f"CALL doris.swap_temp_partition(table => '{table}', partitions => array('p2'), temp_partitions => array('tp2'))")
    thread.join()
    assert [str(e) for e in errors] == []
    assert ids(spark, table) == [1, 7, 200, 201, 202, 203]


def test_expiring_snapshots_after_dropping_temp_partitions_leaves_no_orphans(spark, namespace, lake_home):
    table = monthly_table(spark, namespace)
    add_temp(spark, table, "tp2", "2024-02-01", "2024-03-01")
    load_temp(spark, table, "tp2", "(date'2024-02-10', 7, 70)")
    spark.sql(f"CALL doris.drop_partition(table => '{table}', partition => 'tp2', temporary => true)")
    now = dt.datetime.now() + dt.timedelta(seconds=1)
    before = spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0]
    result = spark.sql(f"CALL doris.cleanup(table => '{table}', older_than => '{now:%Y-%m-%d %H:%M:%S}')").collect()[0]
    # Everything but main's head goes: older main snapshots and the dropped temp partition's one.
    assert before >= 2 and result.expired_snapshots == before - 1
    assert spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0] == 1
    live = {r.file_path.removeprefix("file:").lstrip("/") for r in spark.sql(f"SELECT file_path FROM {table}.all_files").collect()}
    namespace_dir = lake_home / "warehouse" / namespace / "s" / "data"
    on_disk = {str(p).lstrip("/") for p in namespace_dir.rglob("*") if p.is_file() and not p.name.startswith(".")}
    assert on_disk == live
    assert ids(spark, table) == [1, 2, 3]


def test_list_partitions_swap_and_non_strict_replace(spark, namespace):
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.l (id INT NOT NULL, city VARCHAR(20) NOT NULL) DUPLICATE KEY(id)
        PARTITION BY LIST(city) (PARTITION p_cn VALUES IN ("Beijing", "Shanghai"), PARTITION p_us VALUES IN ("NYC"))
        DISTRIBUTED BY HASH(id) BUCKETS AUTO""",
    )
    table = f"{namespace}.l"
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'Beijing'), (2, 'Shanghai'), (3, 'NYC') AS t(id, city)")
    spark.sql(f"CALL doris.add_partition(table => '{table}', partition => 'tp_cn', values_in => array('Beijing', 'Shanghai'), temporary => true)")
    doris.load(spark, table=table, query="SELECT 10 AS id, 'Beijing' AS city", temporary_partitions=["tp_cn"])
    spark.sql(f"CALL doris.swap_temp_partition(table => '{table}', partitions => array('p_cn'), temp_partitions => array('tp_cn'))")
    assert ids(spark, table) == [3, 10]
    assert ids(spark, table, "doris_temp_tp_cn") == [1, 2]
    spark.sql(f"CALL doris.drop_partition(table => '{table}', partition => 'tp_cn', temporary => true)")
    spark.sql(f"CALL doris.add_partition(table => '{table}', partition => 'tp2', values_in => array('Beijing'), temporary => true)")
    with pytest.raises(IllegalArgumentException, match="^2 partition key lists are not matched"):
        spark.sql(f"CALL doris.replace_partition(table => '{table}', partitions => array('p_cn'), temp_partitions => array('tp2'))")
    spark.sql(f"CALL doris.replace_partition(table => '{table}', partitions => array('p_cn'), temp_partitions => array('tp2'), strict_range => false)")
    assert ids(spark, table) == [3]  # tp2 was empty; the Shanghai key is no longer in any partition
    names = [r.partition_name for r in spark.sql(f"CALL doris.show_partitions('{table}')").collect()]
    assert sorted(names) == ["p_cn", "p_us"]


def test_swap_moves_every_deletion_vector_of_a_shared_puffin_file(spark, namespace, py_catalog):
    """One keyed load into a temp partition marks rows in two files: their two DVs live in ONE
    Puffin file, and the swap must carry both (they differ only by blob offset)."""
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.u (dt DATE NOT NULL, id INT NOT NULL, v INT) UNIQUE KEY(dt, id)
        PARTITION BY RANGE(dt) (PARTITION p1 VALUES [("2024-01-01"), ("2024-02-01")))
        DISTRIBUTED BY HASH(id) BUCKETS 1""",
    )
    table = f"{namespace}.u"
    add_temp(spark, table, "tp1", "2024-01-01", "2024-02-01")
    load_temp(spark, table, "tp1", "(date'2024-01-01', 1, 10), (date'2024-01-01', 2, 20)")
    load_temp(spark, table, "tp1", "(date'2024-01-01', 3, 30), (date'2024-01-01', 4, 40)")
    load_temp(spark, table, "tp1", "(date'2024-01-01', 1, 11), (date'2024-01-01', 3, 31)")  # a row in each file
    expected = [(1, 11), (2, 20), (3, 31), (4, 40)]
    assert sorted((r.id, r.v) for r in spark.sql(f"SELECT id, v FROM {table} VERSION AS OF 'doris_temp_tp1'").collect()) == expected
    row = spark.sql(
        f"CALL doris.swap_temp_partition(table => '{table}', partitions => array('p1'), temp_partitions => array('tp1'))"
    ).collect()[0]
    assert (row.data_files, row.delete_files) == (3, 2)
    assert sorted((r.id, r.v) for r in spark.sql(f"SELECT id, v FROM {table}").collect()) == expected
    dv_files = spark.sql(f"SELECT file_path, referenced_data_file FROM {table}.delete_files").collect()
    assert len(dv_files) == 2 and len({r.file_path for r in dv_files}) == 1  # two DVs, one Puffin file
    metadata = py_catalog.load_table(table).metadata_location
    assert duckdb_reader.read_rows(metadata, "id, v", order_by="id") == expected
