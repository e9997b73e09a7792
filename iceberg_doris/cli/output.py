"""How the command line prints a statement's result as CSV or JSON (``--output``).

CSV has a header line and writes NULL as an empty field; JSON is one array of objects per
statement, dates and timestamps as ISO text, decimals as text (no precision lost)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

FORMATS = ("csv", "json")  # besides the bordered table, which cli.render_table draws


def render(columns: Sequence[str], rows: Sequence[Sequence[Any]], output: str) -> str:
    """The text a result is printed as, in ``output`` (one of FORMATS)."""
    return render_csv(columns, rows) if output == "csv" else render_json(columns, rows)


def render_csv(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if value is None else _csv_value(value) for value in row])
    return buffer.getvalue().rstrip("\n")


def render_json(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    return json.dumps([dict(zip(columns, (_json_value(v) for v in row))) for row in rows], ensure_ascii=False)


def _csv_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dt.date, dt.datetime, list, tuple, dict)):
        return json.dumps(_json_value(value), ensure_ascii=False) if isinstance(value, (list, tuple, dict)) else _json_value(value)
    return value


def _json_value(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if hasattr(value, "asDict"):  # a struct (pyspark Row)
        return {k: _json_value(v) for k, v in value.asDict().items()}
    return value
