"""Shared fixtures: one real Spark session per test process, on a real SQLite catalog in a temp home.

``make test`` runs the suite in two pytest-xdist workers (each its own process with its own session
and home): a test keeps about one core busy, mostly waiting on the JVM, so two share the machine's
two cores. Plain ``pytest`` runs everything in one process."""

from __future__ import annotations

import fcntl
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import iceberg_doris


@pytest.fixture(scope="session")
def lake_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("lake")


# Spark's own INSERT / DELETE / UPDATE / MERGE on Doris tables run as Doris operations in every
# session with the extension (tests/procedures/test_spark_statements.py proves it). Most tests use
# those statements as the other writer a Doris table must withstand (a plain Spark job, another
# engine), so the shared session writes plain Iceberg rows unless a test asks for the statements.
SPARK_STATEMENTS = "spark.doris.sparkStatements.enabled"


@contextmanager
def one_worker_at_a_time(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Held while a session starts: Spark resolves its Maven packages into the shared Ivy cache
    then, which two workers must not do at once. The folder above each worker's base temp folder is
    the run's own, shared by its workers."""
    with open(tmp_path_factory.getbasetemp().parent / "session-start.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture(scope="session")
def spark(lake_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator["object"]:
    with one_worker_at_a_time(tmp_path_factory):
        session = iceberg_doris.session(home=lake_home)
    session.conf.set(SPARK_STATEMENTS, "false")
    yield session
    session.stop()


@pytest.fixture
def spark_statements(spark: "object") -> Iterator["object"]:
    """The shared session with Spark's statements on Doris tables run as Doris operations (the
    default of every session users build)."""
    spark.conf.set(SPARK_STATEMENTS, "true")
    try:
        yield spark
    finally:
        spark.conf.set(SPARK_STATEMENTS, "false")


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
