"""Phase log lines of long work (``iceberg_doris.progress``): which phases a load, a delete and a
compaction log, with which row counts; nothing at WARNING for a normal load; silenced by the
logger's level. And the snapshot id a load into a temp partition reports."""

from __future__ import annotations

import logging

import pytest

from iceberg_doris import doris
from iceberg_doris.operations.progress import LOGGER_NAME

pytestmark = pytest.mark.spark


def phases_done(caplog) -> list[tuple[str, str, dict[str, int]]]:
    """(operation, phase, rows) of every phase that logged its end."""
    return [
        (r.doris_operation, r.doris_phase, r.doris_rows)
        for r in caplog.records if r.name == LOGGER_NAME and hasattr(r, "doris_elapsed_s")
    ]


def unique_table(spark, namespace: str, name: str = "u") -> str:
    table = f"{namespace}.{name}"
    doris.create_table(
        spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    return table


def test_a_unique_key_load_logs_read_check_lookup_and_commit_with_its_row_counts(spark, namespace, caplog):
    table = unique_table(spark, namespace)
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'a') AS t(k, v)")
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    caplog.clear()  # sessions log progress by default: only what follows counts
    doris.load(
        spark, table=table, max_filter_ratio=0.5,
        query="SELECT * FROM VALUES (2, 'b'), (3, 'b'), (NULL, 'x') AS t(k, v)",  # the NULL key is filtered
    )
    assert phases_done(caplog) == [
        ("load", "read", {}),
        ("load", "check", {"loaded_rows": 2, "filtered_rows": 1, "unselected_rows": 0}),
        ("load", "lookup", {"rows": 2}),
        ("load", "commit", {"rows": 2, "deleted_rows": 0, "lookups": 1}),  # replaced rows are not deleted rows
        ("load", "index", {"files": 1}),  # the key-index entry of the file it committed
    ]
    started = [r.getMessage() for r in caplog.records if not hasattr(r, "doris_elapsed_s")]
    assert started == [f"load {table}: {p} started" for p in ("read", "check", "lookup", "commit", "index")]
    check = next(r.getMessage() for r in caplog.records if getattr(r, "doris_phase", "") == "check" and hasattr(r, "doris_elapsed_s"))
    assert check.startswith(f"load {table}: check done in ")
    assert check.endswith(" s (loaded_rows=2, filtered_rows=1, unselected_rows=0)")


def test_duplicate_key_loads_and_overwrites_log_their_one_pass_write(spark, namespace, caplog):
    table = f"{namespace}.d"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    caplog.clear()  # sessions log progress by default: only what follows counts
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b'), (3, 'c') AS t(k, v)", where="k < 3")
    assert phases_done(caplog) == [
        ("load", "read", {}),
        ("load", "write", {"loaded_rows": 2, "filtered_rows": 0, "unselected_rows": 1}),
        ("load", "commit", {"rows": 2}),
    ]
    caplog.clear()
    doris.insert_overwrite(spark, table=table, query="SELECT * FROM VALUES (7, 'x') AS t(k, v)")
    assert phases_done(caplog) == [
        ("insert_overwrite", "read", {}),
        ("insert_overwrite", "write", {"loaded_rows": 1, "filtered_rows": 0, "unselected_rows": 0}),
        ("insert_overwrite", "commit", {"rows": 1}),
    ]


def test_a_keyed_overwrite_logs_check_write_and_commit(spark, namespace, caplog):
    table = unique_table(spark, namespace)
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    caplog.clear()  # sessions log progress by default: only what follows counts
    doris.insert_overwrite(spark, table=table, query="SELECT * FROM VALUES (7, 'x'), (8, 'y') AS t(k, v)")
    assert phases_done(caplog) == [
        ("insert_overwrite", "read", {}),
        ("insert_overwrite", "check", {"loaded_rows": 2, "filtered_rows": 0, "unselected_rows": 0}),
        ("insert_overwrite", "write", {"rows": 2, "files": 1}),
        ("insert_overwrite", "commit", {"rows": 2}),
    ]


