"""``iceberg-doris``: run SQL, ``CALL doris.*`` included, on the configured catalog.

    iceberg-doris -e "CALL doris.help()"
    iceberg-doris -f pipeline.sql --home /data/lake
    iceberg-doris --catalog-uri postgresql://u@db:5432/lake --catalog-password-file ~/.lake-pw -e "..."
    iceberg-doris --dynamic-partitions-every 600      # Doris's dynamic-partition scheduler
    iceberg-doris --compact-every 300                 # automatic compaction of every Doris table
    iceberg-doris --print-spark-conf > doris.conf    # then: spark-sql --properties-file doris.conf
    iceberg-doris --output csv -e "SELECT * FROM sales.orders" > orders.csv
    iceberg-doris                                     # at a terminal: an interactive prompt
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from iceberg_doris.cli.sql_script import split_statements
from iceberg_doris.errors import DorisError
from iceberg_doris.lake.masking import mask_secrets

DEFAULT_MAX_ROWS = 1000


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.print_spark_conf:
        return print_spark_conf(args)
    statements: list[str] = []
    for kind, value in args.sources:
        text = value if kind == "e" else _read_script(value)
        statements += split_statements(text)
    if args.compact_every is not None and args.dynamic_partitions_every is not None:
        print("iceberg-doris: run one scheduler per process: --compact-every or --dynamic-partitions-every", file=sys.stderr)
        return 2
    schedulers = args.dynamic_partitions_every is not None or args.compact_every is not None
    interactive = not statements and not schedulers and not args.sources and sys.stdin.isatty()
    if not statements and not schedulers and not interactive:
        print("iceberg-doris: nothing to run; give -e 'SQL', -f FILE or --dynamic-partitions-every (see --help)", file=sys.stderr)
        return 2
    _warn_about_visible_secrets(args)
    try:
        spark = _session(args)
    except DorisError as error:
        print(f"ERROR: {mask_secrets(str(error))}", file=sys.stderr)
        return 1
    if interactive:
        from iceberg_doris.cli.prompt import run_prompt

        return run_prompt(lambda statement: run_statement(spark, statement, args))
    for statement in statements:
        if not run_statement(spark, statement, args):
            return 1
    if args.dynamic_partitions_every is not None:
        return run_scheduler(spark, args.dynamic_partitions_every, args.max_passes)
    if args.compact_every is not None:
        return run_compaction_scheduler(spark, args.compact_every, args.max_passes)
    return 0


def run_statement(spark: Any, statement: str, args: argparse.Namespace) -> bool:
    """Runs one statement and prints its result in ``--output`` format (or its error); False on error."""
    from iceberg_doris.cli.output import render

    try:
        frame = spark.sql(statement)
        columns = frame.columns
        rows = [tuple(r) for r in frame.limit(args.max_rows + 1).collect()] if columns else []
    except Exception as error:  # noqa: BLE001 - every failure is reported
        print(f"ERROR: {_message(error)}", file=sys.stderr)
        return False
    shown = rows[: args.max_rows]
    if not columns:
        print("OK")
    else:
        print(render_table(columns, shown) if args.output == "table" else render(columns, shown, args.output))
    if len(rows) > args.max_rows:
        # On stderr, so that CSV and JSON output stays parseable.
        print(f"(only the first {args.max_rows} rows are shown; raise --max-rows to see more)", file=sys.stderr)
    return True


def print_spark_conf(args: argparse.Namespace) -> int:
    """Prints the session's Spark settings as a properties file (no password: see its header)."""
    from iceberg_doris.lake import CatalogSettings
    from iceberg_doris.spark_session.builder import resolve_master, spark_conf
    from iceberg_doris.spark_session.shuffle_sizing import SHUFFLE_PARTITIONS, fixed_partitions
    from iceberg_doris.spark_session.spark_properties import PYTHON_SETTING, render_properties

    try:
        settings = CatalogSettings.resolve(
            home=args.home,
            catalog_uri=args.catalog_uri,
            warehouse=args.warehouse,
            catalog_password_file=args.catalog_password_file,
        )
        conf = spark_conf(settings, master=args.master, conf=_conf_pairs(args))
    except DorisError as error:
        print(f"ERROR: {mask_secrets(str(error))}", file=sys.stderr)
        return 1
    if args.master:
        conf["spark.master"] = args.master
    # Without --master the file may run anywhere: this machine's memory and cores stay out of it
    # (the launching machine's Spark decides) unless asked for (--size-for-this-machine).
    sized_here = bool(args.master) or args.size_for_this_machine
    if not sized_here and "spark.driver.memory" not in _conf_pairs(args):
        conf.pop("spark.driver.memory", None)
    # spark-sql and the Thrift server never run the session's runtime sizing: write it down.
    fixed = fixed_partitions(resolve_master(args.master), os.cpu_count() or 1)
    if fixed is not None and sized_here:
        conf.setdefault(SHUFFLE_PARTITIONS, str(fixed))
    # CALL doris.* there starts a Python side with this interpreter, which has the package.
    conf.setdefault(PYTHON_SETTING, sys.executable)
    print(render_properties(conf, settings), end="")
    return 0


