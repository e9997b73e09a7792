"""Recursive-descent parser for Doris ``CREATE TABLE`` statements.

:func:`parse_create_table` parses the statement (syntax errors raise
:class:`~iceberg_doris.errors.DdlSyntaxError` with the line and column of the offending token) and
then validates it as Doris's frontend does (semantic errors raise
:class:`~iceberg_doris.errors.InvalidTableDefinitionError`, with Doris's own message where it has
one).

Accepted grammar (clauses in this order, keywords case-insensitive)::

    CREATE [EXTERNAL | TEMPORARY] TABLE [IF NOT EXISTS] [[catalog.]db.]tbl
        ( column_def [, column_def | , index_def ...] [,] )
        [ENGINE [=] olap]
        [DUPLICATE | UNIQUE | AGGREGATE KEY (cols) [CLUSTER BY (cols) | ORDER BY (cols)]]
        [COMMENT 'text']
        [[AUTO] PARTITION BY RANGE | LIST (col, ... | date_trunc(col, 'unit')) [( partition_def, ... )]]
        [DISTRIBUTED BY HASH (cols) | RANDOM [BUCKETS n | AUTO]]
        [ROLLUP ( name (cols) [DUPLICATE KEY (cols)] [PROPERTIES (...)], ... )]
        [PROPERTIES ("key" = "value", ...)]
        [;]

    column_def := name type [KEY] [agg_type] [[GENERATED ALWAYS] AS (expr)] [[NOT] NULL]
                  [AUTO_INCREMENT[(start)]] [DEFAULT value] [ON UPDATE CURRENT_TIMESTAMP[(p)]]
                  [COMMENT 'text']                      (attributes accepted in any order)
    index_def  := INDEX [IF NOT EXISTS] name (cols) [USING type] [PROPERTIES (...)] [COMMENT 'x']
    partition_def := PARTITION [IF NOT EXISTS] p VALUES LESS THAN (MAXVALUE | (v, ...)) [(props)]
                   | PARTITION [IF NOT EXISTS] p VALUES [(v, ...), (v, ...)) [(props)]
                   | PARTITION [IF NOT EXISTS] p VALUES IN ((v, ...), ... | v, ...) [(props)]
                   | FROM (v) TO (v) INTERVAL n [unit]
    v := 'string' | "string" | [-]number | MAXVALUE | NULL
"""

from __future__ import annotations

from dataclasses import dataclass, field

from iceberg_doris.ddl.model import (
    MAXVALUE,
    ColumnDef,
    DistributionDesc,
    DorisType,
    KeysModel,
    PartitionDesc,
    PartitionItemDef,
    PartitionValue,
    StepPartitionDef,
    TableDefinition,
    lookup_property,
)
from iceberg_doris.ddl.tokens import EOF, IDENT, NUMBER, QIDENT, STRING, Token, TokenStream
from iceberg_doris.ddl.types import (
    UNSUPPORTED_TYPES,
    doris_type_from_sql,
    index_size,
    is_complex_type,
    is_float_type,
    is_integer_type,
    is_string_like,
    parse_type,
    spark_type_for,
)
from iceberg_doris.errors import DdlSyntaxError, InvalidTableDefinitionError

__all__ = ["parse_create_table", "SUPPORTED_AGGREGATIONS", "ALL_AGGREGATIONS"]

#: Aggregations iceberg-doris implements on Iceberg tables.
SUPPORTED_AGGREGATIONS = ("SUM", "MAX", "MIN", "REPLACE", "REPLACE_IF_NOT_NULL")
#: Every aggregation Doris's grammar accepts.
ALL_AGGREGATIONS = SUPPORTED_AGGREGATIONS + ("HLL_UNION", "BITMAP_UNION", "QUANTILE_UNION", "GENERIC")

_KEY_MODELS = {"DUPLICATE": KeysModel.DUPLICATE, "UNIQUE": KeysModel.UNIQUE, "AGGREGATE": KeysModel.AGGREGATE}
_SHORTKEY_MAX_COLUMN_COUNT = 3
_SHORTKEY_MAX_SIZE_BYTES = 36
_AUTO_RANGE_FUNCTION = "date_trunc"


def parse_create_table(sql: str) -> TableDefinition:
    """Parses and validates one Doris ``CREATE TABLE`` statement (a trailing ``;`` is allowed).

    Raises :class:`DdlSyntaxError` for syntax errors and :class:`InvalidTableDefinitionError`
    for statements Doris (or iceberg-doris) would refuse.
    """
    if not isinstance(sql, str):
        raise TypeError(f"parse_create_table expects a str, got {type(sql).__name__}")
    raw = _Parser(sql).parse()
    return _Validator(raw).validate()


# ==========================================================================================
# syntax
# ==========================================================================================
@dataclass
class _Expr:
    """A partition expression: a column reference, a function call or a literal."""

    kind: str  # "column", "function", "string", "number"
    value: str
    args: list["_Expr"] = field(default_factory=list)
    text: str = ""


@dataclass
class _RawPartition:
    kind: str  # RANGE | LIST
    auto_keyword: bool
    exprs: list[_Expr]
    items: list[PartitionItemDef]
    steps: list[StepPartitionDef]
    has_less_than: bool = False
    has_fixed: bool = False
    has_in: bool = False


@dataclass
class _RawTable:
    sql: str
    catalog: str | None = None
    database: str | None = None
    table: str = ""
    if_not_exists: bool = False
    external: bool = False
    temporary: bool = False
    columns: list[ColumnDef] = field(default_factory=list)
    indexes: list[str] = field(default_factory=list)
    engine: str | None = None
    keys_model: KeysModel | None = None
    key_columns: list[str] = field(default_factory=list)
    cluster_by: list[str] = field(default_factory=list)
    comment: str | None = None
    partition: _RawPartition | None = None
    distribution: DistributionDesc | None = None
    rollups: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)


