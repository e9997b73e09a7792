"""Which files an automatic compaction rewrites: a table's compaction policy and the chooser.

Pure: no Spark, no Iceberg; the facts about each live data file come in as :class:`FileFacts`.

The chooser follows Doris's compaction and Iceberg's bin-pack, per partition:

- **deleted rows** (Doris base compaction, Iceberg's ``delete-ratio-threshold``): a file whose
  deleted share of rows reaches ``doris.compaction.delete-ratio`` is rewritten (a fully deleted
  one is dropped; tombstones of sequence tables keep their retention, see ``compact``);
- **many delete files** (Iceberg's ``delete-file-threshold``): a file with
  ``doris.compaction.delete-files-per-partition`` delete files or more of its own is rewritten;
  and when a partition holds that many shared delete files (v2 position delete files that may
  apply to several of its files), every file they apply to is rewritten, the only way they go.
  A deletion vector (v3) is one per file and never accumulates: a large file with a few deleted
  rows keeps its vector (rewriting it would cost loads running beside the compaction far more
  than the vector costs readers) until the deleted-rows rule picks it;
- **small files** (Doris's size-based cumulative compaction, Iceberg's ``min-file-size-bytes`` /
  ``min-input-files``): files under ``doris.compaction.small-file-bytes`` are sorted into size
  tiers (under 1 MiB, then each tier 4 times the one before); a tier holding
  ``doris.compaction.min-input-files`` files is merged, with the smaller tiers' files. Files of
  similar size merge, so a stream's small files fold together while its large (base) files are
  not rewritten on every pass, as Doris's cumulative compaction leaves rowsets promoted past the
  cumulative point to base compaction.

Iceberg table properties (``ALTER TABLE t SET TBLPROPERTIES (...)``, like
``doris.tombstone-retention-hours``; defaults in :data:`DEFAULTS`):

=============================================  ======================================================
``doris.compaction.enabled``                   ``true``; ``false``: the automatic runs skip the table
                                               (so does Doris's ``"disable_auto_compaction" = "true"``
                                               in CREATE TABLE's PROPERTIES, unless this is set)
``doris.compaction.min-input-files``           small files a partition needs before they are merged
``doris.compaction.small-file-bytes``          a file under this size is small (default 75% of the
                                               table's ``write.target-file-size-bytes``, 512 MB)
``doris.compaction.delete-ratio``              deleted share of a file's rows that gets it rewritten
``doris.compaction.delete-files-per-partition``  delete files in a partition that get its files with
                                               deletes rewritten
=============================================  ======================================================
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from iceberg_doris.errors import TableStateError
from iceberg_doris.table_model.table_properties import DORIS_PROPERTY_PREFIX

ENABLED = "doris.compaction.enabled"
MIN_INPUT_FILES = "doris.compaction.min-input-files"
SMALL_FILE_BYTES = "doris.compaction.small-file-bytes"
DELETE_RATIO = "doris.compaction.delete-ratio"
DELETE_FILES_PER_PARTITION = "doris.compaction.delete-files-per-partition"
TARGET_FILE_SIZE = "write.target-file-size-bytes"  # Iceberg's own
DORIS_DISABLE = DORIS_PROPERTY_PREFIX + "disable_auto_compaction"  # Doris's PROPERTIES ("disable_auto_compaction" = "true")
DEFAULT_TARGET_FILE_BYTES = 512 * 1024 * 1024
SMALL_SHARE_OF_TARGET = 0.75  # Iceberg bin-pack's min-file-size-bytes default
DEFAULTS = {
    ENABLED: "true",
    MIN_INPUT_FILES: "5",  # Doris's cumulative_compaction_min_deltas, Iceberg's min-input-files
    DELETE_RATIO: "0.3",  # Iceberg's delete-ratio-threshold
    DELETE_FILES_PER_PARTITION: "10",
}


@dataclass(frozen=True)
class CompactionPolicy:
    enabled: bool = True
    min_input_files: int = 5
    small_file_bytes: int = int(DEFAULT_TARGET_FILE_BYTES * SMALL_SHARE_OF_TARGET)
    delete_ratio: float = 0.3
    delete_files_per_partition: int = 10

    @classmethod
    def from_properties(cls, table: str, properties: Mapping[str, str]) -> "CompactionPolicy":
        """The policy a table's properties set; a bad value raises :class:`TableStateError`
        naming the property and how to fix it."""
        def value(key: str) -> str:
            found = properties.get(key)
            return str(found).strip() if found is not None and str(found).strip() else DEFAULTS[key]

        enabled = value(ENABLED).lower()
        if properties.get(ENABLED) is None and str(properties.get(DORIS_DISABLE) or "").strip().lower() == "true":
            enabled = "false"  # Doris's own table property, given in CREATE TABLE ... PROPERTIES
        if enabled not in ("true", "false"):
            raise _bad(table, ENABLED, enabled, "true or false", "true")
        target = _number(table, TARGET_FILE_SIZE, properties.get(TARGET_FILE_SIZE) or str(DEFAULT_TARGET_FILE_BYTES), 1, str(DEFAULT_TARGET_FILE_BYTES))
        small_default = str(int(target * SMALL_SHARE_OF_TARGET))
        small = properties.get(SMALL_FILE_BYTES) or small_default
        return cls(
            enabled=enabled == "true",
            min_input_files=int(_number(table, MIN_INPUT_FILES, value(MIN_INPUT_FILES), 2, DEFAULTS[MIN_INPUT_FILES])),
            small_file_bytes=int(_number(table, SMALL_FILE_BYTES, str(small).strip(), 0, small_default)),
            delete_ratio=_ratio(table, value(DELETE_RATIO)),
            delete_files_per_partition=int(
                _number(table, DELETE_FILES_PER_PARTITION, value(DELETE_FILES_PER_PARTITION), 1, DEFAULTS[DELETE_FILES_PER_PARTITION])
            ),
        )


@dataclass(frozen=True)
class FileFacts:
    """One live data file as the chooser sees it."""

    location: str
    partition: str  # any string naming the file's partition ("" unpartitioned)
    size_bytes: int
    rows: int
    deleted_rows: int  # rows its delete files delete
    delete_files: int  # delete files that apply to it
    shared_deletes: tuple[str, ...] = ()  # those that may apply to other files too (v2), named


@dataclass(frozen=True)
class Choice:
    """The files to rewrite, and why (each reason's count, for the run's report)."""

    locations: tuple[str, ...]
    deleted_rows: int = 0  # chosen for their share of deleted rows
    delete_files: int = 0  # chosen because their partition has many delete files
    small_files: int = 0  # chosen as small files of a partition with enough of them

    def __bool__(self) -> bool:
        return bool(self.locations)


def choose(files: Iterable[FileFacts], policy: CompactionPolicy) -> Choice:
    """The files to rewrite under ``policy`` (none when it is disabled), in the input's order."""
    if not policy.enabled:
        return Choice(())
    by_partition: dict[str, list[FileFacts]] = {}
    for facts in files:
        by_partition.setdefault(facts.partition, []).append(facts)
    chosen: dict[str, str] = {}  # location -> reason, first reason wins
    for partition_files in by_partition.values():
        for facts in partition_files:
            if facts.rows and facts.deleted_rows / facts.rows >= policy.delete_ratio:
                chosen.setdefault(facts.location, "deleted_rows")
        shared = {name for f in partition_files for name in f.shared_deletes}
        for facts in partition_files:
            if facts.delete_files >= policy.delete_files_per_partition or (
                facts.shared_deletes and len(shared) >= policy.delete_files_per_partition
            ):
                chosen.setdefault(facts.location, "delete_files")
        for facts in _small_files_to_merge(partition_files, policy):
            chosen.setdefault(facts.location, "small_files")
    order = [f.location for partition_files in by_partition.values() for f in partition_files if f.location in chosen]
    reasons = list(chosen.values())
    return Choice(
        tuple(order), reasons.count("deleted_rows"), reasons.count("delete_files"), reasons.count("small_files"),
    )


