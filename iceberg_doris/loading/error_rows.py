"""Writing a load's rejected rows where the user can read them (Doris's ``ErrorURL``).

:func:`write_error_rows` writes each rejected row as one JSON line::

    {"reason": "column k1: cannot convert 'abc' to INT", "row": {"k1": null, "v": "x"}}

``row`` holds every column of the frame except internal ones (names starting ``__doris_``: the
status, the reason, a caller's routing columns), as strings (ARRAY/MAP/STRUCT as JSON; NULL
stays null). The reason names the offending source value, so a column that could not be converted
(NULL in ``row``) is still visible in the file. Spark's writer does the writing, so ``location``
may be any URI Spark can write (``s3a://...``) or a local path. The location is replaced if it
exists.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.errors import LoadError
from iceberg_doris.loading.prepare import REASON_COLUMN
from iceberg_doris.loading.source import spark_error_message

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

__all__ = ["read_error_rows", "write_error_rows"]

_COMPLEX = ("ArrayType", "MapType", "StructType")
_INTERNAL_PREFIX = "__doris_"


def write_error_rows(rejected: "DataFrame", location: str, *, limit: int = 10_000) -> str:
    """Writes at most ``limit`` rows of ``rejected`` as JSON lines under ``location``; returns it.

    ``rejected`` should hold only the rows to report (e.g. ``prepare_rows(...)`` filtered on
    ``__doris_status = 'error'``, or rows the caller rejected itself) and a
    :data:`REASON_COLUMN`; without one the reason is written as null.
    """
    from pyspark.sql import functions as F

    if not isinstance(location, str) or not location.strip():
        raise LoadError("the error-row location must be a non-empty path or URI")
    if not isinstance(limit, int) or limit < 0:
        raise LoadError(f"the error-row limit must be a non-negative integer, got {limit!r}")
    fields = []
    for field in rejected.schema.fields:
        if field.name.startswith(_INTERNAL_PREFIX):  # status, reason, routing columns of the caller
            continue
        column = F.col(quote_identifier(field.name))
        kind = type(field.dataType).__name__
        text = F.to_json(column) if kind in _COMPLEX else column.cast("string")
        fields.append(text.alias(field.name))
    reason = F.col(REASON_COLUMN).cast("string") if REASON_COLUMN in rejected.columns else F.lit(None).cast("string")
    row = F.struct(*fields) if fields else F.create_map()
    lines = rejected.select(reason.alias("reason"), row.alias("row")).limit(limit).coalesce(1)
    try:
        lines.write.mode("overwrite").option("ignoreNullFields", "false").json(location)
    except Exception as exc:  # noqa: BLE001 - Spark raises captured and raw py4j errors alike
        raise LoadError(f"cannot write the error rows to {location}: {spark_error_message(exc)}") from None
    return location


def read_error_rows(location: str) -> list[dict[str, Any]]:
    """The rows :func:`write_error_rows` wrote to a local ``location`` (a path or ``file:`` URI)."""
    path = Path(location[len("file:"):] if location.startswith("file:") else location)
    if not path.exists():
        raise LoadError(f"no error rows at {location}")
    files = sorted(path.glob("part-*")) if path.is_dir() else [path]
    rows: list[dict[str, Any]] = []
    for file in files:
        with open(file, encoding="utf-8") as handle:
            rows.extend(json.loads(line) for line in handle if line.strip())
    return rows


def first_error_reason(spark: Any, location: str) -> str | None:
    """The reason of the first error row :func:`write_error_rows` wrote at ``location`` (any
    storage Spark reads), for a message; None if it cannot be read."""
    try:
        found = spark.read.schema("reason STRING").json(location).where("reason IS NOT NULL").limit(1).collect()
    except Exception:  # noqa: BLE001 - the message is a courtesy; the file stays the full answer
        return None
    return str(found[0][0]) if found else None

