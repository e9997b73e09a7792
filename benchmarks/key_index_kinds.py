"""A 1% (or --fraction) upsert per key kind: the key index vs the scan lookup vs MERGE INTO.

For each key kind (BIGINT; VARCHAR; composite DATE + BIGINT; BIGINT with a sequence column) an
N-row UNIQUE KEY table (``doris.create_table``, v3) and a plain Iceberg v3 merge-on-read table get
the same batch (~91% updates of random keys, ~9% new keys). Contenders, interleaved, each from the
same base snapshot (rolled back between repetitions):

- ``index``: ``doris.load`` through the key index, warm (entries in executor memory);
- ``index cold``: ``doris.load`` after the executor cache is cleared: entries read from their
  stored files (what a new session's first load does);
- ``index build``: cache cleared and entries deleted: every probed entry built from its data file;
- ``scan``: ``doris.load`` with ``spark.doris.keyIndex.enabled=false`` (the lookup before the index
  covered this key kind);
- ``MERGE INTO``: Spark's MERGE INTO on the merge-on-read table.

It also reports the size on disk of the base files' index entries (written by the load of the
base rows) against the same key columns written as Parquet by Spark.

Before the timed repetitions each kind runs ``--warmup`` untimed loads of the indexed load and of
MERGE INTO (default 2), so the JVM's warm-up does not fall on whichever kind runs first.

Rows are checked equal (digest) across contenders before timing counts. Run from the repository root:

    .venv/bin/python -m benchmarks.key_index_kinds --scale 1000000 --reps 3
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from pathlib import Path

KINDS = {
    "BIGINT": ("k BIGINT NOT NULL, v1 BIGINT, v2 DOUBLE, s STRING", "k", "k", "", "k"),
    "VARCHAR": ("k VARCHAR(32) NOT NULL, v1 BIGINT, v2 DOUBLE, s STRING", "k", "k", "", "k"),
    "DATE+BIGINT": ("dt DATE NOT NULL, k BIGINT NOT NULL, v1 BIGINT, v2 DOUBLE, s STRING", "dt, k", "k", "", "dt, k"),
    "BIGINT+sequence": (
        "k BIGINT NOT NULL, v1 BIGINT, v2 DOUBLE, s STRING", "k", "k", 'PROPERTIES ("function_column.sequence_col" = "v1")', "k"
    ),
}


CONTENDERS = ("index", "cold", "build", "scan", "merge")


def frame(spark, kind: str, ids, version: int):
    from pyspark.sql import functions as F

    key = F.col("id")
    columns = []
    if kind == "DATE+BIGINT":
        columns.append(F.date_add(F.lit("2024-01-01").cast("date"), (key % 365).cast("int")).alias("dt"))
        columns.append((key / 365).cast("bigint").alias("k"))
    elif kind == "VARCHAR":
        columns.append(F.concat(F.lit("order-"), F.lpad(key.cast("string"), 12, "0")).alias("k"))
    else:
        columns.append(key.alias("k"))
    columns += [(key * 3 + version).alias("v1"), (key / 7.0).alias("v2"), F.concat(F.lit(f"s{version}-"), key.cast("string")).alias("s")]
    return ids.select(*columns)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=1_000_000)
    parser.add_argument("--fraction", type=float, default=0.01)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=2, help="untimed loads of each contender per kind, before the repetitions")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument(
        "--contenders", default=",".join(CONTENDERS),
        help="a subset of index,cold,build,scan,merge (at 10M the scan and build take minutes per repetition)",
    )
    parser.add_argument("--home", type=Path, default=Path("benchmarks/work/kinds"))
    parser.add_argument("--driver-memory", default=None)
    args = parser.parse_args()

    import iceberg_doris
    from iceberg_doris import doris
    from iceberg_doris.engine import key_index
    from iceberg_doris.engine.iceberg_java import IcebergJava
    from benchmarks.common import current_snapshot, digest, rollback

    if args.home.exists():
        shutil.rmtree(args.home)
    conf = {"spark.driver.memory": args.driver_memory} if args.driver_memory else None
    spark = iceberg_doris.session(home=args.home.resolve(), conf=conf)
    iceberg = IcebergJava(spark)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS kinds")
    n = args.scale
    contenders = [c for c in CONTENDERS if c in args.contenders.split(",")]
    print(f"scale {n}, batch fraction {args.fraction}, reps {args.reps}, driver memory {spark.conf.get('spark.driver.memory', '1g (default)')}")
    print("| key kind | index (warm) | index cold (entries read) | index build | scan | MERGE INTO MoR | MERGE / index | MERGE / cold | MERGE / scan |")
    print("|---|---|---|---|---|---|---|---|---|")
    sizes: list[str] = []
    for kind in args.kinds.split(","):
        ddl, keys, hashed, props, key_cols = KINDS[kind]
        slug = "".join(c for c in kind.lower() if c.isalnum())
        base_path = str(args.home.resolve() / f"{slug}_base")
        batch_path = str(args.home.resolve() / f"{slug}_batch")
        frame(spark, kind, spark.range(n), 0).write.mode("overwrite").parquet(base_path)
        ids = spark.range(int(n * 1.1)).sample(False, args.fraction, seed=7)
        frame(spark, kind, ids, 1).write.mode("overwrite").parquet(batch_path)
        doris_table, mor_table = f"kinds.{slug}_doris", f"kinds.{slug}_mor"
        doris.create_table(spark, ddl=f"CREATE TABLE {doris_table} ({ddl}) UNIQUE KEY({keys}) DISTRIBUTED BY HASH({hashed}) BUCKETS AUTO {props}")
        doris.load(spark, table=doris_table, source=spark.read.parquet(base_path))
        spark.sql(
            f"CREATE TABLE {mor_table} ({ddl.replace(' NOT NULL', '')}) USING iceberg TBLPROPERTIES ('format-version'='3', "
            "'write.merge.mode'='merge-on-read', 'write.update.mode'='merge-on-read', 'write.delete.mode'='merge-on-read')"
        )
        spark.read.parquet(base_path).writeTo(mor_table).append()
        bases = {doris_table: current_snapshot(spark, doris_table), mor_table: current_snapshot(spark, mor_table)}
        sizes.append(index_size_row(spark, iceberg, kind, doris_table, key_cols, args.home.resolve() / f"{slug}_keys"))
        on = " AND ".join(f"t.{c.strip()} = s.{c.strip()}" for c in key_cols.split(","))
        entries = Path(iceberg.load_table(iceberg.name(doris_table)).location().removeprefix("file:")) / "_doris_key_index"

        def run_doris(mode: str) -> float:
            spark.conf.set(key_index.ENABLED_CONF, "false" if mode == "scan" else "true")
            if mode in ("cold", "build"):
                key_index.clear_cache(iceberg)
            if mode == "build":
                shutil.rmtree(entries, ignore_errors=True)
            # The source frame is made before the clock starts, as MERGE INTO's view is.
            source = spark.read.parquet(batch_path)
            started = time.perf_counter()
            result = doris.load(spark, table=doris_table, source=source)[0]
            elapsed = time.perf_counter() - started
            summary = spark.sql(f"SELECT summary['doris.key-index'] FROM {doris_table}.snapshots WHERE snapshot_id = {result.snapshot_id}").collect()[0][0]
            spark.conf.unset(key_index.ENABLED_CONF)
            summaries.setdefault(mode, summary)
            return elapsed

        def run_merge() -> float:
            spark.read.parquet(batch_path).createOrReplaceTempView("kinds_src")
            started = time.perf_counter()
            spark.sql(f"MERGE INTO {mor_table} t USING kinds_src s ON {on} WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *").collect()
            return time.perf_counter() - started

        summaries: dict[str, str] = {}
        times: dict[str, list[float]] = {m: [] for m in contenders}
        run_doris("build")  # warm-up, and entries exist from here on
        rollback(spark, doris_table, bases[doris_table])
        for _ in range(args.warmup):
            # Both contenders' code paths warmed alike before timing: the JVM compiles the hot
            # paths over the first loads, which otherwise penalises whichever kind runs first.
            run_doris("index")
            rollback(spark, doris_table, bases[doris_table])
            run_merge()
            rollback(spark, mor_table, bases[mor_table])
        summaries.clear()
        found: dict[str, object] = {}
        for rep in range(args.reps):
            order = list(contenders) if rep % 2 == 0 else list(reversed(contenders))
            for mode in order:
                if mode == "merge":
                    times[mode].append(run_merge())
                    if rep == 0:
                        found[mode] = digest(spark.table(mor_table), ["k", "v1", "v2", "s"], None)
                    rollback(spark, mor_table, bases[mor_table])
                    continue
                if mode == "index":
                    run_doris("index") if not times["index"] else None  # entries in memory first
                    rollback(spark, doris_table, bases[doris_table])
                times[mode].append(run_doris(mode))
                if rep == 0:  # the rows are checked once; digesting a 10M-row table every time costs seconds
                    found[mode] = digest(spark.table(doris_table), ["k", "v1", "v2", "s"], None)
                rollback(spark, doris_table, bases[doris_table])
        assert len(set(map(repr, found.values()))) == 1, (kind, found)
        med = {m: statistics.median(v) for m, v in times.items()}
        cells = [f"{med[m]:.2f} s" if m in med else "-" for m in CONTENDERS]
        ratios = [f"{med['merge'] / med[m]:.2f}x" if m in med and "merge" in med else "-" for m in ("index", "cold", "scan")]
        print(f"| {kind} | " + " | ".join(cells + ratios) + " |", flush=True)
        print(f"<!-- {kind}: summaries {summaries}; all times {times} -->", flush=True)
    print()
    print("| key kind | index entries on disk | key columns as Parquet (Spark, snappy) | index / key columns |")
    print("|---|---|---|---|")
    for row in sizes:
        print(row)


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*.parquet"))


def index_size_row(spark, iceberg, kind: str, table: str, key_cols: str, keys_folder: Path) -> str:
    """The base files' stored entries against their key columns as Parquet."""
    location = Path(iceberg.load_table(iceberg.name(table)).location().removeprefix("file:"))
    entries = folder_bytes(location / "_doris_key_index")
    spark.table(table).select(*[c.strip() for c in key_cols.split(",")]).write.mode("overwrite").parquet(str(keys_folder))
    keys = folder_bytes(keys_folder)
    return f"| {kind} | {entries / 1e6:.3f} MB | {keys / 1e6:.3f} MB | {entries / keys:.2f}x |"


if __name__ == "__main__":
    main()
