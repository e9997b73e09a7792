"""Duplicate keys inside one partial-column load (``doris.load``, Doris's stream load): the row
with the larger sequence value wins, as in a whole-row load, and then meets the stored row's
sequence value as any row does. Doris's stream-load suite
(regression-test/suites/unique_with_mow_p0/partial_update/test_partial_update_seq_col.groovy, its
.out in regression-test/data/) expects exactly the rows asserted here; its INSERT suites keep the
last row instead (tests/merge_on_write/test_plan_rules.py)."""

from __future__ import annotations

import datetime as dt

import pytest

from iceberg_doris import doris
from tests.concurrency import readers_agree

pytestmark = pytest.mark.spark

D = dt.date


def test_the_larger_sequence_value_of_a_key_wins_inside_a_partial_load(spark, namespace, py_catalog):
    table = f"{namespace}.pseq"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (id INT NOT NULL, name VARCHAR(65533) DEFAULT 'unknown', score INT NOT NULL, "
        "test INT NULL, dft INT DEFAULT '4321', update_time DATE NULL) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 "
        "PROPERTIES ('enable_unique_key_merge_on_write' = 'true', 'function_column.sequence_col' = 'update_time')"
    ))
    doris.load(spark, table=table, query=(
        "SELECT * FROM VALUES (2, 'doris2', 2000, 223, 1, DATE'2023-01-01'), (1, 'doris', 1000, 123, 1, DATE'2023-01-01') "
        "AS t(id, name, score, test, dft, update_time)"
    ))
    doris.load(spark, table=table, query="SELECT * FROM VALUES (2, 400), (1, 200) AS t(id, score)", partial_columns=True)
    assert readers_agree(spark, py_catalog, table) == [
        (1, "doris", 200, 123, 1, D(2023, 1, 1)), (2, "doris2", 400, 223, 1, D(2023, 1, 1)),
    ]
    doris.load(spark, table=table, partial_columns=True, query=(
        "SELECT * FROM VALUES (2, 2500, '2023-07-19'), (2, 2600, '2023-07-20'), (1, 1300, '2022-07-19'), "
        "(3, 1500, '2022-07-20'), (3, 2500, '2022-07-18') AS t(id, score, update_time)"
    ))
    assert readers_agree(spark, py_catalog, table) == [
        (1, "doris", 200, 123, 1, D(2023, 1, 1)),
        (2, "doris2", 2600, 223, 1, D(2023, 7, 20)),
        (3, "unknown", 1500, None, 4321, D(2022, 7, 20)),  # not the later (3, 2500, 2022-07-18)
    ]
