"""Loads that merge with the stored rows: the key index (hits read by position) vs the scan.

Two shapes, each on an N-row table (``doris.create_table``, v3) with a batch of ``--fraction`` of
N (~91% existing keys, ~9% new):

- ``aggregate SUM``: AGGREGATE KEY(k) with v1 BIGINT SUM, v2 DOUBLE MAX, s STRING REPLACE;
- ``partial update``: UNIQUE KEY(k), a partial-column load of (k, v1) (v2 and s kept).

Contenders, interleaved, each from the same base snapshot (rolled back between repetitions):
``index`` (warm: entries in executor memory), ``index cold`` (executor cache cleared: entries read
from their stored files), ``scan`` (``spark.doris.keyIndex.enabled=false``) and Spark's ``MERGE
INTO`` on a plain Iceberg v3 merge-on-read table of the same rows, written to do what the Doris
load does (aggregate: ``v1 = t.v1 + s.v1, v2 = greatest(t.v2, s.v2), s = s.s``; partial update:
``v1 = s.v1``, new keys inserted with NULLs). Rows are checked equal (digest) across all
contenders. ``--contenders`` runs a subset (at 10M the scan takes much longer than the rest), and
``--warmup`` untimed loads of the indexed load and of ``MERGE INTO`` per shape come before the
repetitions, so the JVM's warm-up falls on neither. Run from the repository root:

    .venv/bin/python -m benchmarks.key_index_row_reads --scale 1000000 --reps 3
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from pathlib import Path

MERGES = {
    "aggregate SUM": (
        "WHEN MATCHED THEN UPDATE SET v1 = t.v1 + s.v1, v2 = greatest(t.v2, s.v2), s = s.s WHEN NOT MATCHED THEN INSERT *"
    ),
    "partial update": (
        "WHEN MATCHED THEN UPDATE SET v1 = s.v1 WHEN NOT MATCHED THEN INSERT (k, v1, v2, s) VALUES (s.k, s.v1, NULL, NULL)"
    ),
}
CONTENDERS = ("index", "cold", "scan", "merge")
SHAPES = {
    "aggregate SUM": ("k BIGINT NOT NULL, v1 BIGINT SUM, v2 DOUBLE MAX, s STRING REPLACE", "AGGREGATE KEY(k)", None),
    "partial update": ("k BIGINT NOT NULL, v1 BIGINT, v2 DOUBLE, s STRING", "UNIQUE KEY(k)", "k, v1"),
}


def frame(spark, ids, version: int, columns: str | None):
    from pyspark.sql import functions as F

    key = F.col("id")
    every = [key.alias("k"), (key * 3 + version).alias("v1"), (key / 7.0).alias("v2"), F.concat(F.lit(f"s{version}-"), key.cast("string")).alias("s")]
    rows = ids.select(*every)
    return rows.select(*[c.strip() for c in columns.split(",")]) if columns else rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=1_000_000)
    parser.add_argument("--fraction", type=float, default=0.01)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--contenders", default=",".join(CONTENDERS), help="a subset of index,cold,scan,merge")
    parser.add_argument("--warmup", type=int, default=1, help="untimed loads of the indexed load and of MERGE INTO per shape, before the repetitions")
    parser.add_argument("--home", type=Path, default=Path("benchmarks/work/row_reads"))
    args = parser.parse_args()

    import iceberg_doris
    from iceberg_doris import doris
    from iceberg_doris.engine import key_index
    from iceberg_doris.engine.iceberg_java import IcebergJava
    from benchmarks.common import current_snapshot, digest, rollback

    if args.home.exists():
        shutil.rmtree(args.home)
    spark = iceberg_doris.session(home=args.home.resolve())
    iceberg = IcebergJava(spark)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS rowreads")
    n = args.scale
    contenders = [c for c in CONTENDERS if c in args.contenders.split(",")]
    print(f"scale {n}, batch fraction {args.fraction}, reps {args.reps}, driver memory {spark.conf.get('spark.driver.memory', '1g (default)')}")
    print("| shape | index (warm) | index cold (entries read) | scan | MERGE INTO MoR | scan / index | MERGE / index | MERGE / cold |")
    print("|---|---|---|---|---|---|---|---|")
    for shape in args.shapes.split(","):
        ddl, keys, partial = SHAPES[shape]
        slug = "".join(c for c in shape.lower() if c.isalnum())
        base_path = str(args.home.resolve() / f"{slug}_base")
        batch_path = str(args.home.resolve() / f"{slug}_batch")
        frame(spark, spark.range(n), 0, None).write.mode("overwrite").parquet(base_path)
        ids = spark.range(int(n * 1.1)).sample(False, args.fraction, seed=7)
        frame(spark, ids, 1, partial).write.mode("overwrite").parquet(batch_path)
        table = f"rowreads.{slug}"
        doris.create_table(spark, ddl=f"CREATE TABLE {table} ({ddl}) {keys} DISTRIBUTED BY HASH(k) BUCKETS AUTO")
        doris.load(spark, table=table, source=spark.read.parquet(base_path))
        mor = f"rowreads.{slug}_mor"
        spark.sql(
            f"CREATE TABLE {mor} (k BIGINT, v1 BIGINT, v2 DOUBLE, s STRING) USING iceberg TBLPROPERTIES ('format-version'='3', "
            "'write.merge.mode'='merge-on-read', 'write.update.mode'='merge-on-read', 'write.delete.mode'='merge-on-read')"
        )
        spark.read.parquet(base_path).writeTo(mor).append()
        mor_base = current_snapshot(spark, mor)
        base = current_snapshot(spark, table)
        options = {"columns": partial, "partial_columns": True} if partial else {}
        summaries: dict[str, str] = {}

        def run(mode: str) -> float:
            spark.conf.set(key_index.ENABLED_CONF, "false" if mode == "scan" else "true")
            if mode == "cold":
                key_index.clear_cache(iceberg)
            # The source frame is made before the clock starts, as MERGE INTO's view is.
            source = spark.read.parquet(batch_path)
            started = time.perf_counter()
            result = doris.load(spark, table=table, source=source, **options)[0]
            elapsed = time.perf_counter() - started
            summary = spark.sql(f"SELECT summary['doris.key-index'] FROM {table}.snapshots WHERE snapshot_id = {result.snapshot_id}").collect()[0][0]
            spark.conf.unset(key_index.ENABLED_CONF)
            summaries.setdefault(mode, summary)
            return elapsed

        def run_merge() -> float:
            spark.read.parquet(batch_path).createOrReplaceTempView("row_reads_src")
            started = time.perf_counter()
            spark.sql(f"MERGE INTO {mor} t USING row_reads_src s ON t.k = s.k {MERGES[shape]}").collect()
            return time.perf_counter() - started

        times: dict[str, list[float]] = {m: [] for m in contenders}
        run("index")  # warm-up: entries built and stored
        rollback(spark, table, base)
        for _ in range(args.warmup):
            run("index")
            rollback(spark, table, base)
            run_merge()
            rollback(spark, mor, mor_base)
        summaries.clear()
        found = {}
        for rep in range(args.reps):
            order = list(contenders) if rep % 2 == 0 else list(reversed(contenders))
            for mode in order:
                if mode == "merge":
                    times[mode].append(run_merge())
                    if rep == 0:
                        found[mode] = digest(spark.table(mor), ["k", "v1", "v2", "s"], "k")
                    rollback(spark, mor, mor_base)
                    continue
                if mode == "index":
                    run("index")  # entries of the base files in memory
                    rollback(spark, table, base)
                times[mode].append(run(mode))
                if rep == 0:
                    found[mode] = digest(spark.table(table), ["k", "v1", "v2", "s"], "k")
                rollback(spark, table, base)
        assert len(set(map(repr, found.values()))) == 1, (shape, found)
        med = {m: statistics.median(v) for m, v in times.items()}
        cells = [f"{med[m]:.2f} s" if m in med else "-" for m in CONTENDERS]

        def ratio(slow: str, fast: str) -> str:
            return f"{med[slow] / med[fast]:.2f}x" if slow in med and fast in med else "-"

        ratios = [ratio("scan", "index"), ratio("merge", "index"), ratio("merge", "cold")]
        print(f"| {shape} | " + " | ".join(cells + ratios) + " |", flush=True)
        print(f"<!-- {shape}: summaries {summaries}; all times {times} -->", flush=True)


if __name__ == "__main__":
    main()
