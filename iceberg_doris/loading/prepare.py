"""Turning a load's input frame into the table's rows, each marked ok, unselected or error.

:func:`prepare_rows` applies Doris's load pipeline to a source frame (from
:func:`~iceberg_doris.loading.source.read_source`) and returns one lazy DataFrame: the target
columns typed as the table stores them, then each ``extra`` column, then :data:`STATUS_COLUMN`
(``'ok'`` | ``'unselected'`` | ``'error'``) and :data:`REASON_COLUMN` (why an error row was
rejected; NULL otherwise). Nothing is committed and no Spark job runs, except one tiny job that
checks the table's default values when a load relies on them.

The pipeline, as Doris's stream/broker loads run it (docs: data-operate/import/load-data-convert.md,
error-data-handling.md):

1. **Mapping.** Positional sources (CSV; any frame whose columns are ``_c0.._cN``): the plain names
   of ``columns`` name the source fields in order; without ``columns`` field *i* goes to the
   table's column *i*. A row whose field count differs from that count is an error row
   ("column count mismatch"). Named sources (tables, views, queries, Parquet, JSON): plain names
   select source columns by name (case-insensitive); without ``columns``, source columns feed the
   table columns of the same name (case-insensitive) and the rest are ignored. ``name = expr``
   items are Spark SQL expressions over the names before them; their target must be a table column
   (or a hidden ``__DORIS_...__`` name, which only ``extra`` expressions can use).
2. **Conversion** to each column's Spark type with ``try_cast`` semantics (nothing throws). Dates
   and datetimes accept ``2024-03-05``, ``2024/03/05``, ``20240305``, ``2024-03-05 10:11:12[.ffffff]``,
   ``2024-03-05T10:11:12`` and ``20240305101112``. Strings convert to ARRAY/MAP/STRUCT columns as
   JSON; complex values convert to STRING columns as JSON.
3. **Checks**, first failure wins, per column in table order:
   - a numeric value too large for the column's type (e.g. ``3000000000`` for INT, ``10`` for
     DECIMAL(1,0), a 39-digit LARGEINT): error in both modes (Doris filters these whatever
     strict mode says);
   - strict mode only: a non-NULL source value whose conversion gives NULL
     (``column k1: cannot convert 'abc' to INT``); without strict mode the value becomes NULL.
     A NULL computed by a ``columns`` expression is not a conversion failure;
   - ``min_value``/``max_value`` (TINYINT, SMALLINT kept in an INT column): error in both modes;
   - ``max_length`` (VARCHAR/CHAR, and STRING's 1 MB :data:`STRING_LIMIT_BYTES`, counted in UTF-8
     bytes as Doris does): error in both modes. The too-long value itself becomes NULL in the
     row (the reason shows its first 100 characters and its size), so a 100 MB field is never
     cached with the batch nor written again to the error rows;
   - NULL in a NOT NULL column: error (``column k1 is NOT NULL but the value is NULL``).
4. **Absent columns** (table columns the load does not supply) get their ``default``
   (``CURRENT_TIMESTAMP``, ``CURRENT_DATE``, and ``PI``/``E`` for FLOAT/DOUBLE/DECIMAL columns,
   allowed) or NULL. A NOT NULL column without a default
   must be supplied: :class:`LoadError` when ``required_present`` (normal loads). With
   ``required_present=False`` (partial-column updates, where the caller fills absent columns
   from the stored rows) such columns are NULL and not checked.
5. **Generated columns** (``TargetColumn.generated``) are computed from the converted row, in
   column order, then converted and checked as in 2 and 3; a value the load gives one is not used.
6. **WHERE** (a Spark SQL predicate over the converted table columns and the other mapped names):
   rows where it is false or NULL are ``'unselected'``. Error rows stay ``'error'``.

Bad ``columns``, ``where`` or ``extra`` expressions raise :class:`LoadError` at once, naming the
expression and Spark's reason.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iceberg_doris.ddl.sql_text import quote_identifier, string_literal
from iceberg_doris.engine.spark_runtime import as_doris_reads, check_expression_syntax, select_sql
from iceberg_doris.errors import LoadError
from iceberg_doris.loading.column_mapping import ColumnMapping
from iceberg_doris.loading.source import MALFORMED_COLUMN, source_info, spark_error_message

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import Column, DataFrame

__all__ = [
    "REASON_COLUMN",
    "STATUS_COLUMN",
    "STATUS_ERROR",
    "STATUS_OK",
    "STATUS_UNSELECTED",
    "STRING_LIMIT_BYTES",
    "TargetColumn",
    "check_no_column_lost",
    "check_partial_names",
    "loaded_columns",
    "prepare_rows",
]

STATUS_COLUMN = "__doris_status"
REASON_COLUMN = "__doris_reason"
STATUS_OK = "ok"
STATUS_UNSELECTED = "unselected"
STATUS_ERROR = "error"
#: The longest CHAR/VARCHAR/STRING value a load keeps, in bytes: Doris's
#: ``string_type_length_soft_limit_bytes`` default (1 MB); a STRING value over it is a filtered row.
STRING_LIMIT_BYTES = 1024 * 1024

_SHOWN_CHARS = 100
# Catalyst pushes a filter on a computed column down through the projections below it by
# substituting the column's expression (PushPredicateThroughNonJoin). Every caller filters the
# rows on their status (the accepted ones are written, the rejected ones reported), so the filter
# would take in the reason's expression: every column's checks, with each conversion and field
# split they read copied once per reference, as one predicate that Spark compiles into one Java
# method. A 4-column load passed the JVM's 64 KB limit that way (issue 57: Spark logged the failed
# compilation and ran the stage uncompiled), a 1,000-column one would at any rate, and the filter
# did every check a second time. Spark never pushes a filter through a projection holding a
# nondeterministic expression (SPARK-13473): the reason is computed behind this one, true on every
# row, so filters stop above it and read the reason as a column.
_FILTER_BARRIER = "spark_partition_id() >= 0"
_POSITIONAL = re.compile(r"_c\d+\Z")
_CURRENT_TIMESTAMP = re.compile(r"(CURRENT_TIMESTAMP|NOW)\s*(\(\s*\d*\s*\))?\Z", re.IGNORECASE)
_CURRENT_DATE = re.compile(r"CURRENT_DATE\s*(\(\s*\))?\Z", re.IGNORECASE)
_INTEGER_TEXT = r"^[+-]?[0-9]+$"
_NUMBER_TEXT = r"^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$"
_FRACTIONAL = ("FloatType", "DoubleType", "DecimalType")
_INTEGRAL_RANGES = {
    "ByteType": (-(2**7), 2**7 - 1),
    "ShortType": (-(2**15), 2**15 - 1),
    "IntegerType": (-(2**31), 2**31 - 1),
    "LongType": (-(2**63), 2**63 - 1),
}


@dataclass(frozen=True)
class TargetColumn:
    """One column of the target table, as a load sees it."""

    name: str
    spark_type: str  # Spark SQL type of the Iceberg column, e.g. "INT", "DECIMAL(10,2)", "TIMESTAMP_NTZ"
    nullable: bool
    doris_type: str  # for messages, e.g. "VARCHAR(10)", "TINYINT", "DATETIME"
    max_length: int | None = None  # VARCHAR(n)/CHAR(n)/STRING limit in bytes
    min_value: int | None = None  # TINYINT/SMALLINT/LARGEINT ranges differing from the Spark type's
    max_value: int | None = None
    default: str | None = None  # literal default for absent columns ("CURRENT_TIMESTAMP" allowed)
    datetime_scale: int | None = None  # DATETIME(p) with p < 6: values are rounded to p fractional digits
    generated: str | None = None  # a generated column's expression: computed, never loaded


@dataclass(frozen=True)
class _Resolved:
    """The mapped row before conversion."""

    scope: "DataFrame"  # every mapped name as a column, plus MALFORMED_COLUMN when rows can be malformed
    sources: dict[int, str]  # target index -> scope column holding its unconverted value
    others: tuple[str, ...]  # scope columns that are not target columns (visible to where/extra)
    row_reason: str | None  # SQL: the reason every row is an error (column count mismatch), if any


def prepare_rows(
    frame: "DataFrame",
    targets: list[TargetColumn],
    *,
    mapping: ColumnMapping | None = None,
    where: str | None = None,
    strict_mode: bool = False,
    extra: dict[str, str] | None = None,
    required_present: bool = True,
    named: str | None = None,
) -> "DataFrame":
    """Maps, converts, checks and filters a load's rows; see the module documentation.

    ``named``: a source column holding, per row, the (lower-case) names of the columns the row
    gives (a flexible partial update); a column the row leaves out takes its default and is not
    checked, whatever the source holds there."""
    from pyspark.errors import PySparkException

    targets = list(targets)
    _check_targets(targets)
    extra = dict(extra or {})
    _check_extra_names(extra, targets)
    used_by = [str(where or "")] + [str(value) for value in extra.values()] + ([quote_identifier(named)] if named else [])
    resolved = _without_generated(_resolve(frame, targets, mapping, used_by), targets)
    spark_types = [_spark_type(target) for target in targets]

    # Stage 1: the raw value of each supplied column next to its conversion. The mapping's
    # integer arithmetic fails on overflow, as the source's does (see read_source), never wraps.
    scope = as_doris_reads(resolved.scope) if mapping is not None else resolved.scope
    raw_names = {index: f"__doris_src{index}" for index in resolved.sources}
    # Mapped names that are not table columns matter only to where and extra: carry just those
    # (a mapping of 10,000 source columns must not cost 10,000 columns in every later projection).
    others = _referenced(resolved.others, used_by)
    # SQL text (select_sql): Columns built in Python cost about ten py4j round trips each.
    staged = [quote_identifier(name) for name in others]
    staged += [f"{quote_identifier(source)} AS {quote_identifier(raw_names[index])}" for index, source in resolved.sources.items()]
    if MALFORMED_COLUMN in scope.columns:
        staged.append(quote_identifier(MALFORMED_COLUMN))
    conversions = {}
    for index, source in resolved.sources.items():
        source_type = scope.schema[source].dataType
        conversions[index] = _conversion_sql(quote_identifier(source), source_type, spark_types[index])
    converted = _select_conversions(scope, staged, targets, conversions, resolved.sources)

    # Stage 2: the table columns (converted or default) and each row's reason for rejection, as
    # SQL text too: the checks of a 10-column table would otherwise cost hundreds of round trips.
    defaults = _defaults(frame.sparkSession, targets, spark_types, resolved, required_present)
    values = []
    reasons = []
    if resolved.row_reason is not None:
        reasons.append(resolved.row_reason)
    if MALFORMED_COLUMN in converted.columns:
        reasons.append(quote_identifier(MALFORMED_COLUMN))
    if named is not None:
        every_default = _defaults(frame.sparkSession, targets, spark_types, dataclasses.replace(resolved, sources={}), False)
    for index, target in enumerate(targets):
        if index in resolved.sources:
            value = quote_identifier(f"__doris_v{index}")
            source = quote_identifier(raw_names[index])
            source_type = converted.schema[raw_names[index]].dataType
            reason = _check(target, spark_types[index], value, source, source_type, strict_mode)
            if named is not None:
                given = f"array_contains({quote_identifier(named)}, {string_literal(target.name.lower())})"
                value = f"CASE WHEN {given} THEN {value} ELSE {every_default[index]} END"
                reason = None if reason is None else f"CASE WHEN {given} THEN {reason} END"
            if reason is not None:
                reasons.append(reason)
        else:
            value = defaults[index]
        if target.datetime_scale is not None:
            value = rounded_datetime(value, target.datetime_scale)
        if index in resolved.sources and target.max_length is not None and _type_name(spark_types[index]) == "StringType":
            # The row is an error row (its reason says why): drop the value, so that a huge field
            # is not cached with the batch, written again to the error rows or sent anywhere.
            value = f"CASE WHEN octet_length({value}) <= {target.max_length} THEN {value} END"
        values.append(f"({value}) AS {quote_identifier(target.name)}")
    if not reasons:
        reason_column = "CAST(NULL AS STRING)"
    else:
        reason_column = reasons[0] if len(reasons) == 1 else f"coalesce({', '.join(reasons)})"
        reason_column = f"CASE WHEN {_FILTER_BARRIER} THEN {reason_column} END"
    checked = _select_sql(
        converted, values + [quote_identifier(name) for name in others] + [f"({reason_column}) AS {quote_identifier(REASON_COLUMN)}"],
        "checking the converted values",
    )

    checked = _with_generated(checked, targets, spark_types, strict_mode)

    # Stage 3: extra columns and the WHERE filter, evaluated on the converted row. Each expression
    # is checked on its own first (a syntax error names it), then embedded in parentheses; the
    # line break ends a trailing -- comment.
    for name, expression in extra.items():
        _check_syntax(expression, f"{name} expression {expression!r}")
    extra_columns = [f"({expression}\n) AS {quote_identifier(name)}" for name, expression in extra.items()]
    status = f"CASE WHEN {quote_identifier(REASON_COLUMN)} IS NOT NULL THEN '{STATUS_ERROR}' "
    predicate = None
    if where is not None and str(where).strip():
        predicate = str(where)
        _check_syntax(predicate, f"where {where!r}")
        status += f"WHEN coalesce(({predicate}\n), false) THEN '{STATUS_OK}' ELSE '{STATUS_UNSELECTED}' END"
    else:
        status += f"ELSE '{STATUS_OK}' END"
    result = [quote_identifier(target.name) for target in targets] + extra_columns
    result += [f"{status} AS {quote_identifier(STATUS_COLUMN)}", quote_identifier(REASON_COLUMN)]
    try:
        return select_sql(checked, result)
    except PySparkException as exc:
        failure = exc
    # name the expression Spark refused
    for name, expression in extra.items():
        _select(checked, [_parsed(expression, "")], f"{name} expression {expression!r}", verb="cannot be evaluated")
    if predicate is not None:
        shape = _select(checked, [_parsed(predicate, "")], f"where {where!r}", verb="cannot be evaluated")
        if _type_name(shape.schema[0].dataType) != "BooleanType":
            raise LoadError(f"where {where!r} must be a condition (true or false), not a value")
    raise LoadError(f"evaluating where and the extra columns failed: {spark_error_message(failure)}")


def loaded_columns(
    frame: "DataFrame", targets: list[TargetColumn], mapping: ColumnMapping | None = None
) -> tuple[str, ...]:
    """The target columns this load supplies (the others get defaults), in table order.

    Runs no Spark job. Useful for partial-column updates and key checks.
    """
    targets = list(targets)
    _check_targets(targets)
    resolved = _without_generated(_resolve(frame, targets, mapping), targets)
    return tuple(target.name for index, target in enumerate(targets) if index in resolved.sources)


# ------------------------------------------------------------------------------- generated columns
def _without_generated(resolved: _Resolved, targets: list[TargetColumn]) -> _Resolved:
    """The mapping without the generated columns: a value a load gives one is not used, as in
    Doris's loads (regression-test/suites/ddl_p0/test_create_table_generated_column/
    stream_load_and_mysql_load.groovy, "specify value for generated column")."""
    sources = {index: source for index, source in resolved.sources.items() if targets[index].generated is None}
    return dataclasses.replace(resolved, sources=sources)


def _with_generated(checked: "DataFrame", targets: list[TargetColumn], spark_types: list[Any],
                    strict_mode: bool) -> "DataFrame":
    """``checked`` with each generated column computed from the converted row, in column order (a
    generated column reads the ones before it), converted and checked as a loaded value is (a
    value out of range, or NULL in a NOT NULL column, makes the row an error row)."""
    raw, converted = "__doris_generated_raw", "__doris_generated_value"
    for index, target in enumerate(targets):
        if target.generated is None:
            continue
        kept = [quote_identifier(name) for name in checked.columns]
        what = f"generated column {target.name} ({target.generated})"
        staged = _select_sql(checked, kept + [f"({target.generated}\n) AS {raw}"], what, verb="cannot be computed")
        raw_type = staged.schema[raw].dataType
        conversion = _conversion_sql(raw, raw_type, spark_types[index])
        staged = _select_sql(staged, kept + [raw, f"({conversion}) AS {converted}"], what, verb="cannot be computed")
        value = converted
        if target.datetime_scale is not None:
            value = rounded_datetime(value, target.datetime_scale)
        reason = _check(target, spark_types[index], converted, raw, raw_type, strict_mode)
        columns = []
        for name in checked.columns:
            if name == target.name:
                columns.append(f"({value}) AS {quote_identifier(name)}")
            elif name == REASON_COLUMN and reason is not None:
                reason_sql = f"coalesce({quote_identifier(REASON_COLUMN)}, {reason})"
                columns.append(f"(CASE WHEN {_FILTER_BARRIER} THEN {reason_sql} END) AS {quote_identifier(name)}")
            else:
                columns.append(quote_identifier(name))
        checked = _select_sql(staged, columns, what, verb="cannot be computed")
    return checked


# ----------------------------------------------------------------------------------------- mapping
def _resolve(frame: "DataFrame", targets: list[TargetColumn], mapping: ColumnMapping | None,
             used_by: list[str] | None = None) -> _Resolved:
    # Projections are SQL text (select_sql): a mapping of 10,000 columns costs a few py4j calls,
    # where Column objects cost several per column. ``used_by``: the where/extra expressions (a
    # positional source's fields that neither they, the derived items nor the table use are
    # never extracted).
    info = source_info(frame)
    data = [name for name in frame.columns if name != MALFORMED_COLUMN]
    positional = info.positional if info is not None else _is_positional(data)
    by_lower_target = {target.name.lower(): index for index, target in enumerate(targets)}
    row_reason = None

    if mapping is None:
        if positional:
            base, row_reason = _positional_base(frame, info, len(targets))
            present = set(base.columns)
            columns = [_field(present, index, target.name) for index, target in enumerate(targets)]
            sources = {index: target.name for index, target in enumerate(targets)}
        elif info is None and _names_none(data, targets) and len(data) == len(targets):
            # A query or table whose names are not the table's (``SELECT 1, 'a'``, ``SELECT id, name``):
            # by position, as Doris's INSERT maps a query.
            base = frame
            columns = [_renamed(name, target.name) for name, target in zip(data, targets)]
            sources = {index: target.name for index, target in enumerate(targets)}
        else:
            if info is None and _names_none(data, targets):
                raise LoadError(
                    f"Column count doesn't match value count: the source's columns ({', '.join(data)}) are not named like "
                    f"the table's and there are {len(data)} of them, not {len(targets)} ({', '.join(t.name for t in targets)}); "
                    "name them like the table's columns (SELECT x AS k, ...) or give one per table column, in table order"
                )
            base = frame
            lookup = _Lookup(data)
            sources = {}
            columns = []
            used = set()
            for index, target in enumerate(targets):
                actual = lookup.get(target.name.lower())
                if actual is not None:
                    sources[index] = target.name
                    used.add(actual)
                    columns.append(_renamed(actual, target.name))
            columns += [quote_identifier(name) for name in data if name not in used]
        if MALFORMED_COLUMN in base.columns:
            columns.append(MALFORMED_COLUMN)
        scope = _select_sql(base, columns, "mapping the source columns")
        return _Resolved(scope, sources, _others(scope, by_lower_target), row_reason)

    plain = mapping.source_columns
    if positional:
        texts = [expression for _, expression in mapping.derived] + list(used_by or [])
        wanted = set(_referenced(plain, texts)) | {
            name for name in plain if name.lower() in by_lower_target or _is_hidden(name)
        }
        fields = [index for index, name in enumerate(plain) if name in wanted]
        base, row_reason = _positional_base(frame, info, len(plain), fields)
        present = set(base.columns)
        columns = [_field(present, index, plain[index]) for index in fields]
    else:
        base = frame
        lookup = _Lookup(data)
        columns = []
        used = set()
        for name in plain:
            actual = lookup.get(name.lower())
            if actual is None:
                if info is not None and info.absent_columns_are_null:
                    columns.append(f"CAST(NULL AS STRING) AS {quote_identifier(name)}")
                    continue
                raise LoadError(
                    f"columns names {name}, which the source does not have; the source's columns are: {', '.join(data)}"
                )
            used.add(actual)
            columns.append(_renamed(actual, name))
        listed = {name.lower() for name in plain}
        # the source's other columns stay visible to expressions (a derived column of the same name
        # replaces its source column once computed), where and extra
        columns += [quote_identifier(name) for name in data if name not in used and name.lower() not in listed]
    if MALFORMED_COLUMN in base.columns:
        columns.append(MALFORMED_COLUMN)
    scope = _select_sql(base, columns, "mapping the source columns")
    for name, expression in mapping.derived:
        if name.lower() not in by_lower_target and not _is_hidden(name):
            raise LoadError(
                f"columns item '{name} = {expression}': the table has no column {name}; "
                f"its columns are: {', '.join(target.name for target in targets)}"
            )
        what = f"columns item '{name} = {expression}'"
        _parsed(expression, what)  # a syntax error names the item
        kept = [quote_identifier(current) for current in scope.columns if current.lower() != name.lower()]
        # the line break ends a trailing -- comment before the alias
        scope = _select_sql(scope, [*kept, f"({expression}\n) AS {quote_identifier(name)}"], what, verb="cannot be evaluated")
    names = {name.lower(): name for name in mapping.names()}
    sources = {index: names[t.name.lower()] for index, t in enumerate(targets) if t.name.lower() in names}
    return _Resolved(scope, sources, _others(scope, by_lower_target), row_reason)


def _renamed(name: str, alias: str) -> str:
    return quote_identifier(name) if name == alias else f"{quote_identifier(name)} AS {quote_identifier(alias)}"


def _referenced(names: tuple[str, ...], texts: list[str]) -> tuple[str, ...]:
    """The names that ``texts`` (where and extra expressions) may use: every name that appears in
    them as a word, and all of them when an expression could use columns it does not name (``*``)."""
    text = " ".join(texts).lower()
    if "*" in text:
        return names
    words = set(re.findall(r"[\w$]+", text))  # one pass, so 10,000 names cost 10,000 set lookups

    def used(name: str) -> bool:
        lowered = name.lower()
        if re.fullmatch(r"[\w$]+", lowered):
            return lowered in words
        return "`" in name or re.search(r"(?<![\w$])" + re.escape(lowered) + r"(?![\w$])", text) is not None

    return tuple(name for name in names if used(name))


def _others(scope: "DataFrame", targets: dict[str, int]) -> tuple[str, ...]:
    """The scope's columns that are not table columns (mapped names where/extra can use)."""
    return tuple(name for name in scope.columns if name.lower() not in targets and name != MALFORMED_COLUMN)


