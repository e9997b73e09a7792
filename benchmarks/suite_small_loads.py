"""Suite (g): small loads (1 to 10,000 rows) into N-row tables of every model vs plain Spark.

For each table size (``--sizes``, default N) and each case below, a batch of 1, 100, 1,000 and
10,000 rows is loaded into an N-row table, against the plain Spark statement on a plain Iceberg v3
table holding the same N rows (``PARTITIONED BY (bucket(4, k))``; the Doris tables are
``DISTRIBUTED BY HASH(k) BUCKETS 4``, v3):

- DUPLICATE KEY(k): ``doris.load`` vs ``INSERT INTO t SELECT * FROM parquet.`<batch>```;
- UNIQUE KEY (merge-on-write) with a BIGINT key, a VARCHAR key and a composite DATE + BIGINT key,
  each without and with a sequence column (``function_column.sequence_col = seq``), a partial
  update (``partial_columns`` of k, v1) and AGGREGATE KEY(k) (v1 SUM, v2 MAX, s REPLACE, seq MAX):
  ``doris.load`` vs Spark's ``MERGE INTO`` on the plain table in merge-on-read mode, written to do
  what the Doris load does (sequence: ``WHEN MATCHED AND s.seq >= t.seq``; partial: ``SET v1 =
  s.v1``, new keys with NULLs; aggregate: ``v1 = t.v1 + s.v1, v2 = greatest(...), s = s.s``).

Batches of keyed loads hold half existing keys (spread evenly over the table) and half new keys;
every row is newer (``seq`` 2 over the base rows' 1). The DUPLICATE case appends the same rows.

The reference tables are plain Iceberg tables (``USING iceberg``, no Doris model): the session's
statement rule (Spark 4: ``INSERT INTO`` a Doris table runs as ``doris.load``) leaves them alone,
and the first repetition checks that their snapshot is not a Doris one. Each (case, batch)
runs an untimed warm-up load of both contenders, then ``reps`` repetitions interleaved, order
alternated; every table is rolled back to its base snapshot after every load, so each load goes
into the same N rows. After the first repetition each table's digest must equal the expected rows,
computed independently with Spark. Each timed load is wrapped in
:class:`benchmarks.load_breakdown.LoadBreakdown` (jobs, SQL executions, py4j calls, driver vs
executor time), whose medians form the breakdown table. Ratios: DUPLICATE ``doris.load / INSERT
INTO`` (target <= 1.1x); keyed ``MERGE INTO / doris.load`` (target >= 2x on 1M-row tables, >= 5x
on 10M, >= 10x on 100M).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from benchmarks.common import (
    Bench,
    ContendersDisagree,
    ResultTable,
    SuiteResult,
    Target,
    current_snapshot,
    digest,
    fmt_ratio,
    fmt_seconds,
    iceberg_table,
    median,
    profile_call,
    profile_text,
    require_same,
    rollback,
)
from benchmarks.load_breakdown import COLUMNS as BREAKDOWN_COLUMNS
from benchmarks.load_breakdown import Breakdown, LoadBreakdown, median_breakdown

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

BATCHES = (1, 100, 1_000, 10_000)
BUCKETS = 4
VALUES = ["v1", "v2", "s", "seq"]
# key kind -> key columns
KEY_KINDS = {"BIGINT": ["k"], "VARCHAR": ["k"], "DATE+BIGINT": ["dt", "k"]}
KEY_TYPES = {"BIGINT": "k BIGINT", "VARCHAR": "k VARCHAR(32)", "DATE+BIGINT": "dt DATE, k BIGINT"}


@dataclass(frozen=True)
class Case:
    """One row of the suite: a Doris table (model, key kind, sequence) and how the batch is loaded."""

    name: str
    key_kind: str
    model: str  # DUPLICATE, UNIQUE, AGGREGATE
    sequence: bool = False
    partial: bool = False

    @property
    def keyed(self) -> bool:
        return self.model != "DUPLICATE"

    @property
    def doris_table_slug(self) -> str:
        """Cases that load into the same Doris table share it (partial update: the UNIQUE BIGINT table)."""
        return f"{self.model}_{self.key_kind}_{'seq' if self.sequence else 'plain'}".lower().replace("+", "_")

    @property
    def reference(self) -> str:
        return "MERGE INTO (MoR)" if self.keyed else "INSERT INTO"


CASES = (
    Case("DUPLICATE", "BIGINT", "DUPLICATE"),
    Case("UNIQUE BIGINT", "BIGINT", "UNIQUE"),
    Case("UNIQUE BIGINT + seq", "BIGINT", "UNIQUE", sequence=True),
    Case("UNIQUE VARCHAR", "VARCHAR", "UNIQUE"),
    Case("UNIQUE VARCHAR + seq", "VARCHAR", "UNIQUE", sequence=True),
    Case("UNIQUE DATE+BIGINT", "DATE+BIGINT", "UNIQUE"),
    Case("UNIQUE DATE+BIGINT + seq", "DATE+BIGINT", "UNIQUE", sequence=True),
    Case("partial update (UNIQUE BIGINT; k, v1)", "BIGINT", "UNIQUE", partial=True),
    Case("AGGREGATE", "BIGINT", "AGGREGATE"),
)


def rows_frame(spark: "SparkSession", ids: "DataFrame", key_kind: str, version: int) -> "DataFrame":
    """Rows for the ids in column ``id``: the key columns of ``key_kind``, then v1, v2, s, seq."""
    from pyspark.sql import functions as F

    i = F.col("id")
    keys: list["Column"]
    if key_kind == "VARCHAR":
        keys = [F.concat(F.lit("order-"), F.lpad(i.cast("string"), 12, "0")).alias("k")]
    elif key_kind == "DATE+BIGINT":
        keys = [F.date_add(F.lit("2024-01-01").cast("date"), (i % 365).cast("int")).alias("dt"), (i / 365).cast("bigint").alias("k")]
    else:
        keys = [i.alias("k")]
    return ids.select(
        *keys,
        (i * 3 + version).alias("v1"),
        (i / 7.0 + version).alias("v2"),
        F.concat(F.lit(f"s{version}-"), i.cast("string")).alias("s"),
        F.lit(version + 1).cast("bigint").alias("seq"),
    )


def batch_ids(spark: "SparkSession", rows: int, batch: int, *, offset: int = 0, new_start: int | None = None) -> "DataFrame":
    """``batch`` distinct ids: half (rounded up, at most ``rows``) existing ids spread evenly over
    [0, rows), shifted by ``offset`` within their stride, and the rest new ids from ``new_start``
    (default ``rows``)."""
    from pyspark.sql import functions as F

    existing = min(batch - batch // 2, rows)
    new = batch - existing
    stride = max(1, rows // max(existing, 1))
    old_ids = spark.range(existing).select((F.col("id") * stride + (stride // 2 + offset) % stride).alias("id"))
    new_ids = spark.range(new).select((F.col("id") + (rows if new_start is None else new_start)).alias("id"))
    return old_ids.unionByName(new_ids).coalesce(1)


def new_keys(rows: int, batch: int) -> int:
    """How many of :func:`batch_ids`' ids are new keys."""
    return batch - min(batch - batch // 2, rows)


def doris_ddl(table: str, case: Case) -> str:
    keys = ", ".join(KEY_KINDS[case.key_kind])
    key_columns = ", ".join(f"{c} NOT NULL" for c in KEY_TYPES[case.key_kind].split(", "))
    if case.model == "AGGREGATE":
        values = "v1 BIGINT SUM, v2 DOUBLE MAX, s STRING REPLACE, seq BIGINT MAX"
    else:
        values = "v1 BIGINT, v2 DOUBLE, s STRING, seq BIGINT"
    properties = []
    if case.model == "UNIQUE":
        properties.append('"enable_unique_key_merge_on_write" = "true"')
    if case.sequence:
        properties.append('"function_column.sequence_col" = "seq"')
    props = f" PROPERTIES ({', '.join(properties)})" if properties else ""
    return (f"CREATE TABLE {table} ({key_columns}, {values}) {case.model} KEY({keys}) "
            f"DISTRIBUTED BY HASH(k) BUCKETS {BUCKETS}{props}")


def plain_ddl(table: str, key_kind: str) -> str:
    return (
        f"CREATE TABLE {table} ({KEY_TYPES[key_kind]}, v1 BIGINT, v2 DOUBLE, s STRING, seq BIGINT) USING iceberg "
        f"PARTITIONED BY (bucket({BUCKETS}, k)) TBLPROPERTIES ('format-version'='3', 'write.merge.mode'='merge-on-read', "
        "'write.update.mode'='merge-on-read', 'write.delete.mode'='merge-on-read')"
    )


def merge_sql(table: str, view: str, case: Case) -> str:
    keys = KEY_KINDS[case.key_kind]
    on = " AND ".join(f"t.{c} = s.{c}" for c in keys)
    if case.partial:
        columns = ", ".join(keys + VALUES)
        values = ", ".join([f"s.{c}" for c in keys + ["v1"]] + ["NULL"] * (len(VALUES) - 1))
        actions = f"WHEN MATCHED THEN UPDATE SET v1 = s.v1 WHEN NOT MATCHED THEN INSERT ({columns}) VALUES ({values})"
    elif case.model == "AGGREGATE":
        actions = ("WHEN MATCHED THEN UPDATE SET v1 = t.v1 + s.v1, v2 = greatest(t.v2, s.v2), s = s.s, seq = greatest(t.seq, s.seq) "
                   "WHEN NOT MATCHED THEN INSERT *")
    elif case.sequence:
        actions = "WHEN MATCHED AND s.seq >= t.seq THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    else:
        actions = "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    return f"MERGE INTO {table} t USING {view} s ON {on} {actions}"


def expected_rows(base: "DataFrame", batch: "DataFrame", case: Case) -> "DataFrame":
    """What the table must hold after the load, computed with plain Spark joins."""
    from pyspark.sql import functions as F

    keys = KEY_KINDS[case.key_kind]
    if not case.keyed:
        return base.unionByName(batch)
    if case.partial:
        new = batch.select(*keys, F.col("v1").alias("new_v1"))
        joined = base.join(new, keys, "full")
        return joined.select(*keys, F.coalesce("new_v1", "v1").alias("v1"), "v2", "s", "seq")
    if case.model == "AGGREGATE":
        b = batch.select(*keys, *[F.col(c).alias(f"b_{c}") for c in VALUES])
        joined = base.join(b, keys, "full")
        return joined.select(
            *keys,
            (F.coalesce("v1", F.lit(0)) + F.coalesce("b_v1", F.lit(0))).alias("v1"),
            F.greatest("v2", "b_v2").alias("v2"),
            F.coalesce("b_s", "s").alias("s"),
            F.greatest("seq", "b_seq").alias("seq"),
        )
    # UNIQUE, with or without a sequence column: every batch row is newer (seq 2 > 1).
    return base.join(batch.select(*keys), keys, "left_anti").unionByName(batch)


def _keyed_digest_frame(frame: "DataFrame", case: Case) -> tuple["DataFrame", list[str], str | None]:
    """The frame to digest, its columns, and the one column whose distinct count must equal the rows."""
    from pyspark.sql import functions as F

    keys = KEY_KINDS[case.key_kind]
    columns = keys + VALUES
    if not case.keyed:
        return frame.select(*columns), columns, None
    if len(keys) == 1:
        return frame.select(*columns), columns, keys[0]
    return frame.select(*columns).withColumn("_key", F.concat_ws("|", *[F.col(c).cast("string") for c in keys])), columns, "_key"


def case_digest(frame: "DataFrame", case: Case) -> Any:
    prepared, columns, key = _keyed_digest_frame(frame, case)
    return digest(prepared, columns, key)


class Tables:
    """The N-row base tables of one size: Doris tables by slug, plain tables by key kind."""

    def __init__(self, bench: Bench, rows: int, cases: tuple[Case, ...]):
        self.bench, self.rows, self.cases = bench, rows, cases
        self.base_paths: dict[str, str] = {}
        self.doris: dict[str, str] = {}
        self.plain: dict[str, str] = {}
        self.snapshots: dict[str, int] = {}

    def create(self) -> None:
        from iceberg_doris import doris

        bench, spark = self.bench, self.bench.spark
        for kind in sorted({c.key_kind for c in self.cases}):
            path = bench.path(f"small_{self.rows}_{_slug(kind)}_base")
            rows_frame(spark, spark.range(self.rows), kind, 0).write.mode("overwrite").parquet(path)
            self.base_paths[kind] = path
            plain = bench.table(f"small_{self.rows}_plain_{_slug(kind)}")
            bench.sql(plain_ddl(plain, kind))
            spark.read.parquet(path).writeTo(plain).append()
            self.plain[kind] = plain
            self.snapshots[plain] = current_snapshot(spark, plain)
        for case in self.cases:
            if case.doris_table_slug in self.doris:
                continue
            table = bench.table(f"small_{self.rows}_{case.doris_table_slug}")
            doris.create_table(spark, ddl=doris_ddl(table, case))
            doris.load(spark, table=table, source=spark.read.parquet(self.base_paths[case.key_kind]))
            self.doris[case.doris_table_slug] = table
            self.snapshots[table] = current_snapshot(spark, table)

    def reset(self, table: str) -> None:
        rollback(self.bench.spark, table, self.snapshots[table])


def _load_action(bench: Bench, tables: Tables, case: Case, contender: str, batch_path: str) -> tuple[str, Any]:
    """(the table it writes, a no-argument action); the source frame or view is made here, before timing."""
    from iceberg_doris import doris

    spark = bench.spark
    if contender == "doris.load":
        table = tables.doris[case.doris_table_slug]
        keys = KEY_KINDS[case.key_kind]
        if case.partial:
            source = spark.read.parquet(batch_path).select(*keys, "v1")
            return table, lambda: doris.load(spark, table=table, source=source, columns=", ".join(keys + ["v1"]), partial_columns=True)
        source = spark.read.parquet(batch_path)
        return table, lambda: doris.load(spark, table=table, source=source)
    table = tables.plain[case.key_kind]
    if not case.keyed:
        columns = ", ".join(KEY_KINDS[case.key_kind] + VALUES)
        statement = f"INSERT INTO {table} SELECT {columns} FROM parquet.`{batch_path}`"
    else:
        view = "small_load_src"
        spark.read.parquet(batch_path).createOrReplaceTempView(view)
        statement = merge_sql(table, view, case)
    return table, lambda: spark.sql(statement).collect()


def keyed_target(rows: int) -> float:
    """The issue's keyed-load target for a table of ``rows`` rows."""
    return 10.0 if rows >= 100_000_000 else 5.0 if rows >= 10_000_000 else 2.0


def run(bench: Bench, sizes: list[int], *, batches: tuple[int, ...] = BATCHES, cases: tuple[Case, ...] = CASES,
        reps: int | None = None, warmup: bool = True) -> SuiteResult:
    """Runs suite (g) for tables of each of ``sizes`` rows."""
    spark = bench.spark
    started = time.perf_counter()
    reps = reps if reps is not None else bench.reps
    result = SuiteResult("g", "Small loads into N-row tables: doris.load vs INSERT INTO / MERGE INTO (merge-on-read)", max(sizes))
    result.parameters = {
        "table rows": ", ".join(f"{s:,}" for s in sizes),
        "batches": ", ".join(f"{b:,}" for b in batches) + " rows (keyed: half existing keys, half new)",
        "cases": "; ".join(c.name for c in cases),
        "layout": f"Doris: DISTRIBUTED BY HASH(k) BUCKETS {BUCKETS}; plain: bucket({BUCKETS}, k), merge-on-read; all v3",
        "repetitions": f"median of {reps} after {'one untimed warm-up load of each' if warmup else 'no warm-up'}, contenders interleaved, "
                       "order alternated, tables rolled back to their base snapshot after every load",
        "session": "the runner's session (session defaults)",
    }
    latency_rows: list[list[Any]] = []
    breakdown_rows: list[list[Any]] = []
    for rows in sizes:
        tables = Tables(bench, rows, cases)
        begun = time.perf_counter()
        tables.create()
        bench.log(f"  [g] base tables of {rows} rows created in {time.perf_counter() - begun:.1f} s")
        dup_ratios: list[tuple[float, str]] = []
        keyed_ratios: list[tuple[float, str]] = []
        for case in cases:
            base = spark.read.parquet(tables.base_paths[case.key_kind])
            for batch in batches:
                batch_path = bench.path(f"small_{rows}_{_slug(case.key_kind)}_batch_{batch}")
                rows_frame(spark, batch_ids(spark, rows, batch), case.key_kind, 1).write.mode("overwrite").parquet(batch_path)
                batch_frame = spark.read.parquet(batch_path)
                expected = case_digest(expected_rows(base, batch_frame, case), case)
                contenders = ["doris.load", case.reference]
                times: dict[str, list[float]] = {c: [] for c in contenders}
                parts: dict[str, list[Breakdown]] = {c: [] for c in contenders}
                if warmup:
                    for contender in contenders:
                        table, action = _load_action(bench, tables, case, contender, batch_path)
                        action()
                        tables.reset(table)
                for rep in range(reps):
                    order = contenders if rep % 2 == 0 else list(reversed(contenders))
                    for contender in order:
                        table, action = _load_action(bench, tables, case, contender, batch_path)
                        with LoadBreakdown(spark) as recorder:
                            outcome = action()
                        times[contender].append(recorder.result.wall)
                        parts[contender].append(recorder.result)
                        if rep == 0:
                            _check(spark, table, case, contender, outcome, batch, expected, rows)
                        tables.reset(table)
                medians = {c: median(times[c]) for c in contenders}
                if case.keyed:
                    ratio = medians[case.reference] / medians["doris.load"]
                    keyed_ratios.append((ratio, f"{case.name}, {batch} rows"))
                else:
                    ratio = medians["doris.load"] / medians[case.reference]
                    dup_ratios.append((ratio, f"{batch} rows"))
                bench.log(f"  [g] {rows} rows, {case.name}, batch {batch}: doris.load {fmt_seconds(medians['doris.load'])}, "
                          f"{case.reference} {fmt_seconds(medians[case.reference])}")
                latency_rows.append([rows, case.name, batch, fmt_seconds(medians["doris.load"]), case.reference,
                                     fmt_seconds(medians[case.reference]),
                                     f"{fmt_ratio(ratio)} {'(MERGE / ours)' if case.keyed else '(ours / INSERT)'}"])
                for contender in contenders:
                    b = median_breakdown(parts[contender])
                    breakdown_rows.append([rows, case.name, batch, contender, fmt_seconds(medians[contender]), *b.cells()])
                if bench.profile and rows == max(sizes) and batch == min(batches) and case.name in PROFILED:
                    _profile(bench, result, tables, case, batch_path, batch, rows)
            result.checks.append(
                f"{rows:,} rows, {case.name}: after the first repetition of every batch size both doris.load's table and "
                f"the plain table held exactly the expected rows (digest, computed with Spark joins), "
                f"{'one row per key, ' if case.keyed else ''}doris.load reported every batch row loaded, and the plain "
                "table's snapshot was a plain Iceberg one (no doris.operation)."
            )
        if dup_ratios:
            worst = max(dup_ratios)
            result.targets.append(Target(f"DUPLICATE doris.load <= 1.1x INSERT INTO at every batch size ({rows:,}-row table)",
                                         worst[0], "<=", 1.1, detail=f"worst: {worst[1]}"))
        if keyed_ratios:
            worst = min(keyed_ratios)
            needed = keyed_target(rows)
            result.targets.append(Target(f"keyed doris.load >= {needed:g}x faster than MERGE INTO merge-on-read, every batch and key kind "
                                         f"({rows:,}-row table)", worst[0], ">=", needed, detail=f"worst: {worst[1]}"))
    result.tables.append(ResultTable(
        "Small-load latency (median; DUPLICATE ratio = doris.load / INSERT INTO, lower is better; keyed ratio = "
        "MERGE INTO / doris.load, higher is better)",
        ["table rows", "case", "batch rows", "doris.load", "reference", "reference time", "ratio"],
        latency_rows,
    ))
    result.tables.append(ResultTable(
        "Per-load breakdown (medians over the repetitions; driver time = wall time with no Spark job running, job "
        "time = wall time with one running, executor task time = summed task run time; benchmarks/load_breakdown.py)",
        ["table rows", "case", "batch rows", "contender", "wall", *BREAKDOWN_COLUMNS],
        breakdown_rows,
    ))
    result.notes.append(
        "doris.load's key index entries are in executor memory after the warm-up load (a long-running session's "
        "loads); suite (a) and benchmarks/key_index_kinds.py measure the cold first load of a new session."
    )
    result.seconds = time.perf_counter() - started
    return result


# The cases whose smallest batch is profiled (cProfile, untimed) at the largest size: where a small
# load's fixed cost goes, next to the plain statement's.
PROFILED = ("DUPLICATE", "UNIQUE BIGINT")


def _profile(bench: Bench, result: SuiteResult, tables: Tables, case: Case, batch_path: str, batch: int, rows: int) -> None:
    for contender in ("doris.load", case.reference):
        table, action = _load_action(bench, tables, case, contender, batch_path)
        elapsed, _, stats, jobs = profile_call(bench.spark, action)
        tables.reset(table)
        text = profile_text(stats, elapsed, jobs) if contender == "doris.load" else f"wall time {elapsed:.3f} s\n" + jobs.text()
        result.profiles.append((f"{contender}, {case.name}: {batch:,} row(s) into {rows:,} rows", text))


def _check(spark: "SparkSession", table: str, case: Case, contender: str, outcome: Any, batch: int, expected: Any, rows: int) -> None:
    if contender == "doris.load":
        loaded = outcome[0].loaded_rows
        if loaded != batch:
            raise ContendersDisagree(f"{case.name}: doris.load of {batch} rows into {rows} rows reported {loaded} loaded rows")
    else:
        summary = iceberg_table(spark, table).currentSnapshot().summary()
        if summary.get("doris.operation") is not None:
            raise ContendersDisagree(f"{case.name}: the reference {contender} wrote a Doris snapshot on {table}, not a plain Iceberg one")
    got = case_digest(spark.table(table), case)
    require_same(f"{case.name}: load of {batch} rows into {rows} rows", {"expected": expected, contender: got}, unique_keys=case.keyed)


def _slug(kind: str) -> str:
    return "".join(c for c in kind.lower() if c.isalnum())