TIER_BASE_BYTES = 1024 * 1024  # files under 1 MiB share the first tier
TIER_FACTOR = 4  # each tier holds files up to 4 times larger than the one before


def size_tier(size_bytes: int) -> int:
    """A file's size tier: 0 under 1 MiB, then 1 + floor(log4(size / 1 MiB))."""
    tier, bound = 0, TIER_BASE_BYTES
    while size_bytes >= bound:
        tier += 1
        bound *= TIER_FACTOR
    return tier


def _small_files_to_merge(files: list[FileFacts], policy: CompactionPolicy) -> list[FileFacts]:
    """The small files of one partition to merge: those of the largest tier that holds
    ``min_input_files`` files, and of every smaller tier (small files cost little to fold in)."""
    small = [f for f in files if f.size_bytes < policy.small_file_bytes]
    tiers: dict[int, int] = {}
    for facts in small:
        tiers[size_tier(facts.size_bytes)] = tiers.get(size_tier(facts.size_bytes), 0) + 1
    full = [tier for tier, count in tiers.items() if count >= policy.min_input_files]
    if not full:
        return []
    return [f for f in small if size_tier(f.size_bytes) <= max(full)]


def _number(table: str, key: str, text: str, minimum: float, example: str) -> float:
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not (number >= minimum and math.isfinite(number)) or (number != int(number)):
        raise _bad(table, key, text, f"a whole number >= {int(minimum)}", example)
    return number


def _ratio(table: str, text: str) -> float:
    try:
        ratio = float(text)
    except ValueError:
        ratio = math.nan
    if not 0 < ratio <= 1:
        raise _bad(table, DELETE_RATIO, text, "a number in (0, 1]", DEFAULTS[DELETE_RATIO])
    return ratio


def _bad(table: str, key: str, value: str, wanted: str, example: str) -> TableStateError:
    return TableStateError(
        f"Table {table} has {key} = {value!r}, which is not {wanted}: "
        f"set it with ALTER TABLE {table} SET TBLPROPERTIES ('{key}' = '{example}')"
    )
