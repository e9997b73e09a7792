"""Suite (tpch): TPC-H files loaded as Doris's own tooling loads them, against Spark's own reader.

Data: ``tpchgen-cli`` at each ``--scale-factors`` SF (cached, see :mod:`benchmarks.tpch_data`).
Tables: Doris's TPC-H DDL (apache/doris ``tools/tpch-tools/ddl/create-tpch-tables-sf1.sql``: the
same columns, types, DUPLICATE KEY, ``DISTRIBUTED BY HASH ... BUCKETS``, ``colocate_with``), made
with ``CALL doris.create_table``; ``lineitem`` also has yearly RANGE partitions on ``l_shipdate``
(``FROM ("1992-01-01") TO ("1999-01-01") INTERVAL 1 YEAR``). UNIQUE KEY versions: ``lineitem`` on
``(l_orderkey, l_linenumber)`` and ``orders`` on ``o_orderkey`` (merge-on-write); Doris asks a
UNIQUE table's partition columns to be key columns, so the UNIQUE ``lineitem`` is not partitioned
by ``l_shipdate`` (its buckets are those of the DUPLICATE one).

Loads (each repetition into a fresh empty table, contenders interleaved, order alternated):

- ``CALL doris.load(path => '<table>.tbl', format => 'csv', format_options =>
  map('column_separator', '|'), columns => '<the file's columns>, dummy')``: Doris's stream load of
  the ``.tbl`` (the trailing ``|`` ends one more, empty, field, mapped to a column no table has);
  all eight tables DUPLICATE, ``lineitem`` and ``orders`` UNIQUE; ``lineitem`` also from CSV with
  every field enclosed in ``"``, JSON lines, one JSON array and Parquet, made from the same lines;
- against ``spark.read.schema(s).csv(path, sep='|')`` (``.csv(path)``, ``.json(path)``,
  ``.option('multiLine', True).json(path)``, ``.parquet(path)``) ``.writeTo(t).append()`` into a
  plain Iceberg table of the same layout: the Doris table's partition spec, format version and
  ``write.*`` properties, copied from it (its columns nullable, as a Spark user's table is: Spark's
  file readers return nullable columns).

Refresh functions on the UNIQUE tables (each from the same loaded tables; both contenders' tables
are rolled back to their loaded snapshot after every step): RF1 (``SF * 1500`` new orders and their
lines, ``.tbl`` files, two ``doris.load``), RF2 (``SF * 1500`` deleted orders: a ``merge_type =>
'DELETE'`` load of the deleted orders' rows into ``orders`` and ``DELETE FROM lineitem WHERE l_orderkey
IN (...)``), and a 1% update (every 100th order's lines with ``l_quantity`` plus one, one
``doris.load``). Against ``MERGE INTO`` merge-on-read from the same files (``WHEN MATCHED THEN
UPDATE SET * WHEN NOT MATCHED THEN INSERT *``; RF2's orders ``WHEN MATCHED THEN DELETE``) and
``DELETE FROM`` on plain Iceberg tables of the same layout.

Checked: the first repetition of every load and refresh leaves the same rows (a digest of every
column) in both contenders' tables; every repetition's loaded row count is the file's line count.
Memory: the driver's JVM peak heap and peak RSS (local mode: the driver is the executor) over each
timed operation, the largest of its repetitions.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from benchmarks import tpch_data
from benchmarks.common import (
    Bench,
    ContendersDisagree,
    MemoryProbe,
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
from benchmarks.tpch_data import FILE_COLUMNS, NULLABLE, TpchFiles, column_names

if TYPE_CHECKING:
    from pathlib import Path

    from pyspark.sql import DataFrame, SparkSession

DORIS, SPARK = "doris.load", "Spark reader + append"
DORIS_RF, MERGE = "doris.load / DELETE FROM (UNIQUE KEY)", "MERGE INTO / DELETE FROM (MoR)"
LOAD_TARGET = 1.2  # issue 57: a load <= 1.2x Spark's reader + append into the same layout
REFRESH_TARGET = 5.0  # issue 57: RF1 + RF2 + update >= 5x faster than MERGE INTO at SF 1 (10x at SF 10)

# (DUPLICATE KEY columns, HASH column, BUCKETS, colocate_with) as Doris's TPC-H DDL declares them.
LAYOUT: dict[str, tuple[list[str], str, int, str | None]] = {
    "lineitem": (["l_shipdate", "l_orderkey"], "l_orderkey", 32, "lineitem_orders"),
    "orders": (["o_orderkey", "o_orderdate"], "o_orderkey", 32, "lineitem_orders"),
    "partsupp": (["ps_partkey"], "ps_partkey", 12, "part_partsupp"),
    "part": (["p_partkey"], "p_partkey", 12, "part_partsupp"),
    "customer": (["c_custkey"], "c_custkey", 12, None),
    "supplier": (["s_suppkey"], "s_suppkey", 6, None),
    "nation": (["n_nationkey"], "n_nationkey", 1, None),
    "region": (["r_regionkey"], "r_regionkey", 1, None),
}
UNIQUE_KEYS = {"lineitem": ["l_orderkey", "l_linenumber"], "orders": ["o_orderkey"]}
LINEITEM_PARTITIONS = 'PARTITION BY RANGE(`l_shipdate`) (FROM ("1992-01-01") TO ("1999-01-01") INTERVAL 1 YEAR)'
FORMAT_NAMES = {"tbl": ".tbl (| separated)", "csv": "CSV, fields enclosed in \"", "jsonl": "JSON lines",
                "json": "JSON array", "parquet": "Parquet"}


def doris_ddl(name: str, table: str, model: str) -> str:
    """Doris's TPC-H DDL of ``table`` (key columns first, as Doris asks), named ``name``."""
    keys, hash_column, buckets, colocate = LAYOUT[table]
    keys = UNIQUE_KEYS[table] if model == "UNIQUE" else keys
    ordered = keys + [c for c in column_names(table) if c not in keys]
    types = dict(FILE_COLUMNS[table])
    columns = ",\n    ".join(f"{c} {types[c]} {'NULL' if c in NULLABLE else 'NOT NULL'}" for c in ordered)
    partitions = f"\n{LINEITEM_PARTITIONS}" if table == "lineitem" and model == "DUPLICATE" else ""
    properties = ['"replication_num" = "1"']
    if colocate:
        properties.append(f'"colocate_with" = "{colocate}"')
    if model == "UNIQUE":
        properties.append('"enable_unique_key_merge_on_write" = "true"')
    key_list = ", ".join(f"`{k}`" for k in keys)
    return (f"CREATE TABLE {name} (\n    {columns}\n) ENGINE=OLAP\n{model} KEY({key_list})\nCOMMENT \"OLAP\"{partitions}\n"
            f"DISTRIBUTED BY HASH(`{hash_column}`) BUCKETS {buckets}\nPROPERTIES (\n    {', '.join(properties)}\n)")


