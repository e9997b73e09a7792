"""The contention workload: writer processes (each its own Spark driver, a few threads each) load
overlapping keys of one unique-key table at once, upserts and deletes mixed, each load with a
label. What every reader must see afterwards is the serial result by Doris's rules:

- with a sequence column, order does not matter: each key ends as its event with the largest
  sequence value says (absent if that event is a delete); sequence values are all distinct;
- without one, the loads apply in the order they committed (the snapshots' order, each found by
  its label): the last load that names a key decides.

The tests run a small workload; the full target runs by hand::

    .venv/bin/python -m tests.concurrency.contention --catalog sqlite --processes 8 --loads 10
    .venv/bin/python -m tests.concurrency.contention --catalog postgresql --processes 8 --loads 10
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[2]
READY_WAIT_SECONDS = 900
WRITERS_WAIT_SECONDS = 3000


@dataclass(frozen=True)
class Workload:
    table: str
    sequence: bool
    initial: list[list[Any]]  # events [key, value, sequence, op]
    loads: dict[int, list[dict[str, Any]]]  # writer -> [{"label": ..., "events": [...]}]
    threads: int

    @property
    def ddl(self) -> str:
        properties = ' PROPERTIES ("function_column.sequence_col" = "s")' if self.sequence else ""
        return (
            f"CREATE TABLE {self.table} (k INT NOT NULL, v STRING, s INT) UNIQUE KEY(k) "
            f"DISTRIBUTED BY HASH(k) BUCKETS 4{properties}"
        )

    @property
    def labels(self) -> list[str]:
        return [load["label"] for loads in self.loads.values() for load in loads]

    def spec(self, place: dict[str, str | None]) -> dict[str, Any]:
        return place | {
            "table": self.table, "ddl": self.ddl, "initial": self.initial, "threads": self.threads,
            "loads": {str(n): loads for n, loads in self.loads.items()},
        }

    def expected_rows(self, commit_order: list[str]) -> list[tuple[int, str, int]]:
        """The serial result by Doris's rules (module docstring)."""
        by_label = {load["label"]: load["events"] for loads in self.loads.values() for load in loads}
        if self.sequence:
            events = self.initial + [e for events in by_label.values() for e in events]
            order = sorted(events, key=lambda e: e[2])
        else:
            order = self.initial + [e for label in commit_order for e in by_label[label]]
        final: dict[int, tuple[int, str, int] | None] = {}
        for key, value, sequence, op in order:
            final[key] = None if op == "D" else (key, value, sequence)
        return sorted(row for row in final.values() if row is not None)


def make_workload(
    table: str, *, sequence: bool, processes: int, threads: int, loads_per_process: int,
    keys: int = 60, rows_per_load: int = 12, seed: int = 17,
) -> Workload:
    """Loads of ``rows_per_load`` distinct random keys out of ``keys`` (so writers overlap), a
    fifth of them deletes, with sequence values distinct across the whole workload."""
    generator = random.Random(seed)
    count = processes * loads_per_process * rows_per_load
    sequences = iter(generator.sample(range(1, 10 * count + 1), count))
    loads: dict[int, list[dict[str, Any]]] = {}
    for writer in range(processes):
        loads[writer] = []
        for number in range(loads_per_process):
            label = f"w{writer}_l{number}"
            events = [
                [key, f"{label}_k{key}", next(sequences), "D" if generator.random() < 0.2 else "U"]
                for key in generator.sample(range(keys), rows_per_load)
            ]
            loads[writer].append({"label": label, "events": events})
    initial = [[key, "initial", 0, "U"] for key in range(keys)]
    return Workload(table, sequence, initial, loads, threads)


@dataclass
class Outcome:
    results: list[dict[str, Any]]  # one per load, as its writer reported it
    seconds: float  # from the go signal to the last writer's exit
    label_counts: Counter[str]  # label -> snapshots carrying it
    lookups: dict[str, int]  # label -> doris.lookups of its snapshot
    commit_order: list[str]  # labels in snapshot order (the initial load excluded)
    py_catalog: Any
    log_lines: list[str]  # the writers' LOG lines: lock waits and holds, failed attempts
    spark_rows: list[tuple[Any, ...]]  # the table's rows as writer 0's Spark read them after every load

    def _seconds(self, marker: str) -> list[float]:
        return sorted(float(line.rsplit(" ", 2)[-2]) for line in self.log_lines if marker in line)

    @property
    def failures(self) -> list[dict[str, Any]]:
        return [r for r in self.results if not r["ok"]]

    def summary(self) -> dict[str, Any]:
        seconds = sorted(r["seconds"] for r in self.results)
        return {
            "loads": len(self.results),
            "committed": sum(1 for r in self.results if r["ok"]),
            "failed": len(self.failures),
            "lookups": dict(sorted(Counter(self.lookups.values()).items())),
            "second_lookups": sum(1 for n in self.lookups.values() if n > 1),
            "failed_attempts": sum(1 for line in self.log_lines if ", attempt " in line),
            "load_seconds_median": round(statistics.median(seconds), 2) if seconds else None,
            "load_seconds_max": seconds[-1] if seconds else None,
            "lock_wait_seconds": _spread(self._seconds(" taken after ")),
            "lock_hold_seconds": _spread(self._seconds(" released after ")),
            "wall_seconds": round(self.seconds, 1),
        }


