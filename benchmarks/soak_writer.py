"""One writer process of the soak run (``python -m benchmarks.soak_writer <spec.json> <n>``): its own
Spark driver, running randomly chosen statements on the soak tables until the deadline, and
printing one ``STATEMENT {...}`` line per statement: what it was, whether it committed, the
snapshot it committed and the rows the writer's own keys must hold afterwards.

Why the checker can know the exact rows of every snapshot: writers share the counter keys (the
``pc`` partition) only through ``UPDATE ... SET n = n + 1``, so each counter holds exactly the
number of committed increments; every other key belongs to one writer (partition ``p<n>``), whose
statements run one after another, so that writer's model (:class:`KeyModel`) after its last
statement in a snapshot's history is what the snapshot must hold for those keys.
"""

from __future__ import annotations

import json
import random
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.concurrency.writer import ready_then_wait_for_go

COUNTERS = 4  # shared counter keys 0..3, partition pc
KEYS = 40  # keys per writer
SPAN = 1000  # writer n owns partition p<n>: keys [SPAN * (n + 1), SPAN * (n + 2)), uses the first KEYS
TABLES = {"seq": True, "plain": False}  # table name -> has a sequence column (s)

# Statement kinds and their weights; the counter increment is the most frequent so that the
# shared keys see real read-modify-write contention.
KINDS = {
    "load_merge": 24, "insert_values": 14, "update_counter": 26, "update_range": 8,
    "delete_range": 8, "insert_select": 8, "compact": 7, "swap_temp_partition": 5,
}
STATE_KINDS = {"load_merge", "insert_values", "update_range", "delete_range", "insert_select", "swap_temp_partition"}
CONFLICT_MARK = "nothing was committed. Run it again"  # every commit-conflict and lock-timeout message says it
LOCK_TIMEOUT_MARK = "held the table's commit lock for more than"

Row = tuple[str, int, int]  # v, n, s


def ddl(namespace: str, table: str, writers: int) -> str:
    partitions = [f'PARTITION pc VALUES LESS THAN ("{SPAN}")'] + [
        f'PARTITION p{n} VALUES LESS THAN ("{SPAN * (n + 2)}")' for n in range(writers)
    ]
    properties = ' PROPERTIES ("function_column.sequence_col" = "s")' if TABLES[table] else ""
    return (
        f"CREATE TABLE {namespace}.{table} (k INT NOT NULL, v STRING, n BIGINT, s BIGINT) UNIQUE KEY(k) "
        f"PARTITION BY RANGE(k) ({', '.join(partitions)}) DISTRIBUTED BY HASH(k) BUCKETS 2{properties}"
    )


def first_key(writer: int) -> int:
    return SPAN * (writer + 1)


def initial_rows(writer: int) -> dict[int, Row]:
    """Every other key of the writer's range, sequence value 0 (the writer's own start at 1)."""
    return {k: ("initial", 0, 0) for k in range(first_key(writer), first_key(writer) + KEYS, 2)}


def initial_counters() -> dict[int, Row]:
    return {k: ("counter", 0, 0) for k in range(COUNTERS)}


@dataclass
class KeyModel:
    """The rows one writer's keys must hold in one table, by Doris's rules: on a sequence table an
    event applies only if its sequence value is at least the key's last one (``top``, kept for
    deleted keys too: the tombstone); without a sequence column the last event wins."""

    sequence: bool
    rows: dict[int, Row]
    top: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.top = {k: s for k, (_, _, s) in self.rows.items()}

    def apply(self, key: int, row: Row | None, s: int) -> None:
        if self.sequence and s < self.top.get(key, -1):
            return  # an older event: Doris keeps the newer row, or the tombstone
        self.top[key] = s
        if row is None:
            self.rows.pop(key, None)
        else:
            self.rows[key] = row

    def live_in(self, low: int, high: int) -> list[int]:
        return sorted(k for k in self.rows if low <= k < high)

    def state(self) -> dict[str, list[Any]]:
        return {str(k): list(row) for k, row in sorted(self.rows.items())}