def file_schema(table: str) -> str:
    """The Spark schema of ``table``'s files, in file order (what a Spark user passes to the reader)."""
    def spark_type(doris_type: str) -> str:
        if doris_type.startswith("VARCHAR"):
            return "STRING"
        return doris_type.replace(" ", "")
    return ", ".join(f"{name} {spark_type(t)}" for name, t in FILE_COLUMNS[table])


def plain_twin(spark: "SparkSession", doris_table: str, plain: str) -> None:
    """A plain Iceberg table with ``doris_table``'s columns (nullable), partition spec, format
    version and ``write.*`` properties."""
    java = iceberg_table(spark, doris_table)
    schema = java.schema()
    spec = java.spec().fields()
    transforms = []
    for index in range(spec.size()):
        field = spec.get(index)
        source = str(schema.findColumnName(field.sourceId()))
        kind = str(field.transform().toString())
        if kind == "identity":
            transforms.append(source)
        elif kind in ("year", "month", "day", "hour"):
            transforms.append(f"{kind}s({source})")
        elif kind.startswith(("bucket[", "truncate[")):
            name, width = kind.rstrip("]").split("[")
            transforms.append(f"{name}({width}, {source})")
        else:
            raise ValueError(f"{doris_table}: partition transform {kind} has no Spark DDL here")
    properties = {"format-version": str(java.operations().current().formatVersion())}
    props = java.properties()
    for key in list(props.keySet().toArray()):
        if str(key).startswith("write."):
            properties[str(key)] = str(props.get(key))
    columns = ", ".join(f"{f.name} {f.dataType.simpleString()}" for f in spark.table(doris_table).schema.fields)
    partitioned = f" PARTITIONED BY ({', '.join(transforms)})" if transforms else ""
    tblproperties = ", ".join(f"'{k}'='{v}'" for k, v in sorted(properties.items()))
    spark.sql(f"CREATE TABLE {plain} ({columns}) USING iceberg{partitioned} TBLPROPERTIES ({tblproperties})")


