"""Reading a load's input into a Spark DataFrame, as Doris's loads read theirs.

:func:`read_source` takes exactly one of

- ``source``: a table or view name (``spark.table``) or a DataFrame (used as is);
- ``query``: a query (``SELECT``/``WITH``/``VALUES``/``TABLE``/``FROM``), run with ``spark.sql``;
  statements that are not queries (``INSERT``, ``DROP``, ``CALL``, ...) are refused before Spark
  sees them, so nothing is executed by accident;
- ``path``: one or more files, directories or globs in ``format`` csv, json or parquet (inferred
  from the file extensions when ``format`` is None). Any Hadoop/Spark URI works (``s3a://``, ...).

CSV follows Doris's stream-load defaults: no header, columns separated by ``\\t``, lines by ``\\n``,
no enclosure, ``\\N`` is NULL and an empty field is an empty string. Every value is read as a
string; columns are named ``_c0.._cN`` (N from the first line) until a ``columns`` mapping names
them. Options (Doris's names): ``column_separator`` and ``line_delimiter`` (several characters
allowed; ``\\t``, ``\\n``, ``\\r``, ``\\\\`` and ``\\xHH`` escapes are decoded, e.g. ``\\x01``),
``header`` (``true`` skips the first line of each file, as Doris's ``csv_with_names`` format does;
``format => 'csv_with_names'`` means the same), ``enclose`` (one character; fields may then hold
separators and line breaks), ``escape`` (one character, default ``\\``, escapes the enclosure inside
an enclosed field) and ``trim_double_quotes``. A line whose field count differs from the load's
column count is an error row, not a load failure (see :mod:`iceberg_doris.loading.prepare`).
Blank lines are skipped.

JSON: one object per line (Doris ``read_json_by_line``; a line may also hold an array of objects)
or one top-level array of objects (Doris ``strip_outer_array``), detected automatically when
neither option is given. Scalar values are read as strings (Doris ``num_as_string``) and converted
to the column type later; integers keep every digit, but Spark's JSON parser reads numbers with a
fraction or exponent as doubles, so those keep about 16 significant digits (quote them in the file
to keep more). Lines that are not JSON become error rows; a file with no valid JSON at all is
refused. Options: ``strip_outer_array``, ``read_json_by_line``; ``num_as_string`` and
``fuzzy_parse`` are accepted and change nothing.

Parquet is read as is (every file's schema is checked and merged up front, so a file that is not
Parquet is reported here, naming the file).

Frames returned for CSV carry a :class:`SourceInfo` so that
:func:`~iceberg_doris.loading.prepare.prepare_rows` can re-split the lines into the number of
columns the load expects. JSON frames with unparsable lines have an extra column
:data:`MALFORMED_COLUMN` holding the reason (NULL for good rows).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine.spark_runtime import as_doris_reads, data_files_at, s3a_endpoint, select_sql, statement_kind
from iceberg_doris.errors import LoadError
from iceberg_doris.spark_session.java_errors import error_class, object_store_error, spark_error_message

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "FORMATS",
    "MALFORMED_COLUMN",
    "NOT_UTF8_REASON",
    "SourceInfo",
    "read_source",
    "source_info",
    "spark_error_message",
]

FORMATS = ("csv", "json", "parquet")

#: Column a source frame may carry: why the row could not be read (NULL when it could).
MALFORMED_COLUMN = "__doris_malformed"

_INFO_ATTRIBUTE = "_iceberg_doris_source_info"
_LINE = "__doris_line"
_SHOWN_LINE = "__doris_shown_line"
_TOKENS = "__doris_tokens"
_CORRUPT = "__doris_corrupt_record"
_NOT_UTF8 = "__doris_not_utf8"
#: Why a CSV line that is not UTF-8 is filtered (Doris: "Invalid file encoding: all CSV files must be UTF-8 encoded").
NOT_UTF8_REASON = "invalid file encoding: the line is not UTF-8 (all CSV files must be UTF-8 encoded)"
_SHOWN_CHARS = 200

_CSV_OPTIONS = ("column_separator", "line_delimiter", "header", "enclose", "escape", "trim_double_quotes")
_JSON_OPTIONS = ("strip_outer_array", "read_json_by_line", "num_as_string", "fuzzy_parse")
_UNSUPPORTED_OPTIONS = {
    "jsonpaths": "name the JSON fields in columns instead (nested fields: 'v = field.sub')",
    "json_root": "name the JSON fields in columns instead (nested fields: 'v = field.sub')",
    "skip_lines": "use header => 'true' to skip a header line",
    "compress_type": "compression is recognised from the file extension (.gz, .bz2, ...)",
}

_EXTENSIONS = {
    "csv": "csv", "tsv": "csv", "txt": "csv",
    "json": "json", "jsonl": "json", "ndjson": "json",
    "parquet": "parquet", "parq": "parquet",
}
_COMPRESSION_SUFFIXES = {"gz", "gzip", "bz2", "deflate", "lz4", "snappy", "zst", "zstd", "xz"}

_QUERY_KEYWORDS = {"SELECT", "WITH", "VALUES", "TABLE", "FROM", "MAP", "REDUCE"}


@dataclass(frozen=True)
class SourceInfo:
    """How a frame from :func:`read_source` was read.

    ``positional``: columns are identified by position (CSV). ``rebuild(n)`` returns the same rows
    split into exactly ``n`` string columns ``_c0.._c{n-1}`` plus :data:`MALFORMED_COLUMN` (the
    reason when a row does not have ``n`` fields); ``rebuild(n, fields)`` keeps only the fields
    whose indexes it lists (a load that uses 3 of 10,000 columns extracts 3). ``absent_columns_are_null``: a column the load
    names but the source lacks reads as NULL (JSON: a key missing from every object).
    """

    format: str
    paths: tuple[str, ...] = ()
    positional: bool = False
    rebuild: Callable[..., "DataFrame"] | None = None
    absent_columns_are_null: bool = False


def source_info(frame: "DataFrame") -> SourceInfo | None:
    """The :class:`SourceInfo` of a frame returned by :func:`read_source` (None for others)."""
    return getattr(frame, _INFO_ATTRIBUTE, None)


def read_source(
    spark: "SparkSession",
    *,
    source: "str | DataFrame | None" = None,
    query: str | None = None,
    path: "str | Sequence[str] | None" = None,
    format: str | None = None,  # noqa: A002 - the procedure's parameter name
    options: dict[str, str] | None = None,
) -> "DataFrame":
    """Reads a load's input; see the module documentation for the rules."""
    given = [name for name, value in (("source", source), ("query", query), ("path", path)) if value is not None]
    if len(given) != 1:
        got = ", ".join(given) if given else "none of them"
        raise LoadError(f"give exactly one of source, query or path (got {got})")
    if path is None and (format is not None or options):
        raise LoadError(f"format and options apply to path loads only; this load reads a {given[0]}")
    if source is not None:
        from pyspark.sql import DataFrame

        if isinstance(source, str):
            source = _read_table(spark, source)  # Spark's INSERT hands its rows over as a view too
        if isinstance(source, DataFrame):
            if source.isStreaming:
                raise LoadError(STREAMING_SOURCE_MESSAGE)
            return as_doris_reads(source)
        raise LoadError(f"source must be a table or view name or a DataFrame, got {type(source).__name__}")
    if query is not None:
        return as_doris_reads(_read_query(spark, query))
    return _read_files(spark, path, format, options or {})


