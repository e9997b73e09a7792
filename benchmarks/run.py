"""Runs the benchmark suites on one Spark session and writes ``benchmarks/RESULTS.md``.

    .venv/bin/python -m benchmarks.run --scale 200000 --suites a,b,c,d --home benchmarks/work --out benchmarks/RESULTS.md

``--scale`` is N, the rows of the base table; every suite derives its sizes from it (see each
suite's docstring and benchmarks/README.md). Before timing, every selected suite runs once at a tiny
scale (warm-up of the JVM and code paths, and a first check that the contenders agree).
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
import time
import traceback
from pathlib import Path

from benchmarks import report, suite_auto_partition, suite_bulk, suite_cdc, suite_cdc_compaction, suite_partition_ops, suite_upsert
from benchmarks import suite_scale_curve, suite_small_loads, suite_stream_changes, suite_tpch
from benchmarks.common import Bench, SuiteResult, environment_summary, jvm_gc_seconds, load_average, new_namespace

REPO = Path(__file__).resolve().parent.parent
DEFAULT_HOME = REPO / "benchmarks" / "work"  # ignored by git
DEFAULT_OUT = REPO / "benchmarks" / "RESULTS.md"
DEFAULT_TPCH_DATA = REPO / "benchmarks" / "tpch-data"  # ignored by git; kept between runs (--home is wiped)
WARMUP_SCALE_FACTOR = 0.001
MARKER = ".iceberg-doris-benchmarks"
SUITES = {"a": "upsert", "b": "cdc", "c": "partition_ops", "d": "auto_partition", "e": "bulk", "f": "cdc_compaction", "g": "small_loads", "h": "scale_curve", "s": "stream_changes", "tpch": "tpch"}
WARMUP_SCALE = 2000


SIZED_SUITES = {"e", "g", "h"}  # suites whose table sizes --sizes sets


def reported_scale(args: argparse.Namespace) -> int:
    """The N the report states: the largest of --sizes when every suite run takes its sizes from it
    (a run of g at 1M and 10M is a 10M run, whatever --scale was left at)."""
    if args.sizes and set(args.suite_list) <= SIZED_SUITES:
        return max(args.sizes)
    return args.scale


def run_suite(suite: str, bench: Bench, scale: int, args: argparse.Namespace, *, warmup: bool = False) -> SuiteResult | list[SuiteResult]:
    if suite == "tpch":  # one result per scale factor, smallest first
        factors = [WARMUP_SCALE_FACTOR] if warmup else sorted(args.scale_factors)
        return [suite_tpch.run(bench, sf, args.tpch_data.resolve(), reps=1 if warmup else None, warmup=args.warmup and not warmup,
                               formats=args.tpch_formats) for sf in factors]
    if suite == "a":
        py_scale = args.pyiceberg_scale or min(scale, 1_000_000)
        return suite_upsert.run(bench, scale, pyiceberg_scale=py_scale, measure_memory=not warmup)
    if suite == "b":
        return suite_cdc.run(bench, scale, batches=3 if warmup else args.cdc_batches, warmup=not warmup)
    if suite == "c":
        return suite_partition_ops.run(bench, scale, reps=1 if warmup else None, warmup=not warmup)
    if suite == "d":
        return suite_auto_partition.run(bench, scale, reps=1 if warmup else None, warmup=not warmup)
    sizes = [scale] if warmup or not args.sizes else args.sizes  # --sizes: table sizes of e, g and h
    if suite == "e":
        return suite_bulk.run(bench, scale, reps=1 if warmup else None, sizes=sizes, warmup=not warmup)
    if suite == "g":
        return suite_small_loads.run(bench, sizes, reps=1 if warmup else None, warmup=not warmup)
    if suite == "h":
        sizes = sizes if warmup or args.sizes else suite_scale_curve.default_sizes(scale)
        return suite_scale_curve.run(bench, sizes, reps=1 if warmup else None, loads=3 if warmup else args.curve_loads, warmup=not warmup,
                                     kinds=args.kinds, merge_limit=args.merge_limit_minutes * 60)
    if suite == "f":
        return suite_cdc_compaction.run(bench, scale, batches=3 if warmup else args.cdc_batches, warmup=not warmup)
    if suite == "s":
        return suite_stream_changes.run(bench, scale, batches=3 if warmup else args.cdc_batches, warmup=not warmup)
    raise ValueError(f"unknown suite {suite!r}: choose from {', '.join(SUITES)}")


def _kinds(names: str) -> tuple[suite_scale_curve.Case, ...]:
    try:
        return suite_scale_curve.kinds_named(names)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=int, default=200_000, help="N, rows of the base table (default 200000)")
    parser.add_argument("--suites", default="a,b,c,d,e", help="comma-separated: tpch (TPC-H loads and refresh functions, see --scale-factors), a (upsert), b (cdc), c (partition ops), d (auto partition), e (bulk load), f (cdc with automatic compaction), g (small loads), h (scale curve), s (stream_to + changes)")
    parser.add_argument("--home", type=Path, default=DEFAULT_HOME, help="iceberg_doris home: catalog + warehouse + inputs; wiped at start")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write RESULTS.md ('-': stdout)")
    parser.add_argument("--reps", type=int, default=3, help="repetitions per measurement (median); c and d use at least 3 and 4")
    parser.add_argument("--cdc-batches", type=int, default=suite_cdc.BATCHES, help="batches of the CDC stream (default 100)")
    parser.add_argument("--pyiceberg-scale", type=int, default=None, help="rows for the pyiceberg upsert (default min(N, 1000000))")
    parser.add_argument("--driver-memory", default=None, help="spark.driver.memory (default: the session's, a quarter of the machine's memory within 1-8 GiB)")
    parser.add_argument("--sizes", type=lambda v: [int(x) for x in v.split(",")], default=None,
                        help="table sizes for e (bulk), g (small loads) and h (scale curve), e.g. 1000000,10000000 (default: N; h: N/100,N/10,N)")
    parser.add_argument("--curve-loads", type=int, default=suite_scale_curve.LOADS, help="h: upserts before the last full scan (default 100)")
    parser.add_argument("--kinds", type=_kinds, default=suite_scale_curve.KINDS,
                        help="h: key kinds, comma-separated (default: BIGINT,BIGINT + seq,VARCHAR,VARCHAR + seq)")
    parser.add_argument("--merge-limit-minutes", type=float, default=suite_scale_curve.MERGE_LIMIT_SECONDS / 60,
                        help="h: cancel a MERGE INTO after this many minutes and report it as not finished (default 10)")
    parser.add_argument("--scale-factors", type=lambda v: [float(x) for x in v.split(",")], default=[0.1],
                        help="tpch: TPC-H scale factors, e.g. 0.1,1,10 (default 0.1)")
    parser.add_argument("--tpch-data", type=Path, default=DEFAULT_TPCH_DATA,
                        help="tpch: where tpchgen-cli's data is generated once per scale factor and kept (default benchmarks/tpch-data)")
    parser.add_argument("--tpch-formats", type=lambda v: tuple(x.strip() for x in v.split(",")), default=suite_tpch.tpch_data.FORMATS,
                        help="tpch: the files lineitem is loaded from, of tbl,csv,jsonl,json,parquet (default all; tbl always)")
    parser.add_argument("--no-profile", dest="profile", action="store_false", help="skip the extra cProfile'd runs")
    parser.add_argument("--no-warmup", dest="warmup", action="store_false",
                        help="skip the tiny-scale warm-up pass (tpch: and its untimed first load of each contender)")
    args = parser.parse_args(argv)
    args.suite_list = [s.strip() for s in args.suites.split(",") if s.strip()]
    unknown = [s for s in args.suite_list if s not in SUITES]
    if unknown:
        parser.error(f"unknown suites {unknown}: choose from {', '.join(SUITES)}")
    unknown_formats = set(args.tpch_formats) - set(suite_tpch.tpch_data.FORMATS)
    if unknown_formats:
        parser.error(f"unknown --tpch-formats {sorted(unknown_formats)}: choose from {','.join(suite_tpch.tpch_data.FORMATS)}")
    if args.scale < WARMUP_SCALE:
        parser.error(f"--scale must be at least {WARMUP_SCALE}")
    return args


def prepare_home(home: Path) -> None:
    """A fresh home each run; only a folder this tool made (it holds the marker file) is wiped."""
    home = home.resolve()
    if home.exists() and any(home.iterdir()):
        if not (home / MARKER).exists():
            raise SystemExit(f"{home} exists and was not made by the benchmarks ({MARKER} missing): choose another --home")
        shutil.rmtree(home)
    home.mkdir(parents=True, exist_ok=True)
    (home / MARKER).write_text("made by python -m benchmarks.run; wiped at the start of each run\n")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started_wall = time.perf_counter()
    log_start = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - log_start:7.1f}s] {message}", file=sys.stderr, flush=True)

    prepare_home(args.home)
    import iceberg_doris

    conf = {"spark.driver.memory": args.driver_memory} if args.driver_memory else None
    log(f"starting Spark (home {args.home})")
    spark = iceberg_doris.session(home=args.home.resolve(), conf=conf)
    spark.sparkContext.setLogLevel("ERROR")
    loads = {"start": load_average()}
    work = args.home.resolve() / "inputs"
    failures: list[tuple[str, str]] = []
    warmup_text = ""
    if args.warmup:
        begun = time.perf_counter()
        for suite in args.suite_list:
            log(f"warm-up: suite {suite} at {WARMUP_SCALE} rows")
            bench = Bench(spark, new_namespace(spark, f"warmup_{suite}"), work, args.home.resolve(), reps=1, profile=False, log=lambda m: None)
            run_suite(suite, bench, WARMUP_SCALE, args, warmup=True)
        warmup_text = (f"every selected suite once at {WARMUP_SCALE} rows (contenders checked there too), "
                       f"{time.perf_counter() - begun:.0f} s, results discarded")
    results: list[SuiteResult] = []
    for suite in args.suite_list:
        size = f"SF {','.join(f'{sf:g}' for sf in args.scale_factors)}" if suite == "tpch" else f"N = {args.scale}"
        log(f"suite {suite} ({SUITES[suite]}) at {size}")
        bench = Bench(spark, new_namespace(spark, f"bench_{SUITES[suite]}"), work, args.home.resolve(), reps=args.reps, profile=args.profile, log=log)
        gc_before = jvm_gc_seconds(spark)
        try:
            outcome = run_suite(suite, bench, args.scale, args)
            suite_results = outcome if isinstance(outcome, list) else [outcome]
            if len(suite_results) == 1:  # several scale factors of tpch: their GC time is not told apart
                suite_results[0].gc_seconds = jvm_gc_seconds(spark) - gc_before
        except Exception as error:  # noqa: BLE001 - reported, and the exit code says so
            traceback.print_exc()
            failures.append((suite, f"{type(error).__name__}: {error}".splitlines()[0]))
            log(f"suite {suite} FAILED: {error}")
            continue
        results.extend(suite_results)
        loads[f"after {suite}"] = load_average()
        for target in (t for result in suite_results for t in result.targets):
            log(f"  target {target.name}: {target.show(target.measured)} ({'met' if target.met else 'missed'})")
    environment = environment_summary(spark)
    info = report.RunInfo(
        command=_command(argv),
        # a TPC-H-only run states its largest lineitem table, not --scale (which it does not use)
        scale=max(r.scale for r in results) if args.suite_list == ["tpch"] and results else reported_scale(args),
        seconds=time.perf_counter() - started_wall,
        environment=environment,
        version=iceberg_doris.__version__,
        load_average=loads,
        warmup=warmup_text,
        failures=failures,
    )
    text = report.render(results, info)
    if str(args.out) == "-":
        sys.stdout.write(text)
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
        log(f"wrote {args.out}")
    spark.stop()
    return 1 if failures else 0


def _command(argv: list[str] | None) -> str:
    arguments = sys.argv[1:] if argv is None else argv
    return "python -m benchmarks.run " + " ".join(shlex.quote(a) for a in arguments)


if __name__ == "__main__":
    raise SystemExit(main())
