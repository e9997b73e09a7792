"""The table swap_temp_partition and replace_partition work on: RANGE(k) p0 [.., 10), p1 [10, 20),
p2 [20, 30), rows (1,'a'), (11,'b'), (21,'c'), and temp partitions tp0, tp1, tp2 over the same
ranges holding (5,'t0'), (15,'t1'), (25,'t2'): one pair per test, so tests stay independent."""

from __future__ import annotations

from typing import Any

from iceberg_doris import doris


def temp_table(spark: Any, table: str) -> str:
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) DUPLICATE KEY(k) "
        "PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20), "
        "PARTITION p2 VALUES LESS THAN (30)) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (11, 'b'), (21, 'c') AS t(k, v)")
    doris.add_partition(spark, table=table, partition="tp0", values_less_than="10", temporary=True)
    for i in (1, 2):
        doris.add_partition(spark, table=table, partition=f"tp{i}", values_range=[str(i * 10), str(i * 10 + 10)], temporary=True)
    doris.load(
        spark, table=table, query="SELECT * FROM VALUES (5, 't0'), (15, 't1'), (25, 't2') AS t(k, v)",
        temporary_partitions=["tp0", "tp1", "tp2"],
    )
    return table