# A load reads a finished batch; a stream is loaded one micro-batch at a time, each its own load.
STREAMING_SOURCE_MESSAGE = (
    "source is a streaming DataFrame (spark.readStream): a load reads one finished batch. Load the stream "
    "micro-batch by micro-batch with foreachBatch: stream.writeStream.foreachBatch(lambda batch, batch_id: "
    "doris.load(spark, table='db.t', source=batch)).start()"
)


# ---------------------------------------------------------------------------------------- tables
def _read_table(spark: "SparkSession", name: str) -> "DataFrame":
    from pyspark.errors import PySparkException

    name = name.strip()
    if not name:
        raise LoadError("source is an empty table name")
    try:
        return spark.table(name)
    except PySparkException as exc:
        condition = error_class(exc)
        if condition and condition.startswith(("TABLE_OR_VIEW_NOT_FOUND", "SCHEMA_NOT_FOUND")):
            raise LoadError(f"source table or view {name} does not exist") from None
        raise LoadError(f"cannot read source table {name}: {spark_error_message(exc)}") from None


# --------------------------------------------------------------------------------------- queries
def _read_query(spark: "SparkSession", query: str) -> "DataFrame":
    from pyspark.errors import PySparkException

    if not isinstance(query, str) or not query.strip():
        raise LoadError("query is empty: give a SELECT statement")
    text = query.strip()
    words = _top_level_words(text)
    if text.endswith(";"):
        text = text[:-1].rstrip()
    if not words:
        raise LoadError("query is empty: give a SELECT statement")
    first = words[0][1]
    if first not in _QUERY_KEYWORDS:
        raise LoadError(
            f"query must be a query (SELECT, WITH, VALUES, TABLE or FROM ...), not {_a(first)} {first} statement"
        )
    if any(word == ";" for _, word in words):
        raise LoadError("query must be a single statement (found ';')")
    try:
        statement = _statement_kind(spark, text)
        if statement is not None:
            raise LoadError(f"query must be a query; it is {_a(statement)} {statement} statement")
        return spark.sql(text)
    except PySparkException as exc:
        raise LoadError(f"query cannot be run: {spark_error_message(exc)}") from None


