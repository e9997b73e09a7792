"""A 100 MB field (issue 42, point 9): a value longer than its column allows is a filtered row
with Doris's reason, and the load never caches it nor carries it to the driver, so a load of the
file plain Spark can append succeeds with a 2 GB driver (run these with SPARK_DRIVER_MEMORY=2g).
Doris's rule (OlapTableBlockConvertor::_validate_column): a CHAR/VARCHAR/STRING value longer, in
bytes, than min(declared length, string_type_length_soft_limit_bytes = 1 MB) is filtered. Real
Spark, real catalog; rows checked by Spark, pyiceberg and DuckDB."""

from __future__ import annotations

from pathlib import Path

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import LoadError
from iceberg_doris.loading import read_error_rows
from tests.concurrency import readers_agree

pytestmark = pytest.mark.spark

HUGE = 100 * 1024 * 1024  # bytes of the huge field
STRING_LIMIT = 1024 * 1024  # Doris's string_type_length_soft_limit_bytes default
DDL = ("CREATE TABLE {table} (k INT NOT NULL, name VARCHAR(20), body STRING) {model} KEY(k) "
       "DISTRIBUTED BY HASH(k) BUCKETS 1")


@pytest.fixture(scope="module")
def huge_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three tab-separated lines: ``k, a, b``; line 2's ``a`` is 100 MB of 'x'. Written once."""
    path = tmp_path_factory.mktemp("huge") / "huge.csv"
    with open(path, "wb") as out:
        out.write(b"1\tfirst\tshort body\n2\t")
        chunk = b"x" * (1024 * 1024)
        for _ in range(HUGE // len(chunk)):
            out.write(chunk)
        out.write(b"\tsecond\n3\tthird\tlast body\n")
    return path


def _reason(column: str, doris_type: str, limit: int) -> str:
    return (f"column {column}: value '{'x' * 100}...' is {HUGE} bytes, longer than {doris_type} allows ({limit} bytes)")


# Each model reads the 100 MB file through one of the two tests (a minute or more each on 2 cores):
# the keyed path, which holds the batch for its lookup, with the VARCHAR limit; DUPLICATE's with STRING's.
@pytest.mark.parametrize("model", ["UNIQUE"])
def test_a_100_mb_field_in_a_varchar_column_is_a_filtered_row(spark, namespace, huge_csv, py_catalog, model):
    table = f"{namespace}.t"
    doris.create_table(spark, ddl=DDL.format(table=table, model=model))
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, path=str(huge_csv), format="csv", columns="k, name, body")
    message = str(raised.value)
    assert message.startswith("too many filtered rows: 1 of 3 rows were filtered, more than max_filter_ratio 0.0")
    assert _reason("name", "VARCHAR(20)", 20) in message and len(message) < 2000
    assert readers_agree(spark, py_catalog, table) == []  # nothing committed

    [result] = doris.load(spark, table=table, path=str(huge_csv), format="csv", columns="k, name, body",
                          max_filter_ratio=0.4)
    assert (result.status, result.loaded_rows, result.filtered_rows) == ("FINISHED", 2, 1)
    [error] = read_error_rows(result.error_rows_path)
    assert error["reason"] == _reason("name", "VARCHAR(20)", 20)
    assert error["row"] == {"k": "2", "name": None, "body": "second"}  # the value is not written again
    assert readers_agree(spark, py_catalog, table) == [(1, "first", "short body"), (3, "third", "last body")]


@pytest.mark.parametrize("model", ["DUPLICATE"])
def test_a_100_mb_field_in_a_string_column_is_over_dorises_soft_limit(spark, namespace, huge_csv, py_catalog, model):
    table = f"{namespace}.t"
    doris.create_table(spark, ddl=DDL.format(table=table, model=model))
    [result] = doris.load(spark, table=table, path=str(huge_csv), format="csv", columns="k, body, name",
                          max_filter_ratio=0.5)
    assert (result.loaded_rows, result.filtered_rows) == (2, 1)
    [error] = read_error_rows(result.error_rows_path)
    assert error["reason"] == _reason("body", "STRING", STRING_LIMIT)
    assert error["row"] == {"k": "2", "name": "second", "body": None}
    assert readers_agree(spark, py_catalog, table) == [(1, "short body", "first"), (3, "last body", "third")]


def test_plain_spark_appends_the_same_file_in_the_same_session(spark, namespace, huge_csv):
    """The file itself is loadable: the load must not be what fails on it."""
    table = f"{namespace}.plain"
    spark.sql(f"CREATE TABLE {table} (k STRING, a STRING, b STRING) USING iceberg")
    spark.read.schema("k STRING, a STRING, b STRING").option("sep", "\t").csv(str(huge_csv)).writeTo(table).append()
    assert spark.sql(f"SELECT k, length(a) FROM {table} ORDER BY k").collect()[1][1] == HUGE


def test_a_string_value_at_the_limit_loads_and_one_byte_more_is_filtered(spark, namespace, py_catalog):
    table = f"{namespace}.t"
    doris.create_table(spark, ddl=DDL.format(table=table, model="UNIQUE"))
    # a DataFrame source: 'é' is 2 bytes, so the limit counts bytes, not characters
    frame = spark.sql(
        f"SELECT * FROM VALUES (1, repeat('a', {STRING_LIMIT})), (2, concat(repeat('a', {STRING_LIMIT - 1}), 'é')), "
        f"(3, 'small') AS t(k, body)"
    )
    [result] = doris.load(spark, table=table, source=frame, columns="k, body", max_filter_ratio=0.5)
    assert (result.loaded_rows, result.filtered_rows) == (2, 1)
    [error] = read_error_rows(result.error_rows_path)
    assert error["reason"] == (f"column body: value '{'a' * 100}...' is {STRING_LIMIT + 1} bytes, longer than STRING "
                               f"allows ({STRING_LIMIT} bytes)")
    seen = spark.sql(f"SELECT k, length(body) FROM {table} ORDER BY k").collect()
    assert [tuple(r) for r in seen] == [(1, STRING_LIMIT), (3, 5)]
    assert [r[0] for r in readers_agree(spark, py_catalog, table)] == [1, 3]


@pytest.mark.parametrize("model", ["DUPLICATE", "UNIQUE"])
def test_a_dataframe_with_a_100_mb_value_loads_the_other_rows(spark, namespace, py_catalog, model):
    table = f"{namespace}.t"
    doris.create_table(spark, ddl=DDL.format(table=table, model=model))
    frame = spark.sql(
        # repeat over the row's id, so Spark cannot fold the value into a 100 MB literal in the plan
        f"SELECT id AS k, CASE WHEN id = 2 THEN repeat('y', CAST(id AS INT) * {HUGE // 2}) ELSE concat('n', id) END AS name, "
        "concat('b', id) AS body FROM range(1, 4)"
    )
    with pytest.raises(LoadError, match="too many filtered rows: 1 of 3 rows"):
        doris.load(spark, table=table, source=frame)
    [result] = doris.load(spark, table=table, source=frame, max_filter_ratio=0.34)
    assert (result.loaded_rows, result.filtered_rows) == (2, 1)
    [error] = read_error_rows(result.error_rows_path)
    assert error["reason"] == f"column name: value '{'y' * 100}...' is {HUGE} bytes, longer than VARCHAR(20) allows (20 bytes)"
    assert readers_agree(spark, py_catalog, table) == [(1, "n1", "b1"), (3, "n3", "b3")]
