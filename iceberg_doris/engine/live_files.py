"""Live-file planning: the data files a snapshot reads, and the position delete files and deletion
vectors that apply to each (what a keyed load, compaction or partition change works from).

The plan is built in the JVM (``io.icebergdoris.iceberg.LiveFiles``); Python sees it as mappings by
data file location whose Java objects cross py4j only when asked for.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from iceberg_doris.engine.iceberg_java import JavaObject, java_items, split_locations


class _PlannedByLocation(Mapping[str, Any]):
    """A read-only mapping over locations of a JVM-side plan; values are fetched on demand."""

    def __init__(self, plan: JavaObject, joined_locations: str):
        self._plan = plan
        self._locations = split_locations(joined_locations)
        self._known = set(self._locations)

    @property
    def plan(self) -> JavaObject:
        """The JVM-side plan (io.icebergdoris.iceberg.LiveFiles) these files come from."""
        return self._plan

    @abstractmethod
    def _fetch(self, location: str) -> Any:
        """The value for a known location, from the plan."""

    def __getitem__(self, location: str) -> Any:
        if location not in self._known:
            raise KeyError(location)
        return self._fetch(location)

    def __iter__(self) -> Iterator[str]:
        return iter(self._locations)

    def __len__(self) -> int:
        return len(self._locations)

    def __contains__(self, location: object) -> bool:
        return location in self._known


class PlannedDataFiles(_PlannedByLocation):
    """Data files of a JVM-side plan by location; a DataFile crosses py4j only when asked for."""

    def __init__(self, plan: JavaObject):
        super().__init__(plan, str(plan.locations()))
        self._fetched: dict[str, JavaObject] = {}

    def _fetch(self, location: str) -> JavaObject:
        if location not in self._fetched:
            self._fetched[location] = self._plan.dataFile(location)
        return self._fetched[location]


class PlannedPositionDeletes(_PlannedByLocation):
    """The position delete files / DV of each planned data file that has any."""

    def __init__(self, plan: JavaObject):
        super().__init__(plan, str(plan.locationsWithPositionDeletes()))

    def _fetch(self, location: str) -> list[JavaObject]:
        return java_items(self._plan.positionDeletes(location))


def plan_live_files(table: JavaObject, snapshot_id: int, row_filter: JavaObject | None = None) -> JavaObject:
    """The JVM-side plan (io.icebergdoris.iceberg.LiveFiles) of a snapshot's live files."""
    from pyspark import SparkContext

    return SparkContext._jvm.io.icebergdoris.iceberg.LiveFiles.plan(table, snapshot_id, row_filter)


def live_files(
    table: JavaObject, *, snapshot_id: int | None = None, row_filter: JavaObject | None = None
) -> tuple[Mapping[str, JavaObject], Mapping[str, list[JavaObject]]]:
    """The live data files of a snapshot (default: current; only those that may hold rows matching
    the Iceberg expression ``row_filter`` if given) by location, and the position delete files and
    DVs that apply to each: the ``data_files`` and ``existing`` arguments of the writers."""
    if snapshot_id is None:
        snapshot = table.currentSnapshot()
        if snapshot is None:
            return {}, {}
        snapshot_id = snapshot.snapshotId()
    plan = plan_live_files(table, int(snapshot_id), row_filter)
    return PlannedDataFiles(plan), PlannedPositionDeletes(plan)


def delete_file_key(delete_file: JavaObject) -> str:
    """Identity of a delete file: DVs share a Puffin file, so the blob offset is part of it."""
    return f"{delete_file.location()}@{delete_file.contentOffset()}"


def file_order_column(data_files: Mapping[str, JavaObject] | None, file_column: str, locations: Iterable[str] = ()) -> Any:
    """A Spark column: the data sequence number (the commit that wrote its rows) of the planned
    data file named in ``file_column``, for the files ``locations`` (default: every planned file;
    a literal map, no join); None when ``data_files`` is not a plan (no file was planned)."""
    from pyspark.sql import Column

    from iceberg_doris.engine.iceberg_java import join_locations

    plan = plan_of(data_files)
    return None if plan is None else Column(plan.fileOrder(file_column, join_locations(locations)))


def has_equality_deletes(data_files: Mapping[str, JavaObject] | None) -> bool | None:
    """Whether an equality delete file applies to a planned data file; None when ``data_files`` is
    not a plan."""
    plan = plan_of(data_files)
    return None if plan is None else bool(plan.hasEqualityDeletes())


def locations_with_deletes(plan: JavaObject) -> list[str]:
    """The planned data files that have delete files (position deletes, deletion vectors or
    equality deletes), by location."""
    return split_locations(str(plan.locationsWithDeletes()))


def plan_of(data_files: Mapping[str, JavaObject] | None) -> JavaObject | None:
    """The JVM-side plan ``data_files`` come from (:class:`PlannedDataFiles`), or None."""
    return data_files.plan if isinstance(data_files, PlannedDataFiles) else None