def _a(word: str) -> str:
    return "an" if word[:1].upper() in "AEIOU" else "a"


def _statement_kind(spark: "SparkSession", text: str) -> str | None:
    """None for a query; else what kind of statement ``text`` is (checked on Spark's parse tree)."""
    return statement_kind(spark, text)


def _top_level_words(text: str) -> list[tuple[int, str]]:
    """Upper-cased words (and ';') outside quotes and comments, each with its parenthesis depth."""
    words: list[tuple[int, str]] = []
    depth = 0
    position = 0
    length = len(text)
    while position < length:
        char = text[position]
        if text.startswith("--", position):
            end = text.find("\n", position)
            position = length if end < 0 else end + 1
        elif text.startswith("/*", position):
            end = text.find("*/", position + 2)
            position = length if end < 0 else end + 2
        elif char in "'\"`":
            position += 1
            while position < length and text[position] != char:
                position += 2 if text[position] == "\\" and char != "`" else 1
            position += 1
        elif char == "(":
            depth += 1
            position += 1
        elif char == ")":
            depth -= 1
            position += 1
        elif char == ";":
            if text[position + 1:].strip():
                words.append((depth, ";"))
            position += 1
        elif char.isalpha() or char == "_":
            end = position
            while end < length and (text[end].isalnum() or text[end] == "_"):
                end += 1
            words.append((depth, text[position:end].upper()))
            position = end
        else:
            position += 1
    return words


# ----------------------------------------------------------------------------------------- files
def _read_files(spark: "SparkSession", path: Any, format: str | None, options: dict[str, Any]) -> "DataFrame":
    paths = _path_list(path)
    options = {str(key).strip().lower(): value for key, value in options.items()}
    fmt, header_from_format = _normalise_format(format)
    files = _existing_files(spark, paths)
    if fmt is None:
        fmt = _infer_format(paths, files)
    for key, hint in _UNSUPPORTED_OPTIONS.items():
        if key in options:
            raise LoadError(f"option {key} is not supported: {hint}")
    allowed = {"csv": _CSV_OPTIONS, "json": _JSON_OPTIONS, "parquet": ()}[fmt]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        supported = ", ".join(allowed) if allowed else "none"
        raise LoadError(f"unknown {fmt} option(s) {', '.join(unknown)}; supported: {supported}")
    if fmt == "csv":
        if header_from_format:
            options.setdefault("header", "true")
        return _read_csv(spark, paths, options)
    if fmt == "json":
        return _read_json(spark, paths, options)
    return _read_parquet(spark, paths)


def _path_list(path: Any) -> list[str]:
    if isinstance(path, str):
        paths = [path]
    elif isinstance(path, (list, tuple)):
        paths = list(path)
    else:
        raise LoadError(f"path must be a string or a list of strings, got {type(path).__name__}")
    if not paths:
        raise LoadError("path is an empty list: give at least one file, directory or glob")
    for item in paths:
        if not isinstance(item, str) or not item.strip():
            raise LoadError(f"path entries must be non-empty strings, got {item!r}")
    return [item.strip() for item in paths]


def _normalise_format(format: str | None) -> tuple[str | None, bool]:
    if format is None:
        return None, False
    if not isinstance(format, str):
        raise LoadError(f"format must be a string (csv, json or parquet), got {type(format).__name__}")
    name = format.strip().lower()
    if name in FORMATS:
        return name, False
    if name == "csv_with_names":
        return "csv", True
    if name == "csv_with_names_and_types":
        raise LoadError("format csv_with_names_and_types is not supported: use csv_with_names (header => 'true')")
    raise LoadError(f"unknown format {format!r}: use csv, json or parquet")


