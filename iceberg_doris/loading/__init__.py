"""Turning a load's input into an annotated DataFrame (Doris's load front half).

- :func:`read_source`: a table/view, a DataFrame, a query or files (CSV/JSON/Parquet) as a frame;
- :func:`parse_column_mapping`: Doris's ``columns`` clause (``k1, k2, tmp, v = tmp * 2``);
- :func:`prepare_rows`: mapping, type conversion, strict mode, NOT NULL/range/length checks,
  defaults and ``where``: the table's columns plus a status (``ok``/``unselected``/``error``)
  and a reason per row;
- :func:`write_error_rows`: the rejected rows and their reasons as JSON lines.

Nothing here commits to Iceberg or knows partitions or key models; ``doris.load`` does that.
"""

from iceberg_doris.loading.column_mapping import ColumnMapping, parse_column_mapping
from iceberg_doris.loading.error_rows import first_error_reason, read_error_rows, write_error_rows
from iceberg_doris.loading.prepare import (
    REASON_COLUMN,
    STATUS_COLUMN,
    STATUS_ERROR,
    STATUS_OK,
    STATUS_UNSELECTED,
    STRING_LIMIT_BYTES,
    TargetColumn,
    check_no_column_lost,
    check_partial_names,
    loaded_columns,
    prepare_rows,
)
from iceberg_doris.loading.source import (
    FORMATS,
    MALFORMED_COLUMN,
    SourceInfo,
    read_source,
    source_info,
    spark_error_message,
)

__all__ = [
    "FORMATS",
    "MALFORMED_COLUMN",
    "REASON_COLUMN",
    "STATUS_COLUMN",
    "STATUS_ERROR",
    "STATUS_OK",
    "STATUS_UNSELECTED",
    "STRING_LIMIT_BYTES",
    "ColumnMapping",
    "SourceInfo",
    "TargetColumn",
    "check_no_column_lost",
    "check_partial_names",
    "loaded_columns",
    "parse_column_mapping",
    "prepare_rows",
    "first_error_reason",
    "read_error_rows",
    "read_source",
    "source_info",
    "spark_error_message",
    "write_error_rows",
]
