"""Soak run: N writer processes (each its own Spark driver) run randomly chosen statements for D
minutes on two UNIQUE KEY tables, one with a sequence column and one without, while an invariant
checker reads every commit; on a SQLite catalog, then on a PostgreSQL one.

    .venv/bin/python -m benchmarks.soak --processes 8 --minutes 30 --catalogs sqlite,postgresql

The statements (benchmarks/soak_writer.py): ``doris.load`` MERGE upserts and deletes, Spark
``INSERT INTO`` (VALUES, and SELECT from the table itself), ``UPDATE`` (a shared counter, and the
writer's own keys), ``DELETE FROM``, ``doris.compact``, and a temp partition loaded and swapped in.
Conflicts (``CommitConflictError``, ``CommitLockTimeoutError``) are retried a few times and
counted; they are not violations, but a statement that failed must have committed nothing.

The checker walks main's history snapshot by snapshot and, at each, reads the table with Spark
(time travel) and with pyiceberg on the same catalog:

- one_row_per_key: no key has two live rows (either reader);
- counter_sum: each counter key holds exactly the number of committed increments of it before
  that snapshot (so their sum is the increments committed), n = n + 1 being the only writes to them;
- rows: every other key holds what its writer's model says after that writer's last statement in
  the snapshot's history (each writer owns its keys, see soak_writer's docstring);
- readers_agree: Spark and pyiceberg read the same rows;
- snapshot_claimed: every snapshot on main was committed by a statement that reported success
  (so a failed statement left none);

and at the end, over all snapshots (branches too): label_once (every committed label in exactly
one snapshot), failed_label_absent (no failed statement's label in any), commit_on_main (every
committed statement's snapshot is on main's history).

Output: one JSON line per violation as found, and one summary line per catalog (stdout, and
``--out`` when given); exit status 1 when any violation was found.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import soak_writer
from benchmarks.soak_writer import COUNTERS, TABLES, Row
from tests.concurrency.contention import REPOSITORY, _environment, _tail, _wait_until_ready

NAMESPACE = "soak"
SETUP_LABEL = "soak-setup"
WRITERS_GRACE_SECONDS = 900  # a statement under way at the deadline may still be waiting for the lock
POLL_SECONDS = 0.5
DRIVER_MEMORY = "1g"  # tiny tables; N+1 drivers share the machine


@dataclass
class Journal:
    """What the writers reported so far, read incrementally from their logs."""

    folder: Path
    writers: int
    entries: list[dict[str, Any]] = field(default_factory=list)
    offsets: dict[int, int] = field(default_factory=dict)

    def read(self) -> None:
        for number in range(self.writers):
            path = self.folder / f"writer-{number}.log"
            if not path.exists():
                continue
            with path.open() as log:
                log.seek(self.offsets.get(number, 0))
                while (line := log.readline()).endswith("\n"):  # a line still being written is read next time
                    if line.startswith("STATEMENT "):
                        self.entries.append(json.loads(line.removeprefix("STATEMENT ")))
                    self.offsets[number] = log.tell()

    def of(self, table: str) -> list[dict[str, Any]]:
        return [e for e in self.entries if e["table"] == table]


@dataclass
class TableCheck:
    """The checker's progress on one table."""

    name: str  # as the writers call it: seq or plain
    qualified: str  # namespace.name
    base: int  # the snapshot the setup committed; the writers' history starts after it
    checked: set[int] = field(default_factory=set)
    checks: int = 0


