"""The per-table commit lock: one writer at a time publishes to a table, as Doris serialises the
publish of concurrent loads on one table.

Every iceberg-doris operation holds its table's lock for its commit phase only (the catalog swap,
and for a keyed load its delete files and, if the table changed since its lookup, the lookup
again), never while Spark writes the operation's data files. The lock lives with the catalog, so
every process committing to that catalog sees it, and it dies with its holder:

- PostgreSQL catalog: a session-level advisory lock (``pg_advisory_lock``) taken on a connection of
  its own, keyed by a hash of the catalog name and the table identifier. The server releases it
  when that connection ends, also when the holding process is killed.
- SQLite catalog (a local file): an OS file lock (``flock``) on a file in ``<catalog.db>-locks/``
  beside the catalog, named by a hash of the same key, so no user-supplied name becomes a path.
  The kernel releases it when the holder exits, however it exits. (A lock row in the SQLite file
  would outlive a ``kill -9`` and need a lease, and a lease can run out under a holder that is
  merely slow, letting two writers in.) The files are as readable and writable as the catalog file.
- Any other catalog: a lock within this process only. Other processes' commits stay correct
  (Iceberg's validation and the catalog's compare-and-swap), they are just not queued.

Waiting is bounded by ``spark.doris.commitLock.timeoutSeconds`` (default 300); then
:class:`CommitLockTimeoutError` names the table. The lock is re-entrant within a thread: code that
already holds its table's lock passes through.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import parse_qsl, unquote, urlsplit

from iceberg_doris.engine import interleaving
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.errors import CommitLockTimeoutError, ConfigurationError, DorisError
from iceberg_doris.spark_session.secrets import read_secret_setting

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from iceberg_doris.engine.iceberg_java import IcebergJava

log = logging.getLogger(__name__)

TIMEOUT_CONF = "spark.doris.commitLock.timeoutSeconds"
DEFAULT_TIMEOUT_SECONDS = 300.0
# Longer counts as forever (PostgreSQL's lock_timeout stops at 2^31 ms, about 24 days).
MAX_TIMEOUT_SECONDS = 2_000_000.0

Release = Callable[[], None]


@dataclass(frozen=True)
class LockKey:
    """A table's lock key: a hash of the catalog name and the table identifier."""

    digest: bytes

    @classmethod
    def of(cls, catalog_name: str, name: TableName) -> "LockKey":
        # Lower case: two spellings of one table must share its lock; two tables that differ only
        # in case (on a case-sensitive catalog) merely share one, which costs a little waiting.
        text = "\0".join((catalog_name, name.namespace, name.name)).lower()
        return cls(hashlib.sha256(text.encode("utf-8")).digest())

    @property
    def file_name(self) -> str:
        return f"{self.digest.hex()[:32]}.lock"

    @property
    def advisory_id(self) -> int:
        """The second int4 of PostgreSQL's two-key advisory lock (the first names iceberg-doris)."""
        return int.from_bytes(self.digest[:4], "big", signed=True)


class LockUnavailableError(Exception):
    """The lock's backing store could not be reached; ``reason`` says why (no secrets in it)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class TableLocks(Protocol):
    """One catalog's table locks."""

    where: str  # for messages: where the locks live

    def acquire(self, key: LockKey, timeout: float, on_busy: Callable[[], None]) -> Release | None:
        """Takes the lock, calling ``on_busy()`` first if it is taken; returns its release, or
        None if it stayed taken for ``timeout`` seconds."""
        ...


@contextmanager
def commit_lock(iceberg: "IcebergJava", name: TableName, *, operation: str) -> Iterator[None]:
    """Holds ``name``'s commit lock for the block. ``operation`` ("load into") words the error."""
    spark = iceberg.spark
    locks = locks_for_catalog(spark, iceberg.catalog_name)
    timeout = lock_timeout(spark)
    try:
        release = enter(locks, LockKey.of(iceberg.catalog_name, name), timeout, lambda: interleaving.reached(interleaving.LOCK_BUSY, name))
    except LockUnavailableError as error:
        raise DorisError(
            f"Cannot {operation} {name.qualified}: its commit lock ({locks.where}) is unavailable: {error.reason}. "
            "Nothing was committed."
        ) from None
    if release is None:
        raise CommitLockTimeoutError(
            f"Cannot {operation} {name.qualified}: another writer held the table's commit lock for more than "
            f"{timeout:g} s; nothing was committed. Run it again, or wait longer with {TIMEOUT_CONF}."
        )
    try:
        yield
    finally:
        release()


_held = threading.local()


def enter(locks: TableLocks, key: LockKey, timeout: float, on_busy: Callable[[], None] = lambda: None) -> Release | None:
    """Takes ``key``'s lock of ``locks``; returns its release (a no-op if this thread already
    holds it), or None if it stayed taken for ``timeout`` seconds."""
    held: set[tuple[int, bytes]] = _held.__dict__.setdefault("keys", set())
    token = (id(locks), key.digest)
    if token in held:
        return lambda: None
    started = time.monotonic()
    release = locks.acquire(key, timeout, on_busy)
    if release is None:
        return None
    taken = time.monotonic()
    log.debug("commit lock %s taken after %.3f s", key.file_name, taken - started)
    held.add(token)

    def release_held() -> None:
        held.discard(token)
        release()
        log.debug("commit lock %s released after %.3f s", key.file_name, time.monotonic() - taken)

    return release_held


