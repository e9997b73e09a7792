"""Large writes of rows that are only read, into a table partitioned by buckets alone, go with no
shuffle: each reading task (one per core) sorts and writes its own rows, so a bucket gets one
sorted file per writing task. Too few reading tasks, or rows into other partitions, are
range-distributed as before; every reader sees the same rows either way."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from iceberg_doris import doris
from iceberg_doris.engine.staged_writes import DEFAULT_FANOUT_MAX_BYTES, fanout_fits, unshuffled_writers
from tests.concurrency import readers_agree, unique_table
from tests.operations.test_fresh_bulk_loads import phases, phases_of  # noqa: F401 (a fixture)
from tests.engine.key_index.test_keys import entry_files
from tests.support.spark_conf import session_settings

# Pure decision first (no Spark).


@pytest.mark.parametrize(
    "buckets, read_tasks, cores, shuffle, writers",
    [
        (4, 2, 2, 4, 2),  # this machine's bulk load: 8 files, range would write about 4-8
        (4, 100, 2, 4, 2),  # many reading tasks are coalesced to one per core
        (1, 8, 8, 16, 8),  # unpartitioned
        (4, 1, 2, 4, None),  # one reading task would leave a core idle
        (4, -1, 2, 4, None),  # not only read (a join, an aggregate): range-distributed
        (16, 64, 16, 32, None),  # 256 files against about 48 range-distributed
        (4, 64, 16, 32, 16),  # 64 files against about 36: within twice
    ],
)
def test_unshuffled_writers_decision(buckets, read_tasks, cores, shuffle, writers):
    assert unshuffled_writers(buckets, read_tasks, cores, shuffle) == writers


@pytest.mark.parametrize(
    "buckets, row_group, budget, fits",
    [
        (4, 128 << 20, DEFAULT_FANOUT_MAX_BYTES, True),  # Iceberg's default row groups: four buckets fit the default
        (5, 128 << 20, DEFAULT_FANOUT_MAX_BYTES, False),
        (8, 128 << 20, 1 << 30, True),  # a larger budget: more buckets
        (32, 16 << 20, DEFAULT_FANOUT_MAX_BYTES, True),  # smaller row groups: more buckets
        (1, 128 << 20, 0, False),  # turned off
    ],
)
def test_fanout_writes_only_when_a_task_s_open_files_fit(buckets, row_group, budget, fits):
    assert fanout_fits(buckets, row_group, budget) == fits


@pytest.fixture
def large_writes(spark):
    """Every write counts as large (no one-task small write); two shuffle partitions, not coalesced;
    each small source file read by a task of its own (Spark would pack them into fewer)."""
    settings = {
        "spark.sql.files.openCostInBytes": str(128 * 1024 * 1024),
        "spark.doris.load.smallWriteMaxBytes": "0",
        "spark.sql.shuffle.partitions": "2",
        "spark.sql.adaptive.coalescePartitions.enabled": "false",
    }
    with session_settings(spark, settings):
        yield


def files_by_bucket(spark, table: str) -> dict[int, list[list[int]]]:
    """Each bucket's data files, as their key columns in file order."""
    found: dict[int, list[list[int]]] = {}
    for row in spark.sql(f"SELECT file_path, partition FROM {table}.data_files").collect():
        keys = pq.read_table(row.file_path.removeprefix("file:"), columns=["k"]).column("k").to_pylist()
        found.setdefault(row.partition[0], []).append(keys)
    return found


def parquet_source(spark, tmp_path, query: str, files: int):
    """The rows of ``query`` as ``files`` Parquet files, read back: a source of that many tasks."""
    path = str(tmp_path / "source")
    spark.sql(query).repartition(files).write.parquet(path)
    source = spark.read.parquet(path)
    assert source.rdd.getNumPartitions() == files
    return source


def cores(spark) -> int:
    count = spark.sparkContext.defaultParallelism
    if count < 2:
        pytest.skip("needs a session with at least 2 cores (one file per core and bucket)")
    return count


def last_write_sort(spark) -> str:
    """The sort keys of the most recent Spark write's plan (its Sort operator's arguments)."""
    executions = spark._jsparkSession.sharedState().statusStore().executionsList()
    for i in reversed(range(executions.size())):
        plan = str(executions.apply(i).physicalPlanDescription())
        if "AppendData" in plan:
            sorts = [line for line in plan.splitlines() if line.startswith("Arguments: [") and " ASC " in line]
            return sorts[0] if sorts else ""
    raise AssertionError("no write in the status store")


