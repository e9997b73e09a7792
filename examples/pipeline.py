"""The main job: an end-to-end pipeline on the embedded default catalog.

Run it with `make demo` (sets everything up first). It writes under $ICEBERG_DORIS_HOME
(default ~/.iceberg-doris) and can be run again: it rebuilds its own `demo` namespace each time.
It grows as features land; each step prints what a reader of the table sees.
"""

from __future__ import annotations

import iceberg_doris
from iceberg_doris import doris


def main() -> None:
    spark = iceberg_doris.session()
    settings = iceberg_doris.CatalogSettings.resolve()
    print(f"catalog: {settings.jdbc_uri}\nwarehouse: {settings.warehouse}\n")

    print("== the procedures, from CALL doris.help() ==")
    spark.sql("CALL doris.help()").select("procedure", "description").show(truncate=False)

    print("== Spark writes a format-v3 table; a DELETE becomes a deletion vector ==")
    spark.sql("DROP TABLE IF EXISTS demo.orders PURGE")
    spark.sql("CREATE NAMESPACE IF NOT EXISTS demo")
    spark.sql("CREATE TABLE demo.orders (order_id bigint, city string, amount decimal(10,2)) USING iceberg")
    spark.sql("INSERT INTO demo.orders VALUES (1, 'Beijing', 10.50), (2, 'Shanghai', 20.00), (3, 'Beijing', 7.25)")
    spark.sql("DELETE FROM demo.orders WHERE order_id = 2")
    spark.sql("SELECT * FROM demo.orders ORDER BY order_id").show()
    spark.sql("SELECT content, record_count FROM demo.orders.delete_files").show()

    print("== pyiceberg (no Spark) reads the same table from the same catalog ==")
    table = iceberg_doris.catalog().load_table("demo.orders")
    print(f"format-version {table.metadata.format_version}:",
          sorted(table.scan().to_arrow().to_pylist(), key=lambda r: r["order_id"]))

    print("\n== the Python form of a procedure returns the same rows ==")
    print(doris.help(spark, procedure="help")[0].signature)
    spark.stop()


if __name__ == "__main__":
    main()
