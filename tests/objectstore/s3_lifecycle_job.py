"""The lifecycle of Doris tables on an S3 warehouse, in one Spark driver of its own.

Run by ``test_s3_lifecycle.py`` as ``python s3_lifecycle_job.py STEP HOME BUCKET OUT.json`` with
the standard AWS variables pointing at the test's S3 server (STEP ``lifecycle``, or
``refused-credentials`` under a secret the server refuses); the shared test session has no S3 jars,
so this process starts its own: it runs the S3 block of ``docs/object-storage.md`` (its
``iceberg_doris.session(warehouse="s3://lake/wh")``). It writes
what each step returned and what Spark reads at the end to OUT.json; the test asserts on them.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from iceberg_doris import doris
from iceberg_doris.errors import DorisError
from tests.support.readme_blocks import parse_blocks

WRONG_SECRET = "not-the-secret-0123456789"

ORDERS_DDL = """
CREATE TABLE lc.orders (
    id BIGINT NOT NULL,
    dt DATE NOT NULL,
    city VARCHAR(10),
    amount BIGINT
)
UNIQUE KEY(id, dt)
PARTITION BY RANGE(dt) (
    PARTITION p202401 VALUES LESS THAN ("2024-02-01"),
    PARTITION p202402 VALUES LESS THAN ("2024-03-01")
)
DISTRIBUTED BY HASH(id) BUCKETS 2
PROPERTIES ("enable_unique_key_merge_on_write" = "true")
"""

EVENTS_DDL = """
CREATE TABLE lc.events (dt DATE NOT NULL, id BIGINT NOT NULL, kind VARCHAR(10))
DUPLICATE KEY(dt, id)
PARTITION BY RANGE(dt) (
    PARTITION p202401 VALUES LESS THAN ("2024-02-01"),
    PARTITION p202402 VALUES LESS THAN ("2024-03-01")
)
DISTRIBUTED BY HASH(id) BUCKETS 1
"""


def rows(spark: Any, sql: str) -> list[list[Any]]:
    return [[str(v) if v is not None else None for v in row] for row in spark.sql(sql).collect()]


def one(spark: Any, sql: str) -> dict[str, Any]:
    return {k: (v if isinstance(v, (int, float, bool)) or v is None else str(v)) for k, v in spark.sql(sql).collect()[0].asDict().items()}


def _s3() -> Any:
    """pyarrow's S3 filesystem on the same server (credentials from the environment)."""
    from pyarrow import fs

    endpoint = os.environ["AWS_ENDPOINT_URL_S3"]
    return fs.S3FileSystem(endpoint_override=endpoint, region=os.environ["AWS_REGION"], scheme=endpoint.split(":")[0])


def _session_as_the_docs_start_it(home: str, bucket: str) -> Any:
    """Runs docs/object-storage.md's S3 block (its session and namespace) on this home and bucket."""
    page = Path(__file__).resolve().parents[2] / "docs" / "object-storage.md"
    block = next(b for b in parse_blocks(page.read_text(), page.name) if b.language == "python")
    assert 's3://lake/wh' in block.text, "the docs' S3 block names another bucket than the test's"
    os.environ["ICEBERG_DORIS_HOME"] = home
    scope: dict[str, Any] = {}
    exec(compile(block.text.replace("s3://lake/", f"s3://{bucket}/"), f"{page}:{block.line}", "exec"), scope)
    return scope["spark"]


def source_errors(spark: Any, bucket: str) -> dict[str, str]:
    """The errors of loads from source buckets s3a cannot use: one served where nothing listens, one
    whose (per-bucket) key pair the server refuses. Each is tried once, not retried for minutes."""
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()
    once = {"retry.limit": "0", "attempts.maximum": "0", "retry.throttle.limit": "0"}
    for key, value in (once | {"endpoint": os.environ["CLOSED_ENDPOINT"]}).items():
        hadoop.set(f"fs.s3a.bucket.gone.{key}", value)
    # The same server under another bucket name, with a key pair it does not know (a test value).
    refused = {"endpoint": os.environ["AWS_ENDPOINT_URL_S3"], "access.key": "unknown", "secret.key": WRONG_SECRET,
               "aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider"}
    for key, value in (once | refused).items():
        hadoop.set(f"fs.s3a.bucket.{bucket}-refused.{key}", value)
    messages = {}
    for case, path in (("unreachable", "s3a://gone/x.csv"), ("refused", f"s3a://{bucket}-refused/src/events.csv")):
        try:
            doris.load(spark, table="lc.events", path=[path], format="csv")
        except DorisError as error:
            messages[case] = f"{type(error).__name__}: {error}"
    return messages


