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
    size_tier,
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


def test_a_file_with_many_delete_files_of_its_own_is_chosen():
    files = [big("a", deleted=1, delete_files=4), big("b", deleted=1, delete_files=3), big("c")]
    assert choose(files, POLICY) == Choice(("a",), delete_files=1)


def test_many_shared_delete_files_in_a_partition_choose_every_file_they_apply_to():
    # v2 partition-scoped position delete files: only rewriting every file they cover drops them.
    p0 = [
        FileFacts("a", "p0", 100 * MB, 100, 1, 2, ("d1", "d2")),
        FileFacts("b", "p0", 100 * MB, 100, 1, 3, ("d2", "d3", "d4")),
        big("c"),
    ]
    p1 = [FileFacts("d", "p1", 100 * MB, 100, 1, 3, ("e1", "e2", "e3")), big("e", "p1")]  # three: not yet
    assert choose(p0 + p1, POLICY) == Choice(("a", "b"), delete_files=2)


def test_deletion_vectors_of_large_files_do_not_get_them_rewritten():
    # v3: one vector per file, never accumulating; a few deleted rows leave a large file alone.
    files = [big(name, deleted=5, delete_files=1) for name in "abcdefgh"]
    assert choose(files, POLICY) == Choice(())


def test_small_files_are_merged_once_a_partition_has_enough():
    p0 = [small("a"), small("b"), big("c"), small("d")]
    p1 = [small("e", "p1"), small("f", "p1")]  # two: not yet
    assert choose(p0 + p1, POLICY) == Choice(("a", "b", "d"), small_files=3)


def test_small_files_merge_by_size_tier_and_leave_larger_ones_alone():
    def sized(location: str, size: int) -> FileFacts:
        return FileFacts(location, "p0", size, 100, 0, 0)

    assert [size_tier(n) for n in (0, MB - 1, MB, 4 * MB - 1, 4 * MB, 9 * MB)] == [0, 0, 1, 1, 2, 2]
    base = [sized(f"base{i}", 8 * MB) for i in range(2)]  # tier 2, only two of them
    stream = [sized(f"s{i}", 100_000) for i in range(3)]  # tier 0: three, enough
    assert choose(base + stream, POLICY) == Choice(("s0", "s1", "s2"), small_files=3)
    # A full tier takes the smaller tiers' files with it, never a larger tier's.
    middle = [sized(f"m{i}", 2 * MB) for i in range(3)]  # tier 1: full
    one_tiny = [sized("t", 1000)]
    assert choose(base + middle + one_tiny, POLICY) == Choice(("m0", "m1", "m2", "t"), small_files=4)
    assert choose(base + [sized("m0", 2 * MB)] + one_tiny, POLICY) == Choice(())


def test_each_file_is_chosen_once_for_its_first_reason():
    files = [small("a", deleted=50, delete_files=1), small("b"), small("c")]
    assert choose(files, POLICY) == Choice(("a", "b", "c"), deleted_rows=1, small_files=2)


def test_a_disabled_table_chooses_nothing():
    files = [big("a", deleted=100, delete_files=1)]
    assert choose(files, CompactionPolicy(enabled=False)) == Choice(())