def _positional_base(frame: "DataFrame", info: Any, width: int,
                     fields: list[int] | None = None) -> tuple["DataFrame", str | None]:
    """The frame with (at least) ``_c0.._c{width-1}`` (or the ``fields`` listed), and a reason (SQL)
    if every row has the wrong width."""
    if info is not None and info.rebuild is not None:
        return info.rebuild(width, fields), None
    have = len([name for name in frame.columns if _POSITIONAL.match(name)])
    if have == width:
        return frame, None
    return frame, string_literal(f"column count mismatch: the load expects {width} columns but the source has {have}")


def _field(present: set[str], index: int, alias: str) -> str:
    """Field ``index`` of a positional frame (NULL past its last field), named ``alias``, as SQL."""
    name = f"_c{index}"
    return f"{name if name in present else 'CAST(NULL AS STRING)'} AS {quote_identifier(alias)}"


def _names_none(columns: list[str], targets: list[TargetColumn]) -> bool:
    """No source column is named like a table column (case-insensitive)."""
    names = {target.name.lower() for target in targets}
    return bool(columns) and not any(column.lower() in names for column in columns)


def check_partial_names(frame: "DataFrame", targets: list[TargetColumn]) -> None:
    """A partial-column update names the columns it updates (Doris: a partial update needs the
    column list); a source none of whose names is a table column cannot be one."""
    data = [name for name in frame.columns if name != MALFORMED_COLUMN]
    if source_info(frame) is None and _names_none(data, targets):
        raise LoadError(
            "You must explicitly specify the columns to be updated when updating partial columns using the INSERT "
            f"statement. The source's columns ({', '.join(data)}) are none of the table's "
            f"({', '.join(t.name for t in targets)}): name them (SELECT 1 AS k, ...) or give a columns mapping"
        )


