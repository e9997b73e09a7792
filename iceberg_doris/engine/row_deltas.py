"""The RowDelta a merge-on-write load commits: new rows and delete bitmaps, validated against the
snapshot its keys were looked up in."""

from __future__ import annotations

from collections.abc import Mapping

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, join_locations


def stage_keyed_row_delta(
    iceberg: IcebergJava,
    transaction: JavaObject,
    *,
    branch: str | None,
    looked_up_in: int | None,
    conflict_filter: JavaObject,
    rows_must_exist: list[str],
    added_rows: list[JavaObject],
    added_deletes: list[JavaObject],
    removed_deletes: list[JavaObject],
    summary: Mapping[str, str],
) -> None:
    """Stages one snapshot on ``branch`` (default main) adding rows and delete files. Iceberg
    refuses it (ValidationException) if, since snapshot ``looked_up_in``, another commit added
    rows or deletes matching ``conflict_filter``, or removed a data file of ``rows_must_exist``
    (the files the bitmaps point into, e.g. compacted away)."""
    delta = transaction.newRowDelta()
    if branch is not None:
        delta.toBranch(branch)
    if looked_up_in is not None:
        delta.validateFromSnapshot(looked_up_in)
    delta.conflictDetectionFilter(conflict_filter)
    delta.validateNoConflictingDataFiles().validateNoConflictingDeleteFiles().validateDeletedFiles()
    if rows_must_exist:
        delta.validateDataFilesExist(iceberg.helpers.LiveFiles.splitLocations(join_locations(rows_must_exist)))
    for data_file in added_rows:
        delta.addRows(data_file)
    for delete_file in added_deletes:
        delta.addDeletes(delete_file)
    for delete_file in removed_deletes:
        delta.removeDeletes(delete_file)
    for key, value in summary.items():
        delta.set(key, value)
    delta.commit()
