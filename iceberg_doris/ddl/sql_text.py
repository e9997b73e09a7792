"""Writing names and values into Spark SQL text, the one place that knows how to quote them.

Every SQL text this package builds from a name or a value goes through these functions, so a
backquote in a column name or a quote or backslash in a value can never end an identifier or a
string early.
"""

from __future__ import annotations

import re

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def quote_identifier(name: str) -> str:
    """``name`` as one Spark SQL identifier: backquoted, inner backquotes doubled."""
    return "`" + name.replace("`", "``") + "`"


def identifier_as_written(name: str) -> str:
    """``name`` bare when it is a plain identifier (letters, digits, underscores, not starting with
    a digit), else backquoted: how messages and generated DDL show a name."""
    return name if _PLAIN.fullmatch(name) else quote_identifier(name)


def string_literal(text: str) -> str:
    """``text`` as a Spark SQL string literal: single-quoted, backslashes and quotes escaped with a
    backslash, as Spark reads them by default (``spark.sql.parser.escapedStringLiterals=false``)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