class Checker:
    def __init__(self, spark: Any, py_catalog: Any, catalog: str, journal: Journal, out: Any):
        self.spark = spark
        self.py_catalog = py_catalog
        self.catalog = catalog
        self.journal = journal
        self.out = out
        self.violations: list[dict[str, Any]] = []

    def violation(self, table: str, invariant: str, detail: str, snapshot_id: int | None = None) -> None:
        found = {"event": "violation", "catalog": self.catalog, "table": table, "invariant": invariant,
                 "snapshot_id": snapshot_id, "detail": detail[:2000]}
        self.violations.append(found)
        emit(found, self.out)

    def history(self, table: TableCheck) -> list[int]:
        """Main's snapshots after the setup's, oldest first."""
        metadata = self.py_catalog.load_table(table.qualified).metadata
        chain, snapshot = [], metadata.current_snapshot()
        while snapshot is not None and snapshot.snapshot_id != table.base:
            chain.append(snapshot.snapshot_id)
            snapshot = metadata.snapshot_by_id(snapshot.parent_snapshot_id) if snapshot.parent_snapshot_id else None
        return chain[::-1]

    def check_new(self, table: TableCheck, *, final: bool) -> None:
        """Checks main's snapshots not checked yet, in order; one no writer has claimed yet waits
        for its writer's report, unless the writers are done (``final``): then it is a violation."""
        history = self.history(table)
        claimed: dict[int, list[dict[str, Any]]] = {}
        for entry in self.journal.of(table.name):
            if entry["outcome"] == "committed" and entry.get("snapshot_id") is not None:
                claimed.setdefault(entry["snapshot_id"], []).append(entry)
        for position, snapshot_id in enumerate(history):
            if snapshot_id in table.checked:
                continue
            if snapshot_id not in claimed:
                if not final:
                    return
                self.violation(table.name, "snapshot_claimed", "no statement that committed reported this snapshot", snapshot_id)
                table.checked.add(snapshot_id)
                continue
            self.check_snapshot(table, snapshot_id, set(history[: position + 1]) | {table.base})
            table.checked.add(snapshot_id)

    def expected(self, table: str, lineage: set[int], writers: int) -> tuple[dict[int, Row], dict[int, int]]:
        """The rows a snapshot with history ``lineage`` must hold, and the increments per counter."""
        increments: Counter[int] = Counter()
        states: dict[int, dict[str, list[Any]]] = {}
        for entry in self.journal.of(table):  # each writer's entries are in its own order
            if entry["outcome"] != "committed" or entry.get("snapshot_id") not in lineage:
                continue
            if entry["kind"] == "update_counter":
                increments[entry["counter"]] += 1
            elif "state" in entry:
                states[entry["writer"]] = entry["state"]
        rows: dict[int, Row] = {}
        for number in range(writers):
            if number in states:
                rows |= {int(k): tuple(v) for k, v in states[number].items()}  # type: ignore[misc]
            else:
                rows |= soak_writer.initial_rows(number)
        return rows, dict(increments)

    def check_snapshot(self, table: TableCheck, snapshot_id: int, lineage: set[int]) -> None:
        qualified = table.qualified
        spark_rows = [tuple(r) for r in self.spark.sql(f"SELECT k, v, n, s FROM {qualified} VERSION AS OF {snapshot_id}").collect()]
        arrow = self.py_catalog.load_table(qualified).scan(snapshot_id=snapshot_id, selected_fields=("k", "v", "n", "s")).to_arrow()
        py_rows = [(r["k"], r["v"], r["n"], r["s"]) for r in arrow.to_pylist()]
        table.checks += 1
        for reader, rows in (("spark", spark_rows), ("pyiceberg", py_rows)):
            repeated = sorted(k for k, c in Counter(r[0] for r in rows).items() if c > 1)
            if repeated:
                self.violation(table.name, "one_row_per_key", f"{reader}: keys with more than one live row: {repeated[:20]}", snapshot_id)
        if sorted(spark_rows) != sorted(py_rows):
            self.violation(table.name, "readers_agree", f"spark {sorted(set(spark_rows) ^ set(py_rows))[:10]} differ", snapshot_id)
        expected, increments = self.expected(table.name, lineage, self.journal.writers)
        counters = {r[0]: r[2] for r in spark_rows if r[0] < COUNTERS}
        want = {k: increments.get(k, 0) for k in range(COUNTERS)}
        if counters != want:
            self.violation(table.name, "counter_sum", f"counters {counters} (sum {sum(counters.values())}), "
                           f"committed increments {want} (sum {sum(want.values())})", snapshot_id)
        got = {r[0]: r[1:] for r in spark_rows if r[0] >= COUNTERS}
        if got != expected:
            wrong = sorted(k for k in set(got) | set(expected) if got.get(k) != expected.get(k))
            detail = "; ".join(f"k={k}: read {got.get(k)}, expected {expected.get(k)}" for k in wrong[:8])
            self.violation(table.name, "rows", f"{len(wrong)} keys differ: {detail}", snapshot_id)

    def check_labels(self, table: TableCheck) -> None:
        """At the end: labels against every snapshot of the table, branches included."""
        metadata = self.py_catalog.load_table(table.qualified).metadata
        in_snapshots = Counter(s.summary.get("doris.label") for s in metadata.snapshots if s.summary and s.summary.get("doris.label"))
        main = set(self.history(table))
        committed: Counter[str] = Counter()
        for entry in self.journal.of(table.name):
            committed.update(entry.get("labels", []))
            for label in entry.get("failed_labels", []):
                if in_snapshots[label]:
                    self.violation(table.name, "failed_label_absent", f"{entry['kind']} {label} failed ({entry.get('error', '')[:300]}) "
                                   f"but {in_snapshots[label]} snapshots carry its label")
            if entry["outcome"] == "committed" and entry.get("snapshot_id") not in main | {None, table.base}:
                if entry["kind"] != "compact" or entry["snapshot_id"] not in {s.snapshot_id for s in metadata.snapshots}:
                    self.violation(table.name, "commit_on_main", f"{entry['kind']} reported snapshot {entry['snapshot_id']}, not on main")
        for label, count in committed.items():
            if count != 1 or in_snapshots[label] != 1:
                self.violation(table.name, "label_once", f"{label}: reported committed {count} times, in {in_snapshots[label]} snapshots")
        for label in set(in_snapshots) - set(committed) - {SETUP_LABEL}:
            self.violation(table.name, "label_once", f"{label}: in {in_snapshots[label]} snapshots, committed by no statement that succeeded")


