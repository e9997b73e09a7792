"""DuckDB as an independent Iceberg reader, with its extensions loaded offline from PyPI wheels."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import duckdb


def _extension_file(package: str, name: str) -> Path:
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations, f"{package} is not installed"
    root = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(root.rglob(f"{name}.duckdb_extension"))
    assert found, f"no {name}.duckdb_extension inside {root}"
    return found[-1]


def connect() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute("SET autoinstall_known_extensions = false")
    connection.execute("SET autoload_known_extensions = false")
    # avro first: the iceberg extension reads manifests through it.
    connection.execute(f"LOAD '{_extension_file('duckdb_extension_avro', 'avro')}'")
    connection.execute(f"LOAD '{_extension_file('duckdb_extension_iceberg', 'iceberg')}'")
    return connection


def read_rows(metadata_location: str, columns: str = "*", order_by: str | None = None) -> list[tuple[Any, ...]]:
    """Rows of the table at ``metadata_location`` (its current snapshot), as DuckDB sees them."""
    path = metadata_location.removeprefix("file://")
    query = f"SELECT {columns} FROM iceberg_scan('{path}')"
    if order_by:
        query += f" ORDER BY {order_by}"
    with connect() as connection:
        return connection.execute(query).fetchall()