def check_no_column_lost(
    frame: "DataFrame", targets: list[TargetColumn], supplied: tuple[str, ...], used_by: list[str]
) -> None:
    """Refuses a load by name (a query or a table) that would silently drop a source column (as
    Doris's INSERT refuses more values than columns); worded for the likely cause when a table
    column would also get no value (a misnamed column, whose values would become NULL or the
    default). Source columns named in ``used_by`` (``where``, ``delete_on``, ``sequence_col``) are
    used, not dropped. A source that names only some table columns is fine: the others get their
    default or NULL, as in a stream load."""
    if source_info(frame) is not None:
        return  # files: Doris's stream load ignores extra fields and fills absent columns
    data = [name for name in frame.columns if name != MALFORMED_COLUMN]
    if _names_none(data, targets):
        return  # mapped by position
    target_names = {target.name.lower() for target in targets}
    referenced = " ".join(used_by).lower()
    ignored = [
        name for name in data
        if name.lower() not in target_names and not re.search(r"(?<![\w$])" + re.escape(name.lower()) + r"(?![\w$])", referenced)
    ]
    given = {name.lower() for name in supplied}
    unfilled = [
        t.name for t in targets if t.name.lower() not in given and not t.name.startswith("__DORIS_") and t.generated is None
    ]
    if ignored and unfilled:
        raise LoadError(
            f"the source's column(s) {', '.join(ignored)} match no column of the table, and its column(s) "
            f"{', '.join(unfilled)} would get no value (NULL or their default): rename the source's columns like the "
            "table's (SELECT x AS k, ...), map them with columns => '...', or leave the unused ones out of the source"
        )
    if ignored:
        raise LoadError(
            f"the source's column(s) {', '.join(ignored)} match no column of the table and would be dropped: leave them "
            "out of the source, or name them in where / delete_on / sequence_col if the load needs them"
        )