def run_writers(
    workload: Workload,
    place: dict[str, str | None],
    folder: Path,
    *,
    create: Callable[[], None] | None = None,
) -> Outcome:
    """Creates the table (``create``, else writer 0 before it is ready), runs one process per
    writer, all released at once, and collects what they report and what the snapshots say."""
    import iceberg_doris

    spec_path = folder / "spec.json"
    spec_path.write_text(json.dumps(workload.spec(place) | {"create": create is None}))
    if create is not None:
        create()
    writers = {}
    for number in workload.loads:
        log = (folder / f"writer-{number}.log").open("w")
        writers[number] = subprocess.Popen(
            [sys.executable, "-m", "tests.concurrency.writer", str(number), str(spec_path)],
            cwd=REPOSITORY, stdout=log, stderr=subprocess.STDOUT, env=_environment(),
        )
    try:
        _wait_until_ready(folder, writers)
        started = time.monotonic()
        (folder / "go").touch()
        # Writer 0 waits for the others before it reads: a failing other writer is reported first.
        for number, process in sorted(writers.items(), reverse=True):
            if process.wait(timeout=WRITERS_WAIT_SECONDS) != 0:
                raise AssertionError(f"writer {number} exited with {process.returncode}: {_tail(folder / f'writer-{number}.log')}")
        seconds = time.monotonic() - started
    finally:
        for process in writers.values():
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                process.wait()
    results, log_lines, spark_rows = [], [], []
    for number in writers:
        for line in (folder / f"writer-{number}.log").read_text().splitlines():
            if line.startswith("RESULT "):
                results.append(json.loads(line.removeprefix("RESULT ")))
            elif line.startswith("LOG "):
                log_lines.append(line)
            elif line.startswith("ROWS "):
                spark_rows = [tuple(r) for r in json.loads(line.removeprefix("ROWS "))]
    py_catalog = iceberg_doris.catalog(home=place["home"], catalog_uri=place.get("catalog_uri"), warehouse=place.get("warehouse"))
    table = py_catalog.load_table(workload.table)
    label_counts: Counter[str] = Counter()
    lookups: dict[str, int] = {}
    order = []
    for snapshot in sorted(table.metadata.snapshots, key=lambda s: s.sequence_number):
        label = snapshot.summary.get("doris.label") if snapshot.summary else None
        if label is None or label == "initial":
            continue
        label_counts[label] += 1
        lookups[label] = int(snapshot.summary.get("doris.lookups") or 1)
        order.append(label)
    return Outcome(results, seconds, label_counts, lookups, order, py_catalog, log_lines, spark_rows)


def _spread(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    return {"median": round(statistics.median(values), 3), "max": round(values[-1], 3), "total": round(sum(values), 1)}


def _environment() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(REPOSITORY) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _wait_until_ready(folder: Path, writers: dict[int, subprocess.Popen[bytes]]) -> None:
    deadline = time.monotonic() + READY_WAIT_SECONDS
    while not all((folder / f"ready-{n}").exists() for n in writers):
        for number, process in writers.items():
            if process.poll() is not None:
                raise AssertionError(f"writer {number} exited before it was ready: {_tail(folder / f'writer-{number}.log')}")
        if time.monotonic() > deadline:
            raise AssertionError(f"writers not ready after {READY_WAIT_SECONDS} s")
        time.sleep(0.1)


def _tail(path: Path) -> str:
    return path.read_text()[-3000:] if path.exists() else "(no output)"


def readers_rows(outcome: Outcome, table: str, spark_rows: list[tuple[Any, ...]]) -> dict[str, list[tuple[Any, ...]]]:
    """The rows as Spark (given), pyiceberg and DuckDB read the table's current snapshot."""
    from tests.support.duckdb_reader import read_rows

    loaded = outcome.py_catalog.load_table(table)
    arrow = sorted((r["k"], r["v"], r["s"]) for r in loaded.scan(selected_fields=("k", "v", "s")).to_arrow().to_pylist())
    duck = [tuple(r) for r in read_rows(loaded.metadata_location, "k, v, s", order_by="k")]
    return {"spark": [tuple(r) for r in spark_rows], "pyiceberg": arrow, "duckdb": duck}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalog", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--loads", type=int, default=10, help="loads per process")
    parser.add_argument("--sequence", choices=("yes", "no", "both"), default="both")
    args = parser.parse_args()
    # Stopped from outside: still stop the writers and the PostgreSQL server (finally blocks).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    from contextlib import ExitStack

    from tests.support.postgres_server import postgres_server

    with ExitStack() as stack:
        folder = Path(tempfile.mkdtemp(prefix="iceberg-doris-contention-"))
        place: dict[str, str | None] = {"home": str(folder / "home"), "catalog_uri": None, "warehouse": None}
        if args.catalog == "postgresql":
            place["catalog_uri"] = stack.enter_context(postgres_server())
            place["warehouse"] = str(folder / "warehouse")
        kinds = {"yes": [True], "no": [False], "both": [True, False]}[args.sequence]
        for sequence in kinds:
            run_folder = folder / ("sequence" if sequence else "plain")
            run_folder.mkdir()
            workload = make_workload(
                f"contention.{run_folder.name}", sequence=sequence, processes=args.processes,
                threads=args.threads, loads_per_process=args.loads,
            )
            outcome = run_writers(workload, place, run_folder)
            seen = readers_rows(outcome, workload.table, outcome.spark_rows)
            expected = workload.expected_rows(outcome.commit_order)
            report = outcome.summary() | {
                "catalog": args.catalog, "table": run_folder.name, "processes": args.processes, "threads": args.threads,
                "labels_once": sorted(outcome.label_counts) == sorted(workload.labels) and set(outcome.label_counts.values()) == {1},
                "rows": len(expected),
                "readers_match_serial_result": {reader: rows == expected for reader, rows in seen.items()},
                "errors": [f["error"][:300] for f in outcome.failures][:5],
            }
            print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
