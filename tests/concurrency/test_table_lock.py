"""The per-table commit lock: a second holder waits, a killed holder's lock is released, the wait
is bounded, and no table name becomes a path. File locks (SQLite catalogs) and PostgreSQL
advisory locks behave the same."""

from __future__ import annotations

import json
import signal
import stat
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import interleaving
from iceberg_doris.engine.iceberg_java import IcebergJava
from iceberg_doris.lake.settings import CatalogSettings
from iceberg_doris.engine.table_lock import (
    TIMEOUT_CONF,
    AdvisoryLocks,
    FileLocks,
    LockKey,
    commit_lock,
    enter,
    locks_for_catalog,
    postgres_parameters,
)
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.errors import CommitLockTimeoutError, ConfigurationError
from tests.concurrency import snapshot_count, unique_table, values
from tests.support.postgres_server import postgres_server

KEY = LockKey.of("iceberg", TableName("sales", "orders"))
# Long enough never to matter on a loaded machine; a test that waits this long has failed.
PATIENCE_SECONDS = 300


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    with postgres_server() as url:
        yield url


def file_locks(tmp_path: Path) -> FileLocks:
    catalog = tmp_path / "catalog.db"
    catalog.touch(mode=0o600)
    return FileLocks(catalog)


def advisory_locks(url: str) -> AdvisoryLocks:
    settings = CatalogSettings.resolve(catalog_uri=url)
    return AdvisoryLocks(postgres_parameters(settings.jdbc_uri, settings.jdbc_user, settings.jdbc_password))


@pytest.fixture(params=["file", pytest.param("postgres", marks=pytest.mark.postgres)])
def locks(request, tmp_path):
    if request.param == "file":
        return file_locks(tmp_path)
    return advisory_locks(request.getfixturevalue("postgres_url"))


def test_a_taken_lock_is_refused_until_released(locks):
    release = locks.acquire(KEY, 0, lambda: None)
    assert release is not None
    busy = []
    assert locks.acquire(KEY, 0, lambda: busy.append(True)) is None
    assert locks.acquire(KEY, 0.2, lambda: busy.append(True)) is None  # waited, then gave up
    assert busy == [True, True]
    other_table = LockKey.of("iceberg", TableName("sales", "other"))
    locks.acquire(other_table, 0, lambda: None)()  # other tables are not held up
    release()
    again = locks.acquire(KEY, PATIENCE_SECONDS, lambda: None)  # the waiter that gave up kept nothing
    assert again is not None
    again()


def test_a_waiter_gets_the_lock_once_it_is_released(locks):
    release = locks.acquire(KEY, 0, lambda: None)
    waiting = threading.Event()
    got = []
    waiter = threading.Thread(target=lambda: got.append(locks.acquire(KEY, PATIENCE_SECONDS, waiting.set)))
    waiter.start()
    assert waiting.wait(PATIENCE_SECONDS)  # it found the lock taken and waits
    assert got == []
    release()
    waiter.join(PATIENCE_SECONDS)
    assert got and got[0] is not None
    got[0]()


def test_the_lock_is_reentrant_within_a_thread_only(locks):
    release = enter(locks, KEY, 0)
    inner = enter(locks, KEY, 0)  # the same thread: passes through
    assert inner is not None
    inner()  # a no-op: the outer hold stays
    other = []
    thread = threading.Thread(target=lambda: other.append(enter(locks, KEY, 0)))
    thread.start()
    thread.join()
    assert other == [None]
    release()