def _is_positional(columns: list[str]) -> bool:
    return bool(columns) and columns == [f"_c{index}" for index in range(len(columns))]


class _Lookup:
    """Source columns by name, case-insensitively (an exact-case match wins)."""

    def __init__(self, columns: list[str]) -> None:
        self._exact = set(columns)
        self._folded: dict[str, str] = {}
        for name in columns:
            self._folded.setdefault(name.lower(), name)

    def get(self, name: str) -> str | None:
        return name if name in self._exact else self._folded.get(name.lower())


def _is_hidden(name: str) -> bool:
    return name.upper().startswith("__DORIS_") and name.endswith("__")


# -------------------------------------------------------------------------------------- conversion
def _conversion_sql(source: str, source_type: Any, target_type: Any) -> str:
    """Spark SQL converting ``source`` to ``target_type`` without ever throwing."""
    source_kind = _type_name(source_type)
    target_kind = _type_name(target_type)
    target_sql = target_type.simpleString()
    if source_type == target_type:
        return source
    if target_kind in ("DateType", "TimestampNTZType", "TimestampType") and source_kind == "StringType":
        text = _normalised_datetime(source)
        if target_kind == "TimestampType":
            return f"try_cast({text} AS {target_sql})"
        # A zone or offset names an instant: Doris converts it to the session's time zone (Spark's
        # cast from TIMESTAMP to a local type does exactly that); a plain value is taken as it is
        # (never through an instant, so a wall-clock time a DST change skips stays as written).
        return (
            f"IF({text} RLIKE '{_ZONED_DATETIME}', try_cast(try_cast({text} AS TIMESTAMP) AS {target_sql}), "
            f"try_cast({text} AS {target_sql}))"
        )
    if target_kind in ("DateType", "TimestampNTZType", "TimestampType") and source_kind in _INTEGER_KINDS:
        return _integer_datetime(source, target_sql)
    if target_kind in ("ArrayType", "MapType", "StructType") and source_kind == "StringType":
        return f"from_json({source}, '{target_sql}')"
    if target_kind == "StringType" and source_kind in ("ArrayType", "MapType", "StructType"):
        return f"to_json({source})"
    return f"try_cast({source} AS {target_sql})"