def lock_timeout(spark: "SparkSession") -> float:
    raw = spark.conf.get(TIMEOUT_CONF, None)
    if raw is None:
        return DEFAULT_TIMEOUT_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also NaN
        raise ConfigurationError(f"{TIMEOUT_CONF} must be a number of seconds >= 0, got {raw!r}")
    return min(value, MAX_TIMEOUT_SECONDS)


_backends: dict[tuple[Any, ...], TableLocks] = {}
_backends_guard = threading.Lock()


def locks_for_catalog(spark: "SparkSession", catalog_name: str) -> TableLocks:
    """The table locks of the session's catalog, from its Spark settings (read at each use: the
    catalog password may be set after the session starts)."""
    prefix = f"spark.sql.catalog.{catalog_name}"
    uri = spark.conf.get(f"{prefix}.uri", None) or ""
    if uri.startswith("jdbc:postgresql:"):
        user = spark.conf.get(f"{prefix}.jdbc.user", None)
        password = read_secret_setting(spark, f"{prefix}.jdbc.password")
        return _cached(("postgresql", uri, user, password), lambda: AdvisoryLocks(postgres_parameters(uri, user, password)))
    catalog_file = sqlite_file(uri) if uri.startswith("jdbc:sqlite:") else None
    if catalog_file is not None:
        return _cached(("sqlite", str(catalog_file)), lambda: FileLocks(catalog_file))
    return _cached(("process", catalog_name), ProcessLocks)


def _cached(identity: tuple[Any, ...], make: Callable[[], TableLocks]) -> TableLocks:
    with _backends_guard:
        found = _backends.get(identity)
        if found is None:
            found = _backends[identity] = make()
        return found


def sqlite_file(jdbc_uri: str) -> Path | None:
    """The catalog file of a ``jdbc:sqlite:`` URL; None for an in-memory database."""
    text = jdbc_uri.removeprefix("jdbc:sqlite:").split("?", 1)[0]
    if text.startswith("file:"):
        text = unquote(urlsplit(text).path)
    if not text or text.startswith(":memory:"):
        return None
    return Path(text).expanduser().resolve()


class FileLocks:
    """``flock`` on one file per table in ``<catalog file>-locks/``."""

    def __init__(self, catalog_file: Path):
        self.directory = catalog_file.with_name(catalog_file.name + "-locks")
        self.where = f"file lock in {self.directory}"
        try:
            file_mode = catalog_file.stat().st_mode & 0o666
        except FileNotFoundError:
            file_mode = 0o600
        # As reachable as the catalog file itself: whoever can write it can queue for its locks.
        self._file_mode = file_mode
        self._directory_mode = file_mode | ((file_mode & 0o444) >> 2)

    def acquire(self, key: LockKey, timeout: float, on_busy: Callable[[], None]) -> Release | None:
        import fcntl

        try:
            self.directory.mkdir(mode=self._directory_mode, exist_ok=True)
            descriptor = os.open(self.directory / key.file_name, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, self._file_mode)
        except OSError as error:
            raise LockUnavailableError(f"{error.strerror}: {error.filename}") from None

        def release() -> None:
            os.close(descriptor)  # closing the only descriptor releases the flock

        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return release
        except BlockingIOError:
            pass
        except BaseException:
            release()
            raise
        try:
            on_busy()
        except BaseException:
            release()
            raise
        if timeout <= 0:
            release()
            return None
        return release if _flock_within(descriptor, timeout) else None


def _flock_within(descriptor: int, timeout: float) -> bool:
    """Waits up to ``timeout`` s for an exclusive flock on ``descriptor`` in the kernel's queue of
    waiters: woken as soon as the lock frees, in about the order they came (polling would let a
    late waiter overtake an early one, again and again). flock cannot wait with a time limit, so a
    helper thread blocks in it; if the time runs out first, the helper keeps the descriptor and
    closes it once it gets the lock, handing the lock straight on. On False the descriptor is no
    longer the caller's."""
    import fcntl

    done = threading.Event()
    guard = threading.Lock()
    state = {"locked": False, "abandoned": False}

    def block() -> None:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            locked = True
        except OSError:
            locked = False
        with guard:
            state["locked"] = locked
            if state["abandoned"] or not locked:
                os.close(descriptor)
            done.set()

    threading.Thread(target=block, name="iceberg-doris commit lock wait", daemon=True).start()
    try:
        done.wait(timeout)
    finally:
        with guard:
            if not done.is_set():
                state["abandoned"] = True
    return done.is_set() and state["locked"] and not state["abandoned"]