def buckets_of_keys(spark, path: str, buckets: int, column: str = "k") -> set:
    """Iceberg's bucket of every key in a data file, by Iceberg's own bucket function."""
    catalog = spark.conf.get("spark.sql.defaultCatalog")
    return {r[0] for r in spark.sql(f"SELECT DISTINCT {catalog}.system.bucket({buckets}, {column}) FROM parquet.`{path}`").collect()}


@pytest.mark.spark
@pytest.mark.parametrize("fanout", [True, False], ids=["sorted by key, fanout", "sorted by Iceberg"])
def test_a_duplicate_key_load_writes_one_sorted_file_per_core_and_bucket(spark, namespace, py_catalog, large_writes, tmp_path, fanout):
    # Each task sorts its rows by the key alone and a fanout writer puts them in a file per
    # bucket; with open files over spark.doris.load.fanoutMaxBytes, Iceberg sorts by (bucket, key).
    writers = cores(spark)
    table = f"{namespace}.dup"
    doris.create_table(
        spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2"
    )
    # Keys in no order, read by twice as many tasks as there are cores.
    query = "SELECT CAST((id * 7919) % 5003 AS INT) AS k, CAST(id AS STRING) AS v FROM range(5000)"
    source = parquet_source(spark, tmp_path, query, 2 * writers)
    with session_settings(spark, {} if fanout else {"spark.doris.load.fanoutMaxBytes": "0"}):
        assert doris.load(spark, table=table, source=source)[0].loaded_rows == 5000
    sorted_by = last_write_sort(spark)
    assert ("BucketFunction" not in sorted_by) == fanout and "k#" in sorted_by, sorted_by
    buckets = files_by_bucket(spark, table)
    assert sorted(buckets) == [0, 1]
    for files in buckets.values():
        assert len(files) == writers  # one per writing task: the reading tasks were coalesced
        assert all(keys == sorted(keys) for keys in files)
        lows, highs = [f[0] for f in files], [f[-1] for f in files]
        assert max(lows) < min(highs)  # the files' key ranges overlap: nothing was range-distributed
    for row in spark.sql(f"SELECT file_path, partition FROM {table}.data_files").collect():
        assert buckets_of_keys(spark, row.file_path, 2) == {row.partition[0]}  # every row in its bucket's file
    rows = readers_agree(spark, py_catalog, table)
    assert sorted(rows) == sorted(((i * 7919) % 5003, str(i)) for i in range(5000))


@pytest.mark.spark
def test_a_composite_key_with_nulls_is_sorted_by_every_key_column_in_each_file(spark, namespace, py_catalog, large_writes, tmp_path):
    writers = cores(spark)
    table = f"{namespace}.dup2"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (a INT, b VARCHAR(20), v BIGINT) DUPLICATE KEY(a, b) DISTRIBUTED BY HASH(a) BUCKETS 3",
    )
    query = (
        "SELECT IF(id % 13 = 0, NULL, CAST(id % 97 AS INT)) AS a, IF(id % 11 = 0, NULL, concat('b', (id * 31) % 50)) AS b, "
        "id AS v FROM range(6000)"
    )
    assert doris.load(spark, table=table, source=parquet_source(spark, tmp_path, query, 2 * writers))[0].loaded_rows == 6000
    assert "BucketFunction" not in last_write_sort(spark)
    order = lambda row: [(0, 0) if value is None else (1, value) for value in row]  # noqa: E731 - ascending, NULLs first
    for row in spark.sql(f"SELECT file_path FROM {table}.data_files").collect():
        keys = pq.read_table(row.file_path.removeprefix("file:"), columns=["a", "b"]).to_pylist()
        pairs = [(r["a"], r["b"]) for r in keys]
        assert pairs == sorted(pairs, key=order)
    expected = spark.sql(query).selectExpr("sum(v)", "count(a)", "count(b)").collect()[0]
    assert spark.table(table).selectExpr("sum(v)", "count(a)", "count(b)").collect()[0] == expected
    assert py_catalog.load_table(table).scan().to_arrow().num_rows == 6000


