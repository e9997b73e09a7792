"""Compaction beside loads (Doris's rowid conversion), with every interleaving forced.

A load, a ``doris.delete`` or a plain Spark DELETE commits between compact's plan (its files
written, its rowid mapping kept) and its catalog swap: compact commits anyway, carrying the rows
deleted meanwhile over onto the files it wrote, and every reader sees the serial result. The
converse: compact commits between a keyed load's lookup and its commit, and the load commits too.
Format v3 (deletion vectors) and v2 (position delete files)."""

from __future__ import annotations

from typing import Any

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import interleaving
from iceberg_doris.errors import CommitConflictError
from tests.concurrency import once_for, readers_agree, snapshot_summary, unique_table, values
from tests.concurrency.test_races_per_commit_path import assert_rebuilt_on, at_commit, main_snapshot, snapshot_ids

pytestmark = pytest.mark.spark

SEQUENCE = '"function_column.sequence_col" = "s"'


def keyed_table(spark: Any, namespace: str, version: int, *, name: str = "u", sequence: bool = False) -> str:
    """A one-bucket unique-key table (a v2 one made by Spark and given the Doris model)."""
    if version == 3:
        return unique_table(spark, namespace, name=name, buckets=1, properties=SEQUENCE if sequence else "")
    assert not sequence
    table = f"{namespace}.{name}"
    spark.sql(
        f"CREATE TABLE {table} (k INT NOT NULL, v STRING, s INT) USING iceberg PARTITIONED BY (bucket(1, k)) TBLPROPERTIES ('format-version'='2', "
        "'write.wap.enabled'='true', 'doris.keys-model'='UNIQUE', 'doris.key-columns'='k', 'doris.merge-on-write'='true')"
    )
    return table


def with_work_for_compact(spark: Any, table: str, *, sequence: int = 0) -> str:
    """Keys 1-6 in one file, and key 1 replaced: a delete on that file, so compact rewrites it."""
    doris.load(spark, table=table, query=values([f"({k},'v{k}',{sequence})" for k in range(1, 7)]))
    doris.load(spark, table=table, query=values([f"(1,'one',{sequence})"]))
    return table


def compact_snapshot(spark: Any, table: str) -> dict[str, str]:
    found = spark.sql(f"SELECT summary FROM {table}.snapshots WHERE summary['doris.operation'] = 'compact'").collect()
    assert len(found) == 1
    return dict(found[0].summary)


def delete_file_count(spark: Any, table: str) -> int:
    return spark.sql(f"SELECT count(*) FROM {table}.delete_files").collect()[0][0]


def data_file_paths(spark: Any, table: str) -> set[str]:
    return {r[0] for r in spark.sql(f"SELECT file_path FROM {table}.data_files").collect()}


@pytest.mark.parametrize("version", [3, 2])
def test_a_merge_load_between_compact_plan_and_commit_is_carried_over(spark, namespace, py_catalog, version):
    table = with_work_for_compact(spark, keyed_table(spark, namespace, version))
    before = main_snapshot(spark, table)

    def competitor() -> None:  # updates key 2 and deletes key 3, both rows of the file compact rewrites
        doris.load(spark, table=table, query=values(["(2,'inner',0)", "(7,'new',0)"]), label="upsert")
        doris.load(spark, table=table, query=values(["(3,'x',0)"]), merge_type="DELETE", label="delete")

    with interleaving.inject(interleaving.BEFORE_COMMIT, once_for(table, competitor)):
        [result] = doris.compact(spark, table=table)
    assert readers_agree(spark, py_catalog, table) == [
        (1, "one", 0), (2, "inner", 0), (4, "v4", 0), (5, "v5", 0), (6, "v6", 0), (7, "new", 0),
    ]
    summary = compact_snapshot(spark, table)
    assert summary["doris.carried-deletes"] == "2"  # keys 2 and 3, deleted in the new file
    assert result.snapshot_id == main_snapshot(spark, table)
    parent = spark.sql(f"SELECT parent_id FROM {table}.snapshots WHERE snapshot_id = {result.snapshot_id}").collect()[0][0]
    assert parent == snapshot_summary_id(spark, table, "delete") and parent != before  # rebuilt on the loads
    assert (result.rewritten_data_files, result.added_data_files) == (1, 1)  # the file of keys 1-6, and its replacement
    # One delete file left: the carried-over deletes of the new file (the old ones went with their file).
    assert delete_file_count(spark, table) == 1
    assert (snapshot_summary(spark, table, "upsert")["doris.lookups"], snapshot_summary(spark, table, "delete")["doris.lookups"]) == ("1", "1")
    # The table goes on: the next load finds its keys in the compacted file (key index included).
    [loaded] = doris.load(spark, table=table, query=values(["(4,'after',0)", "(2,'again',0)"]), label="after")
    assert readers_agree(spark, py_catalog, table) == [
        (1, "one", 0), (2, "again", 0), (4, "after", 0), (5, "v5", 0), (6, "v6", 0), (7, "new", 0),
    ]
    if version == 3:  # the key index (v3 only) probes the compacted file
        assert snapshot_summary(spark, table, "after")["doris.key-index"].startswith("probed ")
    assert loaded.snapshot_id == main_snapshot(spark, table)