_INTEGER_KINDS = ("ByteType", "ShortType", "IntegerType", "LongType")


def _integer_datetime(source: str, target_sql: str) -> str:
    """An integer read as Doris reads it as a date or datetime (``from_date_int64``, MySQL's rule):
    YYYYMMDD (20240408), YYMMDD (240408: 00-69 is 20xx, 70-99 is 19xx), YYYYMMDDhhmmss and
    YYMMDDhhmmss; anything else, or an impossible month, day or time, is no date (NULL)."""
    v = f"CAST({source} AS BIGINT)"
    digits = (
        f"CASE WHEN {v} >= 10000101000000 THEN IF({v} <= 99999999999999, {v}, NULL) "
        f"WHEN {v} < 101 THEN NULL "
        f"WHEN {v} <= 691231 THEN ({v} + 20000000) * 1000000 "
        f"WHEN {v} < 700101 THEN NULL "
        f"WHEN {v} <= 991231 THEN ({v} + 19000000) * 1000000 "
        f"WHEN {v} < 10000101 THEN NULL "
        f"WHEN {v} <= 99991231 THEN {v} * 1000000 "
        f"WHEN {v} < 101000000 THEN NULL "
        f"WHEN {v} <= 691231235959 THEN {v} + 20000000000000 "
        f"WHEN {v} < 700101000000 THEN NULL "
        f"WHEN {v} <= 991231235959 THEN {v} + 19000000000000 "
        f"ELSE {v} END"
    )
    text = f"lpad(CAST({digits} AS STRING), 14, '0')"
    iso = (
        f"concat(substr({text}, 1, 4), '-', substr({text}, 5, 2), '-', substr({text}, 7, 2), ' ', "
        f"substr({text}, 9, 2), ':', substr({text}, 11, 2), ':', substr({text}, 13, 2))"
    )
    # Through TIMESTAMP_NTZ so that an impossible time makes a DATE NULL too, as in Doris.
    return f"try_cast(try_cast({iso} AS TIMESTAMP_NTZ) AS {target_sql})"


