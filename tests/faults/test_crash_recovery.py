"""kill -9 at every phase of every committing operation, then checks from a process that survived.

For each (operation, crash point) the table is prepared in the test's session, the operation runs
in a new process that ``iceberg_doris.engine.faults`` SIGKILLs (its Spark driver JVM first, then itself)
at that point, and then, from the test's session and pyiceberg:

- the process died by SIGKILL at that point, and no process of its run (JVM included) is left;
- the table is exactly as before (crash before the commit: not even a new metadata file) or exactly
  as after (crash after it: one commit on top of the old metadata), for Spark and pyiceberg alike,
  and every file its metadata references exists;
- running the operation again succeeds when the crash came before the commit, and is refused (a
  load's label: "Label [...] has already been used") or changes nothing when it came after;
- a crash after files were written leaves files no metadata references, and ``doris.cleanup``
  removes every one of them (nothing unreferenced is left under the table's folder, nothing
  referenced is missing); a crash before any write, or after the commit, leaves none at all;
- a load's error rows stay where ``error_rows_path`` says (``cleanup`` keeps them, as documented),
  replaced, not doubled, by the retry.

The crash runs start (two at a time) while the tables are prepared; each test waits for its own
run only, so the checks overlap the runs still going.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pytest
from pyspark.errors import IllegalArgumentException

from iceberg_doris import doris
from iceberg_doris.engine.iceberg_java import IcebergJava
from iceberg_doris.loading import read_error_rows
from iceberg_doris.operations.load.counting import error_location
from iceberg_doris.operations.tables import open_table
from tests.faults.crash_harness import (
    CrashRun,
    files_under,
    local_path,
    processes_tagged,
    referenced_files,
    run_crashing,
)

pytestmark = pytest.mark.spark

# Crash runs at once, next to the test's own session that prepares and checks: each run is a
# Spark driver (~5 s of CPU to start), so two keep 2 cores busy without crowding them.
PARALLEL_RUNS = int(os.environ.get("ICEBERG_DORIS_FAULT_PARALLEL", "2"))
PRE_COMMIT = ("rows-counted", "files-staged", "keys-looked-up", "deletes-written", "before-commit")
LOGICAL = ("exists", "main", "partitions", "temp")


def d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def sorted_rows(frame: Any) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in frame.collect())


# --- the operations ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Operation:
    """One committing operation: how to prepare its table, the statement, what it changes."""

    name: str
    prepare: Callable[[Any, str], None]  # (spark, table) -> None
    statement: Callable[[str], str]  # table -> Spark SQL
    after: Callable[[dict[str, Any]], dict[str, Any]]  # the logical state before -> after
    # After a crash past the commit, running it again: a refusal matching this, "no-op" (succeeds
    # and changes nothing), or None (not retried: a second swap swaps back, as in Doris).
    rerun_after_commit: str | None
    compared: tuple[str, ...] = LOGICAL
    error_rows: bool = False  # the load rejects one row: error rows are written before the commit


def monthly(spark: Any, table: str, *, temp: bool = False) -> None:
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {table} (dt DATE NOT NULL, id INT NOT NULL, v INT) DUPLICATE KEY(dt, id)
        PARTITION BY RANGE(dt) (PARTITION p1 VALUES LESS THAN ("2024-02-01"), PARTITION p2 VALUES LESS THAN ("2024-03-01"))
        DISTRIBUTED BY HASH(id) BUCKETS 2""",
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (date'2024-01-05', 1, 10), (date'2024-02-05', 2, 20), (date'2024-02-06', 3, 30) AS t(dt, id, v)")
    if temp:
        doris.add_partition(spark, table=table, partition="tp2", values_range=["2024-02-01", "2024-03-01"], temporary=True)
        doris.load(spark, table=table, query="SELECT * FROM VALUES (date'2024-02-07', 7, 70) AS t(dt, id, v)", temporary_partitions=["tp2"])


