"""Crash points for the fault suite (TEST ONLY): a real crash at a named phase of an operation.

Each committing operation calls :func:`crash_point` at its phase boundaries (rows counted, files
staged, just before and right after the catalog commit, ...). Normally that call does nothing: the
environment variable ``ICEBERG_DORIS_CRASH_AT`` is read once, at import, and when it is unset a
crash point is one comparison. When it names a point (a glob such as ``*.before-commit`` works
too), reaching that point kills the process the hard way, as ``kill -9`` would: SIGKILL to the
Spark driver JVM first (no JVM shutdown hooks, no Spark cleanup), then SIGKILL to this Python
process (no ``finally`` blocks, no ``atexit``). ``tests/faults/`` uses it to prove that a crash at
any phase leaves every table exactly as before or exactly as after the operation.

Never set ``ICEBERG_DORIS_CRASH_AT`` outside tests: it exists to kill the process.

Point names are ``<operation>.<phase>``, the operation being the procedure's name:

- ``load.rows-counted`` (rows read, counted, error rows written), then ``load.files-staged``
  (DUPLICATE KEY tables: data files written, not committed) or ``load.keys-looked-up`` (UNIQUE /
  AGGREGATE KEY: keys found, new rows written) and ``load.deletes-written`` (deletion vectors or
  position deletes written); ``insert_overwrite.rows-counted`` / ``insert_overwrite.files-staged``;
- ``compact.files-staged`` (the rewritten files written);
- ``<operation>.before-commit`` (the transaction built: its manifests are written) and
  ``<operation>.after-commit`` (the catalog accepted the commit, nothing returned yet) for every
  commit made by :func:`iceberg_doris.engine.commit.commit_atomically` (``load``,
  ``insert_overwrite``, ``compact``, ``add_partition``, ``drop_partition``,
  ``swap_temp_partition``, ``replace_partition``, ``set_properties``,
  ``run_dynamic_partitions``), and for ``create_table``;
- ``stream.batch-committed.<db.tbl>.<batch id>``: a stream's micro-batch committed to a table
  (``doris.stream_to``), before Spark's checkpoint records the batch.
"""

from __future__ import annotations

import fnmatch
import os
import signal
import sys

CRASH_ENV = "ICEBERG_DORIS_CRASH_AT"
# Read once: an unset variable makes every crash point a single comparison.
_TARGET: str | None = os.environ.get(CRASH_ENV) or None
# Trailing words of commit_atomically's operation phrases ("add partition to", "load into").
_PREPOSITIONS = frozenset({"of", "to", "into", "on", "from"})


def crash_point(operation: str, phase: str) -> None:
    """Kills the process (JVM first) if ``ICEBERG_DORIS_CRASH_AT`` names ``<operation>.<phase>``."""
    if _TARGET is None:
        return
    name = f"{operation_name(operation)}.{phase}"
    if name == _TARGET or fnmatch.fnmatchcase(name, _TARGET):
        crash(name)


def operation_name(operation: str) -> str:
    """``"swap temp partition of"`` -> ``"swap_temp_partition"``: the procedure the phrase names."""
    words = operation.split()
    if len(words) > 1 and words[-1] in _PREPOSITIONS:
        words = words[:-1]
    return "_".join(words)


def crash(name: str) -> None:
    """SIGKILL the Spark driver JVM, then this process, with nothing in between.

    Both kills run while this thread holds the GIL (``os.kill`` does not release it, and a huge
    switch interval keeps other threads from asking for it), so no other Python thread can see
    the JVM die (a py4j call failing) and run an error path or exit first."""
    sys.stderr.write(f"iceberg-doris: crash point {name} reached ({CRASH_ENV}); killing the JVM and this process\n")
    sys.stderr.flush()
    jvm_pid = _driver_jvm_pid()
    sys.setswitchinterval(1e6)
    if jvm_pid is not None and jvm_pid != os.getpid():
        os.kill(jvm_pid, signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)


def _driver_jvm_pid() -> int | None:
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    if gateway is None:
        return None
    try:
        return int(gateway.jvm.java.lang.ProcessHandle.current().pid())
    except Exception:  # noqa: BLE001 - the JVM may be unreachable; the launcher's pid is the JVM's
        process = getattr(gateway, "proc", None)
        return process.pid if process is not None else None