def refused_credentials(home: str, bucket: str) -> dict[str, Any]:
    """The error of a session's first table access under a secret the server refuses (the
    environment's), from docs/object-storage.md's session."""
    spark = _session_as_the_docs_start_it(home, bucket)
    try:  # the table's first metadata file is the first request under the wrong secret
        doris.create_table(spark, ddl="CREATE TABLE lc.t (k BIGINT NOT NULL, v BIGINT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    except DorisError as error:
        return {"create_table": f"{type(error).__name__}: {error}"}
    finally:
        spark.stop()
    return {"create_table": "no error"}


def lifecycle(home: str, bucket: str) -> dict[str, Any]:
    result: dict[str, Any] = {}
    started = time.monotonic()
    spark = _session_as_the_docs_start_it(home, bucket)
    result["session_seconds"] = time.monotonic() - started
    spark.sql(f"CALL doris.create_table('{ORDERS_DDL}')")
    spark.sql(f"CALL doris.create_table('{EVENTS_DDL}')")
    result["orders_location"] = str(spark.sql("DESCRIBE TABLE EXTENDED lc.orders").where("col_name = 'Location'").collect()[0][1])

    # A CSV and a Parquet file read by Spark's own s3a; the CSV's city too long for VARCHAR(10) is filtered.
    src = f"s3a://{bucket}/src"
    result["csv_load"] = one(spark, f"""CALL doris.load(table => 'lc.orders', path => array('{src}/orders.csv'), format => 'csv',
        format_options => map('column_separator', ',', 'header', 'true'), max_filter_ratio => 0.5, label => 'orders_csv')""")
    result["error_rows"] = rows(spark, f"SELECT reason FROM json.`{result['csv_load']['error_rows_path']}`")
    result["parquet_load"] = one(spark, f"CALL doris.load(table => 'lc.orders', path => array('{src}/updates.parquet'), format => 'parquet')")
    result["after_keyed_loads"] = rows(spark, "SELECT id, dt, city, amount FROM lc.orders ORDER BY id")
    result["key_index_summary"] = rows(spark, "SELECT summary['doris.key-index'] FROM lc.orders.snapshots ORDER BY committed_at DESC LIMIT 1")

    spark.sql("""CALL doris.load(table => 'lc.orders', query => 'SELECT 3L AS id, DATE"2024-02-10" AS dt, 333L AS amount',
        partial_columns => true)""")
    result["after_partial_update"] = rows(spark, "SELECT id, city, amount FROM lc.orders WHERE id = 3")

    spark.sql("CALL doris.add_temp_partition(table => 'lc.orders', partition => 'tp202402', values_range => array('2024-02-01', '2024-03-01'))")
    spark.sql("""CALL doris.load(table => 'lc.orders', temporary_partitions => array('tp202402'),
        query => 'SELECT 6L AS id, DATE"2024-02-20" AS dt, "Lima" AS city, 60L AS amount')""")
    spark.sql("CALL doris.swap_temp_partition(table => 'lc.orders', partitions => array('p202402'), temp_partitions => array('tp202402'))")
    result["after_swap"] = rows(spark, "SELECT id, dt, city, amount FROM lc.orders ORDER BY id")

    spark.sql(f"""CALL doris.load(table => 'lc.events', path => array('{src}/events.csv'), format => 'csv',
        format_options => map('column_separator', ','))""")
    spark.sql("""CALL doris.insert_overwrite(table => 'lc.events', partitions => array('*'),
        query => 'SELECT DATE"2024-01-02" AS dt, 9L AS id, "replaced" AS kind')""")
    result["events"] = rows(spark, "SELECT dt, id, kind FROM lc.events ORDER BY dt, id")

    # A third keyed load deletes rows of earlier files, then compaction rewrites them.
    spark.sql("CALL doris.load(table => 'lc.orders', query => 'SELECT 1L AS id, DATE\"2024-01-05\" AS dt, \"Oslo\" AS city, 11L AS amount')")
    result["compact"] = one(spark, "CALL doris.compact(table => 'lc.orders')")
    result["after_compact"] = rows(spark, "SELECT id, dt, city, amount FROM lc.orders ORDER BY id")
    changes = doris.changes(spark, table="lc.orders").groupBy("_change_type").count().orderBy("_change_type")
    result["changes"] = [[row[0], row[1]] for row in changes.collect()]

    # A stray object under the table's data folder, written by no commit: an orphan for cleanup.
    orphan = f"{result['orders_location'].removeprefix('s3://')}/data/stray.parquet"
    with _s3().open_output_stream(orphan) as stray:
        stray.write(b"not referenced by any snapshot")
    result["orphan"] = orphan
    result["cleanup"] = one(spark, "CALL doris.cleanup(table => 'lc.orders', older_than => current_timestamp() + INTERVAL 1 MINUTE)")
    result["after_cleanup"] = rows(spark, "SELECT id, dt, city, amount FROM lc.orders ORDER BY id")
    result["errors"] = source_errors(spark, bucket)
    result["lifecycle_seconds"] = time.monotonic() - started - result["session_seconds"]
    spark.stop()
    return result


if __name__ == "__main__":
    step, home, bucket, out = sys.argv[1:5]
    with open(out, "w") as handle:
        json.dump({"lifecycle": lifecycle, "refused-credentials": refused_credentials}[step](home, bucket), handle)
    os._exit(0)
