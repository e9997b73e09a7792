"""The shuffle-partition rule applied to real sessions on local masters: the sized value, and a
value the user set (SET / spark.conf, spark-defaults.conf, session(conf=...)) left alone."""

from __future__ import annotations

import os
import sys

import pytest

from iceberg_doris import doris
from iceberg_doris.spark_session.shuffle_sizing import CHOSEN_MARKER, SHUFFLE_PARTITIONS, fixed_partitions
from iceberg_doris.spark_session.sizing import size_shuffle_partitions
from tests.packaging.helpers import printed, run
from tests.packaging.test_session_entry_points import _environment

pytestmark = pytest.mark.spark


def test_session_gets_two_partitions_per_core_and_keeps_a_value_set_later(spark):
    expected = fixed_partitions(spark.sparkContext.master, os.cpu_count() or 1)
    previous = spark.conf.get(SHUFFLE_PARTITIONS)
    assert previous == spark.conf.get(CHOSEN_MARKER) == str(expected)
    try:
        spark.sql(f"SET {SHUFFLE_PARTITIONS}=3")
        doris.help(spark)  # each procedure re-checks the value before it runs
        assert spark.conf.get(SHUFFLE_PARTITIONS) == "3"
        assert size_shuffle_partitions(spark) is None
    finally:
        spark.conf.set(SHUFFLE_PARTITIONS, previous)


USER_VALUES_JOB = r'''
import sys
import iceberg_doris
from iceberg_doris import doris
from pyspark.sql import SparkSession

conf = {"spark.sql.shuffle.partitions": "7"} if sys.argv[1] == "session-conf" else None
spark = iceberg_doris.session(master="local[2]", conf=conf)
print("AT_START", spark.conf.get("spark.sql.shuffle.partitions"))
spark.sql("CREATE NAMESPACE IF NOT EXISTS shop")
doris.create_table(spark, ddl="""CREATE TABLE shop.users (id BIGINT NOT NULL, name VARCHAR(20))
    UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1""")
doris.load(spark, table="shop.users", query="SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(id, name)")
print("AFTER_LOAD", spark.conf.get("spark.sql.shuffle.partitions"))
print("ROWS", spark.table("shop.users").count())
'''


# Where the user set nothing, the shared session of the test above shows the sized value (and
# every test's loads keep it): a process of its own would only repeat that.
@pytest.mark.parametrize("where", ["spark-defaults", "session-conf"])
def test_a_value_from_spark_defaults_or_session_conf_is_kept(tmp_path, where):
    (tmp_path / "job.py").write_text(USER_VALUES_JOB)
    env = _environment(tmp_path)
    if where == "spark-defaults":
        conf_dir = tmp_path / "spark-conf"
        conf_dir.mkdir()
        (conf_dir / "spark-defaults.conf").write_text("spark.sql.shuffle.partitions 7\n")
        env["SPARK_CONF_DIR"] = str(conf_dir)

    result = run([sys.executable, "job.py", where], cwd=tmp_path, env=env, timeout=240)

    assert printed(result.stdout, "AT_START") == ["7"]
    assert printed(result.stdout, "AFTER_LOAD") == ["7"]
    assert printed(result.stdout, "ROWS") == ["2"]