def emit(record: dict[str, Any], out: Any) -> None:
    line = json.dumps(record)
    print(line, flush=True)
    if out is not None:
        out.write(line + "\n")
        out.flush()


def setup(spark: Any, namespace: str, writers: int) -> dict[str, TableCheck]:
    """Creates both tables with the counters and every writer's initial rows."""
    from iceberg_doris import doris

    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {namespace}")
    tables = {}
    for table in TABLES:
        doris.create_table(spark, ddl=soak_writer.ddl(namespace, table, writers))
        rows = soak_writer.initial_counters()
        for number in range(writers):
            rows |= soak_writer.initial_rows(number)
        values = ", ".join(f"({k}, '{v}', {n}L, {s}L)" for k, (v, n, s) in sorted(rows.items()))
        result = doris.load(spark, table=f"{namespace}.{table}", label=SETUP_LABEL, query=f"SELECT * FROM VALUES {values} AS t(k, v, n, s)")
        tables[table] = TableCheck(table, f"{namespace}.{table}", result[0]["snapshot_id"])
    return tables


def soak_catalog(
    catalog: str, args: argparse.Namespace, folder: Path, out: Any, log: Any,
    *, spark: Any = None, place: dict[str, str | None] | None = None, namespace: str = NAMESPACE,
) -> dict[str, Any]:
    """One soak run on one catalog; returns its summary. ``spark`` and ``place`` (home,
    catalog_uri, warehouse): a session already on that catalog to check with (the smoke test's),
    instead of a new session on a new catalog in ``folder``."""
    import iceberg_doris

    spark_conf = {"spark.driver.memory": DRIVER_MEMORY}
    with ExitStack() as stack:
        if place is None:
            place = {"home": str(folder / "home"), "catalog_uri": None, "warehouse": None}
            if catalog == "postgresql":
                from tests.support.postgres_server import postgres_server

                place["catalog_uri"] = stack.enter_context(postgres_server())
                place["warehouse"] = str(folder / "warehouse")
        if spark is None:
            log(f"{catalog}: starting the checker's Spark session")
            spark = iceberg_doris.session(home=place["home"], catalog_uri=place["catalog_uri"], warehouse=place["warehouse"],
                                          conf=spark_conf, progress=False)
            spark.sparkContext.setLogLevel("ERROR")
            stack.callback(spark.stop)
        log(f"{catalog}: creating the tables in {namespace}")
        tables = setup(spark, namespace, args.processes)
        py_catalog = iceberg_doris.catalog(home=place["home"], catalog_uri=place["catalog_uri"], warehouse=place["warehouse"])
        spec = place | {"namespace": namespace, "seed": args.seed, "retries": args.retries, "spark_conf": spark_conf}
        spec_path = folder / "spec.json"
        spec_path.write_text(json.dumps(spec))
        writers = {}
        for number in range(args.processes):
            writer_log = stack.enter_context((folder / f"writer-{number}.log").open("w"))
            writers[number] = subprocess.Popen(
                [sys.executable, "-m", "benchmarks.soak_writer", str(spec_path), str(number)],
                cwd=REPOSITORY, stdout=writer_log, stderr=subprocess.STDOUT, env=_environment(),
            )
        stack.callback(_stop, writers)
        _wait_until_ready(folder, writers)
        started = time.monotonic()
        (folder / "go").write_text(str(time.time() + args.minutes * 60))  # the writers' common deadline
        log(f"{catalog}: {args.processes} writers running for {args.minutes:g} min")
        journal = Journal(folder, args.processes)
        checker = Checker(spark, py_catalog, catalog, journal, out)
        limit = started + args.minutes * 60 + WRITERS_GRACE_SECONDS
        reported = time.monotonic()
        while any(p.poll() is None for p in writers.values()):
            if time.monotonic() > limit:
                raise RuntimeError(f"writers still running {WRITERS_GRACE_SECONDS} s after the deadline")
            journal.read()
            for table in tables.values():
                checker.check_new(table, final=False)
            if time.monotonic() - reported > 60:
                reported = time.monotonic()
                log(f"{catalog}: {len(journal.entries)} statements, {sum(t.checks for t in tables.values())} snapshots checked")
            time.sleep(POLL_SECONDS)
        writers_seconds = time.monotonic() - started
        failed = {n: p.returncode for n, p in writers.items() if p.returncode != 0}
        if failed:
            raise RuntimeError(f"writers exited with {failed}: {_tail(folder / f'writer-{min(failed)}.log')}")
        journal.read()
        for table in tables.values():
            checker.check_new(table, final=True)
            checker.check_labels(table)
        return summarise(catalog, args, journal, tables, checker, writers_seconds, time.monotonic() - started)