# A time zone after a date or datetime, as Doris reads one: Z, UTC/GMT (with an offset or not), an
# offset (+02:00, +0200, -5) or a region name (Asia/Shanghai). Spark's cast to TIMESTAMP reads them all.
_ZONE = "(Z|(UTC|GMT)([+-][0-9]{1,2}(:?[0-9]{2}){0,2})?|[+-][0-9]{1,2}(:?[0-9]{2}){0,2}|[A-Za-z]+(/[A-Za-z0-9_+-]+)+)"
_ISO_DATE = "[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
_ZONED_DATETIME = f"^{_ISO_DATE}([ T][0-9]{{1,2}}:[0-9]{{1,2}}(:[0-9]{{1,2}}([.][0-9]*)?)?)? ?{_ZONE}$"


def _normalised_datetime(source: str) -> str:
    """Doris's date/datetime spellings rewritten to the ISO form Spark's cast reads (a zone after
    them is kept; a date followed by a zone gets the time 00:00:00 Spark needs before a zone)."""
    text = f"trim({source})"
    digits8 = f"concat(substr({text}, 1, 4), '-', substr({text}, 5, 2), '-', substr({text}, 7, 2))"
    digits14 = (
        f"concat({digits8}, ' ', substr({text}, 9, 2), ':', substr({text}, 11, 2), ':', substr({text}, 13))"
    )
    slashes = f"regexp_replace({text}, '^([0-9]{{4}})/([0-9]{{1,2}})/([0-9]{{1,2}})', '$1-$2-$3')"
    zoned_date = f"regexp_replace({slashes}, '^({_ISO_DATE}) ?({_ZONE})$', '$1 00:00:00$2')"
    return (
        f"CASE WHEN {text} RLIKE '^[0-9]{{8}}$' THEN {digits8} "
        f"WHEN {text} RLIKE '^[0-9]{{8}} ?{_ZONE}$' THEN concat({digits8}, ' 00:00:00', substr({text}, 9)) "
        f"WHEN {text} RLIKE '^[0-9]{{14}}([.][0-9]+)?( ?{_ZONE})?$' THEN {digits14} "
        f"ELSE {zoned_date} END"
    )


def _select_conversions(scope: "DataFrame", staged: list[str], targets: list[TargetColumn],
                        conversions: dict[int, str], sources: dict[int, str]) -> "DataFrame":
    from pyspark.errors import PySparkException
    from pyspark.sql import functions as F

    try:
        # Each conversion is generated SQL over quoted names: parenthesised, it is one expression.
        return select_sql(scope, staged + [f"({sql}) AS `__doris_v{index}`" for index, sql in conversions.items()])
    except PySparkException as exc:
        failure = exc
    for index, sql in conversions.items():  # name the column that cannot be converted
        try:
            scope.select(F.expr(sql))
        except PySparkException as exc:
            source_type = scope.schema[sources[index]].dataType.simpleString().upper()
            target = targets[index]
            raise LoadError(
                f"column {target.name}: a {source_type} source value cannot be loaded into {target.doris_type} "
                f"({spark_error_message(exc)})"
            ) from None
    raise LoadError(f"cannot convert the source columns: {spark_error_message(failure)}") from None