class Writer:
    def __init__(self, spark: Any, spec: dict[str, Any], number: int):
        self.spark = spark
        self.spec = spec
        self.number = number
        self.random = random.Random(spec["seed"] * 1000 + number)
        self.models = {t: KeyModel(TABLES[t], initial_rows(number)) for t in TABLES}
        self.sequence = 0  # this writer's sequence values: increasing, so its own events apply in order
        self.count = 0

    def qualified(self, table: str) -> str:
        return f"{self.spec['namespace']}.{table}"

    def next_sequence(self) -> int:
        self.sequence += 1
        return self.sequence

    def run(self, deadline: float) -> None:
        kinds, weights = zip(*KINDS.items())
        while time.monotonic() < deadline:
            table = self.random.choice(list(TABLES))
            kind = self.random.choices(kinds, weights)[0]
            self.count += 1
            getattr(self, kind)(table, f"w{self.number}-{table}-{self.count}")

    # --- running one statement, with retries of conflicts -------------------------------------

    def attempt(self, entry: dict[str, Any], action: Any) -> Any:
        """Runs ``action`` until it commits or fails for another reason than a conflict, at most
        ``retries + 1`` times; records the outcome in ``entry``; returns the result or None."""
        started = time.monotonic()
        for key, start in (("writer", self.number), ("attempts", 0), ("conflicts", 0), ("lock_timeouts", 0)):
            entry.setdefault(key, start)  # a swap's steps add up in one entry
        result = None
        while True:
            entry["attempts"] += 1
            try:
                result = action()
                entry["outcome"] = "committed"
                break
            except Exception as error:  # noqa: BLE001 - classified and reported, the run goes on
                text = f"{type(error).__name__}: {error}"
                conflict = type(error).__name__ in ("CommitConflictError", "CommitLockTimeoutError") or CONFLICT_MARK in text
                if not conflict:
                    # Where it failed (Python and Java frames): an error here is a defect to diagnose.
                    trace = "".join(traceback.format_exception(error))
                    entry |= {"outcome": "error", "error": text[:1500], "trace": trace[-6000:]}
                    break
                entry["conflicts"] += 1
                entry["lock_timeouts"] += LOCK_TIMEOUT_MARK in text
                if entry["attempts"] > self.spec["retries"]:
                    entry |= {"outcome": "conflict", "error": text[:500]}
                    break
        entry["seconds"] = round(entry.get("seconds", 0) + time.monotonic() - started, 3)
        return result

    def report(self, entry: dict[str, Any]) -> None:
        print("STATEMENT " + json.dumps(entry), flush=True)

    def finish(self, entry: dict[str, Any], table: str, rows: list[Any] | None, label: str | None) -> None:
        """Records a statement that commits on main: its label (known or from its result row) and
        snapshot, and the writer's rows after it (the model is changed only once it committed)."""
        if entry["outcome"] == "committed" and rows:
            entry["snapshot_id"] = rows[0]["snapshot_id"]
            entry["labels"] = [label or rows[0]["label"]]
        elif label:
            entry["failed_labels"] = [label]
        if entry["outcome"] == "committed" and entry["kind"] in STATE_KINDS:
            entry["state"] = self.models[table].state()
        self.report(entry)

    # --- the statements -----------------------------------------------------------------------

    def events(self, table: str, count: int, deletes: float) -> list[tuple[int, str | None, int, int]]:
        """``count`` distinct keys of this writer, each an upsert or (share ``deletes``) a delete;
        on the sequence table some upserts carry an older sequence value than the key's last one
        (Doris must ignore them)."""
        model = self.models[table]
        keys = self.random.sample(range(first_key(self.number), first_key(self.number) + KEYS), count)
        events = []
        for key in keys:
            delete = self.random.random() < deletes
            stale = model.sequence and not delete and model.top.get(key, 0) > 1 and self.random.random() < 0.2
            s = model.top[key] - 1 if stale else self.next_sequence()
            events.append((key, None if delete else f"v{self.sequence}", self.random.randint(0, 100), s))
        return events

    def apply(self, table: str, events: list[tuple[int, str | None, int, int]]) -> None:
        for key, value, n, s in events:
            self.models[table].apply(key, None if value is None else (value, n, s), s)

    def load_merge(self, table: str, label: str) -> None:
        from iceberg_doris import doris

        events = self.events(table, self.random.randint(2, 8), deletes=0.3)
        values = ", ".join(f"({k}, '{v or 'gone'}', {n}L, {s}L, '{'D' if v is None else 'U'}')" for k, v, n, s in events)
        entry: dict[str, Any] = {"kind": "load_merge", "table": table}
        rows = self.attempt(entry, lambda: doris.load(
            self.spark, table=self.qualified(table), label=label, query=f"SELECT * FROM VALUES {values} AS t(k, v, n, s, op)",
            columns="k, v, n, s, op", merge_type="MERGE", delete_on="op = 'D'",
        ))
        if entry["outcome"] == "committed":
            self.apply(table, events)
        self.finish(entry, table, rows, label)

    def insert_values(self, table: str, label: str) -> None:
        events = self.events(table, self.random.randint(1, 5), deletes=0.0)
        values = ", ".join(f"({k}, '{v}', {n}, {s})" for k, v, n, s in events)

        def insert() -> list[Any]:
            self.spark.conf.set("spark.doris.insert_label", label)  # the statement unsets it, whatever its outcome
            return self.spark.sql(f"INSERT INTO {self.qualified(table)} VALUES {values}").collect()

        entry: dict[str, Any] = {"kind": "insert_values", "table": table}
        rows = self.attempt(entry, insert)
        if entry["outcome"] == "committed":
            self.apply(table, events)
        self.finish(entry, table, rows, label)

    def update_counter(self, table: str, label: str) -> None:
        counter = self.random.randrange(COUNTERS)
        entry: dict[str, Any] = {"kind": "update_counter", "table": table, "counter": counter}
        rows = self.attempt(entry, lambda: self.spark.sql(
            f"UPDATE {self.qualified(table)} SET n = n + 1 WHERE k = {counter}").collect())
        self.finish(entry, table, rows, None)

    def key_range(self) -> tuple[int, int]:
        low = first_key(self.number) + self.random.randrange(KEYS)
        return low, low + self.random.randint(1, 4)

    def update_range(self, table: str, label: str) -> None:
        low, high = self.key_range()
        tag = f"u{self.count}"
        entry: dict[str, Any] = {"kind": "update_range", "table": table}
        rows = self.attempt(entry, lambda: self.spark.sql(
            f"UPDATE {self.qualified(table)} SET n = n + 1, v = '{tag}' WHERE k >= {low} AND k < {high}").collect())
        if entry["outcome"] == "committed":
            model = self.models[table]
            for key in model.live_in(low, high):
                _, n, s = model.rows[key]
                model.rows[key] = (tag, n + 1, s)  # same sequence value: an equal one replaces
        self.finish(entry, table, rows, None)

    def delete_range(self, table: str, label: str) -> None:
        low, high = self.key_range()
        entry: dict[str, Any] = {"kind": "delete_range", "table": table}
        rows = self.attempt(entry, lambda: self.spark.sql(
            f"DELETE FROM {self.qualified(table)} WHERE k >= {low} AND k < {high}").collect())
        if entry["outcome"] == "committed":
            for key in self.models[table].live_in(low, high):
                del self.models[table].rows[key]  # the tombstone keeps the row's sequence value (top)
        self.finish(entry, table, rows, None)

    def insert_select(self, table: str, label: str) -> None:
        low, high = self.key_range()
        name = self.qualified(table)

        def insert() -> list[Any]:
            self.spark.conf.set("spark.doris.insert_label", label)
            return self.spark.sql(f"INSERT INTO {name} SELECT k, v, n + 10, s FROM {name} WHERE k >= {low} AND k < {high}").collect()

        entry: dict[str, Any] = {"kind": "insert_select", "table": table}
        rows = self.attempt(entry, insert)
        if entry["outcome"] == "committed":
            model = self.models[table]
            for key in model.live_in(low, high):
                v, n, s = model.rows[key]
                model.rows[key] = (v, n + 10, s)
        self.finish(entry, table, rows, label)

    def compact(self, table: str, label: str) -> None:
        from iceberg_doris import doris

        entry: dict[str, Any] = {"kind": "compact", "table": table}
        rows = self.attempt(entry, lambda: doris.compact(self.spark, table=self.qualified(table)))
        if entry["outcome"] == "committed":
            entry["snapshot_id"] = rows[0]["snapshot_id"]  # the current one when there was nothing to rewrite
        self.report(entry)

    def swap_temp_partition(self, table: str, label: str) -> None:
        """A temp partition over the writer's partition, filled with its live rows (values changed,
        one new key) and swapped in; the replaced rows, now the temp partition, are dropped."""
        from iceberg_doris import doris

        name, model = self.qualified(table), self.models[table]
        temp, formal = f"tp{self.number}x{self.count}", f"p{self.number}"
        low = first_key(self.number)
        entry: dict[str, Any] = {"kind": "swap_temp_partition", "table": table, "labels": [], "failed_labels": []}
        self.attempt(entry, lambda: doris.add_temp_partition(
            self.spark, table=name, partition=temp, values_range=[str(low), str(low + SPAN)]))
        if entry["outcome"] != "committed":
            entry["step"] = "add_temp_partition"
            self.report(entry)
            return
        new = {k: (f"swap{self.count}", n, s) for k, (_, n, s) in model.rows.items()}
        extra = self.random.randrange(low, low + KEYS)
        new[extra] = (f"swap{self.count}", 0, self.next_sequence())
        values = ", ".join(f"({k}, '{v}', {n}L, {s}L)" for k, (v, n, s) in sorted(new.items()))
        temp_label = f"{label}-t"
        self.attempt(entry, lambda: doris.load(
            self.spark, table=name, label=temp_label, query=f"SELECT * FROM VALUES {values} AS t(k, v, n, s)",
            temporary_partitions=[temp]))
        step = "load" if entry["outcome"] != "committed" else "swap"
        entry["labels" if entry["outcome"] == "committed" else "failed_labels"].append(temp_label)
        if step == "swap":
            rows = self.attempt(entry, lambda: doris.swap_temp_partition(self.spark, table=name, partitions=[formal], temp_partitions=[temp]))
            if entry["outcome"] == "committed":
                entry["snapshot_id"] = rows[0]["snapshot_id"]
                model.rows = new
                model.top = {k: s for k, (_, _, s) in new.items()}  # the swapped-in files carry no tombstones
                entry["state"] = model.state()
        entry["step"] = step
        try:  # after a swap the temp partition holds the replaced rows; otherwise the unused staging
            doris.drop_partition(self.spark, table=name, partition=temp, temporary=True)
        except Exception as error:  # noqa: BLE001 - a leftover temp partition harms no invariant
            entry["drop_error"] = f"{type(error).__name__}: {error}"[:300]
        self.report(entry)


def main(argv: list[str]) -> int:
    import iceberg_doris

    spec_path, number = Path(argv[0]), int(argv[1])
    spec = json.loads(spec_path.read_text())
    spark = iceberg_doris.session(
        home=spec["home"], catalog_uri=spec.get("catalog_uri"), warehouse=spec.get("warehouse"),
        conf=spec.get("spark_conf"), progress=False,
    )
    spark.sparkContext.setLogLevel("ERROR")
    folder = spec_path.parent
    ready_then_wait_for_go(folder, f"writer {number}", number)
    # Every writer stops starting statements at the same wall-clock moment, whatever its start-up took.
    deadline = time.monotonic() + (float((folder / "go").read_text()) - time.time())
    Writer(spark, spec, number).run(deadline)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