def snapshot_summary_id(spark: Any, table: str, label: str) -> int:
    return spark.sql(f"SELECT snapshot_id FROM {table}.snapshots WHERE summary['doris.label'] = '{label}'").collect()[0][0]


def test_a_sequence_table_load_between_compact_plan_and_commit_keeps_sequence_rules(spark, namespace, py_catalog):
    table = keyed_table(spark, namespace, 3, sequence=True)
    with_work_for_compact(spark, table, sequence=5)

    def competitor() -> None:  # key 2 newer (applied), key 3 older (kept out), key 4 deleted
        doris.load(spark, table=table, query=values(["(2,'newer',9)", "(3,'older',1)"]), label="inner")
        doris.load(spark, table=table, query=values(["(4,'x',9)"]), merge_type="DELETE", label="delete")

    with interleaving.inject(interleaving.BEFORE_COMMIT, once_for(table, competitor)):
        doris.compact(spark, table=table)
    assert readers_agree(spark, py_catalog, table) == [(1, "one", 5), (2, "newer", 9), (3, "v3", 5), (5, "v5", 5), (6, "v6", 5)]
    assert compact_snapshot(spark, table)["doris.carried-deletes"] == "2"
    # Key 4's tombstone still guards it: an older row does not bring it back.
    doris.load(spark, table=table, query=values(["(4,'late',3)"]))
    assert [r for r in readers_agree(spark, py_catalog, table) if r[0] == 4] == []


@pytest.mark.parametrize("version", [3, 2])
def test_doris_delete_between_compact_plan_and_commit_is_carried_over(spark, namespace, py_catalog, version):
    table = with_work_for_compact(spark, keyed_table(spark, namespace, version))

    def competitor() -> None:
        doris.delete(spark, table=table, where="k IN (2, 5)", label="delete")

    with interleaving.inject(interleaving.BEFORE_COMMIT, once_for(table, competitor)):
        doris.compact(spark, table=table)
    assert readers_agree(spark, py_catalog, table) == [(1, "one", 0), (3, "v3", 0), (4, "v4", 0), (6, "v6", 0)]
    assert compact_snapshot(spark, table)["doris.carried-deletes"] == "2"


@pytest.mark.parametrize("version", [3, 2])
def test_a_plain_spark_delete_at_compact_swap_is_carried_over(spark, namespace, py_catalog, version):
    table = with_work_for_compact(spark, keyed_table(spark, namespace, version))
    before = main_snapshot(spark, table)
    with at_commit(spark, table, f"DELETE FROM {table} WHERE k = 6") as competitor:
        [result] = doris.compact(spark, table=table)
    assert_rebuilt_on(spark, table, before, competitor, result.snapshot_id)
    assert readers_agree(spark, py_catalog, table) == [(1, "one", 0), (2, "v2", 0), (3, "v3", 0), (4, "v4", 0), (5, "v5", 0)]
    assert compact_snapshot(spark, table)["doris.carried-deletes"] == "1"


def test_compact_whose_files_a_concurrent_commit_removed_commits_nothing(spark, namespace, py_catalog):
    table = with_work_for_compact(spark, keyed_table(spark, namespace, 3))
    before_ids = snapshot_ids(spark, table)
    # A DELETE of every row removes the data files outright (metadata only).
    with at_commit(spark, table, f"DELETE FROM {table} WHERE k > 0") as competitor:
        with pytest.raises(CommitConflictError) as raised:
            doris.compact(spark, table=table)
    assert competitor.calls == 1
    message = str(raised.value)
    assert message.startswith(f"Cannot compact {table}: a concurrent commit ")
    assert message.endswith("; nothing was committed. Run it again.")
    assert snapshot_ids(spark, table) == before_ids | {competitor.snapshot}
    assert readers_agree(spark, py_catalog, table) == []