@pytest.mark.spark
def test_rows_read_by_fewer_tasks_than_cores_are_range_distributed(spark, namespace, py_catalog, large_writes, tmp_path):
    cores(spark)
    table = f"{namespace}.dup"
    doris.create_table(
        spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
    )
    query = "SELECT CAST((id * 7919) % 5003 AS INT) AS k, CAST(id AS STRING) AS v FROM range(5000)"
    doris.load(spark, table=table, source=parquet_source(spark, tmp_path, query, 1))
    files = sorted(files_by_bucket(spark, table)[0], key=lambda keys: keys[0])
    assert len(files) > 1 and all(keys == sorted(keys) for keys in files)
    assert all(a[-1] < b[0] for a, b in zip(files, files[1:]))  # disjoint ranges, in order
    assert len(readers_agree(spark, py_catalog, table)) == 5000


@pytest.mark.spark
def test_an_upsert_written_per_core_keeps_one_row_per_key(spark, namespace, py_catalog, large_writes, tmp_path):
    writers = cores(spark)
    table = unique_table(spark, namespace, buckets=2)
    doris.load(spark, table=table, query="SELECT CAST(id AS INT) AS k, 'old' AS v, 1 AS s FROM range(0, 4000, 1, 2)")
    before = {r.file_path for r in spark.sql(f"SELECT file_path FROM {table}.data_files").collect()}
    batch = "SELECT CAST((id * 7919) % 6000 AS INT) AS k, 'new' AS v, 2 AS s FROM range(3000)"
    source = parquet_source(spark, tmp_path, batch, 2 * writers)
    assert doris.load(spark, table=table, source=source)[0].loaded_rows == 3000
    added = [r for r in spark.sql(f"SELECT file_path, partition FROM {table}.data_files").collect() if r.file_path not in before]
    assert len(added) == 2 * writers  # each writing task wrote each bucket's rows it read
    rows = readers_agree(spark, py_catalog, table)
    updated = {(i * 7919) % 6000 for i in range(3000)}
    assert [r[0] for r in rows] == sorted(set(range(4000)) | updated)  # one row per key
    assert all((v, s) == (("new", 2) if k in updated else ("old", 1)) for k, v, s in rows)


@pytest.mark.spark
def test_a_fresh_unique_load_written_per_core_checks_overlapping_files_and_stays_one_pass(
    spark, namespace, py_catalog, large_writes, phases, tmp_path
):
    writers = cores(spark)
    table = unique_table(spark, namespace, buckets=2)
    query = "SELECT CAST((id * 7919) % 5003 AS INT) AS k, CAST(id AS STRING) AS v, 1 AS s FROM range(5000)"
    assert doris.load(spark, table=table, source=parquet_source(spark, tmp_path, query, 2 * writers))[0].loaded_rows == 5000
    assert "check" not in phases_of(phases, table)  # no key repeats across the overlapping files
    for files in files_by_bucket(spark, table).values():
        assert len(files) == writers and max(f[0] for f in files) < min(f[-1] for f in files)
    assert len(entry_files(spark, table)) == 2 * writers  # indexed on the way
    assert sorted(r[0] for r in readers_agree(spark, py_catalog, table)) == sorted((i * 7919) % 5003 for i in range(5000))


@pytest.mark.spark
def test_a_key_repeated_in_two_writing_tasks_falls_back_and_keeps_one_row(
    spark, namespace, py_catalog, large_writes, phases, tmp_path
):
    writers = cores(spark)
    table = unique_table(spark, namespace, buckets=1)
    path = str(tmp_path / "source")
    # writers - 1 files of distinct keys (0, 7, 14, ...) and one file holding key 7 again: as many
    # reading tasks as writers, so no two files share a task and key 7 reaches two written files.
    spark.sql("SELECT CAST(id * 7 AS INT) AS k, CAST(id AS STRING) AS v, 1 AS s FROM range(4000)").repartition(
        max(1, writers - 1)
    ).write.parquet(path)
    spark.sql("SELECT 7 AS k, 'again' AS v, 1 AS s").write.mode("append").parquet(path)
    source = spark.read.parquet(path)
    assert source.rdd.getNumPartitions() == writers
    assert doris.load(spark, table=table, source=source)[0].loaded_rows == 4001
    assert "check" in phases_of(phases, table)  # the repeat was found: the usual path resolved it
    rows = readers_agree(spark, py_catalog, table)
    assert [r[0] for r in rows] == [i * 7 for i in range(4000)]  # one row per key
    assert [r[1] for r in rows if r[0] == 7][0] in ("1", "again")