def call_load(spark: "SparkSession", table: str, path: str, fmt: str, file_table: str, **extra: str) -> Any:
    """``CALL doris.load`` of one file, as Doris's TPC-H tooling (or an export of that format) loads it."""
    arguments = [f"table => '{table}'", f"path => '{path}'"]
    if fmt == "tbl":
        columns = ", ".join(column_names(file_table)) + ", dummy"
        arguments += ["format => 'csv'", "format_options => map('column_separator', '|')", f"columns => '{columns}'"]
    elif fmt == "csv":
        arguments += ["format => 'csv'", "format_options => map('column_separator', ',', 'enclose', '\"')",
                      f"columns => '{', '.join(column_names(file_table))}'"]
    elif fmt == "jsonl":
        arguments += ["format => 'json'", "format_options => map('read_json_by_line', 'true')"]
    elif fmt == "json":
        arguments += ["format => 'json'", "format_options => map('strip_outer_array', 'true')"]
    else:
        arguments.append("format => 'parquet'")
    arguments += [f"{key} => '{value}'" for key, value in extra.items()]
    return spark.sql(f"CALL doris.load({', '.join(arguments)})").collect()


def spark_read(spark: "SparkSession", path: str, fmt: str, file_table: str) -> "DataFrame":
    """What a Spark user writes to read the file."""
    schema = file_schema(file_table)
    if fmt == "tbl":
        return spark.read.schema(schema).csv(path, sep="|")
    if fmt == "csv":
        return spark.read.schema(schema).csv(path, sep=",", quote='"')
    if fmt == "jsonl":
        return spark.read.schema(schema).json(path)
    if fmt == "json":
        return spark.read.schema(schema).option("multiLine", True).json(path)
    return spark.read.parquet(path)


def _loaded(rows: list[Any]) -> int:
    return sum(int(r.loaded_rows) for r in rows)


class Case:
    """One load: a table of one model from one format."""

    def __init__(self, bench: Bench, files: TpchFiles, table: str, model: str, fmt: str):
        self.bench, self.files, self.table, self.model, self.fmt = bench, files, table, model, fmt
        self.path = files.path(table, fmt)
        self.expected = files.count(table)
        self.names: dict[str, str] = {}
        self.digest: dict[str, Any] = {}  # the first repetition's row digest of each contender's table

    @property
    def title(self) -> str:
        return f"{self.table} {self.model} from {FORMAT_NAMES[self.fmt]}"

    def create(self, contender: str) -> str:
        from iceberg_doris import doris

        spark = self.bench.spark
        tag = uuid.uuid4().hex[:6]
        doris_name = self.bench.table(f"{self.table}_{self.model[0].lower()}_{tag}")
        doris.create_table(spark, ddl=doris_ddl(doris_name, self.table, self.model))
        if contender == DORIS:
            self.names[contender] = doris_name
            return doris_name
        plain = self.bench.table(f"{self.table}_plain_{self.model[0].lower()}_{tag}")
        plain_twin(spark, doris_name, plain)
        spark.sql(f"DROP TABLE {doris_name} PURGE")
        self.names[contender] = plain
        return plain

    def load(self, contender: str) -> int:
        spark, name = self.bench.spark, self.names[contender]
        if contender == DORIS:
            return _loaded(call_load(spark, name, self.path, self.fmt, self.table))
        spark_read(spark, self.path, self.fmt, self.table).writeTo(name).append()
        summary = iceberg_table(spark, name).currentSnapshot().summary()
        return int(summary.get("added-records") or 0)

    def drop(self, contender: str) -> None:
        self.bench.sql(f"DROP TABLE IF EXISTS {self.names.pop(contender)} PURGE")


def _measure(spark: "SparkSession", action: Callable[[], Any]) -> tuple[float, Any, dict[str, Any]]:
    with MemoryProbe(spark) as probe:
        started = time.perf_counter()
        outcome = action()
        seconds = time.perf_counter() - started
    return seconds, outcome, probe.result


