"""Table names as users write them (``db.tbl``, ``catalog.db.tbl``, with or without backquotes).

A part written in backquotes may hold any character (a doubled backquote stands for one), so
every table the catalog holds can be named, whatever engine made it. The parts are kept as data:
:meth:`TableName.sql` quotes them for Spark SQL, and the Iceberg identifier is built from the
parts, never by splitting a string again.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from iceberg_doris.ddl.sql_text import identifier_as_written, quote_identifier
from iceberg_doris.errors import ProcedureArgumentError
from iceberg_doris.names.rules import shown


def render_part(name: str) -> str:
    """A name part as written in messages and accepted back by :func:`parse_table_name`."""
    return identifier_as_written(name)


@dataclass(frozen=True)
class TableName:
    namespace: str
    name: str

    @property
    def qualified(self) -> str:
        """``db.tbl`` for messages and results (parts backquoted when they need it)."""
        return f"{render_part(self.namespace)}.{render_part(self.name)}"

    @property
    def sql(self) -> str:
        """The name quoted for Spark SQL."""
        return f"{quote_identifier(self.namespace)}.{quote_identifier(self.name)}"


def parse_table_name(text: str, catalog_name: str) -> TableName:
    """Splits ``db.tbl`` (optionally prefixed by the catalog name); refuses anything else."""
    if not isinstance(text, str):
        raise ProcedureArgumentError(f"Table name {shown(text)} must be a string written db.tbl, e.g. 'sales.orders'")
    parts = _split(text)
    if len(parts) == 3 and parts[0].lower() == catalog_name.lower():
        parts = parts[1:]
    if len(parts) != 2 or not all(parts):
        raise ProcedureArgumentError(
            f"Table name {shown(text)} must be written db.tbl (a namespace and a table), e.g. 'sales.orders'"
        )
    for part in parts:
        if any(unicodedata.category(ch) == "Cc" for ch in part):
            raise ProcedureArgumentError(
                f"Table name {shown(text)} contains a control character: no table can have it; check the name"
            )
    return TableName(parts[0], parts[1])


def _split(text: str) -> list[str]:
    """Parts separated by dots outside backquotes; unquoted parts are trimmed."""
    parts: list[str] = []
    current: list[str] = []
    quoted_part = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "`":
            if "".join(current).strip():
                raise _unbalanced(text)
            end, value = _quoted(text, i)
            current, quoted_part = [value], True
            i = end
            # only blanks may follow a quoted part before the next dot
            while i < n and text[i] != "." and text[i].isspace():
                i += 1
            if i < n and text[i] != ".":
                raise _unbalanced(text)
            continue
        if ch == ".":
            parts.append("".join(current) if quoted_part else "".join(current).strip())
            current, quoted_part = [], False
        else:
            if quoted_part:
                raise _unbalanced(text)
            current.append(ch)
        i += 1
    parts.append("".join(current) if quoted_part else "".join(current).strip())
    return parts


def _quoted(text: str, start: int) -> tuple[int, str]:
    """The backquoted part starting at ``start``: (index after its closing quote, its value)."""
    value: list[str] = []
    i = start + 1
    while i < len(text):
        if text[i] == "`":
            if i + 1 < len(text) and text[i + 1] == "`":
                value.append("`")
                i += 2
                continue
            return i + 1, "".join(value)
        value.append(text[i])
        i += 1
    raise _unbalanced(text)


def _unbalanced(text: str) -> ProcedureArgumentError:
    return ProcedureArgumentError(
        f"Table name {shown(text)} is not a valid name: backquote a part as a whole "
        "(`db`.`my table`, a backquote inside doubled as ``), e.g. 'sales.orders'"
    )
