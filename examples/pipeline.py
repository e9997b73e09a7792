"""The main job: an end-to-end pipeline on the embedded default catalog.

Run it with `make demo` (sets everything up first). It writes under $ICEBERG_DORIS_HOME
(default ~/.iceberg-doris) and can be run again: it rebuilds its own `demo` namespace each time.
Each step prints what a reader of the table sees; it grows as features land.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import iceberg_doris
from iceberg_doris import doris

ORDERS_DDL = """
CREATE TABLE demo.orders (
    `order_date` DATE NOT NULL COMMENT "day of the order",
    `order_id`   BIGINT NOT NULL,
    `city`       VARCHAR(20),
    `amount`     DECIMAL(10, 2)
)
DUPLICATE KEY(`order_date`, `order_id`)
PARTITION BY RANGE(`order_date`) (
    PARTITION p202401 VALUES LESS THAN ("2024-02-01"),
    PARTITION p202402 VALUES LESS THAN ("2024-03-01")
)
DISTRIBUTED BY HASH(`order_id`) BUCKETS 2
PROPERTIES ("replication_num" = "1")
"""

CSV = """2024-01-05\t1\tBeijing\t10.50
2024-01-20\t2\tShanghai\t20.00
2024-02-03\t3\tBeijing\t7.25
2024-02-14\t4\tThis city name is far too long\t1.00
2024-07-01\t5\tHangzhou\t3.00
"""


def show(spark, title: str, sql: str, columns: str = "*") -> None:
    print(f"\n== {title} ==")
    spark.sql(sql).select(*[c.strip() for c in columns.split(",")] if columns != "*" else "*").show(truncate=False)


def main() -> None:
    spark = iceberg_doris.session()
    settings = iceberg_doris.CatalogSettings.resolve()
    print(f"catalog: {settings.display_uri}\nwarehouse: {settings.warehouse}")

    spark.sql("DROP TABLE IF EXISTS demo.orders PURGE")
    spark.sql("CREATE NAMESPACE IF NOT EXISTS demo")
    print("\n== doris.create_table from a Doris CREATE TABLE ==")
    print(doris.create_table(spark, ddl=ORDERS_DDL)[0])

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "orders.csv"
        path.write_text(CSV)
        print("\n== doris.load from a tab-separated file (Doris stream-load defaults) ==")
        result = spark.sql(
            f"CALL doris.load(table => 'demo.orders', path => '{path}', label => 'orders_2024_01', max_filter_ratio => 0.5)"
        ).collect()[0]
        print(result)
        print("rejected rows and why:")
        spark.read.json(result.error_rows_path).show(truncate=False)

    show(spark, "show_partitions (counts from Iceberg metadata)", "CALL doris.show_partitions('demo.orders')",
         "partition_name, range, row_count, data_files")

    print("\n== stage corrected February data in a temporary partition, then swap it in atomically ==")
    spark.sql("CALL doris.add_partition(table => 'demo.orders', partition => 'tp202402', "
              "values_range => array('2024-02-01', '2024-03-01'), temporary => true)")
    doris.load(spark, table="demo.orders", temporary_partitions=["tp202402"],
               query="SELECT date'2024-02-03' AS order_date, 3L AS order_id, 'Beijing' AS city, 7.75 AS amount "
                     "UNION ALL SELECT date'2024-02-20', 6L, 'Shenzhen', 42.00")
    before_swap = spark.sql("SELECT snapshot_id FROM demo.orders.history ORDER BY made_current_at DESC LIMIT 1").collect()[0][0]
    show(spark, "the temp partition (its own Iceberg branch)", "SELECT * FROM demo.orders VERSION AS OF 'doris_temp_tp202402' ORDER BY order_id")
    show(spark, "swap", "CALL doris.swap_temp_partition(table => 'demo.orders', partitions => array('p202402'), "
                        "temp_partitions => array('tp202402'))", "partition_name, from_temp_partition, row_count, data_files")
    show(spark, "main after the swap", "SELECT * FROM demo.orders ORDER BY order_id")
    show(spark, f"time travel to before the swap (snapshot {before_swap})",
         f"SELECT * FROM demo.orders VERSION AS OF {before_swap} ORDER BY order_id")
    spark.sql("CALL doris.drop_partition(table => 'demo.orders', partition => 'tp202402', temporary => true)")

    print("\n== INSERT OVERWRITE ... PARTITION(*): only the partitions the rows touch ==")
    doris.insert_overwrite(spark, table="demo.orders", partitions=["*"],
                           query="SELECT date'2024-01-31', 9L, 'Xian', 1.00")
    show(spark, "main after the overwrite", "SELECT * FROM demo.orders ORDER BY order_id")

    print("\n== a UNIQUE KEY table fed by a CDC stream: merge-on-write with a sequence column ==")
    spark.sql("DROP TABLE IF EXISTS demo.customers PURGE")
    doris.create_table(spark, ddl="""
        CREATE TABLE demo.customers (id BIGINT NOT NULL, email VARCHAR(64), updated_at BIGINT)
        UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2
        PROPERTIES ("enable_unique_key_merge_on_write" = "true", "function_column.sequence_col" = "updated_at")""")
    cdc = "SELECT * FROM VALUES {} AS t(id, email, updated_at, op)"
    for batch in [
        "(1, 'ann@a.io', 10, 'U'), (2, 'bob@b.io', 10, 'U'), (3, 'cy@c.io', 10, 'U')",
        "(1, 'ann@new.io', 30, 'U'), (2, 'bob@b.io', 20, 'D')",
        "(1, 'ann@stale.io', 15, 'U'), (2, 'bob@late.io', 12, 'U')",  # arrives late, older: ignored
    ]:
        result = doris.load(spark, table="demo.customers", query=cdc.format(batch), columns="id, email, updated_at, op",
                            merge_type="MERGE", delete_on="op = 'D'")[0]
        print(f"loaded {result.loaded_rows} rows, deleted {result.deleted_rows}")
    show(spark, "one row per key, the largest updated_at won", "SELECT * FROM demo.customers ORDER BY id")
    show(spark, "what was committed: data files (0) and deletion vectors (1), never equality deletes",
         "SELECT content, file_format, count(*) AS files FROM demo.customers.files GROUP BY content, file_format ORDER BY content")

    print("\n== other readers see the same rows: pyiceberg (no Spark) ==")
    table = iceberg_doris.catalog().load_table("demo.orders")
    print(f"format-version {table.metadata.format_version}:",
          sorted((r["order_id"], r["city"]) for r in table.scan().to_arrow().to_pylist()))
    customers = iceberg_doris.catalog().load_table("demo.customers")
    print("customers:", sorted((r["id"], r["email"]) for r in customers.scan().to_arrow().to_pylist()))
    spark.stop()


if __name__ == "__main__":
    main()
