"""Doris operations on Iceberg tables, callable from Python: one operation is one commit.

Each function takes the Spark session, the table (``db.tbl``) and a typed request, and returns a
typed result; ``CALL doris.<procedure>`` binds its arguments into the same requests. For example::

    from iceberg_doris import operations
    from iceberg_doris.operations import LoadRequest, MergeType

    result = operations.load(spark, "crm.users", LoadRequest(query="SELECT ...", merge_type=MergeType.MERGE,
                                                            delete_on="op = 'D'"))
    result.snapshot_id, result.loaded_rows

Errors are :mod:`iceberg_doris.errors` classes; an operation that raises committed nothing.
"""

from iceberg_doris.engine.maintenance import CleanupCounts
from iceberg_doris.operations.add_partition import add_partition
from iceberg_doris.operations.changes import ChangesRequest, changes

from iceberg_doris.operations.check import Finding, check
from iceberg_doris.operations.cleanup import cleanup
from iceberg_doris.operations.compact import compact
from iceberg_doris.operations.create_table import create_table
from iceberg_doris.operations.delete_rows import delete
from iceberg_doris.operations.describe import describe
from iceberg_doris.operations.drop_partition import drop_partition
from iceberg_doris.operations.dynamic_partitions import run_dynamic_partition
from iceberg_doris.operations.enable_feature import enable_feature
from iceberg_doris.operations.insert_overwrite import insert_overwrite
from iceberg_doris.operations.load import load
from iceberg_doris.operations.merge_into import MergeRows, merge_into
from iceberg_doris.operations.partition_replacement import replace_partition, swap_temp_partition
from iceberg_doris.operations.recover_partition import recover_partition
from iceberg_doris.operations.rename_partition import rename_partition
from iceberg_doris.operations.replace_table import replace_table
from iceberg_doris.operations.truncate import truncate
from iceberg_doris.operations.requests import (
    AddPartitionRequest,
    AddPartitionResult,
    CleanupRequest,
    CompactRequest,
    CompactResult,
    CreateTableResult,
    DeleteRequest,
    DeleteResult,
    DropPartitionRequest,
    DropPartitionResult,
    DynamicPartitionChange,
    FeatureEnabled,
    InsertOverwriteRequest,
    LoadRequest,
    LoadResult,
    MergeType,
    MovedPartition,
    OverwriteMode,
    PartitionReplacementRequest,
    PartitionValues,
    PropertyChange,
    RecoverPartitionRequest,
    RecoverPartitionResult,
    RenamePartitionRequest,
    RenamePartitionResult,
    ReplaceTableRequest,
    ReplaceTableResult,
    TruncateRequest,
    TruncateResult,
    UniqueKeyUpdateMode,
)
from iceberg_doris.operations.set_properties import set_properties
from iceberg_doris.operations.show_partitions import show_partitions

__all__ = [
    "AddPartitionRequest",
    "AddPartitionResult",
    "ChangesRequest",
    "CleanupCounts",
    "Finding",
    "CleanupRequest",
    "CompactRequest",
    "CompactResult",
    "CreateTableResult",
    "DeleteRequest",
    "DeleteResult",
    "DropPartitionRequest",
    "DropPartitionResult",
    "DynamicPartitionChange",
    "FeatureEnabled",
    "InsertOverwriteRequest",
    "LoadRequest",
    "LoadResult",
    "MergeType",
    "MovedPartition",
    "OverwriteMode",
    "PartitionReplacementRequest",
    "PartitionValues",
    "PropertyChange",
    "RecoverPartitionRequest",
    "RecoverPartitionResult",
    "RenamePartitionRequest",
    "RenamePartitionResult",
    "ReplaceTableRequest",
    "ReplaceTableResult",
    "UniqueKeyUpdateMode",
    "TruncateRequest",
    "TruncateResult",
    "add_partition",
    "changes",

    "check",
    "cleanup",
    "compact",
    "create_table",
    "delete",
    "describe",
    "drop_partition",
    "enable_feature",
    "insert_overwrite",
    "load",
    "merge_into",
    "MergeRows",
    "recover_partition",
    "rename_partition",
    "replace_partition",
    "replace_table",
    "run_dynamic_partition",
    "set_properties",
    "show_partitions",
    "swap_temp_partition",
    "truncate",
]
