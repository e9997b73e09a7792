"""Doris column types: parsing, normalisation and the mapping to Spark/Iceberg types.

Normalisation (what :class:`DorisType` holds):

=========================================  ==============================================
written                                    normalised
=========================================  ==============================================
BOOL, BOOLEAN                              BOOLEAN
TINYINT(4), SMALLINT, INT(11), INTEGER,    TINYINT, SMALLINT, INT, BIGINT, LARGEINT
BIGINT(20), LARGEINT                       (display widths are dropped, as Doris does)
FLOAT, DOUBLE                              FLOAT, DOUBLE
DECIMAL, DECIMALV3, DECIMAL32..256         DECIMAL(38,9) with no parameters (Doris's DECIMALV3
                                           default), DECIMAL(p) = DECIMAL(p,0)
DECIMALV2                                  DECIMAL(9,0) with no parameters (Doris's DECIMALV2
                                           catalog default)
DATE, DATEV1, DATEV2                       DATE
DATETIME[(p)], DATETIMEV1, DATETIMEV2[(p)] DATETIME, or DATETIME(p) for p in 1..6
TIMESTAMPTZ[(p)]                           TIMESTAMPTZ[(p)]
CHAR, CHARACTER                            CHAR(n), CHAR(1) without a length
VARCHAR                                    VARCHAR(n), VARCHAR(65533) without a length
STRING, TEXT                               STRING
JSON, JSONB                                JSON
VARIANT[<...>]                             VARIANT (any typed-path declaration is dropped)
IPV4, IPV6                                 IPV4, IPV6
ARRAY<T>, MAP<K,V>, STRUCT<n:T, ...>       ARRAY, MAP, STRUCT with children (element
                                           NULL/NOT NULL and field comments are dropped)
HLL, BITMAP, QUANTILE_STATE, AGG_STATE<…>  parsed, but refused by :func:`spark_type_for`
=========================================  ==============================================

Mapping to Spark SQL types (Iceberg types in brackets) by :func:`spark_type_for`:

- BOOLEAN → BOOLEAN; TINYINT, SMALLINT, INT → INT [int] (Iceberg has no 8/16-bit integers);
  BIGINT → BIGINT [long]; FLOAT → FLOAT; DOUBLE → DOUBLE.
- LARGEINT → DECIMAL(38,0). Doris LARGEINT holds 128-bit integers (up to 39 digits); values with
  more than 38 digits do not fit DECIMAL(38,0) and are refused when loaded.
- DECIMAL(p,s) → DECIMAL(p,s); p > 38 (Doris DECIMAL256) is refused.
- DATE → DATE; DATETIME(p) → TIMESTAMP_NTZ [timestamp] (microseconds; Doris's maximum precision
  is 6 digits as well); TIMESTAMPTZ → TIMESTAMP [timestamptz].
- CHAR, VARCHAR, STRING, JSON, VARIANT, IPV4, IPV6 → STRING (Iceberg has no length-limited
  strings; lengths are kept in the stored Doris type).
- ARRAY/MAP/STRUCT → ARRAY/MAP/STRUCT of the mapped children.
- HLL, BITMAP, QUANTILE_STATE, AGG_STATE, TIMESTAMP_NS → InvalidTableDefinitionError.
"""

from __future__ import annotations

from dataclasses import dataclass

from iceberg_doris.ddl.sql_text import identifier_as_written, quote_identifier
from iceberg_doris.ddl.tokens import EOF, IDENT, NUMBER, QIDENT, STRING, TokenStream
from iceberg_doris.errors import InvalidTableDefinitionError

__all__ = [
    "DorisType",
    "doris_type_from_sql",
    "parse_type",
    "spark_type_for",
    "index_size",
    "is_integer_type",
    "is_date_type",
    "is_string_like",
    "is_float_type",
    "is_complex_type",
    "UNSUPPORTED_TYPES",
    "INTEGER_TYPES",
    "MAX_ICEBERG_DECIMAL_PRECISION",
]


