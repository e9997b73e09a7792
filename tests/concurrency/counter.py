"""One process of the counter test: ``python -m tests.concurrency.counter <spec.json> <n>``: counter
``n``, its own Spark driver, runs ``UPDATE <table> SET n = n + 1 WHERE k = 1`` (Spark's own statement, run as a
Doris load) in a few threads, once every process is ready, and prints one ``RESULT {...}`` line
per statement. Doris serialises UPDATEs on a table, so N processes x M increments must add N x M.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

from tests.concurrency.writer import ready_then_wait_for_go


def main(argv: list[str]) -> int:
    import iceberg_doris

    spec_path, number = Path(argv[0]), int(argv[1])
    spec = json.loads(spec_path.read_text())
    spark = iceberg_doris.session(home=spec["home"], catalog_uri=spec.get("catalog_uri"), warehouse=spec.get("warehouse"))
    ready_then_wait_for_go(spec_path.parent, f"counter {number}", number)
    printing = threading.Lock()

    def run() -> None:
        for _ in range(spec["increments"]):
            result: dict[str, object] = {"ok": True}
            try:
                spark.sql(f"UPDATE {spec['table']} SET n = n + 1 WHERE k = 1")
            except Exception as error:  # noqa: BLE001 - every failure is reported to the test
                result = {"ok": False, "error": f"{type(error).__name__}: {error}"[:2000]}
            with printing:
                print("RESULT " + json.dumps(result), flush=True)

    workers = [threading.Thread(target=run) for _ in range(spec["threads"])]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
