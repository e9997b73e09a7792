"""Doris's load ``columns`` clause: naming the source columns and deriving target columns.

Grammar (stream-load header ``columns: k1, k2, tmp, v1 = tmp * 2``; broker load's ``(k1, k2, tmp)``
plus ``SET (v1 = tmp * 2)`` is the same list)::

    mapping   := item ("," item)*            -- optionally wrapped in one pair of parentheses
    item      := name | name "=" expression
    name      := identifier | `back-quoted identifier`

- A plain ``name`` names the next source column (positional sources: CSV, or a frame whose columns
  are ``_c0.._cN``) or selects the source column of that name (named sources: tables, Parquet, JSON).
- ``name = expression`` computes column ``name`` with a Spark SQL expression over the names before
  it (source names and earlier derived columns), e.g. ``k1, tmp, v = upper(tmp)``.

Items are split at top-level commas: commas inside quotes ('...', "...", `...`), parentheses,
brackets or braces belong to the expression. The ``=`` of an item is its first top-level ``=`` that
is not part of ``==``, ``<=``, ``>=``, ``!=`` or ``<=>``. Errors name the offending item (1-based).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iceberg_doris.ddl.sql_text import identifier_as_written
from iceberg_doris.errors import LoadError

__all__ = ["ColumnMapping", "parse_column_mapping"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*\Z")
_CLOSING = {"(": ")", "[": "]", "{": "}"}


@dataclass(frozen=True)
class ColumnMapping:
    """A parsed ``columns`` clause.

    ``source_columns`` are the plain names in order; ``derived`` the ``(target, expression)`` pairs
    in order. :meth:`names` lists every name the clause defines, in order.
    """

    source_columns: tuple[str, ...]
    derived: tuple[tuple[str, str], ...] = ()

    def names(self) -> tuple[str, ...]:
        return self.source_columns + tuple(name for name, _ in self.derived)

    def __str__(self) -> str:
        parts = [identifier_as_written(name) for name in self.source_columns]
        parts += [f"{identifier_as_written(name)} = {expression}" for name, expression in self.derived]
        return ", ".join(parts)


def parse_column_mapping(spec: str) -> ColumnMapping:
    """Parses a Doris ``columns`` clause; raises :class:`LoadError` naming the bad item."""
    if not isinstance(spec, str):
        raise LoadError(f"columns must be a string such as 'k1, k2, tmp, v = tmp * 2', got {type(spec).__name__}")
    text = spec.strip()
    if not text:
        raise LoadError("columns is empty: list the source columns, e.g. 'k1, k2, tmp, v = tmp * 2'")
    text = _strip_outer_parentheses(text)
    items = _split_top_level(text, ",", what="columns")
    source: list[str] = []
    derived: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    for number, raw in enumerate(items, start=1):
        item = raw.strip()
        if not item:
            raise LoadError(f"columns item {number} is empty in {spec!r}")
        equals = _assignment_position(item)
        if equals is None:
            name = _parse_name(item, number)
            source.append(name)
        else:
            name = _parse_name(item[:equals].strip(), number, whole=item)
            expression = item[equals + 1:].strip()
            if not expression:
                raise LoadError(f"columns item {number} ({item}): the expression after '=' is missing")
            derived.append((name, expression))
        key = name.lower()
        if key in seen:
            raise LoadError(f"columns item {number} ({item}): column {name} is named twice")
        seen[key] = name
    return ColumnMapping(tuple(source), tuple(derived))


def _parse_name(text: str, number: int, *, whole: str | None = None) -> str:
    item = whole if whole is not None else text
    if not text:
        raise LoadError(f"columns item {number} ({item}): the column name before '=' is missing")
    if text.startswith("`"):
        if len(text) < 3 or not text.endswith("`"):
            raise LoadError(f"columns item {number} ({item}): unterminated back-quoted name")
        inner = text[1:-1]
        if "`" in inner.replace("``", ""):
            raise LoadError(f"columns item {number} ({item}): {text} is not a column name")
        return inner.replace("``", "`")
    if _IDENTIFIER.match(text):
        return text
    if whole is None:
        raise LoadError(
            f"columns item {number} ({item}) is not a column name: write 'name' to name a source column "
            f"or 'name = expression' to derive one"
        )
    raise LoadError(f"columns item {number} ({item}): {text!r} is not a column name")


def _strip_outer_parentheses(text: str) -> str:
    """``(k1, k2, tmp)`` (broker-load form) is the same list as ``k1, k2, tmp``."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for position, char, quoted in _scan(text, what="columns"):
        if quoted:
            continue
        if char in _CLOSING:
            depth += 1
        elif char in _CLOSING.values():
            depth -= 1
            if depth == 0 and position != len(text) - 1:
                return text  # e.g. "(a) + 1, b": the parentheses do not wrap the whole list
    return text[1:-1].strip()


def _scan(text: str, *, what: str):
    """Yields (position, char, inside_quotes) for each character; checks quotes are closed."""
    quote: str | None = None
    start = 0
    position = 0
    while position < len(text):
        char = text[position]
        if quote is not None:
            if char == "\\" and quote != "`":
                yield position, char, True
                position += 1
                if position < len(text):
                    yield position, text[position], True
                position += 1
                continue
            if char == quote:
                if position + 1 < len(text) and text[position + 1] == quote:  # doubled quote = literal
                    yield position, char, True
                    yield position + 1, char, True
                    position += 2
                    continue
                quote = None
            yield position, char, True
        else:
            if char in "'\"`":
                quote = char
                start = position
                yield position, char, True
            else:
                yield position, char, False
        position += 1
    if quote is not None:
        raise LoadError(f"{what}: unterminated {quote} quote starting at character {start + 1} of {text!r}")


def _split_top_level(text: str, separator: str, *, what: str) -> list[str]:
    parts: list[str] = []
    stack: list[str] = []
    begin = 0
    for position, char, quoted in _scan(text, what=what):
        if quoted:
            continue
        if char in _CLOSING:
            stack.append(_CLOSING[char])
        elif char in _CLOSING.values():
            if not stack or stack[-1] != char:
                raise LoadError(f"{what}: unbalanced {char!r} at character {position + 1} of {text!r}")
            stack.pop()
        elif char == separator and not stack:
            parts.append(text[begin:position])
            begin = position + 1
    if stack:
        raise LoadError(f"{what}: missing {stack[-1]!r} in {text!r}")
    parts.append(text[begin:])
    return parts


def _assignment_position(item: str) -> int | None:
    """Index of the item's assignment '=' (top level, not part of a comparison operator)."""
    depth = 0
    for position, char, quoted in _scan(item, what="columns"):
        if quoted:
            continue
        if char in _CLOSING:
            depth += 1
        elif char in _CLOSING.values():
            depth -= 1
        elif char == "=" and depth == 0:
            before = item[position - 1] if position > 0 else " "
            after = item[position + 1] if position + 1 < len(item) else " "
            if before in "<>!=" or after in "=>":
                continue
            return position
    return None
