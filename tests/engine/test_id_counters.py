"""The AUTO_INCREMENT counters in the catalog's database: blocks never overlap, whoever reserves
them and however the reservations interleave (real SQLite files, a real PostgreSQL server)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from iceberg_doris.engine.id_counters import COUNTER_TABLE, PostgresCounters, SqliteCounters
from iceberg_doris.engine.table_lock import postgres_parameters
from iceberg_doris.lake.settings import CatalogSettings
from tests.support.postgres_server import postgres_server

TABLE = "6f1c1f0e-8f5d-4c55-9d57-6f0b7a1e2c3d"
OTHER = "0b9e4a43-2a43-4b8e-bb2c-7d6a9a6a3f10"


@pytest.fixture(scope="module")
def postgres_counters() -> Iterator[PostgresCounters]:
    """Counters in a real PostgreSQL server's database, as a PostgreSQL catalog's settings reach it."""
    with postgres_server() as url:
        settings = CatalogSettings.resolve(catalog_uri=url)
        yield PostgresCounters(postgres_parameters(settings.jdbc_uri, settings.jdbc_user, settings.jdbc_password), timeout=60)


def sqlite_counters(tmp_path: Path) -> SqliteCounters:
    catalog = tmp_path / "catalog.db"
    sqlite3.connect(catalog).close()  # the catalog file JdbcCatalog made
    return SqliteCounters(catalog, timeout=60)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def counters(request, tmp_path):
    return sqlite_counters(tmp_path) if request.param == "sqlite" else request.getfixturevalue("postgres_counters")


def test_the_first_block_starts_at_the_start_value_and_blocks_follow(counters):
    assert counters.reserve(TABLE, 1, 10000, 9) == 10000
    assert counters.reserve(TABLE, 1, 10000, 3) == 10009
    # another column, another table: counters of their own, keyed by UUID and field id
    assert counters.reserve(TABLE, 2, 1, 5) == 1
    assert counters.reserve(OTHER, 1, 0, 2) == 0
    assert counters.reserve(TABLE, 1, 10000, 1) == 10012


def test_concurrent_reservations_never_overlap(counters):
    blocks: list[tuple[int, int]] = []
    guard = threading.Lock()
    start = threading.Barrier(8)
    failures: list[BaseException] = []

    def reserve(size: int) -> None:
        try:
            start.wait()
            for _ in range(10):
                first = counters.reserve(TABLE, 7, 1, size)
                with guard:
                    blocks.append((first, first + size))
        except BaseException as error:  # noqa: BLE001 - reported below
            failures.append(error)

    threads = [threading.Thread(target=reserve, args=(n + 1,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    values = [v for first, end in blocks for v in range(first, end)]
    assert len(values) == len(set(values)) == 10 * sum(range(1, 9))
    assert min(values) == 1


def test_sqlite_counters_live_in_the_catalog_file(tmp_path):
    counters = sqlite_counters(tmp_path)
    counters.reserve(TABLE, 3, 1, 4)
    with sqlite3.connect(tmp_path / "catalog.db") as connection:
        stored = connection.execute(f"SELECT table_uuid, field_id, next_value FROM {COUNTER_TABLE}").fetchall()
    assert stored == [(TABLE, 3, 5)]