def _check(target: TargetColumn, target_type: Any, value: str, source: str, source_type: Any,
           strict_mode: bool) -> str | None:
    """SQL: the first reason this column's value (``value``, converted from ``source``) rejects the
    row, NULL when it does not; None when no value can."""
    name = target.name
    kind = _type_name(target_type)
    cases: list[tuple[str, str]] = []  # (condition, message), first match wins
    # A value of the target's own type is taken as it is (_conversion_sql): its conversion cannot
    # fail, so the checks of a failed conversion would only cost expressions.
    if source_type != target_type:
        failed = f"({source} IS NOT NULL AND {value} IS NULL)"
        shown = _shown(source, source_type)
        numeric = _numeric_source(source, source_type, kind)
        if numeric is not None:
            cases.append((f"{failed} AND {numeric}", f"concat({string_literal(f'column {name}: value ')}, {shown}, "
                                                     f"{string_literal(f' is out of range for {target.doris_type}')})"))
        if strict_mode:
            cases.append((failed, f"concat({string_literal(f'column {name}: cannot convert ')}, {shown}, "
                                  f"{string_literal(f' to {target.doris_type}')})"))
    low, high = _effective_bounds(target, target_type)
    if low is not None or high is not None:
        outside = []
        if low is not None:
            outside.append(f"{value} < {_bound_literal(low, kind)}")
        if high is not None:
            outside.append(f"{value} > {_bound_literal(high, kind)}")
        limits = f"[{target.min_value if target.min_value is not None else ''}, " \
                 f"{target.max_value if target.max_value is not None else ''}]"
        cases.append((f"{value} IS NOT NULL AND ({' OR '.join(outside)})", (
            f"concat({string_literal(f'column {name}: value ')}, CAST({value} AS STRING), "
            f"{string_literal(f' is out of range for {target.doris_type} {limits}')})"
        )))
    if target.max_length is not None and kind == "StringType":
        size = f"octet_length({value})"
        cases.append((f"{size} > {target.max_length}", (
            f"concat({string_literal(f'column {name}: value ')}, {_shown(value, target_type)}, ' is ', CAST({size} AS STRING), "
            f"{string_literal(f' bytes, longer than {target.doris_type} allows ({target.max_length} bytes)')})"
        )))
    if not target.nullable:
        cases.append((f"{value} IS NULL", string_literal(f"column {name} is NOT NULL but the value is NULL")))
    if not cases:
        return None
    return "CASE " + " ".join(f"WHEN {condition} THEN {message}" for condition, message in cases) + " END"


def _numeric_source(source: str, source_type: Any, target_kind: str) -> str | None:
    """SQL: whether a failed conversion means "too large" (a number) rather than "not a number"."""
    integral = target_kind in _INTEGRAL_RANGES
    if not integral and target_kind != "DecimalType":
        return None
    source_kind = _type_name(source_type)
    if source_kind in ("ByteType", "ShortType", "IntegerType", "LongType", "FloatType", "DoubleType", "DecimalType"):
        return "true"
    if source_kind == "StringType":
        return f"trim({source}) RLIKE {string_literal(_INTEGER_TEXT if integral else _NUMBER_TEXT)}"
    return None


def _effective_bounds(target: TargetColumn, target_type: Any) -> tuple[int | None, int | None]:
    """The declared bounds that are narrower than what the Spark type itself can hold."""
    kind = _type_name(target_type)
    if kind in _INTEGRAL_RANGES:
        type_low, type_high = _INTEGRAL_RANGES[kind]
    elif kind == "DecimalType":
        limit = 10 ** (target_type.precision - target_type.scale)
        type_low, type_high = -limit, limit
    else:
        return None, None
    low = target.min_value if target.min_value is not None and target.min_value > type_low else None
    high = target.max_value if target.max_value is not None and target.max_value < type_high else None
    return low, high


def _bound_literal(bound: int, kind: str) -> str:
    return f"{bound}BD" if kind == "DecimalType" else str(bound)


def _shown(value: str, value_type: Any) -> str:
    """SQL: ``'value'`` for a message, at most 100 characters."""
    kind = _type_name(value_type)
    if kind in ("ArrayType", "MapType", "StructType"):
        text = f"to_json({value})"
    elif kind == "StringType":
        text = value
    else:
        text = f"CAST({value} AS STRING)"
    clipped = f"CASE WHEN length({text}) > {_SHOWN_CHARS} THEN concat(substring({text}, 1, {_SHOWN_CHARS}), '...') ELSE {text} END"
    return f"concat('\\'', {clipped}, '\\'')"


# ------------------------------------------------------------------------------ declared precision
def rounded_datetime(value: str, scale: int) -> str:
    """SQL: ``value`` (a TIMESTAMP_NTZ) rounded half up to ``scale`` fractional digits, as Doris
    stores a DATETIME(p) value (``12:12:12.1235`` is ``12:12:12.124`` in DATETIME(3), ``12:12:12.5``
    is ``12:12:13`` in DATETIME; Doris's regression suite datatype_p0/datetimev2/test_round).
    Computed on the wall clock (the fraction of the second), so no time zone takes part; NULL
    stays NULL."""
    unit = 10 ** (6 - scale)
    seconds = f"extract(SECOND FROM ({value}))"
    fraction = f"CAST(({seconds} - floor({seconds})) * 1000000 AS BIGINT)"
    rounded = f"floor(({fraction} + {unit // 2}) / {unit}) * {unit}"
    shift = f"CAST(({rounded} - {fraction}) / 1000000 AS DECIMAL(18,6))"
    # TIMESTAMP_NTZ + interval stays TIMESTAMP_NTZ
    return f"({value}) + make_dt_interval(0, 0, 0, {shift})"