def _existing_files(spark: "SparkSession", paths: list[str]) -> dict[str, list[str]]:
    """For each path (glob), the data files it names; refuses paths that match nothing."""
    found: dict[str, list[str]] = {}
    for path in paths:
        try:
            names = data_files_at(spark, path)
        except Exception as exc:  # noqa: BLE001 - py4j raises Py4JJavaError for any Java failure
            # An object store that refuses the key pair or does not answer: said so, with its endpoint.
            refused = object_store_error(exc, f"doris.load reading {path}", s3a_endpoint(spark, path))
            raise refused or LoadError(f"cannot access path {path}: {spark_error_message(exc)}") from None
        if names is None:
            raise LoadError(f"path {path} does not exist")
        found[path] = names
    return found


def _infer_format(paths: list[str], files: dict[str, list[str]]) -> str:
    formats: dict[str, str] = {}
    for path in paths:
        names = files[path]
        if not names:
            raise LoadError(f"path {path} holds no data files, so its format cannot be inferred: pass format")
        for name in names:
            fmt = _format_of(name)
            if fmt is None:
                raise LoadError(
                    f"cannot tell the format of {name} from its extension: pass format => 'csv', 'json' or 'parquet'"
                )
            formats.setdefault(fmt, name)
    if len(formats) > 1:
        listed = ", ".join(f"{name} ({fmt})" for fmt, name in formats.items())
        raise LoadError(f"the load's files have different formats: {listed}; load each format separately")
    return next(iter(formats))


def _format_of(file_name: str) -> str | None:
    parts = file_name.lower().split(".")[1:]
    while parts and parts[-1] in _COMPRESSION_SUFFIXES:
        parts.pop()
    return _EXTENSIONS.get(parts[-1]) if parts else None


# ------------------------------------------------------------------------------------------- CSV
def _read_csv(spark: "SparkSession", paths: list[str], options: dict[str, Any]) -> "DataFrame":
    separator = _delimiter(options.get("column_separator", "\t"), "column_separator")
    line = _delimiter(options.get("line_delimiter", "\n"), "line_delimiter")
    header = _boolean(options.get("header", False), "header")
    trim_quotes = _boolean(options.get("trim_double_quotes", False), "trim_double_quotes")
    enclose = options.get("enclose")
    enclose = _single_char(_delimiter(enclose, "enclose"), "enclose") if enclose not in (None, "") else None
    escape = _single_char(_delimiter(options.get("escape", "\\"), "escape"), "escape")
    line_sep = None if line in ("\n", "\r\n") else line
    if enclose is not None:
        info, width = _csv_enclosed(spark, paths, separator, line_sep, header, enclose, escape, trim_quotes)
    else:
        info, width = _csv_lines(spark, paths, separator, line_sep, header, trim_quotes)
    return _attach(_first_line_frame(info, width), info)


