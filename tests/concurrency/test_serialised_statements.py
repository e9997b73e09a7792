"""Read-modify-write statements are serialisable (issue 52): a keyed load whose source reads the
table it writes (``UPDATE``, Doris's ``UPDATE ... FROM``, ``DELETE`` on values, ``INSERT INTO t SELECT ... FROM t``) holds the
table's commit lock from its read to its commit, as Doris's table lock serialises UPDATEs, and
commits only over the snapshot it read; a writer outside iceberg-doris that changes the table
meanwhile makes it run again, then fail in words.

The interleavings are forced: another writer is started at the statement's lookup and must wait
at the lock (the lock-busy hook proves it waited) until the statement commits. The counter test
runs real processes, each its own Spark driver, on a SQLite catalog: when a statement takes the lock
does not depend on the catalog, and tests/concurrency/test_contention.py proves PostgreSQL's lock
across processes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time

import pytest
from pyspark.errors import IllegalArgumentException

from iceberg_doris import doris
from iceberg_doris.engine import interleaving
from tests.concurrency import once_for, readers_agree, snapshot_count, unique_table, values
from tests.concurrency.contention import REPOSITORY, _environment

pytestmark = pytest.mark.spark

SEQUENCE = '"function_column.sequence_col" = "s"'


class Competitor:
    """Another writer, on a thread of its own, started from a hook: it must reach the lock and
    find it taken (the lock-busy hook) before the statement it races goes on."""

    def __init__(self, spark, table: str, action):
        self.table, self.action = table, action
        self.waiting = threading.Event()
        self.errors: list[BaseException] = []
        self.thread = threading.Thread(target=self._run, name="competitor")

    def _run(self) -> None:
        try:
            self.action()
        except BaseException as error:  # noqa: BLE001 - reported by join()
            self.errors.append(error)

    def start(self, name) -> None:
        if name.qualified == self.table and not self.thread.is_alive() and not self.waiting.is_set():
            self.thread.start()
            assert self.waiting.wait(120), "the competitor never found the table's lock taken"

    def busy(self, name) -> None:
        if threading.current_thread() is self.thread and name.qualified == self.table:
            self.waiting.set()

    def join(self) -> None:
        self.thread.join(300)
        assert not self.thread.is_alive()
        if self.errors:
            raise self.errors[0]


def race(spark, table: str, action, statement) -> None:
    """Runs ``statement`` with ``action`` started on another thread once the statement looked its
    keys up; ``action`` must wait for the lock the statement holds."""
    competitor = Competitor(spark, table, action)
    with interleaving.inject(interleaving.LOCK_BUSY, competitor.busy), \
            interleaving.inject(interleaving.LOOKED_UP, once_for(table, lambda: competitor.start(interleaving_name(table)))):
        statement()
    competitor.join()


def interleaving_name(table: str):
    from iceberg_doris.engine.table_names import TableName

    namespace, name = table.split(".")
    return TableName(namespace, name)


def test_an_update_holds_the_lock_from_its_read_to_its_commit(spark_statements, namespace, py_catalog):
    spark = spark_statements
    table = unique_table(spark, namespace, name="a", properties=SEQUENCE)
    doris.load(spark, table=table, query=values(["(1,'one',10)"]))

    def competitor() -> None:
        doris.load(spark, table=table, query=values(["(1,'one-again',10)", "(2,'two',10)"]), label="inner")

    race(spark, table, competitor, lambda: spark.sql(f"UPDATE {table} SET v = concat(v, '+u') WHERE true"))
    # The UPDATE read key 1 alone and committed first; the load then replaced key 1 and added key 2.
    assert readers_agree(spark, py_catalog, table) == [(1, "one-again", 10), (2, "two", 10)]


def test_concurrent_increments_are_not_lost(spark_statements, namespace, py_catalog):
    spark = spark_statements
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.c (k INT NOT NULL, n BIGINT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    table = f"{namespace}.c"
    spark.sql(f"INSERT INTO {table} VALUES (1, 0)")
    increment = lambda: spark.sql(f"UPDATE {table} SET n = n + 1 WHERE k = 1")  # noqa: E731
    race(spark, table, increment, increment)
    assert readers_agree(spark, py_catalog, table) == [(1, 2)]


def test_concurrent_merge_increments_are_not_lost(spark_statements, namespace, py_catalog):
    """MERGE INTO reads the table it writes (its join): it holds the lock from its read to its commit."""
    spark = spark_statements
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.m (k INT NOT NULL, n BIGINT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    table = f"{namespace}.m"
    spark.sql(f"INSERT INTO {table} VALUES (1, 0)")
    merge = (f"MERGE INTO {table} t USING (SELECT 1 AS k UNION ALL SELECT 2) s ON t.k = s.k "
             "WHEN MATCHED THEN UPDATE SET n = t.n + 1 WHEN NOT MATCHED THEN INSERT (k, n) VALUES (s.k, 1)")
    race(spark, table, lambda: spark.sql(merge), lambda: spark.sql(merge))
    # Serial: the first MERGE increments key 1 and inserts key 2, the second increments both.
    assert readers_agree(spark, py_catalog, table) == [(1, 2), (2, 2)]


def test_concurrent_update_from_increments_are_not_lost(spark_statements, namespace, py_catalog):
    """Doris's UPDATE ... FROM reads the table it writes (joined to its FROM relations): it holds the
    lock from its read to its commit, as UPDATE does."""
    spark = spark_statements
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.f (k INT NOT NULL, n BIGINT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.steps (k INT NOT NULL, d BIGINT) DUPLICATE KEY(k) "
                       "DISTRIBUTED BY HASH(k) BUCKETS 1")
    table = f"{namespace}.f"
    spark.sql(f"INSERT INTO {table} VALUES (1, 0), (2, 0)")
    spark.sql(f"INSERT INTO {namespace}.steps VALUES (1, 5)")
    increment = lambda: spark.sql(f"UPDATE {table} t SET n = t.n + s.d FROM {namespace}.steps s WHERE t.k = s.k")  # noqa: E731
    race(spark, table, increment, increment)
    assert readers_agree(spark, py_catalog, table) == [(1, 10), (2, 0)]


def test_a_delete_on_values_does_not_delete_a_row_changed_meanwhile(spark_statements, namespace, py_catalog):
    spark = spark_statements
    table = unique_table(spark, namespace, name="d")
    doris.load(spark, table=table, query=values(["(1,'stale',0)", "(2,'stale',0)"]))

    def competitor() -> None:
        doris.load(spark, table=table, query=values(["(1,'fresh',0)"]), label="inner")

    race(spark, table, competitor, lambda: spark.sql(f"DELETE FROM {table} WHERE v = 'stale'"))
    # Serial: the DELETE removed both stale rows, then the load stored key 1 again.
    assert readers_agree(spark, py_catalog, table) == [(1, "fresh", 0)]


def test_a_load_from_a_query_over_its_own_table(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, name="q")
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)"]))

    def competitor() -> None:
        doris.load(spark, table=table, query=values(["(2,'b2',5)", "(3,'c',1)"]), label="inner")

    race(spark, table, competitor, lambda: doris.load(spark, table=table, query=f"SELECT k, v, s + 1 AS s FROM {table}", label="outer"))
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 2), (2, "b2", 5), (3, "c", 1)]


def _outside_increment_once(spark, table: str):
    """A hook that, the first time ``table`` is about to commit, adds 10 to key 1 with Iceberg's own
    MERGE (statements off, so no commit lock): a writer outside iceberg-doris."""
    done: list[bool] = []

    def increment(name) -> None:
        if name.qualified == table and not done:
            done.append(True)
            spark.conf.set("spark.doris.sparkStatements.enabled", "false")
            try:
                spark.sql(f"MERGE INTO {table} t USING (SELECT 1 AS k) s ON t.k = s.k WHEN MATCHED THEN UPDATE SET n = t.n + 10")
            finally:
                spark.conf.set("spark.doris.sparkStatements.enabled", "true")

    return increment


@pytest.mark.parametrize("statement", [
    "UPDATE {table} SET n = n + 1 WHERE k = 1",
    "MERGE INTO {table} t USING (SELECT 1 AS k) s ON t.k = s.k WHEN MATCHED THEN UPDATE SET n = t.n + 1",
], ids=["update", "merge"])
def test_a_writer_outside_iceberg_doris_makes_the_statement_run_again(spark_statements, namespace, py_catalog, statement):
    spark = spark_statements
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.c (k INT NOT NULL, n BIGINT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    table = f"{namespace}.c"
    spark.sql(f"INSERT INTO {table} VALUES (1, 0)")

    with interleaving.inject(interleaving.BEFORE_COMMIT, _outside_increment_once(spark, table)):
        spark.sql(statement.format(table=table))
    assert readers_agree(spark, py_catalog, table) == [(1, 11)]


def test_a_writer_outside_that_never_stops_gets_a_conflict_in_words(spark_statements, namespace):
    spark = spark_statements
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.c (k INT NOT NULL, n BIGINT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    table = f"{namespace}.c"
    spark.sql(f"INSERT INTO {table} VALUES (1, 0)")
    before = snapshot_count(spark, table)

    def plain_spark_insert(name) -> None:
        if name.qualified == table:
            spark.conf.set("spark.doris.sparkStatements.enabled", "false")
            try:
                spark.sql(f"INSERT INTO {table} VALUES ({100 + snapshot_count(spark, table)}, 0)")
            finally:
                spark.conf.set("spark.doris.sparkStatements.enabled", "true")

    with interleaving.inject(interleaving.BEFORE_COMMIT, plain_spark_insert):
        message = (
            f"Cannot load into {table}: the load reads the table it writes, and writers outside iceberg-doris changed "
            "the table 3 times while it ran; nothing was committed. Run it again."
        )
        with pytest.raises(IllegalArgumentException, match=f"^{re.escape(message)}$"):  # a procedure's error in Spark
            spark.sql(f"UPDATE {table} SET n = n + 1 WHERE k = 1")
    assert snapshot_count(spark, table) == before + 3  # the three plain inserts, nothing of the UPDATE's
    assert spark.sql(f"SELECT n FROM {table} WHERE k = 1").collect()[0][0] == 0


PROCESSES, THREADS, INCREMENTS = 2, 2, 2


def run_counters(place: dict, folder, table: str) -> list[dict]:
    """Runs the counter processes on ``table``, which holds one row (k = 1, n = 0)."""
    spec = folder / "spec.json"
    spec.write_text(json.dumps(place | {"table": table, "threads": THREADS, "increments": INCREMENTS}))
    processes = []
    for number in range(PROCESSES):
        log = (folder / f"counter-{number}.log").open("w")
        processes.append(subprocess.Popen(
            [sys.executable, "-m", "tests.concurrency.counter", str(spec), str(number)],
            cwd=REPOSITORY, stdout=log, stderr=subprocess.STDOUT, env=_environment(),
        ))
    try:
        deadline = time.monotonic() + 600
        while not all((folder / f"ready-{n}").exists() for n in range(PROCESSES)):
            assert all(p.poll() is None for p in processes), "a counter process exited before it was ready"
            assert time.monotonic() < deadline, "counter processes not ready"
            time.sleep(0.1)
        (folder / "go").touch()
        for process in processes:
            assert process.wait(timeout=900) == 0
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    results = []
    for number in range(PROCESSES):
        text = (folder / f"counter-{number}.log").read_text()
        results += [json.loads(line.removeprefix("RESULT ")) for line in text.splitlines() if line.startswith("RESULT ")]
    return results


def check_counter(catalog, table: str, results: list[dict]) -> None:
    assert [r for r in results if not r["ok"]] == []
    assert len(results) == PROCESSES * THREADS * INCREMENTS
    rows = catalog.load_table(table).scan().to_arrow().to_pylist()
    assert rows == [{"k": 1, "n": PROCESSES * THREADS * INCREMENTS}]


def test_update_processes_on_a_sqlite_catalog_add_every_increment(spark, namespace, lake_home, py_catalog, tmp_path):
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.c (k INT NOT NULL, n BIGINT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    table = f"{namespace}.c"
    doris.load(spark, table=table, query="SELECT 1 AS k, 0L AS n")
    results = run_counters({"home": str(lake_home), "catalog_uri": None, "warehouse": None}, tmp_path, table)
    check_counter(py_catalog, table, results)
