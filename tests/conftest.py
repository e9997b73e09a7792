"""Shared fixtures: one real Spark session per test run, on a real SQLite catalog in a temp home."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import iceberg_doris


@pytest.fixture(scope="session")
def lake_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("lake")


@pytest.fixture(scope="session")
def spark(lake_home: Path) -> Iterator["object"]:
    session = iceberg_doris.session(home=lake_home)
    yield session
    session.stop()


@pytest.fixture
def namespace(spark: "object") -> str:
    """A fresh namespace per test, so tests never see each other's tables."""
    name = f"t_{uuid.uuid4().hex[:10]}"
    spark.sql(f"CREATE NAMESPACE {name}")
    return name


@pytest.fixture(scope="session")
def py_catalog(lake_home: Path, spark: "object") -> "object":
    """pyiceberg's view of the same catalog (after Spark has created the catalog tables)."""
    return iceberg_doris.catalog(home=lake_home)