def test_a_killed_holder_releases_the_lock(locks):
    # The holder's settings travel on its stdin: a password never goes on a command line.
    if isinstance(locks, FileLocks):
        setting = {"file": str(locks.directory.with_name("catalog.db"))}
    else:
        setting = {"postgres": locks._parameters}
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent("""
            import json, sys, time
            from pathlib import Path
            from iceberg_doris.engine.table_lock import AdvisoryLocks, FileLocks, LockKey
            from iceberg_doris.engine.table_names import TableName
            setting = json.loads(sys.stdin.readline())
            locks = FileLocks(Path(setting["file"])) if "file" in setting else AdvisoryLocks(setting["postgres"])
            release = locks.acquire(LockKey.of("iceberg", TableName("sales", "orders")), 0, lambda: None)
            assert release is not None  # kept: it owns the lock's connection
            print("held", flush=True)
            time.sleep(3600)
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        holder.stdin.write(json.dumps(setting) + "\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "held"
        assert locks.acquire(KEY, 0, lambda: None) is None
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    release = locks.acquire(KEY, PATIENCE_SECONDS, lambda: None)  # the server may take a moment to notice
    assert release is not None
    release()


def test_lock_files_are_named_by_hash_inside_the_lock_folder(tmp_path):
    locks = file_locks(tmp_path)
    hostile = LockKey.of("iceberg", TableName("../../x", "/etc/passwd\0" + "y" * 5000))
    locks.acquire(hostile, 0, lambda: None)()
    created = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert created == [Path("catalog.db"), Path("catalog.db-locks"), Path("catalog.db-locks") / hostile.file_name]
    assert len(hostile.file_name) == 37
    # As private as the catalog file (0600 here): the folder 0700, the lock files 0600 at most.
    assert stat.S_IMODE((tmp_path / "catalog.db-locks").stat().st_mode) & 0o077 == 0
    assert stat.S_IMODE((tmp_path / "catalog.db-locks" / hostile.file_name).stat().st_mode) & 0o077 == 0


def test_postgres_parameters_from_a_jdbc_url():
    assert postgres_parameters("jdbc:postgresql://db.example:5433/lake?sslmode=require", "u", "secret") == {
        "dbname": "lake", "connect_timeout": "10", "host": "db.example", "port": "5433",
        "user": "u", "password": "secret", "sslmode": "require",
    }
    assert postgres_parameters("jdbc:postgresql://h1,h2:5434/lake?user=q&password=p", None, None) == {
        "dbname": "lake", "connect_timeout": "10", "host": "h1,h2", "port": "5432,5434", "user": "q", "password": "p",
    }


@pytest.mark.spark
@pytest.mark.parametrize("operation", ["keyed load", "append load", "add_partition"])
def test_an_operation_waits_for_the_lock_then_commits(spark, namespace, operation):
    """Forced: the test holds the table's lock; the operation, started in a thread, reaches the
    lock and waits; nothing is committed until the test releases it."""
    if operation == "keyed load":
        table = unique_table(spark, namespace)
        run = lambda: doris.load(spark, table=table, query=values(["(1,'a',0)"]), label="waited")  # noqa: E731
    else:
        doris.create_table(
            spark,
            ddl=f"CREATE TABLE {namespace}.d (k INT NOT NULL, v STRING) DUPLICATE KEY(k) "
            "PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10))",
        )
        table = f"{namespace}.d"
        if operation == "append load":
            run = lambda: doris.load(spark, table=table, query="SELECT 1 AS k, 'a' AS v", label="waited")  # noqa: E731
        else:
            run = lambda: doris.add_partition(spark, table=table, partition="p1", values_less_than="20")  # noqa: E731
    iceberg = IcebergJava(spark)
    before = snapshot_count(spark, table)
    properties_before = dict(iceberg.load_table(iceberg.name(table)).properties())
    waiting = threading.Event()
    errors: list[BaseException] = []

    def operate() -> None:
        try:
            run()
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    def busy(name: TableName) -> None:
        if name.qualified == table:
            waiting.set()

    with interleaving.inject(interleaving.LOCK_BUSY, busy):
        with commit_lock(iceberg, iceberg.name(table), operation="hold"):
            worker = threading.Thread(target=operate)
            worker.start()
            assert waiting.wait(PATIENCE_SECONDS)
            assert snapshot_count(spark, table) == before
            assert dict(iceberg.load_table(iceberg.name(table)).properties()) == properties_before
        worker.join(PATIENCE_SECONDS)
    assert errors == []
    if operation == "add_partition":
        assert [r.partition_name for r in doris.show_partitions(spark, table=table)] == ["p0", "p1"]
    else:
        found = spark.sql(f"SELECT count(*) FROM {table}.snapshots WHERE summary['doris.label'] = 'waited'").collect()[0][0]
        assert found == 1


@contextmanager
def held_by_another_thread(iceberg: IcebergJava, table: str) -> Iterator[None]:
    taken, done = threading.Event(), threading.Event()

    def hold() -> None:
        with commit_lock(iceberg, iceberg.name(table), operation="hold"):
            taken.set()
            done.wait(PATIENCE_SECONDS)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert taken.wait(PATIENCE_SECONDS)
        yield
    finally:
        done.set()
        holder.join()


@pytest.mark.spark
def test_the_wait_is_bounded_and_names_the_table(spark, namespace):
    table = unique_table(spark, namespace)
    iceberg = IcebergJava(spark)
    before = snapshot_count(spark, table)
    spark.conf.set(TIMEOUT_CONF, "0")
    try:
        with held_by_another_thread(iceberg, table):  # this thread's own hold would let it through
            with pytest.raises(CommitLockTimeoutError) as raised:
                doris.load(spark, table=table, query=values(["(1,'a',0)"]))
        spark.conf.set(TIMEOUT_CONF, "soon")
        with pytest.raises(ConfigurationError, match=f"^{TIMEOUT_CONF} must be a number of seconds >= 0, got 'soon'$"):
            doris.load(spark, table=table, query=values(["(1,'a',0)"]))
    finally:
        spark.conf.unset(TIMEOUT_CONF)
    assert str(raised.value) == (
        f"Cannot load into {table}: another writer held the table's commit lock for more than 0 s; nothing was "
        f"committed. Run it again, or wait longer with {TIMEOUT_CONF}."
    )
    assert snapshot_count(spark, table) == before


@pytest.mark.spark
def test_the_sqlite_catalog_keeps_its_locks_beside_its_file(spark, namespace, lake_home):
    table = unique_table(spark, namespace)
    doris.load(spark, table=table, query=values(["(1,'a',0)"]))
    locks = locks_for_catalog(spark, "iceberg")
    assert isinstance(locks, FileLocks)
    assert locks.directory == (lake_home / "catalog.db-locks").resolve()
    name = TableName(*table.split("."))
    assert (locks.directory / LockKey.of("iceberg", name).file_name).exists()
    assert not any(namespace in p.name for p in locks.directory.iterdir())



@pytest.mark.postgres
def test_a_kept_connection_the_server_dropped_is_replaced(postgres_url):
    import psycopg2

    locks = advisory_locks(postgres_url)
    locks.acquire(KEY, 0, lambda: None)()  # its connection is kept for the next lock
    settings = CatalogSettings.resolve(catalog_uri=postgres_url)
    admin = psycopg2.connect(**postgres_parameters(settings.jdbc_uri, settings.jdbc_user, settings.jdbc_password))
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid, 60000)) FROM pg_stat_activity "  # waits until it is gone
            "WHERE application_name = 'iceberg-doris commit lock'"
        )
        assert cursor.fetchone()[0] == 1
    admin.close()
    release = locks.acquire(KEY, 0, lambda: None)
    assert release is not None
    release()