# ---------------------------------------------------------------------------------------- defaults
def _defaults(spark: Any, targets: list[TargetColumn], spark_types: list[Any], resolved: _Resolved,
              required_present: bool) -> dict[int, str]:
    """SQL: the value of each absent column, its default or NULL; checks literal defaults convert."""
    values: dict[int, str] = {}
    literal_checks: list[int] = []
    for index, target in enumerate(targets):
        if index in resolved.sources:
            continue
        target_type = spark_types[index]
        type_sql = target_type.simpleString()
        default = target.default
        if default is None:
            if not target.nullable and required_present and target.generated is None:
                supplied = [targets[i].name for i in sorted(resolved.sources)]
                raise LoadError(
                    f"column {target.name} is NOT NULL and has no default value, but the load does not supply it "
                    f"(the load supplies: {', '.join(supplied) if supplied else 'no table column'})"
                )
            values[index] = f"CAST(NULL AS {type_sql})"
        elif _CURRENT_TIMESTAMP.match(default.strip()):
            values[index] = f"CAST(current_timestamp() AS {type_sql})"
        elif _CURRENT_DATE.match(default.strip()):
            values[index] = f"CAST(current_date() AS {type_sql})"
        elif default.strip().upper() in ("PI", "E") and _type_name(target_type) in _FRACTIONAL:
            values[index] = f"CAST({default.strip().lower()}() AS {type_sql})"  # DEFAULT PI / DEFAULT E
        else:
            values[index] = _conversion_sql(string_literal(default), _string_type(), target_type)
            literal_checks.append(index)
    if literal_checks:
        row = select_sql(spark.range(1), [f"({values[index]}) AS `d{index}`" for index in literal_checks]).first()
        for index, converted in zip(literal_checks, row):
            if converted is None:
                target = targets[index]
                raise LoadError(
                    f"column {target.name}: its default value {target.default!r} is not a valid {target.doris_type}"
                )
    return values


def _string_type() -> Any:
    from pyspark.sql.types import StringType

    return StringType()


# ----------------------------------------------------------------------------------------- helpers
def _check_targets(targets: list[TargetColumn]) -> None:
    if not targets:
        raise LoadError("the table has no columns to load")
    seen: set[str] = set()
    for target in targets:
        if not isinstance(target, TargetColumn):
            raise LoadError(f"targets must be TargetColumn objects, got {type(target).__name__}")
        key = target.name.lower()
        if key in seen:
            raise LoadError(f"the table lists column {target.name} twice")
        seen.add(key)


def _check_extra_names(extra: dict[str, str], targets: list[TargetColumn]) -> None:
    names = {target.name.lower() for target in targets} | {STATUS_COLUMN, REASON_COLUMN}
    for name, expression in extra.items():
        if not isinstance(name, str) or not name:
            raise LoadError(f"extra column names must be non-empty strings, got {name!r}")
        if name.lower() in names:
            raise LoadError(f"extra column {name} clashes with a table column or a status column")
        if not isinstance(expression, str) or not expression.strip():
            raise LoadError(f"extra column {name} needs an expression")


_TYPES: dict[str, Any] = {}


def _spark_type(target: TargetColumn) -> Any:
    from pyspark.errors import PySparkException
    from pyspark.sql.types import _parse_datatype_string

    key = target.spark_type.strip()
    if key not in _TYPES:
        try:
            _TYPES[key] = _parse_datatype_string(target.spark_type)
        except (PySparkException, ValueError) as exc:
            raise LoadError(f"column {target.name}: {target.spark_type!r} is not a Spark SQL type ({exc})") from None
    return _TYPES[key]


def _type_name(data_type: Any) -> str:
    return type(data_type).__name__


def _check_syntax(expression: str, what: str) -> None:
    """Raises :class:`LoadError` naming ``what`` when ``expression`` is not one Spark SQL expression."""
    from pyspark.errors import PySparkException

    try:
        check_expression_syntax(expression)
    except PySparkException as exc:
        raise LoadError(f"{what} is not a valid expression: {spark_error_message(exc)}") from None


def _parsed(expression: str, what: str) -> "Column":
    """``expression`` parsed as a Spark SQL expression (syntax errors name ``what``)."""
    from pyspark.errors import PySparkException
    from pyspark.sql import functions as F

    try:
        check_expression_syntax(expression)
        return F.expr(expression)
    except PySparkException as exc:
        raise LoadError(f"{what} is not a valid expression: {spark_error_message(exc)}") from None


def _select_sql(frame: "DataFrame", expressions: list[str], what: str, *, verb: str = "failed") -> "DataFrame":
    from pyspark.errors import PySparkException

    try:
        return select_sql(frame, expressions)
    except PySparkException as exc:
        raise LoadError(f"{what} {verb}: {spark_error_message(exc)}") from None


def _select(frame: "DataFrame", columns: list[Any], what: str, *, verb: str = "failed") -> "DataFrame":
    from pyspark.errors import PySparkException

    try:
        return frame.select(*columns)
    except PySparkException as exc:
        raise LoadError(f"{what} {verb}: {spark_error_message(exc)}") from None
