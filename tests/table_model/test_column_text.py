"""``doris.describe`` writes each column as Doris's ``SHOW CREATE TABLE`` does (fe-core
catalog/Column.java ``toSql``): ``AS (expr)`` for a generated column, a literal default in double
quotes, a function default bare and with the precision it was written with
(nereids DefaultValue.currentTimeStampDefaultValueWithPrecision), ``ON UPDATE`` repeating it."""

from __future__ import annotations

from iceberg_doris.ddl import parse_create_table
from iceberg_doris.operations.describe import column_text
from iceberg_doris.table_model import model_from_definition


def described(columns: str, tail: str = 'UNIQUE KEY(k) DISTRIBUTED BY HASH(k) PROPERTIES ("enable_unique_key_merge_on_write" = "true")') -> dict[str, str]:
    model = model_from_definition(parse_create_table(f"CREATE TABLE t ({columns}) {tail}"))
    return {c.name: column_text(c) for c in model.columns}


def test_defaults_generated_columns_and_on_update_read_as_doris_writes_them():
    # The table of regression-test/suites/nereids_p0/create_table/test_create_table_like.groovy,
    # with a generated column and literal defaults beside it.
    text = described(
        "k INT NOT NULL, a INT DEFAULT '10', s VARCHAR(8) NOT NULL DEFAULT '', d INT AS (a * 2), "
        "m_time DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, "
        "t6 DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6), "
        "t0 DATETIME DEFAULT CURRENT_TIMESTAMP(0), day DATE DEFAULT CURRENT_DATE"
    )
    assert text["a"] == 'INT NULL DEFAULT "10"'
    assert text["s"] == 'VARCHAR(8) NOT NULL DEFAULT ""'
    assert text["d"] == "INT AS (a * 2) NULL"
    assert text["m_time"] == "DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP"
    assert text["t6"] == "DATETIME(6) NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)"
    assert text["t0"] == "DATETIME NULL DEFAULT CURRENT_TIMESTAMP"  # precision 0 is Doris's plain CURRENT_TIMESTAMP
    assert text["day"] == "DATE NULL DEFAULT CURRENT_DATE"


def test_a_quoted_default_that_only_looks_like_a_function_stays_quoted_when_it_is_not_one():
    text = described("k INT NOT NULL, name VARCHAR(20) DEFAULT 'CURRENT_USER', n DOUBLE DEFAULT '3.5'")
    assert text["name"] == 'VARCHAR(20) NULL DEFAULT "CURRENT_USER"'
    assert text["n"] == 'DOUBLE NULL DEFAULT "3.5"'
