"""write_error_rows: the rejected rows and their reasons as JSON lines, written by Spark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from iceberg_doris.errors import LoadError
from iceberg_doris.loading import STATUS_COLUMN, TargetColumn, prepare_rows, read_error_rows, write_error_rows

pytestmark = pytest.mark.spark


def test_error_rows_are_written_as_json_lines(spark: Any, tmp_path: Path) -> None:
    source = spark.createDataFrame(
        [("1", "ok", [1]), ("x", "bad int", None), ("3", "much too long", [2, 3]), ("4", "fine", None)],
        "k STRING, v STRING, tags ARRAY<INT>",
    )
    targets = [
        TargetColumn("k", "INT", False, "INT"),
        TargetColumn("v", "STRING", True, "VARCHAR(8)", max_length=8),
        TargetColumn("tags", "ARRAY<INT>", True, "ARRAY<INT>"),
    ]
    prepared = prepare_rows(source, targets, strict_mode=True)
    # a caller's internal columns (here a routing column) stay out of the file
    rejected = prepared.where(f"{STATUS_COLUMN} = 'error'").selectExpr("*", "'p1' AS __doris_partition")

    location = str(tmp_path / "errors")
    assert write_error_rows(rejected, location) == location
    rows = sorted(read_error_rows(location), key=lambda row: row["reason"])
    assert rows == [
        {"reason": "column k: cannot convert 'x' to INT", "row": {"k": None, "v": "bad int", "tags": None}},
        {
            "reason": "column v: value 'much too long' is 13 bytes, longer than VARCHAR(8) allows (8 bytes)",
            # the too-long value is dropped from the row (issue 42: never carried with the batch); the reason shows it
            "row": {"k": "3", "v": None, "tags": "[2,3]"},
        },
    ]
    # the limit caps the rows written; the location is replaced, and file: URIs work
    write_error_rows(rejected, "file:" + location, limit=1)
    assert len(read_error_rows("file:" + location)) == 1
    assert list(Path(location).glob("part-*.json"))

    with pytest.raises(LoadError, match="non-negative integer"):
        write_error_rows(rejected, location, limit=-1)
    with pytest.raises(LoadError, match="no error rows at"):
        read_error_rows(str(tmp_path / "nowhere"))
