"""Real Structured Streaming queries for the sink's tests: a file source (one JSON file per
micro-batch), a checkpoint folder, a query that runs what is there and stops."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from iceberg_doris.table_model.snapshot_summary import STREAM, STREAM_BATCH

# Each file one micro-batch, taken in order of modification time.
FIRST_MTIME = 1_700_000_000


def write_batch(folder: Path, index: int, rows: Iterable[Mapping[str, Any]]) -> Path:
    """Writes micro-batch ``index`` (0, 1, ...) as one JSON-lines file the source takes after the
    files of the batches before it (its modification time says so, whatever the clock does)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"batch-{index:04d}.json"
    staged = folder / f".batch-{index:04d}.json.tmp"  # the file source skips dot files
    staged.write_text("".join(json.dumps(dict(row)) + "\n" for row in rows))
    os.utime(staged, (FIRST_MTIME + index, FIRST_MTIME + index))
    staged.rename(path)
    return path


def run_stream(
    spark: Any, source: Path, schema: str, checkpoint: Path, sink: Callable[[Any, int], None],
) -> Any:
    """Runs a query over the files in ``source`` not yet processed (one per micro-batch) until it
    has done them all, then stops. Returns the query (its ``id``, ``lastProgress``, ...); raises
    the query's failure as StreamingQueryException."""
    return _run_to_the_end(spark, source, schema, checkpoint, lambda writer: writer.foreachBatch(sink))


def run_doris_format(spark: Any, source: Path, schema: str, checkpoint: Path, options: Mapping[str, Any]) -> Any:
    """As :func:`run_stream`, through ``writeStream.format("doris")`` with ``options``."""
    return _run_to_the_end(spark, source, schema, checkpoint, lambda writer: writer.format("doris").options(**options))


def _run_to_the_end(spark: Any, source: Path, schema: str, checkpoint: Path, to_sink: Callable[[Any], Any]) -> Any:
    writer = (
        spark.readStream.format("json").schema(schema).option("maxFilesPerTrigger", 1).load(str(source))
        .writeStream.option("checkpointLocation", str(checkpoint))
    )
    query = to_sink(writer).trigger(availableNow=True).start()
    query.awaitTermination()
    return query


def batch_progress(query: Any) -> dict[int, dict[str, Any]]:
    """The query's progress of each batch its sink ran, by batch id, as plain JSON values (Spark
    3.5 gives dicts, Spark 4 objects with the same JSON). A trigger that ran no batch reports the
    sink's metrics of the batch before: left out."""
    progress = [json.loads(p.json) if hasattr(p, "json") else p for p in query.recentProgress]
    return {p["batchId"]: p for p in progress if p["sink"]["metrics"].get("batch_id") == str(p["batchId"])}


def forget_last_checkpoint_commit(checkpoint: Path) -> int:
    """Removes the checkpoint's record that the last batch finished, as when the driver died
    after the batch's commit and before Spark wrote it: a restart runs that batch again. Returns
    the batch id."""
    commits = checkpoint / "commits"
    last = max(int(p.name) for p in commits.iterdir() if p.name.isdigit())
    (commits / str(last)).unlink()
    crc = commits / f".{last}.crc"
    if crc.exists():
        crc.unlink()
    return last


def committed_batches(spark: Any, table: str) -> list[tuple[str, int]]:
    """(stream, batch id) of every snapshot of ``table`` a stream's batch committed, oldest first."""
    rows = spark.sql(
        f"SELECT summary['{STREAM}'] AS stream, CAST(summary['{STREAM_BATCH}'] AS BIGINT) AS batch "
        f"FROM {table}.snapshots WHERE summary['{STREAM}'] IS NOT NULL ORDER BY committed_at, snapshot_id"
    ).collect()
    return [(row.stream, row.batch) for row in rows]
