"""DuckDB as an independent Iceberg reader, with its extensions loaded offline from PyPI wheels."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

if TYPE_CHECKING:
    from tests.support.s3_server import S3Server


def _extension_file(package: str, name: str) -> Path:
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations, f"{package} is not installed"
    root = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(root.rglob(f"{name}.duckdb_extension"))
    assert found, f"no {name}.duckdb_extension inside {root}"
    return found[-1]


def connect(s3: "S3Server | None" = None) -> duckdb.DuckDBPyConnection:
    """A connection with the iceberg extension; with ``s3``, also httpfs and a secret for that server."""
    connection = duckdb.connect()
    connection.execute("SET autoinstall_known_extensions = false")
    connection.execute("SET autoload_known_extensions = false")
    # avro first: the iceberg extension reads manifests through it.
    connection.execute(f"LOAD '{_extension_file('duckdb_extension_avro', 'avro')}'")
    connection.execute(f"LOAD '{_extension_file('duckdb_extension_iceberg', 'iceberg')}'")
    if s3 is not None:
        connection.execute(f"LOAD '{_extension_file('duckdb_extension_httpfs', 'httpfs')}'")
        host = s3.endpoint.split("://", 1)[1]
        connection.execute(
            f"CREATE SECRET lake (TYPE s3, KEY_ID '{s3.access_key}', SECRET '{s3.secret_key}', REGION '{s3.region}', "
            f"ENDPOINT '{host}', URL_STYLE 'path', USE_SSL {str(s3.endpoint.startswith('https')).lower()})"
        )
    return connection


def read_rows(
    metadata_location: str, columns: str = "*", order_by: str | None = None, *, s3: "S3Server | None" = None
) -> list[tuple[Any, ...]]:
    """Rows of the table at ``metadata_location`` (its current snapshot), as DuckDB sees them."""
    path = metadata_location.removeprefix("file://")
    query = f"SELECT {columns} FROM iceberg_scan('{path}')"
    if order_by:
        query += f" ORDER BY {order_by}"
    with connect(s3) as connection:
        return connection.execute(query).fetchall()