class AdvisoryLocks:
    """PostgreSQL session-level advisory locks, each on a connection of its own (a session holds
    an advisory lock re-entrantly, so two threads sharing one could both get in). Connections are
    kept for the next lock."""

    # The first int4 of the two-key form: iceberg-doris's, apart from applications using the
    # one-bigint form or another first key.
    CLASS_ID = int.from_bytes(hashlib.sha256(b"iceberg-doris commit lock").digest()[:4], "big", signed=True)

    def __init__(self, parameters: dict[str, str]):
        self._parameters = parameters
        hosts = parameters.get("host", "localhost")
        port = parameters.get("port")
        self.where = f"advisory lock in PostgreSQL {hosts}{':' + port if port else ''}/{parameters.get('dbname', '')}"
        self._idle: list[Any] = []
        self._guard = threading.Lock()

    def acquire(self, key: LockKey, timeout: float, on_busy: Callable[[], None]) -> Release | None:
        import psycopg2

        ids = (self.CLASS_ID, key.advisory_id)
        while True:
            connection, reused = self._connection()
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", ids)
                    got = bool(cursor.fetchone()[0])
                    if not got:
                        on_busy()
                        got = timeout > 0 and self._wait(cursor, ids, timeout)
                break
            except psycopg2.Error as error:
                connection.close()
                if reused and isinstance(error, (psycopg2.OperationalError, psycopg2.InterfaceError)):
                    continue  # a kept connection the server dropped (restart, idle timeout): a new one
                raise LockUnavailableError(_first_line(error)) from None
            except BaseException:
                connection.close()  # the server drops whatever this connection held
                raise
        if not got:
            self._give_back(connection)
            return None
        return lambda: self._release(connection, ids)

    @staticmethod
    def _wait(cursor: Any, ids: tuple[int, int], timeout: float) -> bool:
        from psycopg2 import errors

        # lock_timeout bounds the wait in the server's own lock queue (first come, first served).
        cursor.execute("SET lock_timeout = %s", (f"{max(1, int(timeout * 1000))}ms",))
        try:
            cursor.execute("SELECT pg_advisory_lock(%s, %s)", ids)
            return True
        except errors.LockNotAvailable:
            return False
        finally:
            cursor.execute("RESET lock_timeout")

    def _release(self, connection: Any, ids: tuple[int, int]) -> None:
        import psycopg2

        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", ids)
                released = bool(cursor.fetchone()[0])
        except psycopg2.Error:
            released = False
        if released:
            self._give_back(connection)
        else:
            connection.close()  # whatever it still holds goes with it

    def _connection(self) -> tuple[Any, bool]:
        """A connection, and whether it was kept from an earlier lock."""
        import psycopg2

        with self._guard:
            while self._idle:
                connection = self._idle.pop()
                if not connection.closed:
                    return connection, True
        try:
            connection = psycopg2.connect(**self._parameters, application_name="iceberg-doris commit lock")
        except psycopg2.Error as error:
            raise LockUnavailableError(_first_line(error)) from None
        connection.autocommit = True
        return connection, False

    def _give_back(self, connection: Any) -> None:
        with self._guard:
            self._idle.append(connection)


class ProcessLocks:
    """Locks within this process, for catalogs without a shared place for them."""

    where = "lock within this process"

    def __init__(self) -> None:
        self._locks: dict[bytes, threading.Lock] = {}
        self._guard = threading.Lock()

    def acquire(self, key: LockKey, timeout: float, on_busy: Callable[[], None]) -> Release | None:
        with self._guard:
            lock = self._locks.setdefault(key.digest, threading.Lock())
        if lock.acquire(blocking=False):
            return lock.release
        on_busy()
        if timeout > 0 and lock.acquire(timeout=timeout):
            return lock.release
        return None


def postgres_parameters(jdbc_uri: str, user: str | None, password: str | None) -> dict[str, str]:
    """libpq connection parameters for a ``jdbc:postgresql://host[:port][,host2...]/db?...`` URL
    (user and password from the Spark settings, else from the URL, else libpq's own defaults)."""
    parts = urlsplit(jdbc_uri.removeprefix("jdbc:"))
    query = dict(parse_qsl(parts.query))
    hosts, ports = [], []
    for address in parts.netloc.split(","):
        host, colon, port = address.rpartition(":") if not address.endswith("]") else (address, "", "")
        if not colon:
            host, port = address, ""
        hosts.append(host.strip("[]"))
        ports.append(port)
    parameters = {"dbname": unquote(parts.path.lstrip("/")), "connect_timeout": "10"}
    if any(hosts):
        parameters["host"] = ",".join(hosts)
    if any(ports):
        parameters["port"] = ",".join(p or "5432" for p in ports)
    user = user or query.get("user")
    password = password or query.get("password")
    if user:
        parameters["user"] = user
    if password:
        parameters["password"] = password
    for jdbc_name, libpq_name in (("sslmode", "sslmode"), ("sslrootcert", "sslrootcert"), ("connectTimeout", "connect_timeout")):
        if jdbc_name in query:
            parameters[libpq_name] = query[jdbc_name]
    return parameters


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
