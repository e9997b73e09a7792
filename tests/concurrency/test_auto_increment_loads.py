"""Concurrent loads into one table with an AUTO_INCREMENT column never generate one value twice
(Doris: unique, not dense; regression-test/suites/data_model_p0/unique/test_unique_auto_inc_concurrent.groovy
runs loads in parallel and checks count(distinct id) = count(*)). The interleavings are forced at the
point a load has reserved its block and not yet written, with no sleeps."""

from __future__ import annotations

import threading

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import interleaving
from tests.concurrency import once_for

pytestmark = pytest.mark.spark

NAMES = "SELECT concat('{prefix}', CAST(id AS STRING)) AS name, CAST(id AS INT) AS value FROM range({rows})"


def create(spark, namespace: str, model: str) -> str:
    table = f"{namespace}.auto_{model.lower()}"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (`id` BIGINT NOT NULL AUTO_INCREMENT, `name` varchar(64) NOT NULL, `value` int NOT NULL) "
        f"{model} KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 2",
    )
    return table


def distinct_and_total(spark, table: str) -> tuple[int, int]:
    row = spark.sql(f"SELECT count(DISTINCT id), count(*) FROM {table}").collect()[0]
    return row[0], row[1]


@pytest.mark.parametrize("model", ["UNIQUE", "DUPLICATE"])
def test_a_load_between_anothers_reservation_and_its_write_gets_other_values(spark, namespace, model):
    table = create(spark, namespace, model)

    def competitor() -> None:
        doris.load(spark, table=table, query=NAMES.format(prefix="inner", rows=40), label="inner")

    with interleaving.inject(interleaving.IDS_RESERVED, once_for(table, competitor)):
        doris.load(spark, table=table, query=NAMES.format(prefix="outer", rows=60), label="outer")
    assert distinct_and_total(spark, table) == (100, 100)
    # Each load got one block of its own: the outer's first (reserved first), the inner's after it.
    spans = {
        r.prefix: (r.low, r.high) for r in spark.sql(
            f"SELECT substr(name, 1, 5) AS prefix, min(id) AS low, max(id) AS high FROM {table} GROUP BY 1"
        ).collect()
    }
    assert spans["outer"][1] < spans["inner"][0]


def test_loads_in_two_threads_holding_their_blocks_at_once_get_disjoint_values(spark, namespace):
    table = create(spark, namespace, "UNIQUE")
    both_reserved = threading.Barrier(2, timeout=300)

    def hold(name) -> None:
        if name.qualified == table:
            both_reserved.wait()  # neither writes before the other has reserved

    failures: list[BaseException] = []

    def load(prefix: str) -> None:
        try:
            doris.load(spark, table=table, query=NAMES.format(prefix=prefix, rows=50), label=f"load_{prefix}")
        except BaseException as error:  # noqa: BLE001 - reported below
            failures.append(error)

    with interleaving.inject(interleaving.IDS_RESERVED, hold):
        threads = [threading.Thread(target=load, args=(prefix,)) for prefix in ("left", "right")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []
    assert distinct_and_total(spark, table) == (100, 100)
