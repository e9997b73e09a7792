"""Doris tables on a real S3-compatible server, configured the ordinary way, end to end.

``iceberg_doris.session(warehouse="s3://lake/wh")`` in a driver of its own
(``s3_lifecycle_job.py``) takes the endpoint, region and credentials from the standard AWS
variables only; Spark, pyiceberg and DuckDB then read the same rows from the server.

Doris behaviour matched (the lifecycle on object storage is Doris's own on its storage):
regression-test/suites/load_p0/stream_load/test_stream_load.groovy (CSV load, filtered rows),
regression-test/suites/unique_with_mow_p0/partial_update/test_partial_update.groovy (partial update),
regression-test/suites/partition_p0/temp_partition/test_temp_partition.groovy (temp partition swap),
regression-test/suites/insert_overwrite_p0/test_iot_auto_detect.groovy (INSERT OVERWRITE PARTITION(*)).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyarrow import fs

import iceberg_doris
from tests.objectstore.conftest import BUCKET
from tests.support import duckdb_reader
from tests.support.s3_server import S3Server

pytestmark = pytest.mark.spark

JOB = Path(__file__).with_name("s3_lifecycle_job.py")
REPOSITORY = Path(__file__).resolve().parents[2]
FINAL_ROWS = [["1", "2024-01-05", "Oslo", "11"], ["2", "2024-01-20", "Bern", "21"], ["6", "2024-02-20", "Lima", "60"]]


def _put_sources(server: S3Server) -> None:
    files = server.filesystem()
    with files.open_output_stream(f"{BUCKET}/src/orders.csv") as out:
        out.write(b"id,dt,city,amount\n1,2024-01-05,Rome,10\n2,2024-01-20,Oslo,20\n3,2024-02-10,Lima,30\n"
                  b"4,2024-02-11,Far too long a city,40\n")
    updates = pa.table({
        "id": pa.array([2, 3, 5], pa.int64()),
        "dt": [dt.date(2024, 1, 20), dt.date(2024, 2, 10), dt.date(2024, 2, 12)],
        "city": ["Bern", "Kyiv", "Pune"],
        "amount": pa.array([21, 31, 50], pa.int64()),
    })
    pq.write_table(updates, f"{BUCKET}/src/updates.parquet", filesystem=files)
    with files.open_output_stream(f"{BUCKET}/src/events.csv") as out:
        out.write(b"2024-01-02,1,click\n2024-01-03,2,view\n2024-02-05,3,click\n")


@pytest.fixture(scope="module")
def lifecycle(s3: S3Server, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Runs the job once; what it returned, with its output and the time it took."""
    _put_sources(s3)
    root = tmp_path_factory.mktemp("s3-lifecycle")
    environment = {key: value for key, value in os.environ.items() if not key.startswith("AWS_")}
    environment |= s3.environment() | {"PYTHONPATH": str(REPOSITORY)}
    started = time.monotonic()
    job = subprocess.run(
        [sys.executable, str(JOB), str(root / "home"), BUCKET, str(root / "out.json")],
        env=environment, cwd=REPOSITORY, capture_output=True, text=True, timeout=600,
    )
    assert job.returncode == 0, job.stderr[-4000:]
    result = json.loads((root / "out.json").read_text())
    print(f"S3 lifecycle: session start {result['session_seconds']:.1f} s, lifecycle {result['lifecycle_seconds']:.1f} s")
    return result | {"output": job.stdout + job.stderr, "seconds": time.monotonic() - started, "home": str(root / "home")}


def test_keyed_loads_from_s3a_files_keep_one_row_per_key_with_the_key_index_on_s3(lifecycle: dict, s3: S3Server) -> None:
    assert lifecycle["orders_location"] == f"s3://{BUCKET}/wh/lc/orders"
    csv = lifecycle["csv_load"]
    assert (csv["loaded_rows"], csv["filtered_rows"]) == (3, 1)
    assert csv["error_rows_path"].startswith(("s3://", "s3a://"))
    assert len(lifecycle["error_rows"]) == 1 and lifecycle["error_rows"][0][0]
    assert lifecycle["parquet_load"]["loaded_rows"] == 3
    # The Parquet load replaced keys 2 and 3 and added 5: one row per key, the newest values.
    assert lifecycle["after_keyed_loads"] == [
        ["1", "2024-01-05", "Rome", "10"], ["2", "2024-01-20", "Bern", "21"],
        ["3", "2024-02-10", "Kyiv", "31"], ["5", "2024-02-12", "Pune", "50"],
    ]
    assert lifecycle["key_index_summary"][0][0].startswith("probed ")
    index = s3.filesystem().get_file_info(fs.FileSelector(f"{BUCKET}/wh/lc/orders/_doris_key_index", recursive=True))
    assert any(entry.type == fs.FileType.File for entry in index)


def test_partial_update_temp_partition_swap_and_insert_overwrite(lifecycle: dict) -> None:
    assert lifecycle["after_partial_update"] == [["3", "Kyiv", "333"]]  # city kept, amount updated
    # The swap put the temp partition's one row in place of p202402's three.
    assert lifecycle["after_swap"] == [
        ["1", "2024-01-05", "Rome", "10"], ["2", "2024-01-20", "Bern", "21"], ["6", "2024-02-20", "Lima", "60"],
    ]
    # PARTITION(*) replaced January only, the partition its row lands in.
    assert lifecycle["events"] == [["2024-01-02", "9", "replaced"], ["2024-02-05", "3", "click"]]


def test_compact_changes_and_cleanup_of_orphans_on_s3(lifecycle: dict, s3: S3Server) -> None:
    assert lifecycle["compact"]["rewritten_data_files"] >= 1
    assert lifecycle["after_compact"] == lifecycle["after_cleanup"] == FINAL_ROWS
    changes = dict(map(tuple, lifecycle["changes"]))
    assert changes["insert"] >= 4 and changes["update_postimage"] == changes["update_preimage"] >= 3
    assert lifecycle["cleanup"]["deleted_orphan_files"] >= 1
    assert s3.filesystem().get_file_info(lifecycle["orphan"]).type == fs.FileType.NotFound


def test_pyiceberg_and_duckdb_read_the_same_rows_from_s3(
    lifecycle: dict, s3: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in [key for key in os.environ if key.startswith("AWS_")]:
        monkeypatch.delenv(key)
    for key, value in s3.environment().items():
        monkeypatch.setenv(key, value)
    table = iceberg_doris.catalog(home=lifecycle["home"], warehouse=f"s3://{BUCKET}/wh").load_table("lc.orders")
    read = sorted(
        [str(r["id"]), str(r["dt"]), r["city"], str(r["amount"])] for r in table.scan().to_arrow().to_pylist()
    )
    assert read == FINAL_ROWS
    duckdb_rows = duckdb_reader.read_rows(table.metadata_location, "id, dt, city, amount", order_by="id", s3=s3)
    assert [[str(value) for value in row] for row in duckdb_rows] == FINAL_ROWS


def test_the_secret_never_reaches_the_driver_output_or_our_files(lifecycle: dict, s3: S3Server) -> None:
    assert s3.secret_key not in lifecycle["output"]
    secret = s3.secret_key.encode()
    for path in Path(lifecycle["home"]).rglob("*"):
        assert not path.is_file() or secret not in path.read_bytes(), path
