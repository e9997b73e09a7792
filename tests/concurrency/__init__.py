"""Concurrency tests: the commit lock, forced interleavings of concurrent commits, and writer
processes under contention. Helpers shared by their modules (real Spark, no mocks)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from iceberg_doris import doris
from iceberg_doris.engine.table_names import TableName
from tests.support import duckdb_reader


def values(rows: list[str], columns: str = "k, v, s") -> str:
    return "SELECT * FROM VALUES " + ", ".join(rows) + f" AS t({columns})"


def unique_table(spark: Any, namespace: str, name: str = "u", properties: str = "", buckets: int = 2, extra: str = "") -> str:
    props = f"PROPERTIES ({properties})" if properties else ""
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {namespace}.{name} (k INT NOT NULL, v STRING, s INT{extra}) UNIQUE KEY(k) "
        f"DISTRIBUTED BY HASH(k) BUCKETS {buckets} {props}",
    )
    return f"{namespace}.{name}"


def readers_agree(spark: Any, py_catalog: Any, table: str) -> list[tuple[Any, ...]]:
    """Spark, pyiceberg and DuckDB see the same rows; returns them, ordered by the first column."""
    seen = [tuple(r) for r in spark.sql(f"SELECT * FROM {table} ORDER BY 1").collect()]
    loaded = py_catalog.load_table(table)
    names = [f.name for f in loaded.schema().fields]
    arrow = sorted(tuple(r[n] for n in names) for r in loaded.scan().to_arrow().to_pylist())
    duck = [tuple(r) for r in duckdb_reader.read_rows(loaded.metadata_location, "*", order_by="1")]
    assert arrow == seen == duck
    return seen


def once_for(table: str, action: Callable[[], None]) -> Callable[[TableName], None]:
    """A hook that runs ``action`` the first time ``table`` reaches its point, never again (the
    competing commit ``action`` makes passes the same point itself)."""
    fired: list[bool] = []

    def hook(name: TableName) -> None:
        if not fired and name.qualified == table:
            fired.append(True)
            action()

    return hook


def snapshot_summary(spark: Any, table: str, label: str) -> dict[str, str]:
    """The summary of the snapshot that committed ``label`` (exactly one must have)."""
    found = spark.sql(f"SELECT summary FROM {table}.snapshots WHERE summary['doris.label'] = '{label}'").collect()
    assert len(found) == 1, f"{len(found)} snapshots carry label {label}"
    return dict(found[0].summary)


def snapshot_count(spark: Any, table: str) -> int:
    return spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0]