class _Parser:
    def __init__(self, sql: str):
        self.sql = sql
        self.s = TokenStream(sql)

    # -- entry --------------------------------------------------------------------------------
    def parse(self) -> _RawTable:
        s = self.s
        t = _RawTable(sql=self.sql)
        if s.at_end:
            raise s.error_expected("'CREATE'")
        s.expect_keyword("CREATE")
        if s.accept_keyword("EXTERNAL"):
            t.external = True
        elif s.accept_keyword("TEMPORARY"):
            t.temporary = True
        s.expect_keyword("TABLE")
        if s.at_keyword("IF"):
            s.next()
            s.expect_keyword("NOT")
            s.expect_keyword("EXISTS")
            t.if_not_exists = True
        self._table_name(t)

        if s.at_keyword("LIKE"):
            raise s.error(
                "CREATE TABLE ... LIKE is not supported by iceberg-doris; write the full column list",
                s.peek(),
            )
        if s.at_keyword("AS"):
            raise self._ctas_error()
        s.expect_op("(")
        self._elements(t)

        if s.accept_keyword("ENGINE"):
            s.accept_op("=")
            t.engine = s.expect_identifier("an engine name").value.lower()
        if s.at_keyword(*_KEY_MODELS):
            t.keys_model = _KEY_MODELS[s.next().upper]
            s.expect_keyword("KEY")
            t.key_columns = self._identifier_list("a key column")
            if s.at_keyword("CLUSTER", "ORDER"):
                s.next()
                s.expect_keyword("BY")
                t.cluster_by = self._identifier_list("a cluster key column")
        if s.accept_keyword("COMMENT"):
            t.comment = s.expect_string("a quoted table comment").value
        if s.at_keyword("AUTO", "PARTITION"):
            t.partition = self._partition()
        if s.accept_keyword("DISTRIBUTED"):
            t.distribution = self._distribution()
        if s.accept_keyword("ROLLUP"):
            t.rollups = self._rollups()
        if s.accept_keyword("PROPERTIES"):
            t.properties = self._properties()
        if s.at_keyword("AS"):
            raise self._ctas_error()
        if s.accept_op(";"):
            while s.accept_op(";"):
                pass
            if not s.at_end:
                raise s.error_expected("end of statement (one statement at a time)", s.peek())
        elif not s.at_end:
            raise s.error_expected(self._what_may_follow(t), s.peek())
        return t

    def _what_may_follow(self, t: _RawTable) -> str:
        """The clauses still allowed after the part parsed so far, for the error message."""
        # Clauses are ordered; name the ones after the last clause present.
        order = [
            ("ENGINE", t.engine is not None),
            ("DUPLICATE/UNIQUE/AGGREGATE KEY", t.keys_model is not None),
            ("COMMENT", t.comment is not None),
            ("PARTITION BY", t.partition is not None),
            ("DISTRIBUTED BY", t.distribution is not None),
            ("ROLLUP", bool(t.rollups)),
            ("PROPERTIES", bool(t.properties)),
        ]
        last = max((i for i, (_, present) in enumerate(order) if present), default=-1)
        names = [name for name, _ in order[last + 1 :]]
        names.append("end of statement")
        if len(names) == 1:
            return names[0]
        return ", ".join(names[:-1]) + " or " + names[-1]

    def _ctas_error(self) -> DdlSyntaxError:
        return self.s.error(
            "CREATE TABLE ... AS SELECT is not supported by iceberg-doris; create the table with a "
            "column list, then load it (doris.load(..., query => ...))",
            self.s.peek(),
        )

    def _table_name(self, t: _RawTable) -> None:
        s = self.s
        parts = [s.expect_identifier("a table name").value]
        while s.accept_op("."):
            parts.append(s.expect_identifier("a table name").value)
        if len(parts) > 3:
            raise s.error("A table name has at most three parts: catalog.db.tbl", s.peek(-1))
        t.table = parts[-1]
        if len(parts) >= 2:
            t.database = parts[-2]
        if len(parts) == 3:
            t.catalog = parts[0]

    # -- columns and indexes -----------------------------------------------------------------
    def _elements(self, t: _RawTable) -> None:
        s = self.s
        while True:
            if s.at_keyword("INDEX"):
                t.indexes.append(self._index())
            else:
                if t.indexes:
                    raise s.error_expected("'INDEX' (indexes follow the columns)", s.peek())
                t.columns.append(self._column())
            if s.accept_op(","):
                if s.accept_op(")"):  # trailing comma
                    return
                continue
            if s.accept_op(")"):
                return
            raise s.error_expected("',' or ')'", s.peek())

    def _through_list_item(self, first: Token) -> Token:
        """Consumes tokens (balanced parentheses) up to the list's next top-level ',' or ')';
        returns the last token consumed (``first`` when there was none)."""
        s = self.s
        last = first
        depth = 0
        while True:
            token = s.peek()
            if token.kind == EOF:
                raise s.error_expected("')'", token)
            if depth == 0 and token.is_op(",", ")"):
                return last
            if token.is_op("("):
                depth += 1
            elif token.is_op(")"):
                depth -= 1
            last = s.next()

    def _index(self) -> str:
        s = self.s
        first = s.next()  # INDEX
        last = self._through_list_item(first)
        if last is first:
            raise s.error_expected("an index name", s.peek())
        return s.text_between(first, last)

    def _column(self) -> ColumnDef:
        s = self.s
        name_token = s.peek()
        if name_token.kind not in (IDENT, QIDENT):
            raise s.error_expected("a column definition", name_token)
        s.next()
        name = name_token.value
        col_type = parse_type(s)

        attrs: dict[str, object] = {}

        def once(key: str, token: Token) -> None:
            if key in attrs:
                raise s.error(f"Duplicate {key} for column {name}", token)

        while not s.at_op(",", ")") and not s.at_end:
            token = s.peek()
            word = token.upper
            if word == "KEY":
                once("KEY", token)
                s.next()
                attrs["KEY"] = True
            elif word in ALL_AGGREGATIONS:
                once("aggregate type", token)
                s.next()
                attrs["aggregate type"] = word
            elif word == "GENERATED" or word == "AS":
                once("generated expression", token)
                s.next()
                if word == "GENERATED":
                    s.expect_keyword("ALWAYS")
                    s.expect_keyword("AS")
                attrs["generated expression"] = self._parenthesised_text()
            elif word == "NOT":
                once("NULL/NOT NULL", token)
                s.next()
                s.expect_keyword("NULL")
                attrs["NULL/NOT NULL"] = False
            elif word == "NULL":
                once("NULL/NOT NULL", token)
                s.next()
                attrs["NULL/NOT NULL"] = True
            elif word == "AUTO_INCREMENT":
                once("AUTO_INCREMENT", token)
                s.next()
                start = None
                if s.accept_op("("):
                    negative = bool(s.accept_op("-"))
                    start = s.expect_integer("the AUTO_INCREMENT start value")
                    start = -start if negative else start
                    s.expect_op(")")
                attrs["AUTO_INCREMENT"] = start
            elif word == "DEFAULT":
                once("DEFAULT", token)
                s.next()
                attrs["DEFAULT"] = self._default_value()
            elif word == "ON":
                once("ON UPDATE", token)
                s.next()
                s.expect_keyword("UPDATE")
                s.expect_keyword("CURRENT_TIMESTAMP")
                if s.accept_op("("):
                    if not s.at_op(")"):
                        s.expect_integer("a precision")
                    s.expect_op(")")
                attrs["ON UPDATE"] = True
            elif word == "COMMENT":
                once("COMMENT", token)
                s.next()
                attrs["COMMENT"] = s.expect_string("a quoted column comment").value
            else:
                raise s.error_expected("',' or ')'", token)

        default_kind = default_text = default_precision = None
        if "DEFAULT" in attrs:
            default_kind, default_text, default_precision = attrs["DEFAULT"]  # type: ignore[misc]
        nullable = attrs.get("NULL/NOT NULL", True)
        return ColumnDef(
            name=name,
            type=col_type,
            nullable=bool(nullable),
            default=default_text,
            aggregation=attrs.get("aggregate type"),  # type: ignore[arg-type]
            auto_increment="AUTO_INCREMENT" in attrs,
            comment=attrs.get("COMMENT"),  # type: ignore[arg-type]
            key=bool(attrs.get("KEY", False)),
            default_kind=default_kind,
            default_precision=default_precision,
            auto_increment_start=attrs.get("AUTO_INCREMENT"),  # type: ignore[arg-type]
            on_update_current_timestamp=bool(attrs.get("ON UPDATE", False)),
            generated=attrs.get("generated expression"),  # type: ignore[arg-type]
            nullable_explicit="NULL/NOT NULL" in attrs,
        )

    def _default_value(self) -> tuple[str, str | None, int | None]:
        """(kind, text, precision) of a DEFAULT value."""
        s = self.s
        token = s.peek()
        if token.kind == STRING:
            s.next()
            return "literal", token.value, None
        if token.is_op("-", "+"):
            s.next()
            number = s.peek()
            if number.kind != NUMBER:
                raise s.error_expected("a number", number)
            s.next()
            return "literal", ("-" if token.value == "-" else "") + number.value, None
        if token.kind == NUMBER:
            s.next()
            return "literal", token.value, None
        word = token.upper
        if word == "NULL":
            s.next()
            return "null", None, None
        if word == "CURRENT_TIMESTAMP":
            s.next()
            precision = None
            if s.accept_op("("):
                if not s.at_op(")"):
                    precision = s.expect_integer("a precision")
                s.expect_op(")")
            return "current_timestamp", "CURRENT_TIMESTAMP", precision
        if word == "CURRENT_DATE":
            s.next()
            if s.accept_op("("):
                s.expect_op(")")
            return "current_date", "CURRENT_DATE", None
        if word in ("PI", "E", "BITMAP_EMPTY"):
            s.next()
            return word.lower(), word, None
        if word in ("TRUE", "FALSE"):
            s.next()
            return "literal", word.lower(), None
        raise s.error_expected(
            "a default value (a quoted string, a number, NULL, CURRENT_TIMESTAMP or CURRENT_DATE)", token
        )

    def _parenthesised_text(self) -> str:
        """The source text inside a balanced ``( ... )``."""
        s = self.s
        opening = s.expect_op("(")
        depth = 1
        first: Token | None = None
        last: Token | None = None
        while True:
            token = s.next()
            if token.kind == EOF:
                raise s.error("'(' is never closed", opening)
            if token.is_op("("):
                depth += 1
            elif token.is_op(")"):
                depth -= 1
                if depth == 0:
                    break
            first = first or token
            last = token
        if first is None or last is None:
            raise s.error_expected("an expression", token)
        return s.text_between(first, last)

    def _identifier_list(self, what: str) -> list[str]:
        s = self.s
        s.expect_op("(")
        names = [s.expect_identifier(what).value]
        while s.accept_op(","):
            names.append(s.expect_identifier(what).value)
        s.expect_op(")")
        return names

    # -- partitions ---------------------------------------------------------------------------
    def _partition(self) -> _RawPartition:
        s = self.s
        auto = bool(s.accept_keyword("AUTO"))
        s.expect_keyword("PARTITION")
        s.expect_keyword("BY")
        kind = s.expect_keyword("RANGE", "LIST").upper
        if s.at_op("("):
            s.next()
            exprs = [self._partition_expr()]
            while s.accept_op(","):
                exprs.append(self._partition_expr())
            s.expect_op(")")
        elif s.peek().kind in (IDENT, QIDENT) and s.peek(1).is_op("("):
            # Doris 2.0 syntax: AUTO PARTITION BY RANGE date_trunc(col, 'unit') ( ... )
            exprs = [self._partition_expr()]
        else:
            raise s.error_expected("'('", s.peek())

        raw = _RawPartition(kind=kind, auto_keyword=auto, exprs=exprs, items=[], steps=[])
        if s.accept_op("("):
            if not s.at_op(")"):
                self._partition_def(raw)
                while s.accept_op(","):
                    self._partition_def(raw)
            s.expect_op(")")
        return raw

    def _partition_expr(self) -> _Expr:
        s = self.s
        token = s.peek()
        if token.kind == STRING:
            s.next()
            return _Expr("string", token.value, text=token.text)
        if token.kind == NUMBER:
            s.next()
            return _Expr("number", token.value, text=token.text)
        if token.kind not in (IDENT, QIDENT):
            raise s.error_expected("a partition column", token)
        s.next()
        if token.kind == IDENT and s.at_op("("):
            s.next()
            args: list[_Expr] = []
            if not s.at_op(")"):
                args.append(self._partition_expr())
                while s.accept_op(","):
                    args.append(self._partition_expr())
            close = s.expect_op(")")
            return _Expr("function", token.value, args, text=s.text_between(token, close))
        return _Expr("column", token.value, text=token.text)

    def _partition_def(self, raw: _RawPartition) -> None:
        s = self.s
        token = s.peek()
        if token.is_keyword("FROM"):
            s.next()
            start = self._value_list()
            s.expect_keyword("TO")
            end = self._value_list()
            s.expect_keyword("INTERVAL")
            interval = s.expect_integer("the interval (a positive integer)")
            unit = None
            if s.peek().kind == IDENT:
                unit = s.next().upper
            for values, what in ((start, "FROM"), (end, "TO")):
                if len(values) != 1:
                    raise InvalidTableDefinitionError(
                        f"Batch partitions (FROM ... TO ... INTERVAL) take one value for {what}, "
                        f"got {len(values)}: they only support a single partition column"
                    )
                if values[0] is None or values[0] == MAXVALUE:
                    raise InvalidTableDefinitionError(
                        f"Batch partitions (FROM ... TO ... INTERVAL) need a value for {what}, not {values[0] or 'NULL'}"
                    )
            if interval < 1:
                raise InvalidTableDefinitionError("The interval of batch partitions must be greater than 0")
            if s.at_op("("):
                self._properties()
            raw.steps.append(StepPartitionDef(start=start[0], end=end[0], interval=interval, unit=unit))  # type: ignore[arg-type]
            return

        if not token.is_keyword("PARTITION"):
            raise s.error_expected("'PARTITION' or 'FROM'", token)
        s.next()
        if_not_exists = False
        if s.at_keyword("IF"):
            s.next()
            s.expect_keyword("NOT")
            s.expect_keyword("EXISTS")
            if_not_exists = True
        name = s.expect_identifier("a partition name").value
        values_token = s.peek()
        if not values_token.is_keyword("VALUES"):
            raise s.error_expected("'VALUES'", values_token)
        s.next()
        if s.accept_keyword("LESS"):
            s.expect_keyword("THAN")
            if s.accept_keyword("MAXVALUE"):
                less_than = PartitionValue((MAXVALUE,) * max(len(raw.exprs), 1))
            else:
                less_than = PartitionValue(self._value_list())
            props = self._properties() if s.at_op("(") else {}
            raw.items.append(
                PartitionItemDef(name, "less_than", less_than=less_than, properties=props, if_not_exists=if_not_exists)
            )
            raw.has_less_than = True
        elif s.accept_op("["):
            lower = PartitionValue(self._value_list())
            s.expect_op(",")
            upper = PartitionValue(self._value_list())
            s.expect_op(")")
            props = self._properties() if s.at_op("(") else {}
            raw.items.append(
                PartitionItemDef(
                    name, "fixed_range", lower=lower, upper=upper, properties=props, if_not_exists=if_not_exists
                )
            )
            raw.has_fixed = True
        elif s.accept_keyword("IN"):
            s.expect_op("(")
            values_in: list[PartitionValue] = []
            if s.at_op("("):
                values_in.append(PartitionValue(self._value_list()))
                while s.accept_op(","):
                    values_in.append(PartitionValue(self._value_list()))
            else:
                values_in.append(PartitionValue((self._value(),)))
                while s.accept_op(","):
                    values_in.append(PartitionValue((self._value(),)))
            s.expect_op(")")
            props = self._properties() if s.at_op("(") else {}
            raw.items.append(
                PartitionItemDef(
                    name, "in", values_in=tuple(values_in), properties=props, if_not_exists=if_not_exists
                )
            )
            raw.has_in = True
        else:
            raise s.error_expected("'LESS THAN', '[' or 'IN'", s.peek())

    def _value_list(self) -> tuple[str | None, ...]:
        s = self.s
        s.expect_op("(")
        values = [self._value()]
        while s.accept_op(","):
            values.append(self._value())
        s.expect_op(")")
        return tuple(values)

    def _value(self) -> str | None:
        s = self.s
        token = s.peek()
        if token.kind == STRING:
            s.next()
            return token.value
        if token.is_op("-", "+"):
            s.next()
            number = s.peek()
            if number.kind != NUMBER:
                raise s.error_expected("a number", number)
            s.next()
            return ("-" if token.value == "-" else "") + number.value
        if token.kind == NUMBER:
            s.next()
            return token.value
        if token.is_keyword("MAXVALUE"):
            s.next()
            return MAXVALUE
        if token.is_keyword("NULL"):
            s.next()
            return None
        raise s.error_expected("a partition value (a quoted string, a number, MAXVALUE or NULL)", token)

    # -- distribution, rollup, properties -----------------------------------------------------
    def _distribution(self) -> DistributionDesc:
        s = self.s
        s.expect_keyword("BY")
        kind = s.expect_keyword("HASH", "RANDOM").upper
        columns: tuple[str, ...] = ()
        if kind == "HASH":
            columns = tuple(self._identifier_list("a distribution column"))
        buckets: int | None = None
        auto = False
        if s.accept_keyword("BUCKETS"):
            if s.accept_keyword("AUTO"):
                auto = True
            else:
                buckets = s.expect_integer("a bucket count or AUTO")
        return DistributionDesc(kind=kind, columns=columns, buckets=buckets, auto_buckets=auto)  # type: ignore[arg-type]

    def _rollups(self) -> list[str]:
        s = self.s
        s.expect_op("(")
        rollups: list[str] = []
        while True:
            first = s.expect_identifier("a rollup name")
            last = self._through_list_item(first)
            rollups.append(s.text_between(first, last))
            if s.accept_op(","):
                continue
            s.expect_op(")")
            return rollups

    def _properties(self) -> dict[str, str]:
        s = self.s
        s.expect_op("(")
        props: dict[str, str] = {}
        if s.accept_op(")"):
            return props
        while True:
            key_token = s.peek()
            if key_token.kind == STRING:
                key = s.next().value
            elif key_token.kind in (IDENT, QIDENT):
                key = s.next().value
                while s.at_op(".") and s.peek(1).kind in (IDENT, QIDENT):  # dotted bare key
                    s.next()
                    key += "." + s.next().value
            else:
                raise s.error_expected("a quoted property name", key_token)
            s.expect_op("=")
            value_token = s.peek()
            if value_token.kind in (STRING, NUMBER, IDENT):
                value = s.next().value
            elif value_token.is_op("-") and s.peek(1).kind == NUMBER:
                s.next()
                value = "-" + s.next().value
            else:
                raise s.error_expected(f"a quoted value for property '{key}'", value_token)
            props[key] = value
            if s.accept_op(","):
                if s.accept_op(")"):  # trailing comma, as in some of Doris's examples
                    return props
                continue
            if s.accept_op(")"):
                return props
            raise s.error_expected("',' or ')'", s.peek())