def summarise(catalog: str, args: argparse.Namespace, journal: Journal, tables: dict[str, TableCheck], checker: Checker,
              writers_seconds: float, seconds: float) -> dict[str, Any]:
    entries = journal.entries
    per_table = {}
    for name, table in tables.items():
        mine = journal.of(name)
        per_table[name] = {
            "statements": len(mine),
            "commits": sum(1 for e in mine if e["outcome"] == "committed"),
            "checks": table.checks,
            "violations": sum(1 for v in checker.violations if v["table"] == name),
        }
    return {
        "event": "summary", "catalog": catalog, "processes": args.processes, "minutes": args.minutes, "seed": args.seed,
        "statements": len(entries),
        "commits": sum(1 for e in entries if e["outcome"] == "committed"),
        "conflicts_retried": sum(e["conflicts"] - (e["outcome"] == "conflict") for e in entries),
        "conflicts_failed": sum(1 for e in entries if e["outcome"] == "conflict"),
        "lock_timeouts": sum(e["lock_timeouts"] for e in entries),
        "errors": sum(1 for e in entries if e["outcome"] == "error"),
        "error_samples": sorted({e["error"][:200] for e in entries if e["outcome"] == "error"})[:5],
        "checks": sum(t.checks for t in tables.values()),
        "violations": len(checker.violations),
        "by_kind": {kind: dict(Counter(e["outcome"] for e in entries if e["kind"] == kind)) for kind in soak_writer.KINDS},
        "tables": per_table,
        "writers_seconds": round(writers_seconds, 1),
        "seconds": round(seconds, 1),
    }


def _stop(writers: dict[int, subprocess.Popen[bytes]]) -> None:
    for process in writers.values():
        if process.poll() is None:
            process.kill()
            process.wait()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=8, help="writer processes (default 8)")
    parser.add_argument("--minutes", type=float, default=30.0, help="how long the writers start statements (default 30)")
    parser.add_argument("--catalogs", default="sqlite,postgresql", help="comma-separated: sqlite, postgresql (default both)")
    parser.add_argument("--seed", type=int, default=52, help="seed of the statement choice (writer n uses seed * 1000 + n)")
    parser.add_argument("--retries", type=int, default=3, help="retries of a statement that met a conflict (default 3)")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON lines here")
    parser.add_argument("--work", type=Path, default=None, help="folder for catalogs, warehouses and writer logs (default: a new temporary one)")
    args = parser.parse_args(argv)
    args.catalog_list = [c.strip() for c in args.catalogs.split(",") if c.strip()]
    unknown = set(args.catalog_list) - {"sqlite", "postgresql"}
    if unknown or not args.catalog_list:
        parser.error(f"unknown catalogs {sorted(unknown)}: choose from sqlite, postgresql")
    if args.processes < 1 or args.minutes <= 0:
        parser.error("--processes must be at least 1 and --minutes positive")
    return args


def run(argv: list[str] | None = None) -> list[dict[str, Any]]:
    """Runs the soak on every catalog asked for; returns the summaries (violations included)."""
    args = parse_args(argv)
    begun = time.monotonic()

    def log(message: str) -> None:
        print(f"[{time.monotonic() - begun:7.1f}s] {message}", file=sys.stderr, flush=True)

    work = args.work or Path(tempfile.mkdtemp(prefix="iceberg-doris-soak-"))
    summaries = []
    with ExitStack() as stack:
        out = stack.enter_context(args.out.open("w")) if args.out else None
        for catalog in args.catalog_list:
            folder = work / catalog
            folder.mkdir(parents=True)
            summary = soak_catalog(catalog, args, folder, out, log)
            emit(summary, out)
            summaries.append(summary)
    log(f"done; writer logs in {work}")
    for s in summaries:
        print(f"{s['catalog']}: {s['statements']} statements, {s['commits']} commits, {s['conflicts_retried']} conflicts retried, "
              f"{s['conflicts_failed']} failed, {s['errors']} other errors, {s['checks']} snapshots checked, "
              f"{s['violations']} violations", file=sys.stderr)
    return summaries


def main(argv: list[str] | None = None) -> int:
    # Stopped from outside: still stop the writers and the PostgreSQL server (finally blocks).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    summaries = run(argv)
    return 1 if any(s["violations"] for s in summaries) else 0


if __name__ == "__main__":
    raise SystemExit(main())