@dataclass(frozen=True)
class DorisType:
    """A normalised Doris column type.

    ``name`` is canonical and upper-case (``DATEV2`` is ``DATE``, ``DATETIMEV2`` is ``DATETIME``,
    every DECIMAL flavour is ``DECIMAL``, ``BOOL`` is ``BOOLEAN``, ``INTEGER`` is ``INT``, ``TEXT``
    is ``STRING``, ``JSONB`` is ``JSON``). ``params``: ``DECIMAL`` always has ``(precision, scale)``,
    ``CHAR``/``VARCHAR`` always have ``(length,)``, ``DATETIME``/``TIMESTAMPTZ`` have ``(precision,)``
    only when the precision is not 0. ``children``: the element type of ``ARRAY``, key and value of
    ``MAP``, the field types of ``STRUCT`` (names in ``field_names``).
    """

    name: str
    params: tuple[int, ...] = ()
    children: tuple["DorisType", ...] = ()
    field_names: tuple[str, ...] = ()

    @property
    def sql(self) -> str:
        """The type in Doris syntax, e.g. ``DECIMAL(10,2)``, ``ARRAY<INT>``, ``STRUCT<a:INT,b:STRING>``."""
        if self.name == "ARRAY":
            return f"ARRAY<{self.children[0].sql}>"
        if self.name == "MAP":
            return f"MAP<{self.children[0].sql},{self.children[1].sql}>"
        if self.name == "STRUCT":
            fields = ",".join(
                f"{identifier_as_written(n)}:{t.sql}" for n, t in zip(self.field_names, self.children)
            )
            return f"STRUCT<{fields}>"
        if self.params:
            return f"{self.name}({','.join(str(p) for p in self.params)})"
        return self.name

    def __str__(self) -> str:
        return self.sql

    @property
    def precision(self) -> int | None:
        """DECIMAL precision (None for other types)."""
        return self.params[0] if self.name == "DECIMAL" and self.params else None

    @property
    def scale(self) -> int | None:
        """DECIMAL scale (None for other types)."""
        return self.params[1] if self.name == "DECIMAL" and len(self.params) > 1 else None

    @property
    def length(self) -> int | None:
        """CHAR/VARCHAR length (None for other types)."""
        return self.params[0] if self.name in ("CHAR", "VARCHAR") and self.params else None


INTEGER_TYPES = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT", "LARGEINT"})
DATE_TYPES = frozenset({"DATE", "DATETIME", "TIMESTAMPTZ", "TIMESTAMP_NS"})
STRING_LIKE_TYPES = frozenset({"CHAR", "VARCHAR", "STRING"})
FLOAT_TYPES = frozenset({"FLOAT", "DOUBLE"})
COMPLEX_TYPES = frozenset({"ARRAY", "MAP", "STRUCT"})
#: Doris aggregate-state types that have no Iceberg representation.
UNSUPPORTED_TYPES = frozenset({"HLL", "BITMAP", "QUANTILE_STATE", "AGG_STATE"})

MAX_ICEBERG_DECIMAL_PRECISION = 38
_MAX_DORIS_DECIMAL_PRECISION = 76
_MAX_VARCHAR_LENGTH = 65533
_MAX_CHAR_LENGTH = 255