def _csv_lines(
    spark: "SparkSession", paths: list[str], separator: str, line_sep: str | None, header: bool, trim_quotes: bool
) -> tuple[SourceInfo, int]:
    """CSV without enclosure: every line split at every separator, exactly as Doris does."""
    from pyspark.sql import functions as F

    if header:
        if line_sep is not None and len(line_sep) != 1:
            raise LoadError("header => 'true' needs a one-character line_delimiter (or the default \\n)")
        # Spark's CSV reader with neither separator nor quote returns whole lines, skipping each file's header.
        reader = spark.read.schema(f"{_LINE} STRING").options(
            sep="\u0000", quote="\u0000", escape="\u0000", header="true", mode="PERMISSIVE",
            ignoreLeadingWhiteSpace="false", ignoreTrailingWhiteSpace="false", nullValue="\u0000\u0000",
        )
        if line_sep is not None:
            reader = reader.option("lineSep", line_sep)
        lines = _load(lambda: reader.csv(paths), "CSV", paths)
    else:
        reader = spark.read if line_sep is None else spark.read.option("lineSep", line_sep)
        lines = _load(lambda: reader.text(paths), "CSV", paths).withColumnRenamed("value", _LINE)
    lines = lines.where(F.col(_LINE).isNotNull() & (F.col(_LINE) != ""))

    # Only the start of the line goes on (for the reasons), and each field is taken from the
    # split as it is picked (no transform over the array): every step compiles into one stage, so
    # a huge field is not copied into an intermediate row beside the whole line (issue 42: a
    # 100 MB field must load with a small driver).
    tokens = lines.select(
        _shown(F.col(_LINE)).alias(_SHOWN_LINE), _not_utf8(F.col(_LINE)).alias(_NOT_UTF8),
        F.split(F.col(_LINE), _java_regex_literal(separator), -1).alias(_TOKENS),
    )

    def field(index: int) -> str:
        value = f"nullif(get({_TOKENS}, {index}), '\\\\N')"
        return f"regexp_replace({value}, '{_QUOTED_FIELD}', '$1')" if trim_quotes else value

    def rebuild(width: int, fields: Sequence[int] | None = None) -> "DataFrame":
        count = F.size(F.col(_TOKENS))
        # Doris checks a line's encoding before splitting it (CsvReader::_validate_line)
        reason = F.when(F.col(_NOT_UTF8), F.concat(F.lit(NOT_UTF8_REASON + ": "), F.col(_SHOWN_LINE))).when(
            count != width,
            F.concat(
                F.lit(f"column count mismatch: the load expects {width} columns but the line has "),
                count.cast("string"), F.lit(" columns: "), F.col(_SHOWN_LINE),
            ),
        )
        checked = tokens.select(F.col(_TOKENS), reason.alias(MALFORMED_COLUMN))
        # as SQL text: thousands of columns cost a few py4j calls, not several per column
        picked = range(width) if fields is None else fields
        columns = [f"{field(index)} AS _c{index}" for index in picked]
        return select_sql(checked, [*columns, MALFORMED_COLUMN])

    first = _collect_first(tokens.select(F.size(F.col(_TOKENS))), paths)
    return SourceInfo("csv", tuple(paths), positional=True, rebuild=rebuild), (first[0] if first else 0)


