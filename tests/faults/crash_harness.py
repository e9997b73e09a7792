"""Running an operation in a process that crashes at a named point, and inspecting what it left.

A crash run is a fresh Python process with its own Spark driver on the same lake home (the SQLite
catalog is a file, so it shares the catalog with the test's session). ``ICEBERG_DORIS_CRASH_AT``
makes :func:`iceberg_doris.engine.faults.crash_point` SIGKILL its JVM and then itself at that point.
``ICEBERG_DORIS_FAULT_RUN`` tags every process of the run (the JVM inherits it), so the test can
prove none of them survived.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from iceberg_doris.engine.faults import CRASH_ENV

RUN_TAG_ENV = "ICEBERG_DORIS_FAULT_RUN"
REPO_ROOT = Path(__file__).resolve().parents[2]
# A crash run's JVM lives a few seconds: the client compiler alone and the serial collector halve
# the CPU its start costs (measured: 11 s -> 5.6 s), and the suite runs some 25 of them on 2 cores.
SHORT_LIVED_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"

_SCRIPT = textwrap.dedent(
    """
    import os, sys
    import iceberg_doris

    spark = iceberg_doris.session(home=sys.argv[1])
    jvm = int(spark._jvm.java.lang.ProcessHandle.current().pid())
    # The JVM must carry the run's tag, or the test could not see it outlive the crash.
    tag = f"{sys.argv[3]}={os.environ[sys.argv[3]]}".encode()
    with open(f"/proc/{jvm}/environ", "rb") as environ:
        print("jvm-tagged", jvm, tag in environ.read().split(b"\\0"), flush=True)
    spark.sql(sys.argv[2]).collect()
    print("survived", flush=True)
    spark.stop()
    """
)


@dataclass(frozen=True)
class CrashRun:
    point: str
    returncode: int
    stdout: str
    stderr: str
    tag: str

    @property
    def jvm_tagged(self) -> bool:
        """Whether the run's driver JVM carried the tag (so processes_tagged would find it)."""
        return any(line.startswith("jvm-tagged ") and line.endswith(" True") for line in self.stdout.splitlines())

    def describe(self) -> str:
        return f"crash at {self.point}: exit {self.returncode}\nstdout:\n{self.stdout[-2000:]}\nstderr:\n{self.stderr[-4000:]}"


def run_crashing(home: Path, statement: str, point: str, *, timeout: float = 600) -> CrashRun:
    """Runs ``statement`` (Spark SQL, e.g. ``CALL doris.load(...)``) in a new process that
    crashes at ``point``; returns how it ended."""
    tag = uuid.uuid4().hex
    # A SIGKILLed driver cannot remove Spark's scratch folders (blockmgr-*, spark-*/userFiles with
    # a copy of every jar): give each run its own and remove it here.
    scratch = tempfile.mkdtemp(prefix="iceberg-doris-crash-")
    env = dict(os.environ)
    env.update({
        CRASH_ENV: point, RUN_TAG_ENV: tag, "JAVA_TOOL_OPTIONS": SHORT_LIVED_JVM,
        "SPARK_LOCAL_DIRS": scratch, "TMPDIR": scratch,
    })
    try:
        done = subprocess.run(
            [sys.executable, "-c", _SCRIPT, str(home), statement, RUN_TAG_ENV],
            cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout,
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return CrashRun(point, done.returncode, done.stdout, done.stderr, tag)


def processes_tagged(tag: str, *, settle_seconds: float = 10.0) -> list[int]:
    """Live processes (zombies excluded) whose environment carries the run's tag. Waits up to
    ``settle_seconds`` for them to go: a process SIGKILLed an instant ago may still be exiting."""
    deadline = time.monotonic() + settle_seconds
    while True:
        found = [pid for pid in _pids() if _tagged(pid, tag) and _alive(pid)]
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie is dead: it only waits to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def _pids() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def _tagged(pid: int, tag: str) -> bool:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False
    return f"{RUN_TAG_ENV}={tag}".encode() in environ.split(b"\0")


def local_path(uri: str) -> str:
    """``file:/x``, ``file:///x`` or ``/x`` -> ``/x``."""
    path = uri[len("file:"):] if uri.startswith("file:") else uri
    while path.startswith("//"):
        path = path[1:]
    return path


def referenced_files(table: object) -> set[str]:
    """Every file the pyiceberg ``table``'s metadata references: metadata files (current and
    logged), manifest lists, manifests, and the live data and delete files of every snapshot."""
    metadata = table.metadata  # type: ignore[attr-defined]
    io = table.io  # type: ignore[attr-defined]
    files = {table.metadata_location}  # type: ignore[attr-defined]
    files |= {entry.metadata_file for entry in metadata.metadata_log}
    files |= {statistics.statistics_path for statistics in metadata.statistics}
    files |= {statistics.statistics_path for statistics in getattr(metadata, "partition_statistics", [])}
    for snapshot in metadata.snapshots:
        files.add(snapshot.manifest_list)
        for manifest in snapshot.manifests(io):
            files.add(manifest.manifest_path)
            for entry in manifest.fetch_manifest_entry(io, discard_deleted=True):
                files.add(entry.data_file.file_path)
    return {local_path(f) for f in files}


def files_under(folder: str) -> set[str]:
    """Every file below ``folder``; Hadoop's ``.<name>.crc`` checksum files count only when the
    file they check is gone (they come and go with it)."""
    found: set[str] = set()
    for root, dirs, names in os.walk(folder):
        # Primary-key index entries are derived from data files, written by any probe (committed or
        # not) and valid for as long as their data file; cleanup's removal of orphan entries is
        # tested with the index (tests/engine/key_index/test_keys.py).
        dirs[:] = [d for d in dirs if d != "_doris_key_index"]
        found |= {os.path.join(root, n) for n in names}
    return {f for f in found if not _checksum_of_existing(f, found)}


def _checksum_of_existing(path: str, existing: set[str]) -> bool:
    folder, name = os.path.split(path)
    return name.startswith(".") and name.endswith(".crc") and os.path.join(folder, name[1:-4]) in existing