def unique(spark: Any, table: str, *, updated: bool = False) -> None:
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (id INT NOT NULL, v STRING) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b'), (3, 'c') AS t(id, v)")
    if updated:  # deletion vectors for compact to fold in
        doris.load(spark, table=table, query="SELECT * FROM VALUES (2, 'b2'), (3, 'c2') AS t(id, v)")


def unique_v2(spark: Any, table: str) -> None:
    spark.sql(
        f"CREATE TABLE {table} (id INT NOT NULL, v STRING) USING iceberg TBLPROPERTIES ('format-version'='2', "
        "'write.wap.enabled'='true', 'doris.keys-model'='UNIQUE', 'doris.key-columns'='id', 'doris.merge-on-write'='true')"
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b'), (3, 'c') AS t(id, v)")


def upserted(before: dict[str, Any]) -> dict[str, Any]:
    return before | {"main": [(1, "a"), (2, "B"), (4, "D")]}


KEYED_LOAD = (
    "CALL doris.load(table => '{t}', query => \"SELECT * FROM VALUES (2, 'B'), (3, 'X'), (4, 'D') AS t(id, v)\", "
    "merge_type => 'MERGE', delete_on => \"v = 'X'\", label => 'crash_keyed')"
)
LABEL_USED = r"^Label \[{label}\] has already been used"

OPERATIONS = {
    op.name: op
    for op in (
        Operation(
            "load",
            monthly,
            lambda t: (
                f"CALL doris.load(table => '{t}', query => \"SELECT * FROM VALUES (date'2024-01-07', 4, 40), "
                "(date'2024-09-01', 5, 50) AS t(dt, id, v)\", label => 'crash_load', max_filter_ratio => 0.5)"
            ),
            lambda b: b | {"main": sorted(b["main"] + [(d("2024-01-07"), 4, 40)])},
            LABEL_USED.format(label="crash_load"),
            error_rows=True,
        ),
        Operation("keyed_load", unique, lambda t: KEYED_LOAD.format(t=t), upserted, LABEL_USED.format(label="crash_keyed")),
        Operation("keyed_load_v2", unique_v2, lambda t: KEYED_LOAD.format(t=t), upserted, LABEL_USED.format(label="crash_keyed")),
        Operation(
            "insert_overwrite",
            monthly,
            lambda t: (
                f"CALL doris.insert_overwrite(table => '{t}', query => \"SELECT date'2024-02-10', 8, 80\", "
                "partitions => array('p2'), label => 'crash_overwrite')"
            ),
            lambda b: b | {"main": [(d("2024-01-05"), 1, 10), (d("2024-02-10"), 8, 80)]},
            LABEL_USED.format(label="crash_overwrite"),
        ),
        Operation(
            "swap_temp_partition",
            lambda s, t: monthly(s, t, temp=True),
            lambda t: f"CALL doris.swap_temp_partition(table => '{t}', partitions => array('p2'), temp_partitions => array('tp2'))",
            lambda b: b | {
                "main": [(d("2024-01-05"), 1, 10), (d("2024-02-07"), 7, 70)],
                "temp": {"tp2": [(d("2024-02-05"), 2, 20), (d("2024-02-06"), 3, 30)]},
            },
            None,
        ),
        Operation(
            "replace_partition",
            lambda s, t: monthly(s, t, temp=True),
            lambda t: f"CALL doris.replace_partition(table => '{t}', partitions => array('p2'), temp_partitions => array('tp2'))",
            lambda b: b | {"main": [(d("2024-01-05"), 1, 10), (d("2024-02-07"), 7, 70)], "temp": {}},
            r"^Temp partition\[tp2\] does not exist",
        ),
        Operation(
            "compact",
            lambda s, t: unique(s, t, updated=True),
            lambda t: f"CALL doris.compact(table => '{t}')",
            lambda b: b | {"delete_files": 0},
            "no-op",
            compared=LOGICAL + ("delete_files",),
        ),
        Operation(
            "create_table",
            lambda s, t: None,
            lambda t: (
                f"CALL doris.create_table(ddl => \"CREATE TABLE {t} (dt DATE NOT NULL, id INT NOT NULL, v INT) "
                "UNIQUE KEY(dt, id) PARTITION BY RANGE(dt) (PARTITION p1 VALUES LESS THAN ('2024-02-01')) "
                "DISTRIBUTED BY HASH(id) BUCKETS 2\")"
            ),
            lambda b: {"exists": True, "main": [], "partitions": ["p1"], "temp": {}, "delete_files": 0},
            r"^Table 'x' already exists in ",
        ),
        Operation(
            "add_partition",
            monthly,
            lambda t: f"CALL doris.add_partition(table => '{t}', partition => 'p3', values_less_than => '2024-04-01')",
            lambda b: b | {"partitions": ["p1", "p2", "p3"]},
            r"^Duplicate partition name p3",
        ),
        Operation(
            "add_temp_partition",
            monthly,
            lambda t: (
                f"CALL doris.add_partition(table => '{t}', partition => 'tp1', "
                "values_range => array('2024-01-01', '2024-02-01'), temporary => true)"
            ),
            lambda b: b | {"temp": {"tp1": []}},
            r"^Duplicate partition name tp1",
        ),
        Operation(
            "drop_partition",
            monthly,
            lambda t: f"CALL doris.drop_partition(table => '{t}', partition => 'p1')",
            lambda b: b | {"main": [(d("2024-02-05"), 2, 20), (d("2024-02-06"), 3, 30)], "partitions": ["p2"]},
            r"^Error in list of partitions to p1",
        ),
    )
}


@dataclass(frozen=True)
class Case:
    operation: str
    point: str  # ICEBERG_DORIS_CRASH_AT

    @property
    def id(self) -> str:
        return f"{self.operation}.{self.phase}"

    @property
    def phase(self) -> str:
        return self.point.split(".", 1)[1]

    @property
    def before_commit(self) -> bool:
        return self.phase in PRE_COMMIT

    @property
    def leaves_files(self) -> bool:
        """Whether the crash leaves files no metadata references: staged data files, deletion
        vectors, or the manifests of a commit that never happened (metadata-only property
        changes write none before the commit)."""
        if self.phase in ("files-staged", "keys-looked-up", "deletes-written"):
            return True
        if self.point == "compact.after-commit":
            return True  # its rowid mapping: scratch until compact returns
        if self.phase == "rows-counted":
            # A duplicate-key load counts its rows from its write: its files are staged by then.
            return self.operation == "load"
        return self.phase == "before-commit" and self.operation not in ("create_table", "add_partition", "add_temp_partition")


def _cases() -> list[Case]:
    # Every phase of loads (their own points, then the commit's); the commit points of the others.
    # The commit points are one line in commit_atomically, so every operation meets them at once;
    # a phase shared with a case here (insert_overwrite's staging is load's) is not run twice.
    points = {
        "load": ("load.rows-counted", "load.files-staged", "load.before-commit", "load.after-commit"),
        "keyed_load": ("load.keys-looked-up", "load.deletes-written", "load.before-commit", "load.after-commit"),
        "keyed_load_v2": ("load.deletes-written",),
        "insert_overwrite": ("insert_overwrite.before-commit", "insert_overwrite.after-commit"),
        "swap_temp_partition": ("swap_temp_partition.before-commit", "swap_temp_partition.after-commit"),
        "replace_partition": ("replace_partition.after-commit",),
        "compact": ("compact.files-staged", "compact.after-commit"),
        "create_table": ("create_table.before-commit", "create_table.after-commit"),
        "add_partition": ("add_partition.before-commit", "add_partition.after-commit"),
        "add_temp_partition": ("add_partition.after-commit",),
        "drop_partition": ("drop_partition.before-commit", "drop_partition.after-commit"),
    }
    return [Case(operation, point) for operation, names in points.items() for point in names]


# Left out of the default run to keep CI under 15 minutes on 2 cores (each case is a Spark driver
# of its own): commit points whose operation-specific part another case already crashes (the
# commit points themselves are one line of commit_atomically). ICEBERG_DORIS_FAULTS=all runs them.
FULL_RUN_ONLY = frozenset({
    "insert_overwrite.before-commit",  # its staged files are load's: load.before-commit
    "swap_temp_partition.before-commit",  # a file move's unwritten manifests: replace's and load's
    "add_partition.after-commit",  # a metadata-only commit that landed: add_temp_partition.after-commit
    "drop_partition.before-commit",  # a metadata-only commit that did not: add_partition.before-commit
})


def selected_cases() -> list[Case]:
    cases = _cases()
    if os.environ.get("ICEBERG_DORIS_FAULTS") == "all":
        return cases
    return [case for case in cases if case.id not in FULL_RUN_ONLY]


CASES = selected_cases()


# --- observing a table ---------------------------------------------------------------------------


def observe(spark: Any, table: str) -> dict[str, Any]:
    """What a reader can tell about the table: rows of main and of each temp partition, partitions."""
    iceberg = IcebergJava(spark)
    if not iceberg.table_exists(iceberg.name(table)):
        return {"exists": False}
    temp = spark.sql(f"CALL doris.show_partitions(table => '{table}', temporary => true)").collect()
    return {
        "exists": True,
        "main": sorted_rows(spark.sql(f"SELECT * FROM {table}")),
        "partitions": [r.partition_name for r in spark.sql(f"CALL doris.show_partitions(table => '{table}')").collect()],
        "temp": {r.partition_name: sorted_rows(spark.sql(f"SELECT * FROM {table} VERSION AS OF '{r.branch}'")) for r in temp},
        "delete_files": spark.sql(f"SELECT count(*) FROM {table}.delete_files").collect()[0][0],
    }


def logical(state: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: state[k] for k in keys if k in state}


@dataclass
class Prepared:
    case: Case
    table: str
    before: dict[str, Any]
    metadata_location: str | None  # before the crash
    snapshot_id: int | None
    run: "Future[CrashRun] | None" = field(default=None)


def prepare(spark: Any, py_catalog: Any, case: Case) -> Prepared:
    operation = OPERATIONS[case.operation]
    namespace = f"f_{uuid.uuid4().hex[:10]}"
    spark.sql(f"CREATE NAMESPACE {namespace}")
    table = f"{namespace}.x"
    operation.prepare(spark, table)
    before = observe(spark, table)
    location = snapshot = None
    if before["exists"]:
        loaded = py_catalog.load_table(table)
        location, snapshot = loaded.metadata_location, loaded.metadata.current_snapshot_id
    return Prepared(case, table, before, location, snapshot)


@pytest.fixture(scope="module")
def crashed(request: pytest.FixtureRequest, spark: Any, py_catalog: Any, lake_home: Any) -> Iterator[dict[str, Prepared]]:
    """Prepares the table of every selected case and starts its crash run, a few runs at a time;
    each test waits for its own run only, so checks overlap the runs still going."""
    selected = [
        item.callspec.params["case"] for item in request.session.items
        if item.module is request.module and hasattr(item, "callspec") and "case" in item.callspec.params
    ]
    prepared: dict[str, Prepared] = {}
    with ThreadPoolExecutor(max_workers=max(1, PARALLEL_RUNS)) as pool:
        for case in selected:
            ready = prepare(spark, py_catalog, case)
            statement = OPERATIONS[case.operation].statement(ready.table)
            ready.run = pool.submit(run_crashing, lake_home, statement, case.point)
            prepared[case.id] = ready
        yield prepared


# --- the checks ----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_crash_leaves_table_before_or_after(case: Case, crashed: dict[str, Prepared], spark: Any, py_catalog: Any) -> None:
    ready = crashed[case.id]
    assert ready.run is not None
    run = ready.run.result()
    operation = OPERATIONS[case.operation]
    table = ready.table

    # 1. It was a real crash, at that point, and nothing of the crashed run lives on.
    assert run.returncode == -signal.SIGKILL, run.describe()
    assert f"crash point {case.point} reached" in run.stderr, run.describe()
    assert run.jvm_tagged, run.describe()
    assert processes_tagged(run.tag) == []  # the driver JVM included

    # 2. Exactly before or exactly after, for Spark and pyiceberg; all referenced files exist.
    expected_after = logical(operation.after(ready.before), operation.compared)
    state = observe(spark, table)
    if case.before_commit:
        assert logical(state, operation.compared) == logical(ready.before, operation.compared)
    else:
        assert logical(state, operation.compared) == expected_after
    check_metadata(py_catalog, ready, state, committed=not case.before_commit)

    # 3. Running it again: it lands once.
    error_rows = error_rows_location(spark, table) if operation.error_rows else None
    if error_rows is not None:  # every load point comes after the rejected row was written
        assert [r["row"]["id"] for r in read_error_rows(error_rows)] == ["5"]
    # (What the table holds afterwards is checked after cleanup, below.)
    statement = operation.statement(table)
    if case.before_commit or operation.rerun_after_commit == "no-op":
        spark.sql(statement).collect()
    elif operation.rerun_after_commit is not None:
        with pytest.raises(IllegalArgumentException, match=operation.rerun_after_commit):
            spark.sql(statement).collect()
    if error_rows is not None:
        # Written before the commit, kept by the crash, replaced (not added to) by the retry.
        rows = read_error_rows(error_rows)
        assert [r["row"]["id"] for r in rows] == ["5"]

    # 4. A crash after files were written leaves some that no reader sees, and cleanup removes
    # them; a finished commit (or a crash before any write) leaves none: cleanup would find nothing.
    crashed_table = py_catalog.load_table(table)
    leftovers = files_under(local_path(crashed_table.location())) - referenced_files(crashed_table)
    assert bool(leftovers) == case.leaves_files, sorted(leftovers)
    if not leftovers:
        assert logical(observe(spark, table), operation.compared) == expected_after
        return
    cutoff = (dt.datetime.now() + dt.timedelta(seconds=1)).strftime("%Y-%m-%d %H:%M:%S")
    spark.sql(f"CALL doris.cleanup(table => '{table}', older_than => '{cutoff}')").collect()
    loaded = py_catalog.load_table(table)
    referenced = referenced_files(loaded)
    present = files_under(local_path(loaded.location()))
    assert sorted(referenced - present) == []  # nothing referenced is missing
    assert sorted(present - referenced) == []  # nothing unreferenced is left
    assert logical(observe(spark, table), operation.compared) == expected_after
    if error_rows is not None:
        assert [r["row"]["id"] for r in read_error_rows(error_rows)] == ["5"]  # outside the table's folder: kept


def check_metadata(py_catalog: Any, ready: Prepared, state: dict[str, Any], *, committed: bool) -> None:
    """No commit at all before the commit point; exactly one after it. Same rows for pyiceberg."""
    if not state["exists"]:
        assert not committed and not ready.before["exists"]
        return
    loaded = py_catalog.load_table(ready.table)
    if not committed:
        assert loaded.metadata_location == ready.metadata_location
    elif ready.metadata_location is not None:
        assert loaded.metadata_location != ready.metadata_location
        assert loaded.metadata.metadata_log[-1].metadata_file == ready.metadata_location  # one commit on top
        current = loaded.metadata.current_snapshot_id
        if current != ready.snapshot_id:
            assert loaded.metadata.snapshot_by_id(current).parent_snapshot_id == ready.snapshot_id
    names = [f.name for f in loaded.schema().fields]
    arrow = sorted(tuple(r[n] for n in names) for r in loaded.scan().to_arrow().to_pylist())
    assert arrow == state["main"]
    referenced = referenced_files(loaded)
    assert sorted(f for f in referenced if not os.path.exists(f)) == []


def error_rows_location(spark: Any, table: str) -> str:
    return error_location(open_table(spark, table), "crash_load")