@pytest.mark.parametrize("version", [3, 2])
def test_compact_between_a_load_lookup_and_its_commit(spark, namespace, py_catalog, version):
    table = with_work_for_compact(spark, keyed_table(spark, namespace, version))

    def competitor() -> None:
        doris.compact(spark, table=table)

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        doris.load(spark, table=table, query=values(["(2,'outer',0)", "(3,'outer',0)"]), label="outer")
    assert readers_agree(spark, py_catalog, table) == [
        (1, "one", 0), (2, "outer", 0), (3, "outer", 0), (4, "v4", 0), (5, "v5", 0), (6, "v6", 0),
    ]
    outer = snapshot_summary(spark, table, "outer")
    # The load planned against the replaced file: it converted its deletes through the
    # compaction's rowid mapping instead of looking its keys up again (test_loads_past_compaction).
    assert (outer["doris.lookups"], outer["doris.past-compactions"]) == ("1", "1")
    assert compact_snapshot(spark, table)["doris.carried-deletes"] == "0"


def _shift_segment_offsets(spark: Any, table: str, *, keep_checksum: bool) -> None:
    """Every offset of the compaction's segment map +1: the file still decodes."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pathlib import Path

    folder = compact_snapshot(spark, table)["doris.rowid-map"]
    path = Path(folder.removeprefix("file:").removeprefix("//")) / "segments.parquet"
    stored = pq.read_table(path)
    shifted = stored.set_column(
        stored.column_names.index("offset"), "offset", pa.array([o + 1 for o in stored.column("offset").to_pylist()], pa.int64())
    )
    if not keep_checksum:
        shifted = shifted.replace_schema_metadata({})
    pq.write_table(shifted, path)
    path.with_name(f".{path.name}.crc").unlink(missing_ok=True)


@pytest.mark.parametrize("keep_checksum", [True, False])
def test_a_damaged_rowid_map_is_not_used_and_the_load_looks_up_again(spark, namespace, py_catalog, keep_checksum, caplog):
    import logging

    table = with_work_for_compact(spark, keyed_table(spark, namespace, 3))

    def competitor() -> None:
        doris.compact(spark, table=table)
        _shift_segment_offsets(spark, table, keep_checksum=keep_checksum)

    with caplog.at_level(logging.WARNING, logger="iceberg_doris.engine.compaction"):
        with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
            doris.load(spark, table=table, query=values(["(2,'outer',0)", "(3,'outer',0)"]), label="outer")
    # Converted through the shifted map, the load would delete keys 3 and 4 and keep key 2 twice.
    assert readers_agree(spark, py_catalog, table) == [
        (1, "one", 0), (2, "outer", 0), (3, "outer", 0), (4, "v4", 0), (5, "v5", 0), (6, "v6", 0),
    ]
    outer = snapshot_summary(spark, table, "outer")
    assert outer["doris.lookups"] == "2" and "doris.past-compactions" not in outer
    reason = "checksum mismatch" if keep_checksum else "no checksum"
    assert any("is not used" in r.getMessage() and reason in r.getMessage() for r in caplog.records)


def test_a_mapping_folder_removed_meanwhile_does_not_fail_a_committed_compaction(spark, namespace, py_catalog):
    """Seen in the soak run: two compactions of one table, one removing a mapping folder (its own,
    after a failure) while the other walks the folders it listed to remove the stale ones. The
    walking compaction had committed; it must say so, not fail on the vanished folder."""
    table = with_work_for_compact(spark, keyed_table(spark, namespace, 3))
    doris.compact(spark, table=table)  # leaves a mapping folder behind for the next compaction to list
    doris.load(spark, table=table, query=values(["(2,'two',0)"]))
    location = spark.sql(f"SELECT summary['doris.rowid-map'] FROM {table}.snapshots WHERE summary['doris.operation'] = 'compact'").collect()[0][0]
    jvm = spark.sparkContext._jvm
    folder = jvm.org.apache.hadoop.fs.Path(location)
    fs = folder.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    assert fs.exists(folder)

    with interleaving.inject(interleaving.MAPPINGS_LISTED, once_for(table, lambda: fs.delete(folder, True))):
        result = doris.compact(spark, table=table)[0]
    assert result.snapshot_id == main_snapshot(spark, table)  # committed, and reported as committed
    assert not fs.exists(folder)
    assert readers_agree(spark, py_catalog, table) == [(1, "one", 0), (2, "two", 0), *((k, f"v{k}", 0) for k in range(3, 7))]
