"""``check``: what writers outside iceberg-doris did to a table's Doris guarantees, reported, never changed.

One row per finding (:class:`Finding`):

- ``repeated_keys``: keys of a unique or aggregate table with more than one live row (every key
  of the table is counted, whoever wrote it). A keyed ``doris.load`` repairs those that commits
  not made by iceberg-doris wrote (:mod:`iceberg_doris.operations.repair_keys`).
- ``unchecked_commits``: commits of main without ``doris.operation`` in their summary that no
  keyed load has checked yet.
- ``revived_keys``: on a sequence table, keys whose live row has a smaller sequence value than a
  deleted version of the key (a tombstone, or a replaced row): a writer outside iceberg-doris
  appended a row a keyed load would have discarded, so a deleted key is back or an older value
  shows. PENDING when every such row is in a file a commit not checked yet added: the next keyed
  load marks those deleted (:mod:`iceberg_doris.operations.repair_keys`).
- ``dropped_tombstones``: on a sequence table, rewrites not made by iceberg-doris (Iceberg's
  ``rewrite_data_files``) that dropped deleted rows, so the sequence tombstones among them no
  longer keep a deleted key from coming back when a row with an older sequence value arrives.
  Iceberg's history cannot tell which keys: the snapshots are named.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iceberg_doris.ddl import KeysModel
from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine.foreign_commits import UncheckedCommits, live_files_added_by, unchecked_foreign_commits
from iceberg_doris.engine.iceberg_tables import read_at_snapshot
from iceberg_doris.merge_on_write.plan import FILE
from iceberg_doris.merge_on_write.repair import DELETED_SEQUENCE, LIVE_SEQUENCE, repeated_keys, rows_older_than_deleted_versions
from iceberg_doris.operations.tables import DorisTable, open_table

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

REPEATED_KEYS = "repeated_keys"
UNCHECKED_COMMITS = "unchecked_commits"
REVIVED_KEYS = "revived_keys"
DROPPED_TOMBSTONES = "dropped_tombstones"
OK, VIOLATION, PENDING, NOT_APPLICABLE = "OK", "VIOLATION", "PENDING", "NOT APPLICABLE"
EXAMPLES = 5  # keys or snapshots named in a detail


@dataclass(frozen=True)
class Finding:
    check: str
    status: str  # OK, VIOLATION, PENDING (the next keyed load handles it) or NOT APPLICABLE
    count: int
    detail: str

    def row(self) -> tuple[str, str, int, str]:
        return (self.check, self.status, self.count, self.detail)


def check(spark: "SparkSession", table: str) -> list[Finding]:
    """The findings of ``table`` (``db.tbl``) at its current snapshot; reads, never commits.

    Example:
        >>> [f.row() for f in operations.check(spark, "crm.users")]  # doctest: +SKIP
        [('repeated_keys', 'OK', 0, ...), ('unchecked_commits', 'OK', 0, ...), ('revived_keys', ...), ('dropped_tombstones', ...)]
    """
    handle = open_table(spark, table)
    model, iceberg_table = handle.model, handle.table
    keyed = model.keys_model is not KeysModel.DUPLICATE
    unchecked = unchecked_foreign_commits(iceberg_table)
    findings = []
    if not keyed:
        findings.append(Finding(REPEATED_KEYS, NOT_APPLICABLE, 0, "a DUPLICATE KEY table keeps every row"))
    elif unchecked.head is None:
        findings.append(Finding(REPEATED_KEYS, OK, 0, "the table holds no rows"))
    else:
        frame = read_at_snapshot(spark, handle.name, iceberg_table, unchecked.head)
        repeated = repeated_keys(frame, model).cache()
        try:
            count = repeated.count()
            examples = repeated.limit(EXAMPLES).collect() if count else []
        finally:
            repeated.unpersist()
        if count:
            shown = "; ".join(_key_text(model.key_columns, row) for row in examples)
            findings.append(Finding(
                REPEATED_KEYS, VIOLATION, count,
                f"{count} key(s) have more than one live row (e.g. {shown}), written by a writer outside "
                "iceberg-doris; the next doris.load into the table keeps one row per key by Doris's rule",
            ))
        else:
            findings.append(Finding(REPEATED_KEYS, OK, 0, "every key has one live row"))
    commits = unchecked.commits
    if commits:
        findings.append(Finding(
            UNCHECKED_COMMITS, PENDING if keyed else OK, len(commits),
            f"snapshot(s) {_ids(c.snapshot_id for c in commits)} not made by iceberg-doris"
            + (", checked by the next doris.load" if keyed else ""),
        ))
    else:
        findings.append(Finding(UNCHECKED_COMMITS, OK, 0, "no commit by another writer since the last check"))
    findings.append(_revived_keys(spark, handle, unchecked))
    findings.append(_dropped_tombstones(handle))
    return findings


def _revived_keys(spark: "SparkSession", handle: DorisTable, unchecked: UncheckedCommits) -> Finding:
    model = handle.model
    if model.keys_model is not KeysModel.UNIQUE or not model.sequence_column:
        return Finding(
            REVIVED_KEYS, NOT_APPLICABLE, 0, "only a UNIQUE KEY table with a sequence column orders a key's versions by it",
        )
    if unchecked.head is None:
        return Finding(REVIVED_KEYS, OK, 0, "the table holds no rows")
    frame = read_at_snapshot(spark, handle.name, handle.table, unchecked.head)
    older = rows_older_than_deleted_versions(frame, model).cache()
    try:
        rows = older.count()
        if not rows:
            return Finding(REVIVED_KEYS, OK, 0, "no live row is older by its sequence value than a deleted version of its key")
        key_columns = [quote_identifier(k) for k in model.key_columns]
        keys = older.select(*key_columns).distinct().count()
        examples = older.select(*key_columns, LIVE_SEQUENCE, DELETED_SEQUENCE).limit(EXAMPLES).collect()
        # Only the rows in files that commits not checked yet added are what the next keyed load
        # looks at; a row a check has passed (or one iceberg-doris wrote) stays until deleted again.
        pending = live_files_added_by(handle.table, unchecked.commits, unchecked.head) if unchecked.commits else []
        left = older.filter(~older[FILE].isin(pending)).count() if pending else rows
    finally:
        older.unpersist()
    column = model.sequence_column
    shown = "; ".join(_older_text(model.key_columns, column, row) for row in examples)
    found = (
        f"{keys} key(s) have a live row with a smaller {column} than a deleted version of the key, a tombstone "
        f"or a replaced row (e.g. {shown}), left by a writer outside iceberg-doris; by Doris's rule such a row "
        "never replaces the deleted one"
    )
    if not left:
        return Finding(REVIVED_KEYS, PENDING, keys, found + "; the next doris.load into the table marks them deleted")
    return Finding(
        REVIVED_KEYS, VIOLATION, keys,
        found + f". {left} such row(s) are not in a file that a commit not checked yet added, so no load repairs "
        "them (a check has passed them, or iceberg-doris wrote them and another writer deleted the newer version): "
        f"delete the key again with a {column} at least the deleted version's (doris.load with merge_type => "
        "'DELETE'; doris.delete reuses the row's own value, which loses), or load the row again with such a value",
    )


def _dropped_tombstones(handle: DorisTable) -> Finding:
    if handle.model.keys_model is not KeysModel.UNIQUE or not handle.model.sequence_column:
        return Finding(DROPPED_TOMBSTONES, NOT_APPLICABLE, 0, "only a UNIQUE KEY table with a sequence column keeps tombstones")
    everything = unchecked_foreign_commits(handle.table, everything=True)
    dropped = [c for c in everything.commits if c.dropped_deleted_rows]
    if not dropped:
        return Finding(DROPPED_TOMBSTONES, OK, 0, "no rewrite by another writer dropped deleted rows")
    return Finding(
        DROPPED_TOMBSTONES, VIOLATION, len(dropped),
        f"snapshot(s) {_ids(c.snapshot_id for c in dropped)}, rewrites not made by iceberg-doris (Iceberg's "
        "rewrite_data_files?), dropped deleted rows: keys deleted before them can come back when a row with an "
        "older sequence value arrives. Delete those keys again (doris.delete) or roll back to before the rewrite; "
        "compact with doris.compact, which keeps tombstones",
    )


def _ids(ids: Iterable[int]) -> str:
    listed = [str(i) for i in ids]
    shown = ", ".join(listed[:EXAMPLES])
    return shown + (f" and {len(listed) - EXAMPLES} more" if len(listed) > EXAMPLES else "")


def _older_text(keys: tuple[str, ...], column: str, row: Any) -> str:
    named = ", ".join(f"{c}={row[i]!r}" for i, c in enumerate(keys))
    return f"{named}: live {column}={row[len(keys)]!r} < deleted {column}={row[len(keys) + 1]!r}"


def _key_text(columns: tuple[str, ...], row: Any) -> str:
    return ", ".join(f"{c}={row[i]!r}" for i, c in enumerate(columns)) + f" ({row[len(columns)]} rows)"