def test_delete_and_compact_log_their_phases(spark, namespace, caplog):
    table = f"{namespace}.d"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b'), (3, 'c') AS t(k, v)")
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    caplog.clear()  # sessions log progress by default: only what follows counts
    doris.delete(spark, table=table, where="k = 2")
    doris.compact(spark, table=table)
    assert phases_done(caplog) == [
        ("delete", "lookup", {"deleted_rows": 1, "files": 1}),
        ("delete", "write", {"delete_files": 1}),
        ("delete", "commit", {"deleted_rows": 1}),
        ("compact", "compact", {"rewritten_data_files": 1, "added_data_files": 1}),
    ]


def test_a_normal_load_logs_nothing_at_warning_and_the_phases_can_be_silenced(spark, namespace, caplog):
    table = unique_table(spark, namespace)
    caplog.set_level(logging.DEBUG, logger="iceberg_doris")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a') AS t(k, v)")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'b'), (2, 'b') AS t(k, v)")
    ours = [r for r in caplog.records if r.name.startswith("iceberg_doris")]
    assert [r for r in ours if r.levelno >= logging.WARNING] == []
    assert len(phases_done(caplog)) == 10
    caplog.clear()
    caplog.set_level(logging.WARNING, logger=LOGGER_NAME)
    doris.load(spark, table=table, query="SELECT * FROM VALUES (3, 'c') AS t(k, v)")
    assert [r for r in caplog.records if r.name == LOGGER_NAME] == []


def test_a_load_into_a_temp_partition_reports_the_branch_snapshot(spark, namespace):
    table = f"{namespace}.s"
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {table} (dt DATE NOT NULL, id INT NOT NULL, v INT) UNIQUE KEY(dt, id)
        PARTITION BY RANGE(dt) (PARTITION p1 VALUES LESS THAN ("2024-02-01")) DISTRIBUTED BY HASH(id) BUCKETS 1""",
    )
    doris.load(spark, table=table, query="SELECT date'2024-01-05' AS dt, 1 AS id, 10 AS v")
    main_before = spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]
    spark.sql(f"CALL doris.add_partition(table => '{table}', partition => 'tp1', values_range => array('2024-01-01', '2024-02-01'), temporary => true)")
    [row] = doris.load(spark, table=table, query="SELECT date'2024-01-06' AS dt, 2 AS id, 20 AS v", temporary_partitions=["tp1"])
    [call] = spark.sql(
        f"CALL doris.load(table => '{table}', query => 'SELECT date\\'2024-01-07\\' AS dt, 3 AS id, 30 AS v', "
        "temporary_partitions => array('tp1'))"
    ).collect()
    refs = {r.name: r.snapshot_id for r in spark.sql(f"SELECT name, snapshot_id FROM {table}.refs").collect()}
    assert row.snapshot_id is not None and call.snapshot_id == refs["doris_temp_tp1"]
    assert row.snapshot_id in {r[0] for r in spark.sql(f"SELECT snapshot_id FROM {table}.snapshots").collect()}
    assert row.snapshot_id != call.snapshot_id and refs["main"] == main_before


def test_the_console_progress_bar_is_off_when_stderr_is_no_terminal(spark):
    # pytest captures stderr, as a log file or CI would: the bar would only clutter it.
    assert spark.sparkContext.getConf().get("spark.ui.showConsoleProgress") == "false"


def test_one_load_shows_or_hides_its_phases_whatever_the_sessions_setting(spark, namespace, caplog, request):
    table = unique_table(spark, namespace, "per_load")
    logger = logging.getLogger(LOGGER_NAME)
    previous = logger.level
    request.addfinalizer(lambda: logger.setLevel(previous))
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    caplog.clear()
    doris.load(spark, table=table, query="SELECT 1 AS k, 'a' AS v", progress=False)
    assert phases_done(caplog) == []
    logger.setLevel(logging.WARNING)  # what session(progress=False) sets
    caplog.clear()
    doris.load(spark, table=table, query="SELECT 2 AS k, 'b' AS v", progress=True)
    phases = [phase for _, phase, _ in phases_done(caplog)]
    assert phases[0] == "read" and "commit" in phases, phases
    caplog.clear()
    doris.load(spark, table=table, query="SELECT 3 AS k, 'c' AS v")  # the session's setting again
    assert phases_done(caplog) == []
    assert spark.table(table).count() == 3
