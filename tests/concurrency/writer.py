"""One writer process of the contention test: its own Spark driver, running its share of the
loads in a few threads once every writer is ready (``python -m tests.concurrency.writer``).

``python -m tests.concurrency.writer <n> <spec.json>``: writer ``n`` starts its session
(writer 0 first creates the table and loads the initial rows when the spec says ``create``: the go
file waits for every writer to be ready), says it is ready, waits for the go file, runs its loads
and prints one ``RESULT {...}`` line per load. Writer 0 then waits for every writer's ``done-<n>``
file and prints the table's rows as its Spark sees them (``ROWS [...]``): one driver fewer to start.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from pathlib import Path
from typing import Any

GO_WAIT_SECONDS = 900


def main(argv: list[str]) -> int:
    # Lock waits and holds, lookups and retries, for the report (tests/concurrency/contention.py).
    logging.basicConfig(format="LOG %(asctime)s %(threadName)s %(name)s %(message)s")
    for name in ("iceberg_doris.engine.table_lock", "iceberg_doris.engine.commit"):
        logging.getLogger(name).setLevel(logging.DEBUG)
    number, spec_path = int(argv[0]), Path(argv[1])
    spec = json.loads(spec_path.read_text())
    spark = _session(spec)
    if number == 0 and spec.get("create"):
        create(spark, spec)
    write(spark, spec, number, spec_path.parent)
    (spec_path.parent / f"done-{number}").touch()
    if number == 0:
        _wait_for(spec_path.parent, [f"done-{n}" for n in spec["loads"]], "writer 0")
        rows = spark.sql(f"SELECT k, v, s FROM {spec['table']} ORDER BY k").collect()
        print("ROWS " + json.dumps([list(r) for r in rows]), flush=True)
    spark.stop()
    return 0


def _session(spec: dict[str, Any]) -> Any:
    import iceberg_doris

    return iceberg_doris.session(home=spec["home"], catalog_uri=spec.get("catalog_uri"), warehouse=spec.get("warehouse"))


def create(spark: Any, spec: dict[str, Any]) -> None:
    from iceberg_doris import doris

    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {spec['table'].split('.')[0]}")
    doris.create_table(spark, ddl=spec["ddl"])
    doris.load(spark, table=spec["table"], label="initial", **load_arguments(spec["initial"]))


def load_arguments(events: list[list[Any]]) -> dict[str, Any]:
    """doris.load arguments for events ``[key, value, sequence, op]`` (op 'D' deletes the key)."""
    rows = ", ".join(f"({k}, '{v}', {s}, '{op}')" for k, v, s, op in events)
    return {
        "query": f"SELECT * FROM VALUES {rows} AS t(k, v, s, op)",
        "columns": "k, v, s, op",
        "merge_type": "MERGE",
        "delete_on": "op = 'D'",
    }


def write(spark: Any, spec: dict[str, Any], number: int, folder: Path) -> None:
    from iceberg_doris import doris

    loads = spec["loads"][str(number)]
    ready_then_wait_for_go(folder, f"writer {number}", number)
    printing = threading.Lock()

    def run(share: list[dict[str, Any]]) -> None:
        for load in share:
            started = time.monotonic()
            result: dict[str, Any] = {"label": load["label"], "ok": True}
            try:
                doris.load(spark, table=spec["table"], label=load["label"], **load_arguments(load["events"]))
            except Exception as error:  # noqa: BLE001 - every failure is reported to the test
                result |= {"ok": False, "error": f"{type(error).__name__}: {error}"}
            result["seconds"] = round(time.monotonic() - started, 3)
            with printing:
                print("RESULT " + json.dumps(result), flush=True)

    threads = spec["threads"]
    workers = [threading.Thread(target=run, args=(loads[i::threads],)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


def ready_then_wait_for_go(folder: Path, who: str, number: int) -> None:
    """Says writer ``number`` is ready (``ready-<number>`` in ``folder``) and waits for the go file
    the test writes once every writer is: all of them then start at once."""
    (folder / f"ready-{number}").touch()
    _wait_for(folder, ["go"], who)


def _wait_for(folder: Path, names: list[str], who: str) -> None:
    deadline = time.monotonic() + GO_WAIT_SECONDS
    while not all((folder / name).exists() for name in names):
        if time.monotonic() > deadline:
            raise SystemExit(f"{who}: no {', '.join(names)} file after {GO_WAIT_SECONDS} s")
        time.sleep(0.05)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
