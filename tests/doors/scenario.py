"""The scenario every door runs: a partitioned UNIQUE KEY table created, loaded, a temp partition
loaded and swapped in through ``CALL doris.*`` (as docs/temp-partitions.md does it), then a key
upserted by Spark's own ``INSERT``."""

from __future__ import annotations

import sys
from pathlib import Path

import pyspark
from iceberg_doris.lake.pyiceberg_catalog import catalog
from tests.packaging.helpers import run

PYSPARK_BIN = Path(pyspark.__file__).parent / "bin"

# The source rows of the temp partition come from a temp view: it exists only in the caller's
# session, so the load proves the procedure ran in that session and not in the driver's default.
STATEMENTS = [
    "CREATE NAMESPACE doors",
    "CALL doris.create_table('CREATE TABLE doors.orders (dt DATE NOT NULL, id BIGINT NOT NULL, amount BIGINT) "
    "UNIQUE KEY(dt, id) PARTITION BY RANGE(dt) (PARTITION p202401 VALUES LESS THAN (\"2024-02-01\"), "
    "PARTITION p202402 VALUES LESS THAN (\"2024-03-01\")) DISTRIBUTED BY HASH(id) BUCKETS 2')",
    "CALL doris.load(table => 'doors.orders', query => 'SELECT * FROM VALUES (DATE\"2024-01-10\", 1L, 10L), "
    "(DATE\"2024-02-10\", 2L, 20L) AS t(dt, id, amount)')",
    "CALL doris.add_temp_partition(table => 'doors.orders', partition => 'tp202401', values_less_than => '2024-02-01')",
    "CREATE TEMPORARY VIEW january AS SELECT * FROM VALUES (DATE'2024-01-10', 1L, 11L), (DATE'2024-01-20', 3L, 30L) "
    "AS t(dt, id, amount)",
    "CALL doris.load(table => 'doors.orders', query => 'SELECT * FROM january', temporary_partitions => array('tp202401'))",
    "CALL doris.swap_temp_partition(table => 'doors.orders', partitions => array('p202401'), "
    "temp_partitions => array('tp202401'))",
    # Spark's own INSERT on a Doris table runs as a Doris load (an upsert on the key) in the Python side.
    "INSERT INTO doors.orders VALUES (DATE'2024-02-10', 2L, 21L)",
    "SELECT id, amount FROM doors.orders ORDER BY id",
]
EXPECTED = [(1, 11), (2, 21), (3, 30)]


def script() -> str:
    return "".join(statement + ";\n" for statement in STATEMENTS)


def properties_file(tmp_path: Path, env: dict[str, str]) -> Path:
    """What ``iceberg-doris --print-spark-conf`` prints, as a user would save it."""
    printed = run([sys.executable, "-m", "iceberg_doris.cli", "--print-spark-conf", "--master", "local[1]"],
                  cwd=tmp_path, env=env)
    properties = tmp_path / "doris.conf"
    properties.write_text(printed.stdout)
    return properties


def rows_in_catalog(tmp_path: Path) -> list[tuple[int, int]]:
    """The table's rows as pyiceberg reads them, no Spark involved."""
    table = catalog(home=tmp_path / "lake").load_table("doors.orders").scan().to_arrow()
    return sorted(zip(table.column("id").to_pylist(), table.column("amount").to_pylist()))
