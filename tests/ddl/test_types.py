"""Tests of Doris type parsing, normalisation and the Doris → Spark/Iceberg type mapping."""

from __future__ import annotations

import pytest

from iceberg_doris.ddl import DorisType, doris_type_from_sql, spark_type_for
from iceberg_doris.ddl.tokens import tokenize
from iceberg_doris.errors import DdlSyntaxError, InvalidTableDefinitionError


@pytest.mark.parametrize(
    ("written", "normalised"),
    [
        ("BOOL", "BOOLEAN"),
        ("boolean", "BOOLEAN"),
        ("TINYINT(4)", "TINYINT"),
        ("smallint", "SMALLINT"),
        ("INT(11)", "INT"),
        ("INTEGER", "INT"),
        ("BIGINT(20)", "BIGINT"),
        ("LARGEINT", "LARGEINT"),
        ("FLOAT", "FLOAT"),
        ("DOUBLE", "DOUBLE"),
        ("DECIMAL", "DECIMAL(38,9)"),
        ("DECIMALV3", "DECIMAL(38,9)"),
        ("DECIMALV2", "DECIMAL(9,0)"),
        ("DECIMAL(10)", "DECIMAL(10,0)"),
        ("decimal(10, 2)", "DECIMAL(10,2)"),
        ("DECIMALV2(27, 9)", "DECIMAL(27,9)"),
        ("DECIMALV3(38, 10)", "DECIMAL(38,10)"),
        ("DECIMAL128(20,4)", "DECIMAL(20,4)"),
        ("DATE", "DATE"),
        ("DATEV2", "DATE"),
        ("DATETIME", "DATETIME"),
        ("DATETIME(0)", "DATETIME"),
        ("DATETIME(3)", "DATETIME(3)"),
        ("DATETIMEV2", "DATETIME"),
        ("datetimev2(6)", "DATETIME(6)"),
        ("CHAR", "CHAR(1)"),
        ("CHAR(10)", "CHAR(10)"),
        ("VARCHAR", "VARCHAR(65533)"),
        ("VARCHAR(*)", "VARCHAR(65533)"),
        ("varchar(20)", "VARCHAR(20)"),
        ("STRING", "STRING"),
        ("TEXT", "STRING"),
        ("JSON", "JSON"),
        ("JSONB", "JSON"),
        ("VARIANT", "VARIANT"),
        ("IPV4", "IPV4"),
        ("IPv6", "IPV6"),
        ("TIMESTAMPTZ(3)", "TIMESTAMPTZ(3)"),
        ("ARRAY<INT(11)>", "ARRAY<INT>"),
        ("ARRAY<ARRAY<DATEV2>>", "ARRAY<ARRAY<DATE>>"),
        ("ARRAY<INT NOT NULL>", "ARRAY<INT>"),
        ("MAP<STRING, INT>", "MAP<STRING,INT>"),
        ("MAP<VARCHAR(10),ARRAY<DECIMALV3(10,2)>>", "MAP<VARCHAR(10),ARRAY<DECIMAL(10,2)>>"),
        ("STRUCT<s_id:INT(11), s_name:STRING, s_address:STRING COMMENT 'x'>", "STRUCT<s_id:INT,s_name:STRING,s_address:STRING>"),
        ("HLL", "HLL"),
        ("BITMAP", "BITMAP"),
        ("QUANTILE_STATE", "QUANTILE_STATE"),
        ("AGG_STATE<max_by(int not null, int)>", "AGG_STATE"),
    ],
)
def test_normalisation_and_round_trip(written, normalised):
    parsed = doris_type_from_sql(written)
    assert parsed.sql == normalised
    assert doris_type_from_sql(parsed.sql) == parsed


def test_type_model():
    assert doris_type_from_sql("DECIMAL(10,2)") == DorisType("DECIMAL", (10, 2))
    decimal = doris_type_from_sql("DECIMAL(10,2)")
    assert (decimal.precision, decimal.scale, decimal.length) == (10, 2, None)
    assert doris_type_from_sql("VARCHAR(20)").length == 20
    struct = doris_type_from_sql("STRUCT<a:INT,`b c`:ARRAY<STRING>>")
    assert struct.field_names == ("a", "b c")
    assert struct.children == (DorisType("INT"), DorisType("ARRAY", children=(DorisType("STRING"),)))
    assert struct.sql == "STRUCT<a:INT,`b c`:ARRAY<STRING>>"
    assert str(struct) == struct.sql


