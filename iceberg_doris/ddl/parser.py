"""Recursive-descent parser for Doris ``CREATE TABLE`` statements.

:func:`parse_create_table` parses the statement (syntax errors raise
:class:`~iceberg_doris.errors.DdlSyntaxError` with the line and column of the offending token) and
then validates it as Doris's frontend does (``ddl.validation``; semantic errors raise
:class:`~iceberg_doris.errors.InvalidTableDefinitionError`, with Doris's own message where it has
one).

Accepted grammar (clauses in this order, keywords case-insensitive)::

    CREATE [EXTERNAL | TEMPORARY] TABLE [IF NOT EXISTS] [[catalog.]db.]tbl
        ( column_def [, column_def | , index_def ...] [,] )
        [ENGINE [=] olap]
        [DUPLICATE | UNIQUE | AGGREGATE KEY (cols) [CLUSTER BY | ORDER BY (col [ASC] [NULLS FIRST], ...)]]
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

Parsing records each clause (:data:`CLAUSES`) and column attribute (:data:`COLUMN_ATTRIBUTES`)
written; ``ddl.features`` decides, for each, whether it is implemented or refused.
"""

from __future__ import annotations

from iceberg_doris.ddl.model import (
    ALL_AGGREGATIONS,
    MAXVALUE,
    SUPPORTED_AGGREGATIONS,
    ColumnDef,
    DistributionDesc,
    KeysModel,
    PartitionItemDef,
    PartitionValue,
    StepPartitionDef,
    TableDefinition,
)
from iceberg_doris.ddl.raw_statement import PartitionExpr, RawPartition, RawTable
from iceberg_doris.ddl.tokens import EOF, IDENT, NUMBER, QIDENT, STRING, Token, TokenStream
from iceberg_doris.ddl.types import parse_type
from iceberg_doris.ddl.validation import validate
from iceberg_doris.errors import DdlSyntaxError, InvalidTableDefinitionError

__all__ = ["parse_create_table", "parse_statement", "CLAUSES", "COLUMN_ATTRIBUTES", "SUPPORTED_AGGREGATIONS", "ALL_AGGREGATIONS"]

_KEY_MODELS = {"DUPLICATE": KeysModel.DUPLICATE, "UNIQUE": KeysModel.UNIQUE, "AGGREGATE": KeysModel.AGGREGATE}

#: Every clause the parser accepts, by the name it records in ``RawTable.clauses``; each has a
#: decision in ``ddl.features.CLAUSE_FEATURES`` (a test keeps the two in step).
CLAUSES = (
    "EXTERNAL", "TEMPORARY", "IF NOT EXISTS", "LIKE", "AS SELECT", "catalog.db.tbl", "INDEX", "ENGINE",
    "DUPLICATE KEY", "UNIQUE KEY", "AGGREGATE KEY", "CLUSTER BY", "COMMENT", "PARTITION BY RANGE",
    "PARTITION BY LIST", "AUTO PARTITION", "FROM TO INTERVAL", "DISTRIBUTED BY HASH", "DISTRIBUTED BY RANDOM",
    "ROLLUP", "PROPERTIES",
)
#: Every column attribute the parser accepts, by the name it records in
#: ``RawTable.column_attributes``; each has a decision in ``ddl.features.COLUMN_FEATURES``.
COLUMN_ATTRIBUTES = (
    "KEY", "aggregate type", "generated expression", "NULL/NOT NULL", "AUTO_INCREMENT", "DEFAULT",
    "ON UPDATE CURRENT_TIMESTAMP", "COMMENT",
)


def parse_create_table(sql: str) -> TableDefinition:
    """Parses and validates one Doris ``CREATE TABLE`` statement (a trailing ``;`` is allowed).

    Raises :class:`DdlSyntaxError` for syntax errors and :class:`InvalidTableDefinitionError`
    for statements Doris (or iceberg-doris) would refuse.
    """
    if not isinstance(sql, str):
        raise TypeError(f"parse_create_table expects a str, got {type(sql).__name__}")
    return validate(parse_statement(sql))


