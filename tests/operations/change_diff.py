"""The independent check of the change feed: two snapshots read with Spark time travel and
compared by key in Python, and the feed replayed onto the first to give the second."""

from __future__ import annotations

from collections import Counter
from typing import Any

from iceberg_doris.operations.changes import ChangesRequest, changes

CHANGE_COLUMNS = ("_change_type", "_commit_snapshot_id", "_commit_timestamp")


def head(spark: Any, table: str) -> int:
    return spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").first()[0]


def rows_at(spark: Any, table: str, snapshot: int | None) -> list[tuple]:
    """The table's rows at ``snapshot`` (None: before the first), by Spark time travel."""
    if snapshot is None:
        return []
    return [tuple(r) for r in spark.sql(f"SELECT * FROM {table} VERSION AS OF {int(snapshot)}").collect()]


def feed(spark: Any, table: str, start: int | None, end: int | None = None, *, net: bool = False, temp_partition=None) -> list[Any]:
    frame = changes(spark, table, ChangesRequest(start_snapshot=start, end_snapshot=end, net=net, temp_partition=temp_partition))
    return frame.collect()


def image(row: Any) -> tuple:
    return tuple(v for k, v in row.asDict().items() if k not in CHANGE_COLUMNS)


def keyed_diff(before: list[tuple], after: list[tuple], key: int = 1) -> dict[tuple, tuple]:
    """key -> (row before or None, row after or None), for the keys whose row changed."""
    old = {r[:key]: r for r in before}
    new = {r[:key]: r for r in after}
    assert len(old) == len(before) and len(new) == len(after), "one row per key"
    return {k: (old.get(k), new.get(k)) for k in old.keys() | new.keys() if old.get(k) != new.get(k)}


def net_as_diff(rows: list[Any], key: int = 1) -> dict[tuple, tuple]:
    """The net feed as key -> (pre-image or None, post-image or None); one change per key."""
    result: dict[tuple, list] = {}
    for row in rows:
        values = image(row)
        entry = result.setdefault(values[:key], [None, None])
        kind = row["_change_type"]
        slot = 0 if kind in ("delete", "update_preimage") else 1
        assert entry[slot] is None, f"two {kind} rows for key {values[:key]}"
        entry[slot] = values
    for k, (pre, post) in result.items():
        kinds = sorted(r["_change_type"] for r in rows if image(r)[:key] == k)
        expected = {(True, True): ["update_postimage", "update_preimage"], (True, False): ["delete"], (False, True): ["insert"]}
        assert kinds == expected[(pre is not None, post is not None)], (k, kinds)
    return {k: tuple(v) for k, v in result.items()}


def replay(before: list[tuple], rows: list[Any]) -> Counter:
    """Applies the feed in order to ``before``: every deleted row must be there when it goes."""
    state = Counter(before)
    for row in rows:
        values = image(row)
        if row["_change_type"] in ("delete", "update_preimage"):
            assert state[values] > 0, f"{row['_change_type']} of a row that is not there: {values}"
            state[values] -= 1
            if not state[values]:
                del state[values]
        else:
            state[values] += 1
    return state


def check_range(spark: Any, table: str, start: int | None, end: int, *, key: int | None = 1) -> list[Any]:
    """The feed from ``start`` to ``end`` against the two snapshots: replayed it gives ``end``'s
    rows; net, it is their diff by key (``key`` None: a table without keys, compared as multisets).
    Returns the (not net) feed."""
    before, after = rows_at(spark, table, start), rows_at(spark, table, end)
    rows = feed(spark, table, start, end)
    assert replay(before, rows) == Counter(after)
    net = feed(spark, table, start, end, net=True)
    if key is None:
        deleted = Counter(image(r) for r in net if r["_change_type"] == "delete")
        inserted = Counter(image(r) for r in net if r["_change_type"] == "insert")
        assert deleted == Counter(before) - Counter(after)
        assert inserted == Counter(after) - Counter(before)
    else:
        assert net_as_diff(net, key) == keyed_diff(before, after, key)
    assert all(r["_commit_snapshot_id"] is not None and r["_commit_timestamp"] is not None for r in rows)
    return rows


def kinds(rows: list[Any]) -> list[tuple]:
    """(change type, values) of each row, in feed order."""
    return [(r["_change_type"], image(r)) for r in rows]
