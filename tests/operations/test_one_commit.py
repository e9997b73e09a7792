"""One operation, one commit: a load into several temp partitions (duplicate, unique and aggregate
keys) lands on every branch in one catalog swap or not at all; every result's snapshot ids come
from the commit; a keyed load loads the table once per commit attempt."""

from __future__ import annotations

import datetime as dt

import pytest

from iceberg_doris import doris, operations
from iceberg_doris.engine import interleaving
from iceberg_doris.engine.iceberg_java import IcebergJava
from iceberg_doris.errors import ProcedureArgumentError
from iceberg_doris.operations import LoadRequest, MergeType, PartitionReplacementRequest

pytestmark = pytest.mark.spark

MODELS = {
    "duplicate": "DUPLICATE KEY(dt, k)",
    "unique": "UNIQUE KEY(dt, k)",
    "aggregate": "AGGREGATE KEY(dt, k)",
}


def monthly_table(spark, namespace: str, model: str) -> str:
    value = "v INT SUM" if model == "aggregate" else "v INT"
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.m (dt DATE NOT NULL, k INT NOT NULL, {value}) {MODELS[model]}
        PARTITION BY RANGE(dt) (PARTITION p1 VALUES LESS THAN ("2024-02-01"), PARTITION p2 VALUES LESS THAN ("2024-03-01"))
        DISTRIBUTED BY HASH(k) BUCKETS 2""",
    )
    table = f"{namespace}.m"
    for name, low, high in (("tp1", "2024-01-01", "2024-02-01"), ("tp2", "2024-02-01", "2024-03-01")):
        doris.add_partition(spark, table=table, partition=name, values_range=[low, high], temporary=True)
    return table


def metadata_files(spark, table: str) -> int:
    return spark.sql(f"SELECT count(*) FROM {table}.metadata_log_entries").collect()[0][0]


def branch_heads(spark, table: str) -> dict[str, int]:
    return {r.name: r.snapshot_id for r in spark.sql(f"SELECT name, snapshot_id FROM {table}.refs").collect()}


def rows_on(spark, table: str, branch: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {table} VERSION AS OF '{branch}'").collect())


TWO_MONTHS = "SELECT * FROM VALUES (date'2024-01-05', 1, 10), (date'2024-02-05', 2, 20) AS t(dt, k, v)"


@pytest.mark.parametrize("model", sorted(MODELS))
def test_a_load_into_two_temp_partitions_is_one_commit(spark, namespace, model):
    table = monthly_table(spark, namespace, model)
    before_files, before_heads = metadata_files(spark, table), branch_heads(spark, table)

    result = operations.load(spark, table, LoadRequest(query=TWO_MONTHS, temporary_partitions=("tp1", "tp2"), label="both"))

    assert metadata_files(spark, table) == before_files + 1  # one catalog swap for both branches
    heads = branch_heads(spark, table)
    assert set(result.snapshot_ids) == {"doris_temp_tp1", "doris_temp_tp2"}
    for branch in ("doris_temp_tp1", "doris_temp_tp2"):
        assert heads[branch] != before_heads[branch]
        assert result.snapshot_ids[branch] == heads[branch]
    assert heads.get("main") == before_heads.get("main")  # main untouched (no snapshot yet)
    assert result.snapshot_id == heads["doris_temp_tp2"]
    assert rows_on(spark, table, "doris_temp_tp1") == [(dt.date(2024, 1, 5), 1, 10)]
    assert rows_on(spark, table, "doris_temp_tp2") == [(dt.date(2024, 2, 5), 2, 20)]
    # The label is on both branches' snapshots, and a second load with it is refused.
    labels = spark.sql(f"SELECT summary['doris.label'] FROM {table}.snapshots WHERE snapshot_id IN "
                       f"({heads['doris_temp_tp1']}, {heads['doris_temp_tp2']})").collect()
    assert [r[0] for r in labels] == ["both", "both"]


@pytest.mark.parametrize("model", ["duplicate", "unique"])
def test_a_load_into_two_temp_partitions_that_fails_before_its_commit_changes_no_branch(spark, namespace, model):
    table = monthly_table(spark, namespace, model)
    doris.load(spark, table=table, query="SELECT date'2024-01-02' AS dt, 9 AS k, 90 AS v", temporary_partitions=["tp1"])
    before_files, before_heads = metadata_files(spark, table), branch_heads(spark, table)
    before_rows = rows_on(spark, table, "doris_temp_tp1")

    def fail(_name):
        raise RuntimeError("injected failure before the catalog swap")

    with interleaving.inject(interleaving.BEFORE_COMMIT, fail), pytest.raises(RuntimeError, match="injected"):
        operations.load(spark, table, LoadRequest(query=TWO_MONTHS, temporary_partitions=("tp1", "tp2")))

    assert metadata_files(spark, table) == before_files
    assert branch_heads(spark, table) == before_heads
    assert rows_on(spark, table, "doris_temp_tp1") == before_rows
    assert rows_on(spark, table, "doris_temp_tp2") == []


def test_a_swap_moves_main_and_the_temp_branches_in_one_commit(spark, namespace):
    table = monthly_table(spark, namespace, "duplicate")
    doris.load(spark, table=table, query="SELECT date'2024-01-02' AS dt, 1 AS k, 1 AS v")
    doris.load(spark, table=table, query="SELECT date'2024-01-03' AS dt, 2 AS k, 2 AS v", temporary_partitions=["tp1"])
    before_files = metadata_files(spark, table)

    moved = operations.swap_temp_partition(spark, table, PartitionReplacementRequest(("p1",), ("tp1",), strict_range=False))

    assert metadata_files(spark, table) == before_files + 1
    heads = branch_heads(spark, table)
    assert moved[0].snapshot_id == heads["main"]
    assert "doris_temp_tp1" in heads  # the replaced rows, kept on the temp branch by the same commit


class CountingLoads:
    """Wraps IcebergJava.load_table to count catalog loads (the real method still runs)."""

    def __init__(self, monkeypatch):
        self.calls = 0
        original = IcebergJava.load_table

        def counted(iceberg, name):
            self.calls += 1
            return original(iceberg, name)

        monkeypatch.setattr(IcebergJava, "load_table", counted)


def unique_table(spark, namespace: str) -> str:
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.u (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    table = f"{namespace}.u"
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(k, v)")
    return table


def test_a_keyed_load_loads_the_table_once_for_its_lookup_and_commit(spark, namespace, monkeypatch):
    table = unique_table(spark, namespace)
    loads = CountingLoads(monkeypatch)

    operations.load(spark, table, LoadRequest(query="SELECT 2 AS k, 'b2' AS v"))

    # Opening the table (model, label check) and one load that the lookup and the commit share.
    assert loads.calls == 2


def test_a_keyed_load_that_conflicts_reads_the_table_once_per_attempt(spark, namespace, monkeypatch):
    table = unique_table(spark, namespace)
    loads = CountingLoads(monkeypatch)

    def competing_write(_name):
        # A writer outside the lock (plain Spark SQL, not through IcebergJava) touches the same key.
        spark.sql(f"INSERT INTO {table} VALUES (2, 'other')")

    with interleaving.inject(interleaving.LOOKED_UP, competing_write):
        result = operations.load(spark, table, LoadRequest(query="SELECT 2 AS k, 'b2' AS v"))

    # open + the load the lookup and every attempt share: each attempt's transaction re-reads that
    # table from the catalog (Iceberg's newTransaction refreshes it), so the first attempt's
    # validation finds the competing rows and the second looks the keys up again on it.
    assert loads.calls == 2
    summary = spark.sql(f"SELECT summary FROM {table}.snapshots WHERE snapshot_id = {result.snapshot_id}").collect()[0][0]
    assert summary["doris.lookups"] == "2"
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {table} WHERE k = 2").collect()) == [(2, "b2")]


def test_modes_are_enums_in_python_and_strings_only_at_the_procedure_boundary(spark, namespace):
    with pytest.raises(TypeError, match="merge_type must be a MergeType"):
        LoadRequest(query="SELECT 1", merge_type="MERGE")  # type: ignore[arg-type]
    table = unique_table(spark, namespace)
    with pytest.raises(ProcedureArgumentError, match=r"^\[INVALID_ARGUMENT\]Invalid merge type UPSERT: use APPEND, MERGE, DELETE or NEGATIVE$"):
        doris.load(spark, table=table, query="SELECT 1 AS k, 'x' AS v", merge_type="UPSERT")
    result = doris.load(spark, table=table, query="SELECT 1 AS k, 'x' AS v", merge_type="delete")[0]
    assert result.deleted_rows == 1
    assert operations.load(spark, table, LoadRequest(query="SELECT 3 AS k, 'c' AS v", merge_type=MergeType.APPEND)).loaded_rows == 1
