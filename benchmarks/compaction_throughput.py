"""Part of suite (f): ``doris.compact`` against Iceberg's ``rewrite_data_files`` on the same files.

The table the CDC stream left without compaction (100 batches of deletion vectors on the base
files) is registered under new names (``system.register_table`` on its current metadata file): each
copy starts from exactly the same snapshot, and a rewrite of one copy writes new files and
metadata of its own, never changing the others. No load runs meanwhile (``rewrite_data_files``
fails on concurrent deletes of the files it replaces; ``doris.compact`` would carry them over).

``rewrite_data_files`` is told to rewrite what ``doris.compact`` rewrites, every data file that has
a delete file and nothing else: ``delete-file-threshold`` 1, no file too small or too large, one
file enough for a group. Both write the live rows of those files (``added-records`` of the
snapshot) and drop their delete files; rows/s is those rows over the call's wall-clock time. The
copies run alternately (doris, spark, spark, doris) and each side's median is compared.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmarks.common import (
    ContendersDisagree,
    Digest,
    ResultTable,
    catalog_name,
    digest,
    fmt_ratio,
    fmt_seconds,
    iceberg_table,
    median,
    timed,
)

if TYPE_CHECKING:
    from benchmarks.common import Bench

ORDER = ("doris", "spark", "spark", "doris")
REWRITE_OPTIONS = {
    "delete-file-threshold": "1",
    "min-file-size-bytes": "0",
    "max-file-size-bytes": str(1 << 62),
    "min-input-files": "1",
}
LABELS = {"doris": "doris.compact", "spark": "CALL system.rewrite_data_files"}


def compare(bench: "Bench", table: str, expected: Digest, columns: list[str], key: str) -> tuple[ResultTable, float]:
    """Rewrites copies of ``table`` with both; returns the result table and the throughput ratio
    (doris.compact rows/s over rewrite_data_files rows/s)."""
    from iceberg_doris import doris

    spark = bench.spark
    catalog = catalog_name(spark)
    metadata = str(iceberg_table(spark, table).operations().current().metadataFileLocation())
    runs: dict[str, list[tuple[float, int, int, int]]] = {"doris": [], "spark": []}
    for number, kind in enumerate(ORDER):
        copy = bench.table(f"rewrite_{kind}_{number}")
        spark.sql(f"CALL {catalog}.system.register_table(table => '{copy}', metadata_file => '{metadata}')").collect()
        if kind == "doris":
            seconds, _ = timed(lambda: doris.compact(spark, table=copy))
        else:
            options = ", ".join(f"'{k}', '{v}'" for k, v in REWRITE_OPTIONS.items())
            seconds, _ = timed(lambda: spark.sql(
                f"CALL {catalog}.system.rewrite_data_files(table => '{copy}', options => map({options}))"
            ).collect())
        summary = iceberg_table(spark, copy).currentSnapshot().summary()
        rewritten = (int(summary.get("deleted-data-files") or 0), int(summary.get("added-data-files") or 0))
        written = int(summary.get("added-records") or 0)
        seen = digest(spark.table(copy), columns, key)
        if (seen.rows, seen.checksum) != (expected.rows, expected.checksum):
            raise ContendersDisagree(f"{LABELS[kind]} on {copy} left {seen}, expected {expected}")
        runs[kind].append((seconds, written, *rewritten))
        bench.log(f"  [f] {LABELS[kind]}: {fmt_seconds(seconds)}, {written} rows, {rewritten[0]} -> {rewritten[1]} files")
    if {r[1:3] for r in runs["doris"]} != {r[1:3] for r in runs["spark"]}:
        raise ContendersDisagree(f"the rewrites did not rewrite the same files: {runs}")
    rate = {kind: median([r[1] / r[0] for r in found]) for kind, found in runs.items()}
    ratio = rate["doris"] / rate["spark"]
    rows = []
    for kind in ("doris", "spark"):
        seconds, written, removed, added = runs[kind][0]
        rows.append([
            LABELS[kind], removed, added, written, fmt_seconds(median([r[0] for r in runs[kind]])),
            f"{rate[kind]:,.0f}", fmt_ratio(rate[kind] / rate["spark"]),
        ])
    return ResultTable(
        "Compaction throughput on the same files (the stream's uncompacted table, no concurrent loads)",
        ["rewrite", "files rewritten", "files written", "rows written", "time (median of 2)", "rows/s", "vs rewrite_data_files"],
        rows,
    ), ratio