def parse_statement(sql: str) -> RawTable:
    """The statement as written (syntax checked, nothing validated): what each clause and column
    attribute says, including the ones :func:`parse_create_table` refuses."""
    if not isinstance(sql, str):
        raise TypeError(f"parse_statement expects a str, got {type(sql).__name__}")
    return _Parser(sql).parse()


class _Parser:
    def __init__(self, sql: str):
        self.sql = sql
        self.s = TokenStream(sql)
        self.clauses: list[str] = []
        self.column_attributes: list[tuple[str, str]] = []

    def _saw(self, clause: str) -> None:
        """Records a clause of :data:`CLAUSES` (ddl.features decides what becomes of it)."""
        assert clause in CLAUSES, clause
        if clause not in self.clauses:
            self.clauses.append(clause)

    # -- entry --------------------------------------------------------------------------------
    def parse(self) -> RawTable:
        s = self.s
        t = RawTable(sql=self.sql)
        if s.at_end:
            raise s.error_expected("'CREATE'")
        s.expect_keyword("CREATE")
        if s.accept_keyword("EXTERNAL"):
            t.external = True
            self._saw("EXTERNAL")
        elif s.accept_keyword("TEMPORARY"):
            t.temporary = True
            self._saw("TEMPORARY")
        s.expect_keyword("TABLE")
        if s.at_keyword("IF"):
            s.next()
            s.expect_keyword("NOT")
            s.expect_keyword("EXISTS")
            t.if_not_exists = True
            self._saw("IF NOT EXISTS")
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
            self._saw("ENGINE")
            s.accept_op("=")
            t.engine = s.expect_identifier("an engine name").value.lower()
        if s.at_keyword(*_KEY_MODELS):
            t.keys_model = _KEY_MODELS[s.next().upper]
            self._saw(f"{t.keys_model.value} KEY")
            s.expect_keyword("KEY")
            t.key_columns = self._identifier_list("a key column")
            if s.at_keyword("CLUSTER", "ORDER"):
                self._saw("CLUSTER BY")
                what = "Cluster" if s.next().upper == "CLUSTER" else "Order"
                s.expect_keyword("BY")
                t.cluster_by = self._cluster_keys(what)
        if s.accept_keyword("COMMENT"):
            self._saw("COMMENT")
            t.comment = s.expect_string("a quoted table comment").value
        if s.at_keyword("AUTO", "PARTITION"):
            t.partition = self._partition()
        if s.accept_keyword("DISTRIBUTED"):
            t.distribution = self._distribution()
        if s.accept_keyword("ROLLUP"):
            self._saw("ROLLUP")
            t.rollups = self._rollups()
        if s.accept_keyword("PROPERTIES"):
            self._saw("PROPERTIES")
            t.properties = self._properties()
        if s.at_keyword("AS"):
            raise self._ctas_error()
        t.clauses = list(self.clauses)
        t.column_attributes = list(self.column_attributes)
        if s.accept_op(";"):
            while s.accept_op(";"):
                pass
            if not s.at_end:
                raise s.error_expected("end of statement (one statement at a time)", s.peek())
        elif not s.at_end:
            raise s.error_expected(self._what_may_follow(t), s.peek())
        return t

    def _what_may_follow(self, t: RawTable) -> str:
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

    def _table_name(self, t: RawTable) -> None:
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
            self._saw("catalog.db.tbl")

    # -- columns and indexes -----------------------------------------------------------------
    def _elements(self, t: RawTable) -> None:
        s = self.s
        while True:
            if s.at_keyword("INDEX"):
                self._saw("INDEX")
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
            assert key in COLUMN_ATTRIBUTES, key
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
                once("ON UPDATE CURRENT_TIMESTAMP", token)
                s.next()
                s.expect_keyword("UPDATE")
                s.expect_keyword("CURRENT_TIMESTAMP")
                precision = None
                if s.accept_op("("):
                    if not s.at_op(")"):
                        precision = s.expect_integer("a precision")
                    s.expect_op(")")
                attrs["ON UPDATE CURRENT_TIMESTAMP"] = (precision,)
            elif word == "COMMENT":
                once("COMMENT", token)
                s.next()
                attrs["COMMENT"] = s.expect_string("a quoted column comment").value
            else:
                raise s.error_expected("',' or ')'", token)

        self.column_attributes.extend((name, attr) for attr in attrs)
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
            on_update_current_timestamp="ON UPDATE CURRENT_TIMESTAMP" in attrs,
            on_update_precision=attrs["ON UPDATE CURRENT_TIMESTAMP"][0] if "ON UPDATE CURRENT_TIMESTAMP" in attrs else None,  # type: ignore[index]
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

    def _cluster_keys(self, what: str) -> list[str]:
        """``(col [ASC] [NULLS FIRST], ...)``: Doris sorts cluster keys ascending with NULLs first only
        (``test_create_table.groovy`` in regression-test/suites/unique_with_mow_c_p0)."""
        s = self.s
        s.expect_op("(")
        names: list[str] = []
        while True:
            names.append(s.expect_identifier("a cluster key column").value)
            if s.at_keyword("DESC"):
                raise InvalidTableDefinitionError(f"{what} keys only support ASC in OLAP table")
            s.accept_keyword("ASC")
            if s.accept_keyword("NULLS"):
                if s.at_keyword("LAST"):
                    raise InvalidTableDefinitionError(f"{what} keys only support NULLS FIRST in OLAP table")
                s.expect_keyword("FIRST")
            if not s.accept_op(","):
                break
        s.expect_op(")")
        return names

    def _identifier_list(self, what: str) -> list[str]:
        s = self.s
        s.expect_op("(")
        names = [s.expect_identifier(what).value]
        while s.accept_op(","):
            names.append(s.expect_identifier(what).value)
        s.expect_op(")")
        return names

    # -- partitions ---------------------------------------------------------------------------
    def _partition(self) -> RawPartition:
        s = self.s
        auto = bool(s.accept_keyword("AUTO"))
        s.expect_keyword("PARTITION")
        s.expect_keyword("BY")
        kind = s.expect_keyword("RANGE", "LIST").upper
        self._saw(f"PARTITION BY {kind}")
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

        if auto or any(e.kind == "function" for e in exprs):
            self._saw("AUTO PARTITION")
        raw = RawPartition(kind=kind, auto_keyword=auto, exprs=exprs, items=[], steps=[])
        if s.accept_op("("):
            if not s.at_op(")"):
                self._partition_def(raw)
                while s.accept_op(","):
                    self._partition_def(raw)
            s.expect_op(")")
        return raw

    def _partition_expr(self) -> PartitionExpr:
        s = self.s
        token = s.peek()
        if token.kind == STRING:
            s.next()
            return PartitionExpr("string", token.value, text=token.text)
        if token.kind == NUMBER:
            s.next()
            return PartitionExpr("number", token.value, text=token.text)
        if token.kind not in (IDENT, QIDENT):
            raise s.error_expected("a partition column", token)
        s.next()
        if token.kind == IDENT and s.at_op("("):
            s.next()
            args: list[PartitionExpr] = []
            if not s.at_op(")"):
                args.append(self._partition_expr())
                while s.accept_op(","):
                    args.append(self._partition_expr())
            close = s.expect_op(")")
            return PartitionExpr("function", token.value, args, text=s.text_between(token, close))
        return PartitionExpr("column", token.value, text=token.text)

    def _partition_def(self, raw: RawPartition) -> None:
        s = self.s
        token = s.peek()
        if token.is_keyword("FROM"):
            self._saw("FROM TO INTERVAL")
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
                raw.step_properties.append(self._properties())
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
        self._saw(f"DISTRIBUTED BY {kind}")
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
