"""A local session's driver heap: sized from the machine's memory unless the user chooses it."""

from __future__ import annotations

from iceberg_doris.lake.settings import CatalogSettings
from iceberg_doris.spark_session.builder import local_driver_memory, spark_conf

GIB = 1024**3


def test_a_quarter_of_the_machine_within_bounds(monkeypatch):
    monkeypatch.delenv("SPARK_DRIVER_MEMORY", raising=False)  # the variable chooses when set
    assert local_driver_memory(16 * GIB) == "4096m"
    assert local_driver_memory(2 * GIB) == "1024m"  # never below Spark's own default
    assert local_driver_memory(256 * GIB) == "8192m"


def test_local_sessions_get_it_and_the_user_wins(tmp_path, monkeypatch):
    monkeypatch.delenv("SPARK_DRIVER_MEMORY", raising=False)
    settings = CatalogSettings.resolve(home=tmp_path)
    assert spark_conf(settings, master="local[2]")["spark.driver.memory"] == local_driver_memory()
    assert spark_conf(settings, master="local[2]", conf={"spark.driver.memory": "2g"})["spark.driver.memory"] == "2g"
    assert "spark.driver.memory" not in spark_conf(settings, master="spark://spark-master:7077")
    monkeypatch.setenv("SPARK_DRIVER_MEMORY", "3g")
    assert "spark.driver.memory" not in spark_conf(settings, master="local[2]")
