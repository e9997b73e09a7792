"""Where a small load's time goes: the driver's round trips into Spark's JVM, by call site.

A 1-row batch is loaded into N-row tables (suite (g)'s tables and batch: DUPLICATE, UNIQUE BIGINT,
UNIQUE BIGINT with a sequence column) and the same batch goes through ``INSERT INTO`` and
``MERGE INTO`` (merge-on-read) on the plain table. Each contender runs ``--reps`` times after
three untimed loads, rolled back after every load; the median repetition is reported with
:class:`benchmarks.load_breakdown.LoadBreakdown` (jobs, driver time, job time), and, for
``doris.load``, the time spent in py4j round trips by the iceberg-doris function that made them.

In a load almost all the driver's time is spent waiting on the JVM (analysing plans, planning
files, committing), so the round trips' time by call site is where the time goes. Timing every
round trip costs a little (the wall times here are a few percent above suite (g)'s).

    .venv/bin/python -m benchmarks.driver_profile --rows 1000000 > profile.md
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from benchmarks.common import current_snapshot, fmt_seconds, new_namespace, rollback
from benchmarks.load_breakdown import Breakdown, LoadBreakdown
from benchmarks.suite_small_loads import CASES, batch_ids, doris_ddl, merge_sql, plain_ddl, rows_frame

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

PROFILED = ("DUPLICATE", "UNIQUE BIGINT", "UNIQUE BIGINT + seq")
TOP_SITES = 12


def contenders(spark: "SparkSession", namespace: str, rows: int, work: Path) -> dict[str, tuple[str, Callable[[], Any]]]:
    """name -> (table, load action): the tables of ``rows`` rows, built here, and a 1-row batch."""
    from iceberg_doris import doris

    base, batch = str(work / "base"), str(work / "batch")
    rows_frame(spark, spark.range(rows), "BIGINT", 0).write.mode("overwrite").parquet(base)
    rows_frame(spark, batch_ids(spark, rows, 1), "BIGINT", 1).write.mode("overwrite").parquet(batch)
    plain = f"{namespace}.plain"
    spark.sql(plain_ddl(plain, "BIGINT"))
    spark.read.parquet(base).writeTo(plain).append()
    source = spark.read.parquet(batch)
    source.createOrReplaceTempView("driver_profile_batch")
    by_name = {case.name: case for case in CASES}
    actions: dict[str, tuple[str, Callable[[], Any]]] = {
        "INSERT INTO": (plain, lambda: spark.sql(f"INSERT INTO {plain} SELECT k, v1, v2, s, seq FROM parquet.`{batch}`").collect()),
        "MERGE INTO (MoR)": (plain, lambda: spark.sql(merge_sql(plain, "driver_profile_batch", by_name["UNIQUE BIGINT"])).collect()),
    }
    for name in PROFILED:
        table = f"{namespace}.{by_name[name].doris_table_slug}"
        doris.create_table(spark, ddl=doris_ddl(table, by_name[name]))
        doris.load(spark, table=table, source=spark.read.parquet(base))
        actions[f"doris.load, {name}"] = (table, lambda table=table: doris.load(spark, table=table, source=source))
    return actions


def profile(spark: "SparkSession", actions: dict[str, tuple[str, Callable[[], Any]]], reps: int,
            warmups: int = 3) -> dict[str, Breakdown]:
    """The median repetition (by wall time) of each contender, round trips timed by call site."""
    snapshots = {table: current_snapshot(spark, table) for table, _ in actions.values()}
    for _ in range(warmups):  # untimed: JIT, caches, the key index's entries
        for table, action in actions.values():
            action()
            rollback(spark, table, snapshots[table])
    results: dict[str, list[Breakdown]] = {name: [] for name in actions}
    for rep in range(reps):
        for name, (table, action) in (actions.items() if rep % 2 == 0 else reversed(list(actions.items()))):
            with LoadBreakdown(spark, by_site=True) as recorder:
                action()
            results[name].append(recorder.result)
            rollback(spark, table, snapshots[table])
    return {name: sorted(items, key=lambda b: b.wall)[len(items) // 2] for name, items in results.items()}


def report(rows: int, reps: int, medians: dict[str, Breakdown]) -> str:
    lines = [f"# Where a 1-row load's time goes ({rows:,}-row tables, median of {reps})", "",
             "| contender | wall | Spark jobs | driver time | job time | py4j round trips | time in round trips |",
             "|---|---|---|---|---|---|---|"]
    for name, b in medians.items():
        in_trips = sum(seconds for _, seconds in b.sites.values())
        lines.append(f"| {name} | {fmt_seconds(b.wall)} | {b.jobs} | {fmt_seconds(b.driver_seconds)} | "
                     f"{fmt_seconds(b.job_seconds)} | {b.py4j_calls} | {fmt_seconds(in_trips)} |")
    for name, b in medians.items():
        if not name.startswith("doris.load"):
            continue
        lines += ["", f"## {name}: round trips by call site (top {TOP_SITES})", "",
                  "| call site | round trips | seconds | share of the wall time |", "|---|---|---|---|"]
        for site, (count, seconds) in sorted(b.sites.items(), key=lambda item: -item[1][1])[:TOP_SITES]:
            lines.append(f"| `{site}` | {int(count)} | {fmt_seconds(seconds)} | {seconds / b.wall:.0%} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows of each table (default 1000000)")
    parser.add_argument("--reps", type=int, default=5, help="profiled repetitions per contender (median reported)")
    parser.add_argument("--home", type=Path, default=None, help="ICEBERG_DORIS_HOME for the run (default: a temporary folder)")
    args = parser.parse_args(argv)
    import iceberg_doris

    with tempfile.TemporaryDirectory(prefix="driver_profile_") as scratch:
        home = args.home or Path(scratch) / "home"
        spark = iceberg_doris.session(home=home)
        spark.sparkContext.setLogLevel("ERROR")
        namespace = new_namespace(spark, "driver_profile")
        actions = contenders(spark, namespace, args.rows, Path(scratch))
        sys.stdout.write(report(args.rows, args.reps, profile(spark, actions, args.reps)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