# ==========================================================================================
# semantics
# ==========================================================================================
class _Validator:
    def __init__(self, raw: _RawTable):
        self.raw = raw
        self.by_name: dict[str, ColumnDef] = {}

    def validate(self) -> TableDefinition:
        raw = self.raw
        self._engine()
        self._columns()
        keys_model, keys, defaulted = self._keys()
        self._key_columns(keys_model, keys)
        props = raw.properties
        mow = self._merge_on_write(keys_model)
        cluster_by = self._cluster_keys(keys_model, keys, mow)
        partition = self._partition(keys_model, keys)
        distribution = self._distribution(keys_model, keys)
        self._sequence(keys_model, keys)
        return TableDefinition(
            database=raw.database,
            table=raw.table,
            if_not_exists=raw.if_not_exists,
            external=raw.external,
            columns=tuple(raw.columns),
            indexes=tuple(raw.indexes),
            engine=raw.engine,
            keys_model=keys_model,
            key_columns=tuple(keys),
            cluster_by=tuple(cluster_by),
            comment=raw.comment,
            partition=partition,
            distribution=distribution,
            rollups=tuple(raw.rollups),
            properties=dict(props),
            keys_defaulted=defaulted,
            catalog=raw.catalog,
            temporary=raw.temporary,
        )

    # -- helpers -------------------------------------------------------------------------------
    def _resolve(self, name: str) -> ColumnDef | None:
        return self.by_name.get(name.lower())

    def _prop(self, name: str) -> str | None:
        return lookup_property(self.raw.properties, name)

    # -- checks --------------------------------------------------------------------------------
    def _engine(self) -> None:
        raw = self.raw
        engine = raw.engine or "olap"
        if engine != "olap":
            raise InvalidTableDefinitionError(
                f"Do not support table with engine name = {engine}: iceberg-doris creates OLAP tables only"
            )
        if raw.external:
            raise InvalidTableDefinitionError("Do not support external table with engine name = olap")

    def _columns(self) -> None:
        for col in self.raw.columns:
            lowered = col.name.lower()
            if lowered in self.by_name:
                raise InvalidTableDefinitionError(f"Duplicate column name '{col.name}'")
            self.by_name[lowered] = col
        for col in self.raw.columns:
            if col.aggregation is not None and col.aggregation not in SUPPORTED_AGGREGATIONS:
                raise InvalidTableDefinitionError(
                    f"Aggregate type {col.aggregation} (column {col.name}) is not supported on Iceberg tables "
                    f"by iceberg-doris; supported aggregate types are {', '.join(SUPPORTED_AGGREGATIONS)}"
                )
            unsupported = _find_unsupported(col.type)
            if unsupported is not None:
                raise InvalidTableDefinitionError(
                    f"Type {unsupported} (column {col.name}) is not supported on Iceberg tables by iceberg-doris; "
                    "Doris aggregate-state types (HLL, BITMAP, QUANTILE_STATE, AGG_STATE) have no Iceberg representation"
                )
            try:
                spark_type_for(col.type)
            except InvalidTableDefinitionError as exc:
                raise InvalidTableDefinitionError(f"Column {col.name}: {exc}") from None
            if col.aggregation is not None:
                _check_aggregation_type(col)

    def _keys(self) -> tuple[KeysModel, list[str], bool]:
        raw = self.raw
        without_keys = (self._prop("enable_duplicate_without_keys_by_default") or "").strip().lower() == "true"
        if raw.keys_model is not None:
            if without_keys:
                raise InvalidTableDefinitionError(
                    "table property 'enable_duplicate_without_keys_by_default' only can set 'true' "
                    "when create olap table by default."
                )
            return raw.keys_model, list(raw.key_columns), False

        keys: list[str] = []
        if any(c.aggregation is not None for c in raw.columns):
            for col in raw.columns:
                if col.aggregation is not None:
                    break
                keys.append(col.name)
            model = KeysModel.AGGREGATE
        else:
            model = KeysModel.DUPLICATE
            if not without_keys:
                keys = _default_duplicate_keys(raw.columns)
        if not keys and (model is not KeysModel.DUPLICATE or not without_keys):
            raise InvalidTableDefinitionError(
                "The olap table first column could not be float, double, string or array, struct, map, "
                "please use decimal or varchar instead."
            )
        return model, keys, True

    def _key_columns(self, model: KeysModel, keys: list[str]) -> None:
        columns = self.raw.columns
        model_name = {KeysModel.DUPLICATE: "DUP_KEYS", KeysModel.UNIQUE: "UNIQUE_KEYS", KeysModel.AGGREGATE: "AGG_KEYS"}[model]
        if len(keys) > len(columns):
            raise InvalidTableDefinitionError("The number of key columns should be less than the number of columns.")
        seen: set[str] = set()
        for i, key in enumerate(keys):
            if key.lower() in seen:
                raise InvalidTableDefinitionError(f"Duplicate key column[{key}].")
            seen.add(key.lower())
            col = columns[i]
            if col.name.lower() != key.lower():
                if self._resolve(key) is None:
                    raise InvalidTableDefinitionError(f"Key column[{key}] doesn't exist.")
                raise InvalidTableDefinitionError(
                    "Key columns should be a ordered prefix of the schema. "
                    f"KeyColumns[{i}] (starts from zero) is {key}, but corresponding column is {col.name} "
                    "in the previous columns declaration."
                )
            if col.aggregation is not None:
                raise InvalidTableDefinitionError(f"Key column[{col.name}] should not specify aggregate type.")
            _check_key_type(col)
            keys[i] = col.name  # as declared
        for col in columns[len(keys):]:
            if model is KeysModel.AGGREGATE and col.aggregation is None:
                raise InvalidTableDefinitionError(
                    f"{model_name} table should specify aggregate type for non-key column[{col.name}]"
                )
            if model is not KeysModel.AGGREGATE and col.aggregation is not None:
                raise InvalidTableDefinitionError(
                    f"{model_name} table should not specify aggregate type for non-key column[{col.name}]"
                )

    def _merge_on_write(self, model: KeysModel) -> bool:
        value = self._prop("enable_unique_key_merge_on_write")
        if value is not None and model is not KeysModel.UNIQUE:
            raise InvalidTableDefinitionError("enable_unique_key_merge_on_write property only support unique key table")
        if model is not KeysModel.UNIQUE:
            return False
        if value is None:
            return True
        lowered = value.strip().lower()
        if lowered not in ("true", "false"):
            raise InvalidTableDefinitionError(
                f"Invalid enable_unique_key_merge_on_write value: {value}. Expected true or false"
            )
        return lowered == "true"

    def _cluster_keys(self, model: KeysModel, keys: list[str], mow: bool) -> list[str]:
        names = self.raw.cluster_by
        if not names:
            return []
        if model is not KeysModel.UNIQUE:
            raise InvalidTableDefinitionError("Cluster keys only support unique keys table.")
        resolved: list[str] = []
        for name in names:
            col = self._resolve(name)
            if any(r.lower() == name.lower() for r in resolved):
                raise InvalidTableDefinitionError(f"Duplicate cluster key column[{name}].")
            if col is None:
                raise InvalidTableDefinitionError(f"Key cluster column[{name}] doesn't exist.")
            resolved.append(col.name)
        if all(a.lower() == b.lower() for a, b in zip(keys, resolved)):
            raise InvalidTableDefinitionError("Unique keys and cluster keys should be different.")
        if not mow:
            raise InvalidTableDefinitionError(
                "Cluster keys only support unique keys table which enabled enable_unique_key_merge_on_write"
            )
        return resolved

    # -- partitions ----------------------------------------------------------------------------
    def _partition(self, model: KeysModel, keys: list[str]) -> PartitionDesc | None:
        raw = self.raw.partition
        if raw is None:
            return None
        key_set = {k.lower() for k in keys}
        has_function = any(e.kind == "function" for e in raw.exprs)
        for expr in raw.exprs:
            if expr.kind in ("string", "number"):
                raise InvalidTableDefinitionError(f"Partition expression {expr.text} is not a column or a function call")

        auto_function = auto_unit = None
        if raw.kind == "RANGE" and (raw.auto_keyword or has_function):
            columns, auto_function, auto_unit = self._auto_range(raw)
            auto = True
        else:
            if has_function:
                # LIST with a function call
                expr = next(e for e in raw.exprs if e.kind == "function")
                raise InvalidTableDefinitionError(
                    f"auto create partition only support slotRef in list partitions. {expr.text}"
                )
            columns = [e.value for e in raw.exprs]
            auto = raw.auto_keyword

        # columns: existence, duplicates, types, key-ness
        resolved: list[str] = []
        for name in columns:
            col = self._resolve(name)
            if col is None:
                raise InvalidTableDefinitionError(f"partition key {name} is not exists")
            if any(r.lower() == col.name.lower() for r in resolved):
                raise InvalidTableDefinitionError(f"Duplicated partition column {name}")
            resolved.append(col.name)
            is_key = col.name.lower() in key_set
            if not is_key and (model is KeysModel.AGGREGATE or model is KeysModel.UNIQUE):
                # non-key columns of AGGREGATE tables carry an aggregation; those of UNIQUE tables are
                # implicitly REPLACE (merge-on-read) or must not move between partitions (merge-on-write)
                raise InvalidTableDefinitionError("The partition column could not be aggregated column")
            if is_float_type(col.type):
                raise InvalidTableDefinitionError("Floating point type column can not be partition column")
            if col.type.name == "STRING":
                raise InvalidTableDefinitionError(f"String Type should not be used in partition column[{col.name}].")
            if is_complex_type(col.type) or col.type.name in ("JSON", "VARIANT"):
                raise InvalidTableDefinitionError(f"Complex type column can't be partition column: {col.type.sql}")
            if auto and raw.kind == "RANGE" and col.nullable:
                raise InvalidTableDefinitionError("AUTO RANGE PARTITION doesn't support NULL column")

        # partition definitions
        if raw.kind == "RANGE":
            mixed_ok = (not raw.has_in) and not (raw.steps and raw.has_less_than)
        else:
            mixed_ok = not (raw.has_less_than or raw.has_fixed or raw.steps)
        if raw.kind == "LIST":
            for item in raw.items:
                for value in item.values_in:
                    if MAXVALUE in value.values:
                        raise InvalidTableDefinitionError("MAXVALUE is not allowed in LIST partition")
        if not mixed_ok:
            raise InvalidTableDefinitionError(
                "partitions types is invalid, expected FIXED or LESS in range partitions and IN in list partitions"
            )
        names: set[str] = set()
        width = len(resolved)
        for item in raw.items:
            if item.name.lower() in names:
                raise InvalidTableDefinitionError(f"Duplicated named partition: {item.name}")
            names.add(item.name.lower())
            _check_item_width(item, width)
        if raw.steps and width != 1:
            raise InvalidTableDefinitionError(
                "Batch partitions (FROM ... TO ... INTERVAL) only support a single partition column"
            )
        return PartitionDesc(
            kind=raw.kind,  # type: ignore[arg-type]
            columns=tuple(resolved),
            auto=auto,
            auto_function=auto_function,
            auto_unit=auto_unit,
            items=tuple(raw.items),
            steps=tuple(raw.steps),
        )

    def _auto_range(self, raw: _RawPartition) -> tuple[list[str], str, str]:
        exprs = raw.exprs
        functions = [e for e in exprs if e.kind == "function"]
        if not functions:
            raise InvalidTableDefinitionError("Auto Range Partition need FunctionCallExpr")
        if len(exprs) != 1:
            raise InvalidTableDefinitionError(
                "auto create partition only support one slotRef in expr of RANGE partition. "
                + ", ".join(e.text for e in exprs)
            )
        expr = exprs[0]
        if expr.value.lower() != _AUTO_RANGE_FUNCTION:
            raise InvalidTableDefinitionError(
                f"auto create partition only support function call expr is date_trunc. {expr.text}"
            )
        slots = [a for a in expr.args if a.kind == "column"]
        if len(slots) > 1:
            raise InvalidTableDefinitionError(
                f"auto create partition only support one slotRef in function expr. {expr.text}"
            )
        illegal = InvalidTableDefinitionError(f"partition expr {expr.value} is illegal!")
        if len(expr.args) != 2 or expr.args[0].kind != "column" or expr.args[1].kind != "string":
            raise illegal
        column = expr.args[0].value
        col = self._resolve(column)
        if col is None:
            raise InvalidTableDefinitionError(f"partition key {column} is not exists")
        if col.type.name not in ("DATE", "DATETIME"):
            raise illegal
        return [column], _AUTO_RANGE_FUNCTION, expr.args[1].value.lower()

    # -- distribution --------------------------------------------------------------------------
    def _distribution(self, model: KeysModel, keys: list[str]) -> DistributionDesc | None:
        dist = self.raw.distribution
        if dist is None:
            return None
        key_set = {k.lower() for k in keys}
        resolved: list[str] = []
        for name in dist.columns:
            col = self._resolve(name)
            if col is None:
                raise InvalidTableDefinitionError(f"Distribution column({name}) doesn't exist.")
            if any(r.lower() == col.name.lower() for r in resolved):
                raise InvalidTableDefinitionError(f"Duplicated distribution column {name}")
            resolved.append(col.name)
            t = col.type
            if t.name == "STRING":
                raise InvalidTableDefinitionError(f"String Type should not be used in distribution column[{col.name}].")
            if t.name == "JSON":
                raise InvalidTableDefinitionError(f"JsonType type should not be used in distribution column[{col.name}].")
            if t.name == "VARIANT":
                raise InvalidTableDefinitionError(f"Variant type should not be used in distribution column[{col.name}].")
            if is_float_type(t):
                raise InvalidTableDefinitionError(
                    f"Floating point type should not be used in distribution column[{col.name}]."
                )
            if is_complex_type(t):
                raise InvalidTableDefinitionError(
                    f"{t.name.capitalize()} type should not be used in distribution column[{col.name}]."
                )
            if model is not KeysModel.DUPLICATE and col.name.lower() not in key_set:
                raise InvalidTableDefinitionError(f"Distribution column[{col.name}] is not key column")
        if dist.buckets is not None and dist.buckets < 1:
            raise InvalidTableDefinitionError(
                f"Cannot assign {dist.kind.lower()} distribution buckets less than 1"
            )
        if dist.kind == "RANDOM":
            if model is KeysModel.UNIQUE:
                raise InvalidTableDefinitionError("Should not be distributed by random when keys type is unique")
            if model is KeysModel.AGGREGATE:
                for col in self.raw.columns:
                    if col.aggregation in ("REPLACE", "REPLACE_IF_NOT_NULL"):
                        raise InvalidTableDefinitionError(
                            "Should not be distributed by random when keys type is agg and column is in replace, "
                            f"[{col.name}] is invalid"
                        )
        return DistributionDesc(
            kind=dist.kind, columns=tuple(resolved), buckets=dist.buckets, auto_buckets=dist.auto_buckets
        )

    # -- sequence ------------------------------------------------------------------------------
    def _sequence(self, model: KeysModel, keys: list[str]) -> None:
        seq_col = self._prop("function_column.sequence_col")
        seq_type = self._prop("function_column.sequence_type")
        if seq_col is None and seq_type is None:
            return
        if model is not KeysModel.UNIQUE:
            raise InvalidTableDefinitionError("sequence column only support UNIQUE_KEYS")
        if seq_col is not None and seq_type is not None:
            raise InvalidTableDefinitionError("The sequence_col and sequence_type cannot be set at the same time")
        if seq_col is not None:
            col = self._resolve(seq_col.strip())
            if col is None:
                raise InvalidTableDefinitionError(f"The specified sequence column[{seq_col}] not exists")
            if col.name.lower() in {k.lower() for k in keys}:
                raise InvalidTableDefinitionError(
                    f"The sequence column[{col.name}] must be a value column, not a key column"
                )
            if not _is_sequence_type(col.type):
                raise InvalidTableDefinitionError("Sequence type only support integer types and date types")
            return
        try:
            parsed = doris_type_from_sql(seq_type)  # type: ignore[arg-type]
        except (DdlSyntaxError, InvalidTableDefinitionError):
            parsed = None
        if parsed is None or not _is_sequence_type(parsed):
            raise InvalidTableDefinitionError("sequence type only support integer types and date types")