# written name -> canonical name, for types whose parameters are ignored by Doris
_SIMPLE = {
    "BOOL": "BOOLEAN",
    "BOOLEAN": "BOOLEAN",
    "TINYINT": "TINYINT",
    "SMALLINT": "SMALLINT",
    "INT": "INT",
    "INTEGER": "INT",
    "BIGINT": "BIGINT",
    "LARGEINT": "LARGEINT",
    "FLOAT": "FLOAT",
    "DOUBLE": "DOUBLE",
    "DATE": "DATE",
    "DATEV1": "DATE",
    "DATEV2": "DATE",
    "STRING": "STRING",
    "TEXT": "STRING",
    "JSON": "JSON",
    "JSONB": "JSON",
    "IPV4": "IPV4",
    "IPV6": "IPV6",
    "HLL": "HLL",
    "BITMAP": "BITMAP",
    "QUANTILE_STATE": "QUANTILE_STATE",
    "TIMESTAMP_NS": "TIMESTAMP_NS",
}
_DECIMALS = {"DECIMAL", "DECIMALV3", "DECIMAL32", "DECIMAL64", "DECIMAL128", "DECIMAL256", "DECIMALV2"}
_DATETIMES = {"DATETIME": "DATETIME", "DATETIMEV1": "DATETIME", "DATETIMEV2": "DATETIME", "TIMESTAMPTZ": "TIMESTAMPTZ"}
_CHARS = {"CHAR": "CHAR", "CHARACTER": "CHAR", "VARCHAR": "VARCHAR"}


# ------------------------------------------------------------------------------------------
# parsing
# ------------------------------------------------------------------------------------------
def doris_type_from_sql(text: str) -> DorisType:
    """Parses a type string (as written in DDL or as rendered by :attr:`DorisType.sql`)."""
    stream = TokenStream(text)
    result = parse_type(stream)
    if not stream.at_end:
        raise stream.error_expected("end of type", stream.peek())
    return result


def parse_type(stream: TokenStream) -> DorisType:
    """Parses one type at the stream's position."""
    token = stream.peek()
    if token.kind != IDENT:
        raise stream.error_expected("a data type", token)
    name = token.upper
    stream.next()

    if name == "ARRAY":
        stream.expect_op("<")
        element = parse_type(stream)
        _skip_nullability(stream)
        stream.expect_op(">")
        return DorisType("ARRAY", children=(element,))

    if name == "MAP":
        stream.expect_op("<")
        key = parse_type(stream)
        _skip_nullability(stream)
        stream.expect_op(",")
        value = parse_type(stream)
        _skip_nullability(stream)
        stream.expect_op(">")
        return DorisType("MAP", children=(key, value))

    if name == "STRUCT":
        stream.expect_op("<")
        names: list[str] = []
        children: list[DorisType] = []
        while True:
            field_token = stream.peek()
            if field_token.kind not in (IDENT, QIDENT, STRING):
                raise stream.error_expected("a struct field name", field_token)
            stream.next()
            if field_token.value.lower() in (n.lower() for n in names):
                raise InvalidTableDefinitionError(f"Duplicate field name {field_token.value} in struct {token.value}")
            stream.expect_op(":")
            children.append(parse_type(stream))
            names.append(field_token.value)
            _skip_nullability(stream)
            if stream.accept_keyword("COMMENT"):
                stream.expect_string("a quoted comment")
            if stream.accept_op(","):
                continue
            if stream.at_op(">"):
                stream.next()
                break
            raise stream.error_expected("',' or '>'", stream.peek())
        return DorisType("STRUCT", children=tuple(children), field_names=tuple(names))

    if name == "AGG_STATE":
        # AGG_STATE<fn(type, ...)> (current) or AGG_STATE fn(type, ...) (2.0)
        if stream.at_op("<"):
            _skip_balanced(stream, "<", ">")
        elif stream.peek().kind in (IDENT, QIDENT) and stream.peek(1).is_op("("):
            stream.next()
            _skip_balanced(stream, "(", ")")
        return DorisType("AGG_STATE")

    if name == "VARIANT":
        if stream.at_op("<"):
            _skip_balanced(stream, "<", ">")
        return DorisType("VARIANT")

    params_token = stream.peek()
    params = _parse_params(stream)

    if name in _SIMPLE:
        return DorisType(_SIMPLE[name])

    if name in _DECIMALS:
        return _decimal(name, params, params_token, stream)

    if name in _DATETIMES:
        canonical = _DATETIMES[name]
        if len(params) > 1:
            raise stream.error(f"{token.value} takes at most one parameter (the precision)", params_token)
        precision = params[0] if params and params[0] is not None else 0
        if not 0 <= precision <= 6:
            raise InvalidTableDefinitionError(
                f"Scale of Datetime/Time must between 0 and 6. Scale was set to: {precision}"
            )
        return DorisType(canonical, (precision,) if precision else ())

    if name in _CHARS:
        canonical = _CHARS[name]
        if len(params) > 1:
            raise stream.error(f"{token.value} takes one parameter (the length)", params_token)
        if canonical == "CHAR":
            length = params[0] if params and params[0] is not None else 1
            if not 1 <= length <= _MAX_CHAR_LENGTH:
                raise InvalidTableDefinitionError(
                    f"Char size must between 1 and {_MAX_CHAR_LENGTH}. Size was set to: {length}"
                )
        else:
            length = params[0] if params and params[0] is not None else _MAX_VARCHAR_LENGTH
            if not 1 <= length <= _MAX_VARCHAR_LENGTH:
                raise InvalidTableDefinitionError(
                    f"Varchar size must between 1 and {_MAX_VARCHAR_LENGTH}. Size was set to: {length}"
                )
        return DorisType(canonical, (length,))

    raise stream.error(f"Unknown data type '{token.value}'", token)