def run_scheduler(spark: Any, interval: float, max_passes: int | None) -> int:
    """Runs doris.run_dynamic_partition over every table with dynamic partitions enabled or a
    ``partition.retention_count`` each ``interval`` seconds until interrupted (or ``max_passes``).
    A failing pass is reported and the scheduler goes on."""

    def dynamic_partition_pass(frame: Any) -> tuple[list[tuple], str]:
        rows = [tuple(r) for r in frame.collect()]
        return rows, f"dynamic partition pass: {len(rows)} change(s)"

    return _run_passes(spark, "CALL doris.run_dynamic_partition()", dynamic_partition_pass, interval, max_passes)


def run_compaction_scheduler(spark: Any, interval: float, max_passes: int | None) -> int:
    """Runs an automatic compaction pass over every Doris table each ``interval`` seconds until
    interrupted (or ``max_passes``); a table that fails gets an ERROR line and the pass goes on."""

    def compaction_pass(frame: Any) -> tuple[list[tuple], str]:
        rows = [tuple(r) for r in frame.collect() if r.chosen_files or r.error]
        return rows, f"compaction pass: {len(rows)} table(s) compacted"

    return _run_passes(spark, "CALL doris.auto_compact()", compaction_pass, interval, max_passes)


def _run_passes(
    spark: Any, call: str, summarize: Callable[[Any], tuple[list[tuple], str]], interval: float, max_passes: int | None
) -> int:
    """Runs ``call`` every ``interval`` seconds until SIGINT/SIGTERM (or ``max_passes``), printing
    the rows ``summarize`` picks under its headline; a failing pass is reported and the next one runs."""
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    passes = 0
    while not stop.is_set():
        started = dt.datetime.now().isoformat(sep=" ", timespec="seconds")
        try:
            frame = spark.sql(call)
            rows, headline = summarize(frame)
            print(f"[{started}] {headline}")
            if rows:
                print(render_table(frame.columns, rows))
        except Exception as error:  # noqa: BLE001 - the scheduler outlives one bad pass
            print(f"[{started}] ERROR: {_message(error)}", file=sys.stderr)
        sys.stdout.flush()
        passes += 1
        if max_passes is not None and passes >= max_passes:
            break
        stop.wait(interval)
    return 0


def render_table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A bordered text table; multi-line values span several lines of their row."""
    cells = [[_cell(v).split("\n") for v in row] for row in rows]
    widths = [len(c) for c in columns]
    for row in cells:
        for i, lines in enumerate(row):
            widths[i] = max(widths[i], *(len(line) for line in lines))
    border = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    out = [border, _line(list(columns), widths), border]
    for row in cells:
        height = max((len(lines) for lines in row), default=1)
        for k in range(height):
            out.append(_line([lines[k] if k < len(lines) else "" for lines in row], widths))
    out.append(border)
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out)


def _line(values: list[str], widths: list[int]) -> str:
    return "|" + "|".join(f" {v.ljust(w)} " for v, w in zip(values, widths)) + "|"


def _cell(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_cell(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_cell(v)}" for k, v in value.items()) + "}"
    return str(value)


def _message(error: Exception) -> str:
    from iceberg_doris.spark_session.java_errors import java_message

    java = java_message(error)
    return mask_secrets(java if java is not None else str(error).strip())


def _warn_about_visible_secrets(args: argparse.Namespace) -> None:
    """A secret on our own command line is readable by every local user (``ps``); say so."""
    from iceberg_doris.spark_session.secrets import is_secret_setting

    if args.catalog_uri and mask_secrets(args.catalog_uri) != args.catalog_uri:
        print(
            f"WARNING: --catalog-uri {mask_secrets(args.catalog_uri)} carries a password, which every local user "
            "can read in the process list. Leave it out of the URI and use --catalog-password-file FILE, "
            "$PGPASSWORD or ~/.pgpass, or pass the whole URI in $ICEBERG_DORIS_CATALOG_URI.",
            file=sys.stderr,
        )
    for item in args.conf:
        key = item.partition("=")[0]
        if is_secret_setting(key):
            print(
                f"WARNING: --conf {key}=... is a secret on the command line, readable by every local user; "
                "set it from a Python session (iceberg_doris.session(conf=...)) instead.",
                file=sys.stderr,
            )


def _read_script(path: str) -> str:
    try:
        return Path(path).read_text() if path != "-" else sys.stdin.read()
    except OSError as error:
        raise SystemExit(f"iceberg-doris: cannot read {path}: {error.strerror}") from None


def _session(args: argparse.Namespace) -> Any:
    from iceberg_doris.entry.session import session

    with _started_processes_write_to_stderr():
        return session(
            home=args.home,
            catalog_uri=args.catalog_uri,
            warehouse=args.warehouse,
            master=args.master,
            conf=_conf_pairs(args),
            catalog_password_file=args.catalog_password_file,
        )


@contextmanager
def _started_processes_write_to_stderr() -> Iterator[None]:
    """The CLI's standard output carries only results (``--output csv`` is piped into files), but
    the JVM Spark starts inherits it and writes there: Ivy's ``:: loading settings`` line on Spark
    3.5, and anything Python workers print. Processes started inside this block get standard
    error as their standard output; the CLI's own output is untouched."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _conf_pairs(args: argparse.Namespace) -> dict[str, str]:
    conf = {}
    for item in args.conf:
        key, sep, value = item.partition("=")
        if not sep:
            raise DorisError(f"--conf {item!r} is not KEY=VALUE")
        conf[key] = value
    return conf