# ==========================================================================================
# helpers
# ==========================================================================================
def _default_duplicate_keys(columns: list[ColumnDef]) -> list[str]:
    """Doris's default duplicate keys: up to 3 leading columns within 36 bytes of short key,
    stopping before a FLOAT/DOUBLE/STRING/JSON/complex column and after the first VARCHAR."""
    keys: list[str] = []
    key_length = 0
    for col in columns:
        t = col.type
        key_length += index_size(t)
        if len(keys) >= _SHORTKEY_MAX_COLUMN_COUNT or key_length > _SHORTKEY_MAX_SIZE_BYTES:
            if not keys and is_string_like(t):
                keys.append(col.name)
            break
        if (
            is_float_type(t)
            or t.name in ("STRING", "JSON", "VARIANT")
            or is_complex_type(t)
            or t.name in UNSUPPORTED_TYPES
        ):
            break
        keys.append(col.name)
        if t.name == "VARCHAR":
            break
    return keys


def _find_unsupported(t: DorisType) -> str | None:
    if t.name in UNSUPPORTED_TYPES:
        return t.name
    for child in t.children:
        found = _find_unsupported(child)
        if found:
            return found
    return None


def _check_aggregation_type(col: ColumnDef) -> None:
    t = col.type
    agg = col.aggregation
    numeric = is_integer_type(t) or is_float_type(t) or t.name == "DECIMAL"
    if agg == "SUM" and not numeric:
        raise InvalidTableDefinitionError(
            f"Aggregate type SUM is not compatible with primitive type {t.sql} (column {col.name})"
        )
    if agg in ("MAX", "MIN") and (is_complex_type(t) or t.name in ("JSON", "VARIANT")):
        raise InvalidTableDefinitionError(
            f"Aggregate type {agg} is not compatible with primitive type {t.sql} (column {col.name})"
        )


