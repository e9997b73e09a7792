"""What each operation is asked to do and what it reports, as typed values.

Procedures bind their arguments into these (strings become enums there, and only there); Python
callers of :mod:`iceberg_doris.operations` build them directly.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class MergeType(Enum):
    """How a load's rows apply to a unique-key table (Doris's ``merge_type``), or undo an earlier
    load of an aggregate table (Doris's ``NEGATIVE`` flag)."""

    APPEND = "APPEND"  # upsert every row
    MERGE = "MERGE"  # rows where ``delete_on`` holds delete their key, the others upsert
    DELETE = "DELETE"  # every row deletes its key
    NEGATIVE = "NEGATIVE"  # aggregate tables whose values are all SUM: every value is negated


class UniqueKeyUpdateMode(Enum):
    """Doris's ``unique_key_update_mode`` stream-load header: whole rows (``UPSERT``), the columns
    the load names (``UPDATE_FIXED_COLUMNS``, as ``partial_columns``), or the columns each JSON
    row names (``UPDATE_FLEXIBLE_COLUMNS``)."""

    UPSERT = "UPSERT"
    UPDATE_FIXED_COLUMNS = "UPDATE_FIXED_COLUMNS"
    UPDATE_FLEXIBLE_COLUMNS = "UPDATE_FLEXIBLE_COLUMNS"


class OverwriteMode(Enum):
    """Which partitions an overwrite replaces."""

    TOUCHED = "TOUCHED"  # the partitions the rows land in
    NAMED = "NAMED"  # the partitions the request names
    ALL = "ALL"  # the whole table


@dataclass(frozen=True)
class LoadOrigin:
    """Which operation runs a load, set by the operations that load through ``load`` (INSERT
    OVERWRITE, DELETE of unique keys), never by the user's request."""

    operation: str = "load"  # names the operation in the label, errors and snapshot summary
    # Replaces "too many filtered rows" (INSERT's messages); may name {filtered}, {total} and {ratio}.
    filtered_message: str | None = None
    # Doris's INSERT statement rather than its stream load: the two keep different rows of a key
    # repeated in one partial-column batch (merge_on_write.plan.resolve_batch).
    insert_statement: bool = False
    # The keys models ("UNIQUE", "AGGREGATE") on which the load is a partial-column update without
    # asking: Doris's INSERT under enable_unique_key_partial_update / enable_agg_key_partial_update.
    partial_update_models: frozenset[str] = frozenset()
    # Entries the operation adds to the commit's snapshot summary (keys of table_model.snapshot_summary).
    summary: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class StreamBatch:
    """One micro-batch of a stream (``doris.stream_to``): which stream, which batch (Spark's batch
    id, increasing), and the streaming query it came from (None: not from a streaming query).
    Loaded once per table: the commit records it (:mod:`iceberg_doris.table_model.stream_marks`)."""

    stream: str
    batch_id: int
    query_id: str | None = None


@dataclass(frozen=True)
class LoadRequest:
    """A load (``doris.load``) or an INSERT OVERWRITE (``doris.insert_overwrite``): where the rows
    come from, how they map, and where they go. Give one of ``source`` (a table or view name, or a
    DataFrame), ``query`` or ``path``. ``origin``: which operation runs the load (default: ``load``
    itself), set by the operations built on it."""

    source: Any = None
    query: str | None = None
    path: tuple[str, ...] | None = None
    format: str | None = None
    format_options: Mapping[str, str] | None = None
    columns: str | None = None
    where: str | None = None
    partitions: tuple[str, ...] | None = None
    temporary_partitions: tuple[str, ...] | None = None
    label: str | None = None
    max_filter_ratio: float = 0.0
    strict_mode: bool = False
    merge_type: MergeType = MergeType.APPEND
    delete_on: str | None = None
    sequence_col: str | None = None
    partial_columns: bool = False
    # None: not given (partial_columns decides); else it decides, as Doris's header does.
    unique_key_update_mode: UniqueKeyUpdateMode | None = None
    overwrite: OverwriteMode | None = None  # None: the rows are added
    auto_create: bool = True  # auto-partition tables create the partitions rows need
    origin: LoadOrigin = LoadOrigin()
    stream_batch: StreamBatch | None = None  # a stream's micro-batch: skipped if committed before

    def __post_init__(self) -> None:
        # Modes are enums from Python; strings are bound into them only at the procedure boundary.
        if not isinstance(self.merge_type, MergeType):
            raise TypeError(f"merge_type must be a MergeType (e.g. MergeType.MERGE), got {self.merge_type!r}")
        mode = self.unique_key_update_mode
        if mode is not None and not isinstance(mode, UniqueKeyUpdateMode):
            raise TypeError(f"unique_key_update_mode must be a UniqueKeyUpdateMode or None, got {mode!r}")
        if self.overwrite is not None and not isinstance(self.overwrite, OverwriteMode):
            raise TypeError(f"overwrite must be an OverwriteMode or None, got {self.overwrite!r}")

    @property
    def flexible(self) -> bool:
        """Whether each JSON row updates only the columns it names (UPDATE_FLEXIBLE_COLUMNS)."""
        return self.unique_key_update_mode is UniqueKeyUpdateMode.UPDATE_FLEXIBLE_COLUMNS

    @property
    def operation(self) -> str:
        """The operation running the load (:attr:`LoadOrigin.operation`)."""
        return self.origin.operation


@dataclass(frozen=True)
class LoadResult:
    """What a load committed. ``snapshot_ids``: each ref the commit moved (``main``, or the
    branches of the temp partitions loaded) and its new snapshot."""

    label: str
    status: str
    snapshot_id: int | None
    loaded_rows: int
    filtered_rows: int
    unselected_rows: int
    deleted_rows: int
    elapsed_ms: int
    error_rows_path: str | None
    snapshot_ids: Mapping[str, int] = field(default_factory=dict)
    repaired_keys: int = 0  # keys other writers had stored twice, repaired in a commit before the load


@dataclass(frozen=True)
class StreamBatchResult:
    """What one micro-batch of a stream did to a table: ``load`` is its load's result, or None when
    the batch was skipped (it was committed before: a replay)."""

    batch: StreamBatch
    load: LoadResult | None

    @property
    def skipped(self) -> bool:
        return self.load is None


@dataclass(frozen=True)
class DeleteRequest:
    """Doris ``DELETE FROM t [PARTITION (...)] WHERE where``: ``where`` is a Spark SQL condition on
    the table's columns; ``partitions`` (formal partition names) narrows it."""

    where: str
    partitions: tuple[str, ...] | None = None
    label: str | None = None


@dataclass(frozen=True)
class DeleteResult:
    label: str
    snapshot_id: int | None
    deleted_rows: int  # live rows the commit deleted
    elapsed_ms: int


@dataclass(frozen=True)
class InsertOverwriteRequest:
    """Doris INSERT OVERWRITE: ``query``'s columns map to the table's by position; ``query`` is a
    SELECT or a (batch) DataFrame. ``partitions``: None for the whole table, the names to replace,
    or ``("*",)`` for the partitions the rows touch."""

    query: Any  # str | pyspark.sql.DataFrame
    partitions: tuple[str, ...] | None = None
    auto_create: bool = False
    label: str | None = None


@dataclass(frozen=True)
class PartitionValues:
    """A new partition's range or list: exactly one of the three is given."""

    values_less_than: Any = None
    values_range: Any = None
    values_in: Any = None


@dataclass(frozen=True)
class AddPartitionRequest:
    partition: str
    values: PartitionValues
    temporary: bool = False


@dataclass(frozen=True)
class AddPartitionResult:
    partition_name: str
    range: str | None  # None: a temp partition of an unpartitioned table
    is_temp: bool
    branch: str | None
    partition_spec: str


@dataclass(frozen=True)
class DropPartitionRequest:
    partition: str
    temporary: bool = False
    if_exists: bool = False
    force: bool = False  # Doris's DROP PARTITION ... FORCE: skip the recycle bin


@dataclass(frozen=True)
class DropPartitionResult:
    partition_name: str
    is_temp: bool
    dropped: bool
    snapshot_id: int | None
    deleted_rows: int


@dataclass(frozen=True)
class PartitionReplacementRequest:
    """Formal ``partitions`` replaced by ``temp_partitions`` (Doris REPLACE PARTITION rules)."""

    partitions: tuple[str, ...]
    temp_partitions: tuple[str, ...]
    strict_range: bool = True
    use_temp_partition_name: bool = False


@dataclass(frozen=True)
class MovedPartition:
    """A formal partition after a swap/replace and what it now holds."""

    partition_name: str
    from_temp_partition: str
    row_count: int
    data_files: int
    delete_files: int
    replaced_by_temp: str | None  # swap only: the temp partition now holding the replaced rows
    snapshot_id: int | None


@dataclass(frozen=True)
class CompactRequest:
    partitions: tuple[str, ...] | None = None  # None: every partition


@dataclass(frozen=True)
class CompactResult:
    rewritten_data_files: int
    removed_delete_files: int
    added_data_files: int
    dropped_tombstone_files: int
    kept_tombstone_files: int
    snapshot_id: int | None


@dataclass(frozen=True)
class CleanupRequest:
    older_than: dt.datetime | None = None  # default: 24 hours ago
    retain_last: int = 1


@dataclass(frozen=True)
class PropertyChange:
    property: str
    old_value: str | None
    new_value: str


@dataclass(frozen=True)
class FeatureEnabled:
    """What ``enable_feature`` added: the feature (as Doris spells it) and its hidden column."""

    feature: str
    column: str
    column_type: str


@dataclass(frozen=True)
class CreateTableResult:
    table: str
    keys_model: str
    partition_spec: str
    partitions: int
    status: str  # CREATED, or EXISTS with IF NOT EXISTS


@dataclass(frozen=True)
class DynamicPartitionChange:
    """One line of a scheduler pass: a partition created or dropped, or a table it could not change."""

    table: str
    action: str  # CREATE, DROP or ERROR
    partition_name: str | None
    range: str | None
    message: str | None


@dataclass(frozen=True)
class RecoverPartitionRequest:
    """Doris RECOVER PARTITION ``partition`` [``partition_id``] [AS ``new_name``]; the partition id
    is the id of the snapshot that put the partition into the recycle bin."""

    partition: str
    new_name: str | None = None
    partition_id: int | None = None


@dataclass(frozen=True)
class RecoverPartitionResult:
    partition_name: str
    range: str
    recovered_rows: int
    dropped_in_snapshot: int  # the snapshot (drop, truncate or overwrite) the partition came back from
    snapshot_id: int | None


@dataclass(frozen=True)
class RenamePartitionRequest:
    partition: str
    new_name: str


@dataclass(frozen=True)
class RenamePartitionResult:
    partition_name: str
    new_name: str


@dataclass(frozen=True)
class ReplaceTableRequest:
    """Doris ``ALTER TABLE t REPLACE WITH TABLE with_table PROPERTIES('swap' = ...)``:
    ``with_table`` is a table of the same database (``tbl`` or ``db.tbl``)."""

    with_table: str
    swap: bool = True


@dataclass(frozen=True)
class ReplaceTableResult:
    """The names after the swap, and the metadata file each points at (``with_table_metadata``
    None when ``swap`` was false); ``dropped_metadata`` is the replaced table's metadata file when
    it left the catalog (register it again to recover it)."""

    table: str
    with_table: str
    swap: bool
    table_metadata: str
    with_table_metadata: str | None
    dropped_metadata: str | None


@dataclass(frozen=True)
class TruncateRequest:
    """Doris TRUNCATE TABLE: ``partitions`` None for the whole table (its temp partitions go too),
    else the formal partitions to empty. ``temporary`` is Doris's TEMPORARY PARTITION (refused)."""

    partitions: tuple[str, ...] | None = None
    temporary: bool = False
    force: bool = False  # Doris's TRUNCATE ... FORCE: skip the recycle bin


@dataclass(frozen=True)
class TruncateResult:
    partitions: tuple[str, ...]  # the partitions emptied; () for an unpartitioned table
    dropped_temp_partitions: tuple[str, ...]
    deleted_rows: int
    snapshot_id: int | None