class _AppendSource(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: Any = None) -> None:
        namespace.sources.append((self.dest, values))


def _version() -> str:
    from iceberg_doris import __version__

    return __version__


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="iceberg-doris",
        description="Run SQL (CALL doris.* included) on the iceberg-doris catalog.",
        epilog="Settings default to ICEBERG_DORIS_HOME, ICEBERG_DORIS_CATALOG_URI, "
        "ICEBERG_DORIS_CATALOG_PASSWORD_FILE, ICEBERG_DORIS_WAREHOUSE and ICEBERG_DORIS_SPARK_MASTER. "
        "Keep passwords off this command line (other users see it): use --catalog-password-file, "
        "PGPASSWORD, ~/.pgpass or ICEBERG_DORIS_CATALOG_URI.",
    )
    parser.set_defaults(sources=[])
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.add_argument("-e", dest="e", action=_AppendSource, metavar="SQL", help="statements to run (repeatable)")
    parser.add_argument("-f", dest="f", action=_AppendSource, metavar="FILE", help="SQL script to run, - for stdin")
    parser.add_argument("--home", help="folder of the embedded catalog and warehouse")
    parser.add_argument("--catalog-uri", help="sqlite:////path/catalog.db or postgresql://user@host:5432/db")
    parser.add_argument(
        "--catalog-password-file", metavar="FILE", help="file whose first line is the PostgreSQL catalog's password"
    )
    parser.add_argument("--warehouse", help="warehouse URI or path")
    parser.add_argument("--master", help="Spark master URL (default local[*])")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="extra Spark setting")
    parser.add_argument(
        "--output", choices=("table", "csv", "json"), default="table",
        help="how results are printed: a bordered table (default), CSV with a header, or a JSON array per statement",
    )
    parser.add_argument("--max-rows", type=int, default=DEFAULT_MAX_ROWS, help="rows to print per statement")
    parser.add_argument(
        "--dynamic-partitions-every",
        type=float,
        metavar="SECONDS",
        help="after the statements, run the dynamic-partition scheduler every SECONDS until interrupted",
    )
    _add_compaction_flag(parser)
    parser.add_argument("--max-passes", type=int, help="stop the scheduler after this many passes")
    parser.add_argument(
        "--print-spark-conf",
        action="store_true",
        help="print the Spark settings as a properties file for spark-sql / the Thrift server / spark-submit "
        "(--properties-file FILE) and exit; it holds no password (see its header)",
    )
    parser.add_argument(
        "--size-for-this-machine",
        action="store_true",
        help="with --print-spark-conf and no --master: also write this machine's driver memory and shuffle "
        "partitions (left out by default, so the file suits any machine)",
    )
    return parser


def _add_compaction_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--compact-every",
        type=float,
        metavar="SECONDS",
        help="after the statements, compact every Doris table as its doris.compaction.* policy says, every SECONDS "
        "until interrupted (loads may run meanwhile: neither fails)",
    )

