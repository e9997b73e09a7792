"""The byte limits a load checks per string column (issue 42): Doris filters a CHAR/VARCHAR/STRING
value longer than min(declared length, string_type_length_soft_limit_bytes = 1 MB)."""

from __future__ import annotations

from iceberg_doris.operations.load.checks import target_column
from iceberg_doris.table_model.model import ColumnModel


def limit(doris_type: str) -> int | None:
    return target_column(ColumnModel("c", doris_type, "STRING", True)).max_length


def test_string_columns_allow_one_megabyte_and_varchar_its_declared_bytes():
    assert limit("STRING") == 1024 * 1024
    assert limit("VARCHAR(20)") == 20
    assert limit("CHAR(5)") == 5
    assert limit("VARCHAR(65533)") == 65533
    assert limit("JSON") is None