@pytest.mark.spark
def test_rows_joined_with_broadcast_rows_count_their_reading_tasks_without_a_job(spark):
    # A merge's rows (the batch joined with its broadcast stored rows) are only read: their tasks
    # are the batch's. Counting them must not build the broadcast, which the write builds again.
    from pyspark.sql import functions as F

    shapes = spark.sparkContext._jvm.io.icebergdoris.spark.PlanShapes
    batch = spark.range(0, 20000, 1, 3).withColumnRenamed("id", "k").cache()
    batch.count()
    stored = spark.range(0, 500).select(F.col("id").alias("k"), (F.col("id") * 2).alias("v"))
    merged = batch.join(F.broadcast(stored), "k", "left").select("k", F.coalesce("v", F.lit(0)).alias("v"))
    shuffled = batch.join(stored, "k", "left")  # no hint: not only read
    context = spark.sparkContext
    context.setJobGroup("read-tasks", "read-tasks")
    try:
        counted = (int(shapes.readTasks(merged._jdf)), int(shapes.readTasks(shuffled._jdf)), int(shapes.readTasks(batch._jdf)))
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    assert counted == (3, -1, 3)
    assert list(context.statusTracker().getJobIdsForGroup("read-tasks")) == []
    batch.unpersist()


@pytest.mark.spark
def test_a_parquet_source_counts_as_its_rows_not_its_compressed_bytes(spark, tmp_path):
    # Spark sizes a file source by its compressed bytes: 1.1M rows in 16 MB of Parquet passed for
    # a small write, and one task wrote them all (3.0-3.7 s against 2.0 s on two cores).
    from iceberg_doris.engine.staged_writes import FILE_BYTES_TO_ROW_BYTES, size_estimate, small_write

    source = parquet_source(spark, tmp_path, "SELECT id AS k, id % 7 AS v FROM range(200000)", 2)
    file_bytes = int(source._jdf.queryExecution().optimizedPlan().stats().sizeInBytes())
    assert size_estimate(source) == FILE_BYTES_TO_ROW_BYTES * file_bytes
    cached = source.select("k", "v").cache()  # not filled yet: Spark sizes it by the files it caches
    try:
        assert size_estimate(cached) == FILE_BYTES_TO_ROW_BYTES * file_bytes
        between = str(2 * file_bytes)  # over the files' bytes, under the rows'
        with session_settings(spark, {"spark.doris.load.smallWriteMaxBytes": between}):
            assert not small_write(source) and not small_write(cached)
        with session_settings(spark, {"spark.doris.load.smallWriteMaxBytes": str(4 * file_bytes)}):
            assert small_write(source) and small_write(cached)
        cached.count()  # filled: sized by what it holds, no factor
        filled = int(cached._jdf.queryExecution().withCachedData().stats().sizeInBytes())
        assert size_estimate(cached) == filled
    finally:
        cached.unpersist()
    assert size_estimate(spark.range(1000)) == int(spark.range(1000)._jdf.queryExecution().withCachedData().stats().sizeInBytes())


@pytest.mark.spark
def test_a_load_from_parquet_larger_in_rows_than_the_small_limit_is_written_per_core(spark, namespace, tmp_path):
    writers = cores(spark)
    table = unique_table(spark, namespace, buckets=1)
    source = parquet_source(spark, tmp_path, "SELECT CAST(id AS INT) AS k, CAST(id AS STRING) AS v, 1 AS s FROM range(50000)", writers)
    file_bytes = int(source._jdf.queryExecution().optimizedPlan().stats().sizeInBytes())
    with session_settings(spark, {"spark.doris.load.smallWriteMaxBytes": str(2 * file_bytes)}):
        assert doris.load(spark, table=table, source=source)[0].loaded_rows == 50000
    files = spark.sql(f"SELECT record_count FROM {table}.data_files").collect()
    assert len(files) == writers and sum(f.record_count for f in files) == 50000  # one per core, not one task's