def _csv_enclosed(
    spark: "SparkSession", paths: list[str], separator: str, line_sep: str | None, header: bool,
    enclose: str, escape: str, trim_quotes: bool,
) -> tuple[SourceInfo, int]:
    """CSV with an enclosure character: Spark's CSV parser, fields may span lines."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    if line_sep is not None and len(line_sep) != 1:
        raise LoadError("enclose needs a one-character line_delimiter (or the default \\n)")
    options = {
        "sep": separator, "quote": enclose, "escape": escape, "header": "true" if header else "false",
        "nullValue": "\\N", "multiLine": "true", "mode": "PERMISSIVE", "columnNameOfCorruptRecord": _CORRUPT,
        "ignoreLeadingWhiteSpace": "false", "ignoreTrailingWhiteSpace": "false",
    }
    if line_sep is not None:
        options["lineSep"] = line_sep

    def rebuild(width: int, picked: Sequence[int] | None = None) -> "DataFrame":
        fields = [StructField(f"_c{index}", StringType()) for index in range(width)]
        schema = StructType(fields + [StructField(_CORRUPT, StringType())])
        frame = _load(lambda: spark.read.schema(schema).options(**options).csv(paths), "CSV", paths)
        reason = F.when(
            F.col(_CORRUPT).isNotNull(),
            F.concat(F.lit(f"column count mismatch: the load expects {width} columns: "), _shown(F.col(_CORRUPT))),
        )
        checked = frame.select("*", reason.alias(MALFORMED_COLUMN))
        columns = [
            (f"regexp_replace(_c{index}, '{_QUOTED_FIELD}', '$1') AS _c{index}" if trim_quotes else f"_c{index}")
            for index in (range(width) if picked is None else picked)
        ]
        return select_sql(checked, [*columns, MALFORMED_COLUMN])

    # Without a schema Spark's parser takes the width from the first record.
    probe = _load(lambda: spark.read.options(**options).csv(paths), "CSV", paths)
    width = len([name for name in probe.columns if name != _CORRUPT])
    return SourceInfo("csv", tuple(paths), positional=True, rebuild=rebuild), width


def _not_utf8(line: Any) -> Any:
    """Whether a line read by Spark's text reader is not valid UTF-8.

    The text reader keeps a line's bytes as they are. Spark 4 checks them with ``is_valid_utf8``
    (one pass over the bytes). Spark 3.5 has no such function; there, every function that goes
    through a Java string (a ``regexp_replace`` that changes nothing) replaces each invalid sequence
    by U+FFFD, so a line that differs from itself after that round trip holds invalid bytes (a copy
    of every line: about a fifth of a file load's CPU)."""
    from pyspark import __version__ as pyspark_version
    from pyspark.sql import functions as F

    if not pyspark_version.startswith("3."):
        return ~F.call_function("is_valid_utf8", line)
    return line != F.regexp_replace(line, "^", "")


def _first_line_frame(info: SourceInfo, width: int) -> "DataFrame":
    """``_c0.._cN``: what the frame looks like before any mapping (N from the first line)."""
    assert info.rebuild is not None
    return info.rebuild(width).drop(MALFORMED_COLUMN)


# ------------------------------------------------------------------------------------------ JSON
def _read_json(spark: "SparkSession", paths: list[str], options: dict[str, Any]) -> "DataFrame":
    from pyspark.sql import functions as F

    outer_array = options.get("strip_outer_array")
    outer_array = None if outer_array is None else _boolean(outer_array, "strip_outer_array")
    by_line = options.get("read_json_by_line")
    by_line = None if by_line is None else _boolean(by_line, "read_json_by_line")
    base = {"primitivesAsString": "true", "mode": "PERMISSIVE", "columnNameOfCorruptRecord": _CORRUPT}

    def read(multi_line: bool) -> "DataFrame":
        reader = spark.read.options(multiLine="true" if multi_line else "false", **base)
        return _load(lambda: reader.json(paths), "JSON", paths)

    first_line: tuple[str, int] | None = None
    if by_line is True or (by_line is None and not outer_array):
        frame = read(False)
        # lines that do not parse may be a pretty-printed document: an array or object over many lines
        if by_line is None and outer_array is None and _CORRUPT in frame.columns:
            first_line = _first_line(spark, paths)
            if _opens_document(first_line):
                whole = read(True)
                if any(name != _CORRUPT for name in whole.columns):
                    frame = whole  # else: not a document either; keep the lines that did parse
    else:
        frame = read(True)
    data = [name for name in frame.columns if name != _CORRUPT]
    if not data and _CORRUPT in frame.columns:
        first_line = first_line or _first_line(spark, paths)
        depth = _nesting_depth(first_line[0])
        if depth > MAX_JSON_DEPTH:
            raise LoadError(
                f"{_describe(paths)} nests JSON deeper than {MAX_JSON_DEPTH} levels (its first line opens at least "
                f"{depth}), more than the JSON parser reads: flatten the document, or load deep values as JSON text "
                "(a string field) and parse the part you need in a columns expression (get_json_object)"
            )
        shown = first_line[0][:80]
        raise LoadError(
            f"{_describe(paths)} is not valid JSON (expected one object per line or an array of objects): {shown!r}"
        )
    frame = _nested_as_text(frame)
    if _CORRUPT not in frame.columns:
        return _attach(frame, SourceInfo("json", tuple(paths), absent_columns_are_null=True))
    # Spark refuses scans that need only the corrupt-record column, so the reason also reads a data column.
    guard = F.coalesce(F.substring(F.col(quote_identifier(data[0])).cast("string"), 1, 0), F.lit(""))
    reason = F.when(
        F.col(_CORRUPT).isNotNull(),
        F.concat(F.lit("malformed JSON record: "), _shown(F.col(_CORRUPT)), guard),
    )
    result = frame.select(*[F.col(quote_identifier(name)) for name in data], reason.alias(MALFORMED_COLUMN))
    return _attach(result, SourceInfo("json", tuple(paths), absent_columns_are_null=True))


def _nested_as_text(frame: "DataFrame") -> "DataFrame":
    """``frame`` with each JSON array or object field as its JSON text, as Doris reads a nested
    value: converted like any text, it is parsed back for an ARRAY, MAP or STRUCT column, stored as
    it is in a VARCHAR or STRING column, and a filtered row where the column holds one value of
    another type (Spark would refuse the whole load: it cannot cast an array to a number)."""
    nested = {f.name for f in frame.schema.fields if type(f.dataType).__name__ in ("ArrayType", "MapType", "StructType")}
    if not nested:
        return frame
    return select_sql(frame, [
        f"to_json({quote_identifier(name)}) AS {quote_identifier(name)}" if name in nested else quote_identifier(name)
        for name in frame.columns
    ])


_PEEK_CHARS = 4096


def _first_line(spark: "SparkSession", paths: list[str]) -> tuple[str, int]:
    """The start (at most 4096 characters) and the length of the first non-blank line."""
    from pyspark.sql import functions as F

    lines = spark.read.text(paths).where(F.trim(F.col("value")) != "").limit(1)
    first = _collect_first(lines.select(F.substring("value", 1, _PEEK_CHARS), F.length("value")), paths)
    return (first[0], first[1]) if first else ("", 0)


#: How deep Spark's JSON parser (Jackson's StreamReadConstraints) nests objects and arrays.
MAX_JSON_DEPTH = 1000


def _nesting_depth(text: str) -> int:
    """The deepest nesting of objects and arrays in ``text`` (a prefix of a line; strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _opens_document(first_line: tuple[str, int]) -> bool:
    """Whether a first line starts a JSON document that continues on later lines (pretty-printed)."""
    text, length = first_line
    if length > _PEEK_CHARS:
        return False  # a long line is a whole document (one object, or an array read as rows)
    opening = text.strip()
    if opening[:1] not in ("[", "{"):
        return False
    try:
        json.loads(opening)
    except ValueError:
        return True
    return False


# --------------------------------------------------------------------------------------- Parquet
def _read_parquet(spark: "SparkSession", paths: list[str]) -> "DataFrame":
    # mergeSchema reads every file's footer now: a broken file is reported here, not mid-load.
    frame = _load(lambda: spark.read.option("mergeSchema", "true").parquet(*paths), "Parquet", paths)
    return _attach(frame, SourceInfo("parquet", tuple(paths)))


# --------------------------------------------------------------------------------------- helpers
def _attach(frame: "DataFrame", info: SourceInfo) -> "DataFrame":
    setattr(frame, _INFO_ATTRIBUTE, info)
    return frame


def _load(read: Callable[[], "DataFrame"], kind: str, paths: list[str]) -> "DataFrame":
    try:
        return read()
    except Exception as exc:  # noqa: BLE001 - Spark raises captured and raw py4j errors alike
        if error_class(exc) == "PATH_NOT_FOUND":
            raise LoadError(f"{_describe(paths)} does not exist") from None
        raise LoadError(f"cannot read {kind} {_describe(paths)}: {spark_error_message(exc)}") from None


def _collect_first(frame: "DataFrame", paths: Sequence[str]) -> Any:
    try:
        return frame.first()
    except Exception as exc:  # noqa: BLE001
        raise LoadError(f"cannot read {_describe(list(paths))}: {spark_error_message(exc)}") from None


def _describe(paths: Sequence[str]) -> str:
    return paths[0] if len(paths) == 1 else "[" + ", ".join(paths) + "]"


def _shown(value: Any) -> Any:
    """A value for a message: at most 200 characters."""
    from pyspark.sql import functions as F

    # A line of at most 200 bytes has at most 200 characters: known without counting them.
    return F.when(F.octet_length(value) <= _SHOWN_CHARS, value).when(
        F.length(value) > _SHOWN_CHARS, F.concat(F.substring(value, 1, _SHOWN_CHARS), F.lit("..."))
    ).otherwise(value)


_QUOTED_FIELD = '(?s)^"(.*)"$'


def _java_regex_literal(text: str) -> str:
    """A Java regular expression matching ``text`` literally."""
    parts = []
    for char in text:
        if char.isalnum() or char == "_":
            parts.append(char)
        elif ord(char) < 128 and char.isprintable():
            parts.append("\\" + char)
        else:
            parts.append(f"\\x{{{ord(char):x}}}")
    return "".join(parts)


_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|[tnr\\])")


def _delimiter(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise LoadError(f"option {name} must be a string, got {type(value).__name__}")
    if value == "":
        raise LoadError(f"option {name} is empty")

    def decode(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] == "x":
            return chr(int(code[1:], 16))
        return {"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}[code]

    return _ESCAPE.sub(decode, value) if len(value) > 1 else value


def _single_char(value: str, name: str) -> str:
    if len(value) != 1:
        raise LoadError(f"option {name} must be a single character, got {value!r}")
    return value


def _boolean(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise LoadError(f"option {name} must be true or false, got {value!r}")
