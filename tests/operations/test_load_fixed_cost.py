"""What a load costs beyond its rows, counted (never timed): Spark jobs, SQL executions, catalog
loads of the table and py4j round trips, per table model, next to plain ``INSERT INTO`` the same
table (the shared session writes plain Iceberg rows for Spark's own statements).

docs/loads.md ("What a load costs") says what each remaining job is for."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from tests.concurrency import readers_agree
from tests.support.load_costs import costs_of

pytestmark = pytest.mark.spark

MODELS = {
    "duplicate": "DUPLICATE KEY(k)",
    "unique": "UNIQUE KEY(k)",
    "unique_sequence": "UNIQUE KEY(k)",
    "aggregate": "AGGREGATE KEY(k)",
}


def make_table(spark, namespace: str, model: str, name: str = "costs") -> str:
    table = f"{namespace}.{name}_{model}"
    value = "v BIGINT SUM" if model == "aggregate" else "v BIGINT"
    text = "s STRING REPLACE" if model == "aggregate" else "s STRING"
    properties = " PROPERTIES('function_column.sequence_col' = 'v')" if model == "unique_sequence" else ""
    doris.create_table(
        spark, ddl=f"CREATE TABLE {table} (k BIGINT NOT NULL, {value}, {text}) {MODELS[model]} "
        f"DISTRIBUTED BY HASH(k) BUCKETS 4{properties}",
    )
    return table


def rows_query(count: int, offset: int = 0) -> str:
    return f"SELECT id + {offset} AS k, id AS v, concat('s', CAST(id AS STRING)) AS s FROM range({count})"


def added_files(spark, table: str) -> int:
    [row] = spark.sql(f"SELECT summary['added-data-files'] AS f FROM {table}.snapshots ORDER BY committed_at DESC LIMIT 1").collect()
    return int(row.f)


@pytest.mark.parametrize(
    "source, round_trips, files",
    [
        # A query without FROM (its INT column converted to BIGINT and checked). Before: 1129; 738 now
        # (releases of Java objects not counted, see tests.support.load_costs).
        ("SELECT 1 AS k, 2 AS v, 'one' AS s", 800, 1),
        # Generated rows, one file per bucket. Before: 787; 519 now.
        (rows_query(1000), 560, 4),
    ],
)
def test_a_small_duplicate_load_runs_one_spark_job_and_loads_the_table_once(
    spark, namespace, py_catalog, monkeypatch, source, round_trips, files
):
    table = make_table(spark, namespace, "duplicate")
    doris.load(spark, table=table, query=rows_query(10, 10_000))  # a table with rows, as most loads find it
    costs = costs_of(spark, monkeypatch, lambda: doris.load(spark, table=table, query=source))
    # One job: the write, which counts the rows as it writes them (one task, no shuffle). Plain
    # INSERT INTO this sorted table runs more (range distribution samples its rows first).
    assert costs.jobs == 1, costs
    assert costs.sql_executions == 1, costs
    # The table is loaded once, when the load opens it; the commit refreshes that same table.
    assert costs.table_loads == 1, costs
    # Before: 2 jobs (the generated rows were shuffled to the one writing task), 2 table loads,
    # and more round trips (about ten per Column built in Python). Plain INSERT INTO: under 20.
    assert costs.round_trips <= round_trips, costs
    assert added_files(spark, table) == files
    loaded = 1000 if "range" in source else 1
    assert len(readers_agree(spark, py_catalog, table)) == 10 + loaded


@pytest.mark.parametrize("source", ["query", "rows"])
def test_a_small_duplicate_load_runs_no_more_jobs_than_insert_into(spark, namespace, monkeypatch, source):
    loaded, inserted = make_table(spark, namespace, "duplicate", "loaded"), make_table(spark, namespace, "duplicate", "inserted")
    if source == "query":
        load = costs_of(spark, monkeypatch, lambda: doris.load(spark, table=loaded, query=rows_query(100)))
        insert = costs_of(spark, monkeypatch, lambda: spark.sql(f"INSERT INTO {inserted} {rows_query(100)}"))
    else:
        # Rows from Python are an RDD Spark cannot size: both range-distribute them.
        frame = spark.createDataFrame([(k, k, "x") for k in range(100)], "k BIGINT, v BIGINT, s STRING")
        load = costs_of(spark, monkeypatch, lambda: doris.load(spark, table=loaded, source=frame))
        insert = costs_of(spark, monkeypatch, lambda: frame.writeTo(inserted).append())
    assert load.jobs <= insert.jobs, (load, insert)
    assert load.sql_executions == insert.sql_executions == 1, (load, insert)
    assert load.table_loads == 1, load
    assert spark.table(loaded).count() == spark.table(inserted).count() == 100


# Keyed small loads into a table with rows: (jobs, table loads) at most, as measured (docs/loads.md
# says what each job is for): a new job in a keyed load fails here.
KEYED_SMALL = {"unique": (4, 2), "unique_sequence": (7, 2), "aggregate": (6, 2)}


@pytest.mark.parametrize("model", sorted(KEYED_SMALL))
def test_a_small_keyed_load_runs_a_bounded_number_of_jobs_and_table_loads(spark, namespace, py_catalog, monkeypatch, model):
    table = make_table(spark, namespace, model)
    doris.load(spark, table=table, query=rows_query(100))
    costs = costs_of(spark, monkeypatch, lambda: doris.load(spark, table=table, query=rows_query(10, 95)))
    jobs, loads = KEYED_SMALL[model]
    assert costs.jobs <= jobs, costs
    assert costs.table_loads <= loads, costs
    rows = readers_agree(spark, py_catalog, table)
    assert len(rows) == 105


# Fresh rows into an empty table: jobs at most (the write counting the rows, and for keyed
# models the check of the new files' keys, which also builds their key-index entries). Before: one
# more each (generated rows were shuffled to the writing task).
FRESH_BULK = {"duplicate": 1, "unique": 2, "unique_sequence": 2, "aggregate": 2}


@pytest.mark.parametrize("model", sorted(FRESH_BULK))
def test_a_fresh_bulk_load_runs_a_bounded_number_of_jobs(spark, namespace, monkeypatch, model):
    table = make_table(spark, namespace, model)
    costs = costs_of(spark, monkeypatch, lambda: doris.load(spark, table=table, query=rows_query(20_000)))
    assert costs.jobs <= FRESH_BULK[model], costs
    assert costs.table_loads <= (1 if model == "duplicate" else 2), costs
    assert spark.table(table).count() == 20_000