def _parse_params(stream: TokenStream) -> tuple[int | None, ...]:
    """``(n[, m ...])`` after a type name; ``*`` gives None."""
    if not stream.accept_op("("):
        return ()
    values: list[int | None] = []
    while True:
        token = stream.peek()
        if token.kind == NUMBER and token.value.isdigit():
            values.append(int(token.value))
            stream.next()
        elif token.is_op("*"):
            values.append(None)
            stream.next()
        else:
            raise stream.error_expected("an integer type parameter", token)
        if stream.accept_op(","):
            continue
        stream.expect_op(")")
        return tuple(values)


def _decimal(name: str, params: tuple[int | None, ...], at, stream: TokenStream) -> DorisType:
    if len(params) > 2 or any(p is None for p in params):
        raise stream.error(f"{name} takes (precision[, scale])", at)
    if not params:
        precision, scale = (9, 0) if name == "DECIMALV2" else (38, 9)
    elif len(params) == 1:
        precision, scale = params[0], 0
    else:
        precision, scale = params  # type: ignore[misc]
    max_precision = 27 if name == "DECIMALV2" else _MAX_DORIS_DECIMAL_PRECISION
    if not 1 <= precision <= max_precision:  # type: ignore[operator]
        raise InvalidTableDefinitionError(
            f"Precision of decimal must between 1 and {max_precision}. Precision was set to: {precision}."
        )
    if not 0 <= scale <= precision:  # type: ignore[operator]
        raise InvalidTableDefinitionError(
            f"Scale of decimal must between 0 and precision. Scale was set to: {scale}."
        )
    return DorisType("DECIMAL", (precision, scale))  # type: ignore[arg-type]


def _skip_nullability(stream: TokenStream) -> None:
    if stream.at_keyword("NOT") and stream.peek(1).is_keyword("NULL"):
        stream.next()
        stream.next()
    else:
        stream.accept_keyword("NULL")


def _skip_balanced(stream: TokenStream, open_char: str, close_char: str) -> None:
    opening = stream.expect_op(open_char)
    depth = 1
    while depth:
        token = stream.next()
        if token.kind == EOF:
            raise stream.error(f"'{open_char}' is never closed", opening)
        if token.is_op(open_char):
            depth += 1
        elif token.is_op(close_char):
            depth -= 1


# ------------------------------------------------------------------------------------------
# categories
# ------------------------------------------------------------------------------------------
def is_integer_type(t: DorisType) -> bool:
    return t.name in INTEGER_TYPES


def is_date_type(t: DorisType) -> bool:
    """DATE and the date-time types (DATETIME, TIMESTAMPTZ, TIMESTAMP_NS)."""
    return t.name in DATE_TYPES


