"""Run as a fresh process by ``tests/test_secrets_stay_secret.py``: one session on the PostgreSQL
catalog in ``$ICEBERG_DORIS_CATALOG_URI`` (password inside), doing everything that could show the
password, with every Python logger at DEBUG (py4j's command traces included) on stderr. It writes
what a user would see to a JSON report; the test greps the report, the output and the files.

    SECRET_PROBE_MARKER=... python -m tests.support.secret_probe REPORT.json

``$SECRET_PROBE_MARKER`` is a unique part of the password (in the environment: on the command line
it would be found there).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

CATALOG_URI_ENV = "ICEBERG_DORIS_CATALOG_URI"
MARKER_ENV = "SECRET_PROBE_MARKER"
CSV = "1\tParis\n2\tShenzhen-is-too-long\n3\tXian\n"


def processes_showing(marker: str) -> list[dict[str, Any]]:
    """Every process on this machine whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # ended meanwhile, or not ours to read
            continue
        if any(marker.encode() in arg for arg in argv):
            found.append({"pid": int(entry.name), "argv0": argv[0].decode(errors="replace")})
    return found


def command_line(pid: int) -> str:
    return (Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")).decode(errors="replace")


def collected(frame: Any) -> list[list[str | None]]:
    return [[None if v is None else str(v) for v in row] for row in frame.collect()]


def main(report_path: str, marker: str) -> None:
    logging.basicConfig(level=logging.DEBUG, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")
    import iceberg_doris
    from iceberg_doris import doris
    from iceberg_doris.lake.settings import CatalogSettings

    home = Path(os.environ["ICEBERG_DORIS_HOME"])
    uri = os.environ[CATALOG_URI_ENV]
    report: dict[str, Any] = {"errors": []}

    spark = iceberg_doris.session()
    jvm_pid = int(spark._jvm.ProcessHandle.current().pid())
    spark.sql("CREATE NAMESPACE IF NOT EXISTS sales")
    doris.create_table(
        spark,
        ddl="CREATE TABLE sales.orders (id INT NOT NULL, city VARCHAR(8)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1",
    )
    data = home / "orders.csv"
    data.write_text(CSV)
    report["load"] = collected(
        spark.sql(f"CALL doris.load(table => 'sales.orders', path => '{data}', max_filter_ratio => 0.5, label => 'ok_1')")
    )
    try:  # one row in three is filtered: over the default max_filter_ratio of 0
        spark.sql(f"CALL doris.load(table => 'sales.orders', path => '{data}', label => 'too_strict')")
    except Exception as error:  # noqa: BLE001 - the message is what we inspect
        report["errors"].append(str(error))
    report["describe"] = collected(spark.sql("CALL doris.describe('sales.orders')"))
    report["rows"] = collected(spark.sql("SELECT id, city FROM sales.orders ORDER BY id"))
    report["set"] = collected(spark.sql("SET"))
    report["spark_context_conf"] = spark.sparkContext.getConf().getAll()
    report["settings_repr"] = repr(CatalogSettings.resolve())
    report["pyiceberg_rows"] = iceberg_doris.catalog().load_table("sales.orders").scan().to_arrow().num_rows

    try:  # another catalog while this session runs: the message names the running one
        iceberg_doris.session(catalog_uri=uri + "_other")
    except Exception as error:  # noqa: BLE001
        report["errors"].append(str(error))
    for mistyped in (uri.replace("postgresql://", "postgresqll://"), uri.rsplit("/", 1)[0]):
        try:
            CatalogSettings.resolve(catalog_uri=mistyped)
        except Exception as error:  # noqa: BLE001
            report["errors"].append(str(error))

    report["processes_showing_secret"] = processes_showing(marker)
    report["jvm_pid"] = jvm_pid
    report["jvm_command_line"] = command_line(jvm_pid)
    Path(report_path).write_text(json.dumps(report, default=str))
    spark.stop()


def failure_file(report_path: str) -> Path:
    """Where a failed probe leaves its traceback: its stderr is mostly py4j's DEBUG traces, in
    which the one line that explains a failure is lost."""
    return Path(report_path + ".failure")


if __name__ == "__main__":
    try:
        main(sys.argv[1], os.environ[MARKER_ENV])
    except BaseException:
        import traceback

        failure_file(sys.argv[1]).write_text(traceback.format_exc())
        raise
