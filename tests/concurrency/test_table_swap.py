"""``doris.replace_table`` against commits forced between its read and its catalog transaction: the
swap reads again and commits, or fails having changed nothing; the competing commit is never lost.

At BEFORE_COMMIT the swap holds both tables' commit locks, so the competitor is a writer that does
not take them: plain Spark SQL (the shared session runs Spark's statements as plain Iceberg ones).
Doris serialises REPLACE with loads through its table locks (fe Alter.processReplaceTable); the
case Doris has is regression-test/suites/schema_change_p0/test_alter_table_replace.groovy.
The same swap on a PostgreSQL catalog runs in a subprocess (a real server).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import interleaving
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.errors import CommitConflictError
from tests.concurrency import readers_agree, unique_table, values
from tests.support.postgres_server import postgres_server

pytestmark = pytest.mark.spark


def two_tables(spark, namespace: str) -> tuple[str, str]:
    t1 = unique_table(spark, namespace, name="t1")
    t2 = unique_table(spark, namespace, name="t2")
    doris.load(spark, table=t1, query=values(["(1,'a',0)", "(2,'a',0)"]))
    doris.load(spark, table=t2, query=values(["(1,'b',0)", "(3,'b',0)"]))
    return t1, t2


@pytest.mark.parametrize(
    ("swap", "written", "expected"),
    [
        # swap => true: the row written into t1 meanwhile is in t1's table, now named t2.
        (True, "t1", {"t1": [(1, "b", 0), (3, "b", 0)], "t2": [(1, "a", 0), (2, "a", 0), (9, "meanwhile", 0)]}),
        # swap => false: the row written into t2 meanwhile is in t2's table, now named t1.
        (False, "t2", {"t1": [(1, "b", 0), (3, "b", 0), (9, "meanwhile", 0)], "t2": None}),
    ],
)
def test_a_commit_between_read_and_swap_is_kept(spark, namespace, py_catalog, swap, written, expected):
    t1, _ = two_tables(spark, namespace)
    reached: list[str] = []

    def competitor(name: TableName) -> None:
        reached.append(name.qualified)
        if len(reached) == 1:
            spark.sql(f"INSERT INTO {namespace}.{written} VALUES (9, 'meanwhile', 0)")

    with interleaving.inject(interleaving.BEFORE_COMMIT, competitor):
        doris.replace_table(spark, table=t1, with_table="t2", swap=swap)
    assert reached == [t1, t1]  # the first transaction changed nothing; the swap read both again
    for name, rows in expected.items():
        if rows is None:
            assert not py_catalog.table_exists(f"{namespace}.{name}")
        else:
            assert readers_agree(spark, py_catalog, f"{namespace}.{name}") == rows


def test_a_writer_that_never_stops_makes_the_swap_fail_having_changed_nothing(spark, namespace, py_catalog):
    t1, t2 = two_tables(spark, namespace)
    inserted: list[int] = []

    def competitor(name: TableName) -> None:
        inserted.append(100 + len(inserted))
        spark.sql(f"INSERT INTO {t2} VALUES ({inserted[-1]}, 'meanwhile', 0)")

    with interleaving.inject(interleaving.BEFORE_COMMIT, competitor), pytest.raises(CommitConflictError) as raised:
        doris.replace_table(spark, table=t1, with_table="t2")
    assert str(raised.value) == (
        f"Cannot replace {t1} with {t2}: another writer committed to one of them before each of 8 attempts; "
        "nothing was changed. Run it again when the writes stop."
    )
    assert readers_agree(spark, py_catalog, t1) == [(1, "a", 0), (2, "a", 0)]
    assert readers_agree(spark, py_catalog, t2) == [(1, "b", 0), (3, "b", 0)] + [(k, "meanwhile", 0) for k in inserted]


_SWAP_ON_POSTGRES = r'''
import sys
import iceberg_doris
from iceberg_doris import doris
from iceberg_doris.engine import interleaving
url, warehouse = sys.argv[1], sys.argv[2]
spark = iceberg_doris.session(catalog_uri=url, warehouse=warehouse)
spark.conf.set("spark.doris.sparkStatements.enabled", "false")
spark.sql("CREATE NAMESPACE n")
for name, value in (("t1", "a"), ("t2", "b"), ("t3", "c")):
    doris.create_table(spark, ddl=f"CREATE TABLE n.{name} (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=f"n.{name}", query=f"SELECT 1 AS k, '{value}' AS v")
fired = []
def competitor(name):
    if not fired:
        fired.append(name.qualified)
        spark.sql("INSERT INTO n.t1 VALUES (2, 'meanwhile')")
with interleaving.inject(interleaving.BEFORE_COMMIT, competitor):
    doris.replace_table(spark, table="n.t1", with_table="t2")
doris.replace_table(spark, table="n.t3", with_table="n.t2", swap=False)
doris.load(spark, table="n.t3", query="SELECT 1 AS k, 'x' AS v")
for name in ("n.t1", "n.t3"):
    print(name, sorted(tuple(r) for r in spark.table(name).collect()))
print("t2 exists", spark.catalog.tableExists("n.t2"))
'''


@pytest.mark.postgres
def test_the_swap_on_a_postgresql_catalog(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(_SWAP_ON_POSTGRES)
    env = dict(os.environ, ICEBERG_DORIS_HOME=str(tmp_path / "home"), PYTHONPATH=str(Path(__file__).parents[2]))
    with postgres_server() as url:
        run = subprocess.run(
            [sys.executable, str(script), url, str(tmp_path / "warehouse")],
            capture_output=True, text=True, env=env, timeout=600,
        )
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.splitlines()[-3:] == [
        "n.t1 [(1, 'b')]",
        "n.t3 [(1, 'x'), (2, 'meanwhile')]",  # t1's old table, with the commit that raced the first swap
        "t2 exists False",
    ]


def test_a_load_that_planned_before_the_swap_fails_having_committed_nothing(spark, namespace, py_catalog):
    # The load looked its keys up in t1's table; the swap lands before the load takes t1's lock.
    # Iceberg's refresh then finds another table (another UUID) under t1: the load commits nothing
    # and says why; run again, it loads the table t1 names now, one row per key.
    t1, t2 = two_tables(spark, namespace)

    def swap(name: TableName) -> None:
        if name.qualified == t1:
            doris.replace_table(spark, table=t1, with_table="t2")

    load = values(["(1,'load',0)", "(3,'load',0)", "(4,'load',0)"])
    with interleaving.inject(interleaving.LOOKED_UP, swap), pytest.raises(CommitConflictError) as raised:
        doris.load(spark, table=t1, query=load, label="raced")
    assert str(raised.value).startswith(
        "doris.load failed: the table was replaced by another table of the same name while it ran "
        "(doris.replace_table, or a drop and create: Table UUID does not match: current="
    )
    assert readers_agree(spark, py_catalog, t1) == [(1, "b", 0), (3, "b", 0)]
    assert readers_agree(spark, py_catalog, t2) == [(1, "a", 0), (2, "a", 0)]
    doris.load(spark, table=t1, query=load, label="raced")
    assert readers_agree(spark, py_catalog, t1) == [(1, "load", 0), (3, "load", 0), (4, "load", 0)]


def test_an_append_whose_commit_meets_the_swap_fails_having_committed_nothing(spark, namespace, py_catalog):
    # A DUPLICATE KEY load holds d1's lock at BEFORE_COMMIT; the swap (its locks re-entrant in this
    # thread) lands first. The load's catalog swap then fails, and its retry finds another table
    # (another UUID) under d1: nothing committed, in words.
    for name in ("d1", "d2"):
        doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.{name} (k INT, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
        doris.load(spark, table=f"{namespace}.{name}", query=f"SELECT 1 AS k, '{name}' AS v")
    d1 = f"{namespace}.d1"
    fired: list[bool] = []

    def swap(name: TableName) -> None:
        if name.qualified == d1 and not fired:
            fired.append(True)
            doris.replace_table(spark, table=d1, with_table="d2")

    with interleaving.inject(interleaving.BEFORE_COMMIT, swap), pytest.raises(CommitConflictError) as raised:
        doris.load(spark, table=d1, query="SELECT 2 AS k, 'load' AS v")
    assert "the table was replaced by another table of the same name while it ran" in str(raised.value)
    assert readers_agree(spark, py_catalog, d1) == [(1, "d2")]
    assert readers_agree(spark, py_catalog, f"{namespace}.d2") == [(1, "d1")]
