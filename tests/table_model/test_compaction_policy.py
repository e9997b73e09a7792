"""The automatic compaction's policy and chooser (pure: no Spark)."""

from __future__ import annotations

import pytest

from iceberg_doris.errors import TableStateError
from iceberg_doris.table_model.compaction_policy import (
    DEFAULT_TARGET_FILE_BYTES,
    Choice,
    CompactionPolicy,
    FileFacts,
    choose,
)

MB = 1024 * 1024
POLICY = CompactionPolicy(min_input_files=3, small_file_bytes=10 * MB, delete_ratio=0.3, delete_files_per_partition=4)


def big(location: str, partition: str = "p0", *, deleted: int = 0, delete_files: int = 0, rows: int = 100) -> FileFacts:
    return FileFacts(location, partition, 100 * MB, rows, deleted, delete_files)


def small(location: str, partition: str = "p0", *, deleted: int = 0, delete_files: int = 0) -> FileFacts:
    return FileFacts(location, partition, 1 * MB, 100, deleted, delete_files)


def test_defaults_follow_doris_and_iceberg_bin_pack():
    policy = CompactionPolicy.from_properties("db.t", {})
    assert policy == CompactionPolicy(True, 5, int(DEFAULT_TARGET_FILE_BYTES * 0.75), 0.3, 10)


def test_properties_tune_it_and_the_target_size_moves_the_small_threshold():
    policy = CompactionPolicy.from_properties("db.t", {
        "doris.compaction.enabled": "FALSE", "doris.compaction.min-input-files": "8",
        "doris.compaction.delete-ratio": "0.5", "doris.compaction.delete-files-per-partition": "3",
        "write.target-file-size-bytes": str(128 * MB),
    })
    assert policy == CompactionPolicy(False, 8, 96 * MB, 0.5, 3)
    assert CompactionPolicy.from_properties("db.t", {"doris.compaction.small-file-bytes": "1000"}).small_file_bytes == 1000


def test_doris_disable_auto_compaction_turns_it_off_unless_ours_is_set():
    doris_off = {"doris.property.disable_auto_compaction": "true"}
    assert not CompactionPolicy.from_properties("db.t", doris_off).enabled
    assert CompactionPolicy.from_properties("db.t", doris_off | {"doris.compaction.enabled": "true"}).enabled
    assert CompactionPolicy.from_properties("db.t", {"doris.property.disable_auto_compaction": "false"}).enabled


@pytest.mark.parametrize(("key", "value", "wanted", "example"), [
    ("doris.compaction.enabled", "yes", "true or false", "true"),
    ("doris.compaction.min-input-files", "1", "a whole number >= 2", "5"),
    ("doris.compaction.min-input-files", "2.5", "a whole number >= 2", "5"),
    ("doris.compaction.delete-ratio", "0", "a number in (0, 1]", "0.3"),
    ("doris.compaction.delete-ratio", "lots", "a number in (0, 1]", "0.3"),
    ("doris.compaction.delete-files-per-partition", "0", "a whole number >= 1", "10"),
])
def test_a_bad_property_names_itself_and_the_fix(key, value, wanted, example):
    with pytest.raises(TableStateError) as raised:
        CompactionPolicy.from_properties("db.t", {key: value})
    assert str(raised.value) == (
        f"Table db.t has {key} = {value!r}, which is not {wanted}: "
        f"set it with ALTER TABLE db.t SET TBLPROPERTIES ('{key}' = '{example}')"
    )


def test_nothing_to_do_chooses_nothing():
    files = [big("a"), big("b", deleted=29), small("c"), small("d")]
    assert choose(files, POLICY) == Choice(())
    assert not choose(files, POLICY)


def test_files_with_many_deleted_rows_are_chosen_alone():
    files = [big("a", deleted=30, delete_files=1), big("b", deleted=29, delete_files=1), big("c", deleted=100, delete_files=1)]
    assert choose(files, POLICY) == Choice(("a", "c"), deleted_rows=2)


def test_many_delete_files_in_a_partition_choose_its_files_with_deletes():
    p0 = [big("a", deleted=1, delete_files=2), big("b", deleted=1, delete_files=2), big("c")]
    p1 = [big("d", "p1", deleted=1, delete_files=3), big("e", "p1")]
    assert choose(p0 + p1, POLICY) == Choice(("a", "b"), delete_files=2)


def test_small_files_are_merged_once_a_partition_has_enough():
    p0 = [small("a"), small("b"), big("c"), small("d")]
    p1 = [small("e", "p1"), small("f", "p1")]  # two: not yet
    assert choose(p0 + p1, POLICY) == Choice(("a", "b", "d"), small_files=3)


def test_each_file_is_chosen_once_for_its_first_reason():
    files = [small("a", deleted=50, delete_files=1), small("b"), small("c")]
    assert choose(files, POLICY) == Choice(("a", "b", "c"), deleted_rows=1, small_files=2)


def test_a_disabled_table_chooses_nothing():
    files = [big("a", deleted=100, delete_files=1)]
    assert choose(files, CompactionPolicy(enabled=False)) == Choice(())
