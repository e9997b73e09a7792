"""Which user-supplied names are accepted, and how a refused one is shown back.

Names are data: they become catalog keys, Iceberg identifiers, branch names, SQL identifiers and
path segments, so each kind is held to a rule that every one of those places can serve. The rules
are Doris's (``FeNameFormat``, with its Unicode-name mode), which also keeps names portable between
the two systems:

- load labels: 1 to 128 letters, digits, ``-``, ``_`` or ``:`` (``FeNameFormat.checkLabel``);
- table and database names (checked when ``doris.create_table`` creates a table): a letter first,
  then letters, digits, ``-`` and ``_``; at most 64 characters. Unicode letters count as letters;
- column names (checked at creation): anything Doris accepts except a backquote or a control
  character, at most 256 characters.

Tables that other engines made with other names can still be used (their names are quoted or
encoded wherever they go); only creation is refused.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from iceberg_doris.errors import InvalidTableDefinitionError, ProcedureArgumentError

LABEL_MAX_LENGTH = 128
LABEL_REGEX = f"^[-_A-Za-z0-9:]{{1,{LABEL_MAX_LENGTH}}}$"
_LABEL = re.compile(r"[-_A-Za-z0-9:]+")
NAME_MAX_LENGTH = 64  # Doris's table_name_length_limit default; databases: COMMON_NAME_REGEX {0,63}
COLUMN_MAX_LENGTH = 256
SHOWN_LENGTH = 64


def shown(value: Any, limit: int = SHOWN_LENGTH) -> str:
    """``value`` quoted for a message: control characters escaped, long text cut (with its length),
    so a hostile name can neither break the message nor flood it."""
    if not isinstance(value, str):
        return repr(value)
    text = value if len(value) <= limit else value[:limit]
    escaped = "".join(_escaped(ch) for ch in text)
    suffix = f"... ({len(value)} characters)" if len(value) > limit else ""
    return f"'{escaped}'{suffix}"


def _escaped(ch: str) -> str:
    if ch == "'":
        return "\\'"
    if ch == "\\":
        return "\\\\"
    if _is_control(ch):
        return ch.encode("unicode_escape").decode("ascii")
    return ch


def _is_control(ch: str) -> bool:
    # Cc: C0/C1 controls (NUL, newline, tab, ...); Cf: invisible format characters (zero-width
    # space, bidi overrides) that make two different names look alike; Cs/Co/Cn: not text.
    return unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn")


def check_label(label: str) -> str:
    """Doris's label rule; the message is Doris's (``Label format error. regex: ..., label: ...``)
    plus the fix."""
    if not isinstance(label, str) or not _LABEL.fullmatch(label) or len(label) > LABEL_MAX_LENGTH:
        raise ProcedureArgumentError(
            f"Label format error. regex: {LABEL_REGEX}, label: {shown(label)}. A label is 1 to "
            f"{LABEL_MAX_LENGTH} letters, digits, '-', '_' or ':', e.g. 'orders_2024_05'"
        )
    return label


def name_problem(name: Any, *, max_length: int = NAME_MAX_LENGTH) -> str | None:
    """Why ``name`` is not a valid Doris table or database name, or None if it is."""
    if not isinstance(name, str) or not name:
        return "it is empty"
    bad = next((ch for ch in name if not _name_char(ch)), None)
    if bad is not None:
        return f"it contains {_describe_char(bad)}"
    if not _letter(name[0]):
        return "it does not start with a letter"
    if len(name) > max_length:
        return f"it is {len(name)} characters long, more than {max_length}"
    return None


def check_table_name(name: str) -> str:
    """Doris's table-name rule (``FeNameFormat.checkTableName``, Unicode mode), at creation."""
    return _accepted(
        "table",
        name,
        name_problem(name),
        "A table name starts with a letter and holds only letters, digits, '-' and '_', "
        f"at most {NAME_MAX_LENGTH} characters, e.g. 'orders_2024'",
    )


def check_database_name(name: str) -> str:
    """Doris's database-name rule (``FeNameFormat.checkDbName``, Unicode mode), for the namespace a
    table is created in: its name becomes a folder of the warehouse."""
    return _accepted(
        "database",
        name,
        name_problem(name),
        "Create tables in a namespace whose name starts with a letter and holds only letters, digits, "
        f"'-' and '_' (at most {NAME_MAX_LENGTH} characters), e.g. CREATE NAMESPACE sales",
    )


def check_column_name(name: str) -> str:
    """Column names reach Spark SQL (backquoted) and Iceberg schemas: no backquote, no control
    character, not empty, at most 256 characters (Doris's own limit)."""
    return _accepted(
        "column",
        name,
        _column_name_problem(name),
        f"Name columns without backquotes or control characters, at most {COLUMN_MAX_LENGTH} characters",
    )


def _column_name_problem(name: str) -> str | None:
    if not isinstance(name, str) or not name.strip():
        return "it is empty"
    if "`" in name:
        return "it contains a backquote (`)"
    if any(_is_control(ch) for ch in name):
        return f"it contains {_describe_char(next(ch for ch in name if _is_control(ch)))}"
    if len(name) > COLUMN_MAX_LENGTH:
        return f"it is {len(name)} characters long, more than {COLUMN_MAX_LENGTH}"
    return None


def _accepted(kind: str, name: str, problem: str | None, rule: str) -> str:
    """``name`` when ``problem`` is None; else the error naming the problem and the rule to follow."""
    if problem is not None:
        raise InvalidTableDefinitionError(f"Incorrect {kind} name {shown(name)}: {problem}. {rule}")
    return name


def _letter(ch: str) -> bool:
    return ch.isalpha()  # ASCII letters and Unicode letters (categories L*), as Java's \p{L}


def _name_char(ch: str) -> bool:
    if ch.isascii():
        return ch.isalnum() or ch in "-_"
    return ch.isalpha()


def _describe_char(ch: str) -> str:
    if ch == " ":
        return "a space"
    if _is_control(ch):
        return f"the control character {ch.encode('unicode_escape').decode('ascii')}"
    return f"the character {ch!r}"