def is_string_like(t: DorisType) -> bool:
    return t.name in STRING_LIKE_TYPES


def is_float_type(t: DorisType) -> bool:
    return t.name in FLOAT_TYPES


def is_complex_type(t: DorisType) -> bool:
    return t.name in COMPLEX_TYPES


def index_size(t: DorisType) -> int:
    """Doris's short-key index size of a column of type ``t`` (``getOlapColumnIndexSize``), used
    to choose the default duplicate keys."""
    name = t.name
    if name == "CHAR":
        return t.params[0]
    if name == "DECIMAL":
        precision = t.params[0]
        return 4 if precision <= 9 else 8 if precision <= 18 else 16 if precision <= 38 else 32
    return _INDEX_SIZES.get(name, 16)


_INDEX_SIZES = {
    "BOOLEAN": 1,
    "TINYINT": 1,
    "SMALLINT": 2,
    "INT": 4,
    "BIGINT": 8,
    "LARGEINT": 16,
    "FLOAT": 4,
    "DOUBLE": 8,
    "DATE": 4,
    "DATETIME": 8,
    "TIMESTAMPTZ": 8,
    "VARCHAR": 20,
    "STRING": 20,
    "IPV4": 4,
    "IPV6": 16,
}


# ------------------------------------------------------------------------------------------
# Spark / Iceberg mapping
# ------------------------------------------------------------------------------------------
def spark_type_for(t: DorisType) -> str:
    """The Spark SQL type used to create the Iceberg column for Doris type ``t``.

    Raises :class:`InvalidTableDefinitionError` for types Iceberg cannot hold.
    """
    name = t.name
    if name == "BOOLEAN":
        return "BOOLEAN"
    if name in ("TINYINT", "SMALLINT", "INT"):
        return "INT"
    if name == "BIGINT":
        return "BIGINT"
    if name == "LARGEINT":
        # 128-bit integers; values beyond 38 digits do not fit and are refused at load time.
        return "DECIMAL(38,0)"
    if name == "FLOAT":
        return "FLOAT"
    if name == "DOUBLE":
        return "DOUBLE"
    if name == "DECIMAL":
        precision, scale = t.params
        if precision > MAX_ICEBERG_DECIMAL_PRECISION:
            raise InvalidTableDefinitionError(
                f"{t.sql} is not supported on Iceberg tables by iceberg-doris: Iceberg decimals have at most "
                f"{MAX_ICEBERG_DECIMAL_PRECISION} digits of precision; use DECIMAL(38,s) or smaller"
            )
        return f"DECIMAL({precision},{scale})"
    if name == "DATE":
        return "DATE"
    if name == "DATETIME":
        return "TIMESTAMP_NTZ"
    if name == "TIMESTAMPTZ":
        return "TIMESTAMP"
    if name in ("CHAR", "VARCHAR", "STRING", "JSON", "VARIANT", "IPV4", "IPV6"):
        return "STRING"
    if name == "ARRAY":
        return f"ARRAY<{spark_type_for(t.children[0])}>"
    if name == "MAP":
        return f"MAP<{spark_type_for(t.children[0])},{spark_type_for(t.children[1])}>"
    if name == "STRUCT":
        fields = ",".join(
            f"{quote_identifier(n)}:{spark_type_for(c)}" for n, c in zip(t.field_names, t.children)
        )
        return f"STRUCT<{fields}>"
    if name in UNSUPPORTED_TYPES:
        raise InvalidTableDefinitionError(
            f"Type {name} is not supported on Iceberg tables by iceberg-doris "
            "(Doris aggregate-state types have no Iceberg representation)"
        )
    if name == "TIMESTAMP_NS":
        raise InvalidTableDefinitionError(
            "Type TIMESTAMP_NS is not supported on Iceberg tables by iceberg-doris "
            "(Spark writes microsecond timestamps); use DATETIME(6)"
        )
    raise InvalidTableDefinitionError(f"Type {t.sql} is not supported on Iceberg tables by iceberg-doris")