def _mib(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def run(bench: Bench, sf: float, data_dir: "Path", *, reps: int | None = None, warmup: bool = True,
        formats: tuple[str, ...] = tpch_data.FORMATS, tables: tuple[str, ...] = tpch_data.TABLES) -> SuiteResult:
    """Suite (tpch) at scale factor ``sf``. ``tables``: those loaded DUPLICATE from ``.tbl`` (all eight
    by default; the UNIQUE lineitem and orders are always loaded: the refresh functions run on them);
    ``formats``: the files ``lineitem`` is loaded from."""
    spark = bench.spark
    started = time.perf_counter()
    reps = reps if reps is not None else bench.reps
    files = tpch_data.ensure(data_dir, sf, log=bench.log)
    lineitem_rows = files.count("lineitem")
    result = SuiteResult("tpch", f"TPC-H SF {tpch_data.sf_label(sf)}: loads as Doris loads them, refresh functions", lineitem_rows)
    result.parameters = {
        "scale factor": f"{tpch_data.sf_label(sf)} ({lineitem_rows:,} lineitem rows, {files.count('orders'):,} orders)",
        "data": f"tpchgen-cli, cached in {files.folder}",
        "tables": "Doris's TPC-H DDL through CALL doris.create_table (DUPLICATE KEY, DISTRIBUTED BY HASH, colocate_with; "
                  "lineitem with yearly RANGE partitions); UNIQUE KEY lineitem (l_orderkey, l_linenumber) and orders (o_orderkey)",
        "contenders": f"{DORIS} (CALL) vs {SPARK} into a plain Iceberg table of the same partition spec, format version and write.* properties",
        "repetitions": f"median of {reps}, each load into a fresh empty table, contenders interleaved, order alternated",
    }
    cases = [Case(bench, files, table, "DUPLICATE", "tbl") for table in tpch_data.TABLES if table in tables]
    cases += [Case(bench, files, table, "UNIQUE", "tbl") for table in ("lineitem", "orders")]
    cases += [Case(bench, files, "lineitem", "DUPLICATE", fmt) for fmt in formats if fmt != "tbl"]
    contenders = (DORIS, SPARK)
    times = {(c.title, n): [] for c in cases for n in contenders}
    memory: dict[tuple[str, str], dict[str, float]] = {}
    kept: dict[tuple[str, str], str] = {}  # the last repetition's UNIQUE tables: the refresh functions' bases
    if warmup:  # the first load of a session is slower for every contender (JIT, caches)
        for name in contenders:
            case = next(c for c in cases if c.table == "lineitem" and c.model == "UNIQUE")  # the keyed code path
            case.create(name)
            try:
                case.load(name)
            finally:
                case.drop(name)
    for rep in range(reps):
        for index, case in enumerate(cases):
            order = contenders if (rep + index) % 2 == 0 else tuple(reversed(contenders))
            for name in order:
                case.create(name)
                keep = False
                try:
                    seconds, loaded, probe = _measure(spark, lambda: case.load(name))
                    if loaded != case.expected:
                        raise ContendersDisagree(f"{case.title}: {name} loaded {loaded} rows, the file has {case.expected} lines")
                    if rep == 0:
                        got = digest(spark.table(case.names[name]), column_names(case.table), None)
                        if got.rows != case.expected:
                            raise ContendersDisagree(f"{case.title}: {name}'s table holds {got.rows} rows, the file has {case.expected}")
                        case.digest[name] = got
                    keep = rep == reps - 1 and case.model == "UNIQUE" and case.fmt == "tbl"
                    if keep:
                        kept[(case.table, name)] = case.names[name]
                finally:
                    if keep:
                        case.names.pop(name)
                    else:
                        case.drop(name)
                times[(case.title, name)].append(seconds)
                slot = memory.setdefault((case.title, name), {})
                for key in ("jvm_heap_peak_during_mib", "jvm_peak_rss_during_mib"):
                    if probe.get(key) is not None:
                        slot[key] = max(slot.get(key, 0.0), float(probe[key]))
                bench.log(f"  [tpch] SF {tpch_data.sf_label(sf)} rep {rep + 1} {case.title} {name}: {fmt_seconds(seconds)}")
            if rep == 0:
                require_same(f"TPC-H SF {tpch_data.sf_label(sf)} {case.title}", case.digest, unique_keys=False)
    rows = []
    for case in cases:
        d, s = median(times[(case.title, DORIS)]), median(times[(case.title, SPARK)])
        md, ms = memory.get((case.title, DORIS), {}), memory.get((case.title, SPARK), {})
        rows.append([case.table, case.model, FORMAT_NAMES[case.fmt], f"{case.expected:,}", fmt_seconds(d), fmt_seconds(s), fmt_ratio(d / s),
                     f"{_mib(md.get('jvm_heap_peak_during_mib'))} / {_mib(ms.get('jvm_heap_peak_during_mib'))}",
                     f"{_mib(md.get('jvm_peak_rss_during_mib'))} / {_mib(ms.get('jvm_peak_rss_during_mib'))}"])
        result.targets.append(Target(f"SF {tpch_data.sf_label(sf)} {case.title}: doris.load <= {LOAD_TARGET}x Spark's reader + append",
                                     d / s, "<=", LOAD_TARGET))
    result.tables.append(ResultTable(
        f"Loads, SF {tpch_data.sf_label(sf)} (median; ratio = doris.load / Spark reader + append, lower is better; "
        "memory: the driver JVM's peak heap and peak RSS in MiB over the load, doris.load / Spark)",
        ["table", "model", "file", "rows", DORIS, SPARK, "ratio", "JVM peak heap MiB", "JVM peak RSS MiB"], rows))
    result.checks.append(
        f"every load's row count equalled its file's lines in every repetition, and in the first repetition both contenders' "
        f"tables held the same rows (digest of every column) for each of the {len(cases)} loads")
    _refresh(bench, files, kept, result, reps)
    result.notes.append(
        "The UNIQUE lineitem is not partitioned by l_shipdate: Doris requires a UNIQUE table's partition columns to be "
        "key columns, and TPC-H's key is (l_orderkey, l_linenumber).")
    result.notes.append(
        "Properties colocate_with and replication_num are stored on the table and change nothing here (one "
        "writer, no tablets to place): create_table accepts them as it accepts every unmodelled Doris property.")
    result.notes.append(
        "The plain Iceberg tables have the Doris table's partition spec, format version and write.* properties, "
        "not its sort order (Doris tables are written sorted by their key; a plain Spark append is not).")
    profiled = [c for c in cases if c.table == "lineitem" and c.model == "DUPLICATE" and c.fmt == "tbl"]
    if bench.profile and profiled:
        case = profiled[0]
        case.create(DORIS)
        try:
            elapsed, _, stats, recorded = profile_call(spark, lambda: case.load(DORIS))
        finally:
            case.drop(DORIS)
        result.profiles.append((f"SF {tpch_data.sf_label(sf)}: CALL doris.load of lineitem.tbl (DUPLICATE, yearly partitions)",
                                profile_text(stats, elapsed, recorded)))
    for (_table, _name), name in kept.items():
        bench.sql(f"DROP TABLE IF EXISTS {name} PURGE")
    result.seconds = time.perf_counter() - started
    return result


def _refresh(bench: Bench, files: TpchFiles, kept: dict[tuple[str, str], str], result: SuiteResult, reps: int) -> None:
    """RF1, RF2 and the 1% update on the UNIQUE tables, each step from the loaded tables."""
    spark = bench.spark
    sf = tpch_data.sf_label(files.sf)
    tables = {name: {t: kept[(t, loader)] for t in ("lineitem", "orders")} for name, loader in ((DORIS_RF, DORIS), (MERGE, SPARK))}
    base = {(name, t): current_snapshot(spark, table) for name, pair in tables.items() for t, table in pair.items()}
    deleted_keys = [line.split("|")[0] for line in open(files.refresh("rf2_orders"))]
    in_list = ", ".join(deleted_keys)

    def merge(table: str, path: str, file_table: str, action: str) -> None:
        view = f"tpch_src_{uuid.uuid4().hex[:8]}"
        spark.read.schema(file_schema(file_table)).csv(path, sep="|").createOrReplaceTempView(view)
        on = " AND ".join(f"t.{k} = s.{k}" for k in UNIQUE_KEYS[file_table])
        spark.sql(f"MERGE INTO {table} t USING {view} s ON {on} {action}").collect()
        spark.catalog.dropTempView(view)

    upsert = "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"

    def rf1(name: str) -> None:
        t = tables[name]
        if name == DORIS_RF:
            for table in ("orders", "lineitem"):
                loaded = _loaded(call_load(spark, t[table], files.refresh(f"rf1_{table}"), "tbl", table))
                if loaded != files.count(f"rf1_{table}"):
                    raise ContendersDisagree(f"RF1: {table} loaded {loaded} rows of {files.count(f'rf1_{table}')}")
        else:
            for table in ("orders", "lineitem"):
                merge(t[table], files.refresh(f"rf1_{table}"), table, upsert)

    def rf2(name: str) -> None:
        t = tables[name]
        if name == DORIS_RF:
            call_load(spark, t["orders"], files.refresh("rf2_orders"), "tbl", "orders", merge_type="DELETE")
        else:
            merge(t["orders"], files.refresh("rf2_orders"), "orders", "WHEN MATCHED THEN DELETE")
        spark.sql(f"DELETE FROM {t['lineitem']} WHERE l_orderkey IN ({in_list})").collect()

    def update(name: str) -> None:
        t = tables[name]
        if name == DORIS_RF:
            loaded = _loaded(call_load(spark, t["lineitem"], files.refresh("update_lineitem"), "tbl", "lineitem"))
            if loaded != files.count("update_lineitem"):
                raise ContendersDisagree(f"update: loaded {loaded} rows of {files.count('update_lineitem')}")
        else:
            merge(t["lineitem"], files.refresh("update_lineitem"), "lineitem", upsert)

    orders, lines = files.count("orders"), files.count("lineitem")
    steps: list[tuple[str, Callable[[str], None], tuple[int, int]]] = [
        (f"RF1: {files.count('rf1_orders'):,} new orders + {files.count('rf1_lineitem'):,} lines", rf1,
         (orders + files.count("rf1_orders"), lines + files.count("rf1_lineitem"))),
        (f"RF2: {files.count('rf2_orders'):,} orders deleted (+ {files.count('rf2_lineitem'):,} lines)", rf2,
         (orders - files.count("rf2_orders"), lines - files.count("rf2_lineitem"))),
        (f"1% update: {files.count('update_lineitem'):,} lines changed", update, (orders, lines)),
    ]
    names = (DORIS_RF, MERGE)
    times = {(title, n): [] for title, _, _ in steps for n in names}
    memory: dict[tuple[str, str], float] = {}
    for rep in range(reps):
        for index, (title, action, (want_orders, want_lines)) in enumerate(steps):
            order = names if (rep + index) % 2 == 0 else tuple(reversed(names))
            found = {}
            for name in order:
                seconds, _, probe = _measure(spark, lambda: action(name))
                times[(title, name)].append(seconds)
                memory[(title, name)] = max(memory.get((title, name), 0.0), float(probe.get("jvm_heap_peak_during_mib") or 0))
                if rep == 0:
                    t = tables[name]
                    found[name] = (digest(spark.table(t["orders"]), column_names("orders"), "o_orderkey"),
                                   digest(spark.table(t["lineitem"]), column_names("lineitem"), None))
                    if (found[name][0].rows, found[name][1].rows) != (want_orders, want_lines):
                        raise ContendersDisagree(f"{title}: {name} holds {found[name][0].rows} orders and {found[name][1].rows} "
                                                 f"lines, expected {want_orders} and {want_lines}")
                for table_name, table in tables[name].items():
                    rollback(spark, table, base[(name, table_name)])
                bench.log(f"  [tpch] SF {sf} rep {rep + 1} {title} {name}: {fmt_seconds(seconds)}")
            if rep == 0:
                require_same(f"{title} (orders)", {n: found[n][0] for n in names})
                require_same(f"{title} (lineitem)", {n: found[n][1] for n in names}, unique_keys=False)
    rows = []
    total = {n: 0.0 for n in names}
    for title, _, _ in steps:
        d, m = median(times[(title, DORIS_RF)]), median(times[(title, MERGE)])
        total[DORIS_RF] += d
        total[MERGE] += m
        rows.append([title, fmt_seconds(d), fmt_seconds(m), fmt_ratio(m / d),
                     f"{_mib(memory.get((title, DORIS_RF)))} / {_mib(memory.get((title, MERGE)))}"])
    rows.append(["RF1 + RF2 + update", fmt_seconds(total[DORIS_RF]), fmt_seconds(total[MERGE]), fmt_ratio(total[MERGE] / total[DORIS_RF]), ""])
    result.tables.append(ResultTable(
        f"Refresh functions on the UNIQUE tables, SF {sf} (median; speed-up = MERGE INTO / doris.load, higher is better; "
        "memory: the driver JVM's peak heap in MiB, doris / MERGE INTO)",
        ["step", DORIS_RF, MERGE, "speed-up", "JVM peak heap MiB"], rows))
    result.targets.append(Target(f"SF {sf} RF1 + RF2 + 1% update >= {REFRESH_TARGET:.0f}x faster than MERGE INTO / DELETE FROM "
                                 "merge-on-read (target defined at SF 1)", total[MERGE] / total[DORIS_RF], ">=", REFRESH_TARGET))
    result.checks.append(
        f"after each refresh step's first repetition both contenders held the expected order and line counts and the same "
        f"rows (digest of every column of orders and lineitem); every doris.load of a refresh file loaded all its lines")
