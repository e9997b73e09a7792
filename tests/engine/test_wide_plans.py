"""A load into a wide table runs with constraint propagation off, and leaves the session's own
setting as it found it, also when loads of one session overlap."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.engine.wide_plans import CONSTRAINT_PROPAGATION, WIDE_TABLE_COLUMNS, wide_plan_settings

pytestmark = pytest.mark.spark


def setting(spark) -> str | None:
    return spark.conf.get(CONSTRAINT_PROPAGATION, None)


def test_narrow_tables_keep_the_setting_and_wide_ones_turn_it_off_for_the_load_only(spark):
    assert setting(spark) is None
    with wide_plan_settings(spark, WIDE_TABLE_COLUMNS - 1):
        assert setting(spark) is None
    with wide_plan_settings(spark, WIDE_TABLE_COLUMNS):
        assert setting(spark) == "false"
    assert setting(spark) is None  # unset again, not "true"


def test_overlapping_loads_restore_the_session_s_own_value_when_the_last_ends(spark):
    spark.conf.set(CONSTRAINT_PROPAGATION, "true")
    try:
        first, second = wide_plan_settings(spark, 500), wide_plan_settings(spark.newSession(), 500)
        same_session = wide_plan_settings(spark, 500)
        first.__enter__()
        same_session.__enter__()
        second.__enter__()  # another session: its own setting
        first.__exit__(None, None, None)
        assert setting(spark) == "false"  # a load of this session still runs
        same_session.__exit__(None, None, None)
        assert setting(spark) == "true"
        second.__exit__(None, None, None)
    finally:
        spark.conf.unset(CONSTRAINT_PROPAGATION)


def test_a_failed_wide_load_restores_the_setting(spark, namespace):
    columns = ", ".join(f"c{i} INT" for i in range(1, WIDE_TABLE_COLUMNS))
    table = f"{namespace}.wide"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, {columns}) DUPLICATE KEY(k) "
                                  "DISTRIBUTED BY HASH(k) BUCKETS 1")
    with pytest.raises(Exception, match="does not exist"):
        doris.load(spark, table=table, path="/nonexistent/rows.csv")
    assert setting(spark) is None
    loaded = doris.load(spark, table=table, query="SELECT 1 AS k")[0]
    assert loaded.loaded_rows == 1 and setting(spark) is None