@pytest.mark.parametrize(
    ("doris", "spark"),
    [
        ("BOOLEAN", "BOOLEAN"),
        ("TINYINT", "INT"),
        ("SMALLINT", "INT"),
        ("INT", "INT"),
        ("BIGINT", "BIGINT"),
        ("LARGEINT", "DECIMAL(38,0)"),
        ("FLOAT", "FLOAT"),
        ("DOUBLE", "DOUBLE"),
        ("DECIMAL(10,2)", "DECIMAL(10,2)"),
        ("DECIMALV3(38,9)", "DECIMAL(38,9)"),
        ("DECIMAL", "DECIMAL(38,9)"),
        ("DATE", "DATE"),
        ("DATEV2", "DATE"),
        ("DATETIME", "TIMESTAMP_NTZ"),
        ("DATETIMEV2(6)", "TIMESTAMP_NTZ"),
        ("TIMESTAMPTZ", "TIMESTAMP"),
        ("CHAR(10)", "STRING"),
        ("VARCHAR(20)", "STRING"),
        ("STRING", "STRING"),
        ("JSON", "STRING"),
        ("VARIANT", "STRING"),
        ("IPV4", "STRING"),
        ("IPV6", "STRING"),
        ("ARRAY<SMALLINT>", "ARRAY<INT>"),
        ("MAP<VARCHAR(10),LARGEINT>", "MAP<STRING,DECIMAL(38,0)>"),
        ("STRUCT<a:DATETIME, `b c`:ARRAY<DATE>>", "STRUCT<`a`:TIMESTAMP_NTZ,`b c`:ARRAY<DATE>>"),
    ],
)
def test_spark_type_mapping(doris, spark):
    assert spark_type_for(doris_type_from_sql(doris)) == spark


@pytest.mark.parametrize("doris", ["HLL", "BITMAP", "QUANTILE_STATE", "AGG_STATE<sum(int)>", "ARRAY<BITMAP>"])
def test_spark_type_mapping_refuses_aggregate_state_types(doris):
    with pytest.raises(InvalidTableDefinitionError, match="is not supported on Iceberg tables by iceberg-doris"):
        spark_type_for(doris_type_from_sql(doris))


def test_spark_type_mapping_refuses_wide_decimals():
    with pytest.raises(InvalidTableDefinitionError, match=r"DECIMAL\(39,2\) is not supported"):
        spark_type_for(doris_type_from_sql("DECIMAL(39, 2)"))
    assert spark_type_for(doris_type_from_sql("DECIMAL(38, 2)")) == "DECIMAL(38,2)"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("DECIMAL(0, 0)", "Precision of decimal must between 1 and 76"),
        ("DECIMAL(77, 2)", "Precision of decimal must between 1 and 76"),
        ("DECIMALV2(28, 2)", "Precision of decimal must between 1 and 27"),
        ("DECIMAL(5, 6)", "Scale of decimal must between 0 and precision"),
        ("DATETIME(7)", "Scale of Datetime/Time must between 0 and 6"),
        ("CHAR(256)", "Char size must between 1 and 255"),
        ("VARCHAR(65534)", "Varchar size must between 1 and 65533"),
    ],
)
def test_invalid_type_parameters(text, message):
    with pytest.raises(InvalidTableDefinitionError, match=message.replace("(", r"\(")):
        doris_type_from_sql(text)


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("TIMESTAMP", "Unknown data type 'TIMESTAMP'", 1),
        ("ARRAY<INT", "Expected '>' but found end of input", 10),
        ("MAP<INT>", "Expected ',' but found '>'", 8),
        ("INT INT", "Expected end of type but found 'INT'", 5),
        ("DECIMAL(10,", "Expected an integer type parameter but found end of input", 12),
    ],
)
def test_type_syntax_errors(text, message, column):
    with pytest.raises(DdlSyntaxError) as info:
        doris_type_from_sql(text)
    assert str(info.value).startswith(message)
    assert (info.value.line, info.value.column) == (1, column)


def test_tokenizer_positions_and_values():
    tokens = tokenize("CREATE `a``b` -- c\n  'x\\'y' \"q\"\"r\" 10.5 -3 /* c */ k1;")
    described = [(t.kind, t.value, t.line, t.column) for t in tokens]
    assert described == [
        ("IDENT", "CREATE", 1, 1),
        ("QIDENT", "a`b", 1, 8),
        ("STRING", "x'y", 2, 3),
        ("STRING", 'q"r', 2, 10),
        ("NUMBER", "10.5", 2, 17),
        ("OP", "-", 2, 22),
        ("NUMBER", "3", 2, 23),
        ("IDENT", "k1", 2, 33),
        ("OP", ";", 2, 35),
        ("EOF", "", 2, 36),
    ]
    assert tokens[0].is_keyword("create") and not tokens[1].is_keyword("a`b")
