"""Every pair of operations on one table, forced (issue 52): operation B runs, and right before its
catalog swap (under the table's lock, the worst moment) operation A commits. The result must be a
serial one: what A then B, or B then A, gives on a fresh copy of the table, or A alone when B
refused in words (a ``CommitConflictError``, nothing of B committed). Every reader sees one live
row per key.

The operations: a keyed load with a sequence column, Spark's ``UPDATE`` and ``DELETE`` (each a
read-modify-write of the table), ``doris.compact``, ``doris.swap_temp_partition`` and a stream's
micro-batch (``doris.stream_to``)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import interleaving
from iceberg_doris.errors import CommitConflictError
from tests.concurrency import once_for
from tests.support import duckdb_reader

pytestmark = pytest.mark.spark

DDL = (
    "CREATE TABLE {table} (p INT NOT NULL, k INT NOT NULL, v STRING, s INT) UNIQUE KEY(p, k) "
    'PARTITION BY RANGE(p) (PARTITION p1 VALUES LESS THAN ("10"), PARTITION p2 VALUES LESS THAN ("20")) '
    'DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("function_column.sequence_col" = "s")'
)
START = "SELECT * FROM VALUES (1, 1, 'a', 1), (1, 2, 'b', 1), (11, 3, 'c', 1), (11, 4, 'd', 1) AS t(p, k, v, s)"
STAGED = "SELECT * FROM VALUES (11, 3, 'tmp', 9), (12, 6, 'tmp', 9) AS t(p, k, v, s)"


def make_table(spark: Any, table: str, needs: frozenset[str]) -> None:
    """The table every run of a case starts from: rows in both partitions, and what the case's
    operations need (a deletion vector for compact, a loaded temp partition for swap)."""
    doris.create_table(spark, ddl=DDL.format(table=table))
    doris.load(spark, table=table, query=START)
    if "compact" in needs:
        doris.load(spark, table=table, query="SELECT 1 AS p, 1 AS k, 'a2' AS v, 2 AS s")
    if "swap" in needs:
        doris.add_partition(spark, table=table, partition="tp2", values_range=["10", "20"], temporary=True)
        doris.load(spark, table=table, query=STAGED, temporary_partitions=["tp2"])


def load(spark: Any, table: str, *, competing: bool = False) -> None:
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 1, 'L', 5), (11, 4, 'L', 5), (1, 5, 'L', 5) AS t(p, k, v, s)")


def update(spark: Any, table: str, *, competing: bool = False) -> None:
    if competing:  # what Spark's UPDATE runs, called here (see test_a_pair_of_operations_gives_a_serial_result)
        doris.load(spark, table=table, query=f"SELECT p, k, concat(v, '+u') AS v, s FROM {table} WHERE k <= 3")
    else:
        spark.sql(f"UPDATE {table} SET v = concat(v, '+u') WHERE k <= 3")


def delete(spark: Any, table: str, *, competing: bool = False) -> None:
    if competing:  # what Spark's DELETE runs on a UNIQUE KEY table
        doris.load(spark, table=table, query=f"SELECT * FROM {table} WHERE v IN ('b', 'd', 'L')", merge_type="DELETE")
    else:
        spark.sql(f"DELETE FROM {table} WHERE v IN ('b', 'd', 'L')")


def compact(spark: Any, table: str, *, competing: bool = False) -> None:
    doris.compact(spark, table=table)


def swap(spark: Any, table: str, *, competing: bool = False) -> None:
    doris.swap_temp_partition(spark, table=table, partitions=["p2"], temp_partitions=["tp2"])


def stream_batch(spark: Any, table: str, *, competing: bool = False) -> None:
    batch = spark.sql("SELECT * FROM VALUES (1, 2, 'S', 7), (11, 9, 'S', 7) AS t(p, k, v, s)")
    doris.stream_to(table, name="pairs")(batch, 0)


OPERATIONS: dict[str, Callable[..., None]] = {
    "load": load, "update": update, "delete": delete, "compact": compact, "swap": swap, "stream": stream_batch,
}
# Every ordered pair of two different operations (twins are in test_forced_interleavings.py and
# test_serialised_statements.py).
PAIRS = [(a, b) for a, b in itertools.product(OPERATIONS, OPERATIONS) if a != b]
# What a fresh table holds after a sequence of operations run one after the other: shared by the
# pairs that need it (each takes a table of its own to compute).
SERIAL: dict[tuple[frozenset[str], tuple[str, ...]], list[tuple[Any, ...]]] = {}


def serial_result(spark: Any, namespace: str, needs: frozenset[str], order: tuple[str, ...]) -> list[tuple[Any, ...]]:
    """What a fresh table holds after ``order``'s operations, one after the other."""
    if (needs, order) not in SERIAL:
        table = f"{namespace}.serial_{'_'.join(order)}"
        make_table(spark, table, needs)
        for name in order:
            OPERATIONS[name](spark, table)
        SERIAL[(needs, order)] = rows(spark, table)
    return SERIAL[(needs, order)]


def every_reader(spark: Any, py_catalog: Any, table: str) -> list[tuple[Any, ...]]:
    """The rows as Spark, pyiceberg and DuckDB read them (the same, or the test fails), sorted."""
    seen = rows(spark, table)
    loaded = py_catalog.load_table(table)
    arrow = sorted(tuple(r[n] for n in ("p", "k", "v", "s")) for r in loaded.scan().to_arrow().to_pylist())
    duck = sorted(tuple(r) for r in duckdb_reader.read_rows(loaded.metadata_location, "p, k, v, s", order_by="p, k"))
    assert arrow == seen == duck
    return seen


def rows(spark: Any, table: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in spark.sql(f"SELECT * FROM {table} ORDER BY p, k").collect()]


@pytest.mark.parametrize(("first", "second"), PAIRS, ids=[f"{a}-before-{b}-swaps" for a, b in PAIRS])
def test_a_pair_of_operations_gives_a_serial_result(spark_statements, namespace, py_catalog, first, second):
    spark = spark_statements
    needs = frozenset((first, second))
    table = f"{namespace}.raced"
    make_table(spark, table, needs)
    refused = None
    # The competitor runs inside the operation's commit, on its thread, which holds the table's
    # lock: it gets in as a writer outside the lock would. Spark's statements run their Python part
    # on a thread of py4j's own, which would wait for that lock: the competitor calls what they run.
    competitor = lambda: OPERATIONS[first](spark, table, competing=True)  # noqa: E731
    with interleaving.inject(interleaving.BEFORE_COMMIT, once_for(table, competitor)):
        try:
            OPERATIONS[second](spark, table)
        except CommitConflictError as error:
            refused = error
        except Exception as error:  # noqa: BLE001 - a statement's refusal reaches us as Spark's exception
            if "nothing was committed" not in str(error):
                raise
            refused = error
    seen = every_reader(spark, py_catalog, table)
    keys = [(p, k) for p, k, _, _ in seen]
    assert len(keys) == len(set(keys)), f"a key stored twice: {seen}"
    # The serial results, computed as needed (each on a fresh table of its own).
    orders = [(first,)] if refused is not None else [(first, second), (second, first)]
    results = []
    for order in orders:
        results.append(serial_result(spark, namespace, needs, order))
        if seen == results[-1]:
            return
    raise AssertionError(f"not a serial result ({refused=}): {seen}; serial: {dict(zip(orders, results))}")
