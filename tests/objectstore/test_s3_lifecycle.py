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
import socket
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyarrow import fs

import iceberg_doris
from tests.objectstore.conftest import BUCKET
from tests.objectstore.s3_lifecycle_job import WRONG_SECRET
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


def _run(step: str, root: Path, environment: dict[str, str]) -> tuple[dict, str]:
    """Runs a step of the job in a fresh process with only ``environment``'s AWS settings; what it
    wrote and its output."""
    inherited = {key: value for key, value in os.environ.items() if not key.startswith("AWS_")}
    done = subprocess.run(
        [sys.executable, str(JOB), step, str(root / "home"), BUCKET, str(root / "out.json")],
        env=inherited | environment | {"PYTHONPATH": str(REPOSITORY), "CLOSED_ENDPOINT": _closed_endpoint()},
        cwd=REPOSITORY, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads((root / "out.json").read_text()), done.stdout + done.stderr


def _closed_endpoint() -> str:
    """A loopback address nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


@pytest.fixture(scope="module")
def lifecycle(s3: S3Server, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Runs the lifecycle job once: what it returned, with its output."""
    _put_sources(s3)
    root = tmp_path_factory.mktemp("s3-lifecycle")
    result, output = _run("lifecycle", root, s3.environment())
    print(f"S3 lifecycle: session start {result['session_seconds']:.1f} s, lifecycle {result['lifecycle_seconds']:.1f} s")
    return result | {"output": output, "home": str(root / "home")}


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
    # Inserts: keys 1-3 (CSV), 5 (Parquet), 6 (swapped in); updates: 2 and 3 (Parquet), 3 (partial),
    # 1 (third load); deletes: p202402's 3 and 5, swapped out.
    assert dict(map(tuple, lifecycle["changes"])) == {"delete": 2, "insert": 5, "update_postimage": 4, "update_preimage": 4}
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


def test_refused_credentials_and_an_unreachable_endpoint_are_our_errors_naming_the_endpoint(
    lifecycle: dict, s3: S3Server, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # The session's first table access under a secret the server refuses (a session of its own).
    errors, output = _run(
        "refused-credentials", tmp_path_factory.mktemp("s3-errors"), s3.environment() | {"AWS_SECRET_ACCESS_KEY": WRONG_SECRET}
    )
    assert errors["create_table"].startswith(
        f"EngineError: doris.create_table failed: the object store at {s3.endpoint} refused the credentials ("
    )
    # Source files of loads: a bucket s3a serves from an endpoint nothing listens on, one whose key
    # pair the server refuses (s3a's per-bucket settings in the lifecycle's session).
    unreachable, refused = lifecycle["errors"]["unreachable"], lifecycle["errors"]["refused"]
    assert unreachable.startswith("EngineError: doris.load reading s3a://gone/x.csv failed: the object store at http://127.0.0.1:")
    assert "is unreachable" in unreachable and "AWS_ENDPOINT_URL_S3" in unreachable
    assert refused.startswith(f"EngineError: doris.load reading s3a://{BUCKET}-refused/src/events.csv failed: the object store at {s3.endpoint} refused the credentials")
    for text in (errors["create_table"], output, unreachable, refused, lifecycle["output"]):
        assert WRONG_SECRET not in text and s3.secret_key not in text


def test_the_secret_never_reaches_the_driver_output_or_our_files(lifecycle: dict, s3: S3Server) -> None:
    assert s3.secret_key not in lifecycle["output"]
    secret = s3.secret_key.encode()
    for path in Path(lifecycle["home"]).rglob("*"):
        assert not path.is_file() or secret not in path.read_bytes(), path