def _check_key_type(col: ColumnDef) -> None:
    t = col.type
    if is_float_type(t):
        raise InvalidTableDefinitionError("Float or double can not used as a key, use decimal instead.")
    if t.name == "STRING":
        raise InvalidTableDefinitionError(f"String Type should not be used in key column[{col.name}].")
    if t.name == "JSON":
        raise InvalidTableDefinitionError(f"JsonType type should not be used in key column[{col.name}].")
    if t.name == "VARIANT":
        raise InvalidTableDefinitionError(f"Variant type should not be used in key column[{col.name}].")
    if is_complex_type(t):
        raise InvalidTableDefinitionError(
            f"{t.name.capitalize()} can only be used in the non-key column at present (column {col.name})."
        )


def _is_sequence_type(t: DorisType) -> bool:
    return is_integer_type(t) or t.name in ("DATE", "DATETIME")


def _check_item_width(item: PartitionItemDef, width: int) -> None:
    def check(value: PartitionValue | None, exact: bool) -> None:
        if value is None:
            return
        n = len(value.values)
        if n > width or (exact and n != width):
            raise InvalidTableDefinitionError(
                f"Partition {item.name} has {n} value(s) in ({', '.join('NULL' if v is None else v for v in value.values)}) "
                f"but the table has {width} partition column(s)"
            )

    check(item.less_than, exact=False)
    check(item.lower, exact=False)
    check(item.upper, exact=False)
    for value in item.values_in:
        check(value, exact=True)
    for value in (item.less_than, item.lower, item.upper):
        if value is not None and None in value.values:
            raise InvalidTableDefinitionError(
                f"Partition {item.name}: NULL is not allowed in a RANGE partition bound"
            )
