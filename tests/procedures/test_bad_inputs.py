"""The bad-input catalogue: every bad procedure call is a clear error and changes nothing.

Each case is one call (the Python form, or ``CALL doris.*`` where only SQL can say it: mixed or
repeated arguments, SQL types) with one thing wrong: a wrong type, an unknown table or partition,
a hostile name, an out-of-range number, a bad date, a NULL key, rows outside every partition, a
malformed file, a bad mode, ... Each asserts the error class, a fragment of the message that says
what is wrong (and, for our own messages, how to fix it), that no Java or internal error leaked,
and that no table changed: same current snapshot, same branches, same partitions, same rows.

The tables are shared by all cases (module fixture); most cases fail at binding, in milliseconds.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from pyspark.errors import AnalysisException, IllegalArgumentException

from iceberg_doris import doris
from iceberg_doris.engine.iceberg_java import IcebergJava
from iceberg_doris.spark_session.spark_lines import running_line
from iceberg_doris.errors import (
    DdlSyntaxError,
    DorisError,
    InvalidTableDefinitionError,
    LoadError,
    PartitionError,
    ProcedureArgumentError,
    TableNotFoundError,
    TableStateError,
    UnknownProcedureError,
)

pytestmark = pytest.mark.spark

TABLES = ("dup", "uniq", "flat", "lst")
# Messages that mean a failure escaped our error handling.
LEAKS = ("Py4J", "py4j", "java.", "Traceback", "failed unexpectedly", "at org.apache")


@dataclass
class Lake:
    ns: str
    files: str
    # What no failed call may change, taken once when the tables are ready: each table's state and
    # rows. Every case compares against it, so a change by any earlier case shows up too.
    initial_state: dict[str, Any] | None = None
    initial_rows: dict[str, list[tuple]] | None = None

    def fill(self, value: Any) -> Any:
        """``{ns}`` and ``{files}`` placeholders replaced, in strings, lists and maps."""
        if isinstance(value, str):
            return value.replace("{ns}", self.ns).replace("{files}", self.files)
        if isinstance(value, list):
            return [self.fill(v) for v in value]
        if isinstance(value, dict):
            return {self.fill(k): self.fill(v) for k, v in value.items()}
        return value


@pytest.fixture(scope="module")
def lake(spark, tmp_path_factory) -> Iterator[Lake]:
    ns = f"bad_{uuid.uuid4().hex[:8]}"
    files = tmp_path_factory.mktemp("bad_inputs")
    spark.sql(f"CREATE NAMESPACE {ns}")
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {ns}.dup (dt DATE NOT NULL, id INT NOT NULL, city VARCHAR(5), amount BIGINT)
        DUPLICATE KEY(dt, id)
        PARTITION BY RANGE(dt) (PARTITION p1 VALUES LESS THAN ("2024-02-01"), PARTITION p2 VALUES LESS THAN ("2024-03-01"))
        DISTRIBUTED BY HASH(id) BUCKETS 1""",
    )
    doris.load(spark, table=f"{ns}.dup", label="seed",
               query="SELECT * FROM VALUES (date'2024-01-05', 1, 'bj', 10L), (date'2024-02-05', 2, 'sh', 20L) AS t(dt, id, city, amount)")
    doris.add_partition(spark, table=f"{ns}.dup", partition="tp1", values_range=["2024-01-01", "2024-02-01"], temporary=True)
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {ns}.uniq (k INT NOT NULL, v STRING, s INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
        PROPERTIES ("function_column.sequence_col" = "s")""",
    )
    doris.load(spark, table=f"{ns}.uniq", query="SELECT * FROM VALUES (1, 'a', 1), (2, 'b', 1) AS t(k, v, s)")
    doris.create_table(spark, ddl=f"CREATE TABLE {ns}.flat (k INT, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=f"{ns}.flat", query="SELECT 1 AS k, 'x' AS v")
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {ns}.lst (city VARCHAR(10) NOT NULL, n INT) DUPLICATE KEY(city)
        PARTITION BY LIST(city) (PARTITION pbj VALUES IN ("bj"), PARTITION psh VALUES IN ("sh"))
        DISTRIBUTED BY HASH(city) BUCKETS 1""",
    )
    (files / "bad.json").write_text('{"k": 1, "v": "a"}\n{this is not json\n')
    (files / "short.csv").write_text("2024-01-05\t7\n")
    (files / "rows.csv").write_text("2024-01-05\t7\tbj\t1\n2030-01-01\t8\tbj\t2\n")
    (files / "notes.xml").write_text("<rows/>")
    lake = Lake(ns, str(files))
    lake.initial_state = state(spark, lake)
    lake.initial_rows = {table: table_rows(spark, lake, table) for table in TABLES}
    yield lake


def state(spark, lake: Lake) -> dict[str, Any]:
    """What a failed call must not change: each table's current snapshot, branches and Doris
    partitions (rows are compared for the table the case targets)."""
    iceberg = IcebergJava(spark)
    result = {}
    for table in TABLES:
        loaded = iceberg.load_table(iceberg.name(f"{lake.ns}.{table}"))
        snapshot = loaded.currentSnapshot()
        refs = {str(name): int(ref.snapshotId()) for name, ref in dict(loaded.refs()).items()}
        result[table] = (
            int(snapshot.snapshotId()) if snapshot is not None else None,
            refs,
            str(loaded.properties().get("doris.partitions")),
        )
    return result


def table_rows(spark, lake: Lake, table: str) -> list[tuple]:
    return sorted((tuple(r) for r in spark.sql(f"SELECT * FROM {lake.ns}.{table}").collect()), key=repr)


@dataclass(frozen=True)
class Case:
    id: str
    table: str | None  # the fixture table whose rows are compared
    call: tuple  # ("py", procedure, kwargs) or ("sql", statement)
    error: type[Exception]
    message: str  # a regular expression the message must contain


def py(case_id: str, table: str | None, procedure: str, kwargs: dict[str, Any], error: type[Exception], message: str) -> Case:
    return Case(case_id, table, ("py", procedure, kwargs), error, message)


def sql(case_id: str, table: str | None, statement: str, message: str, error: type[Exception] = IllegalArgumentException) -> Case:
    return Case(case_id, table, ("sql", statement), error, message)


NATIVE_CALL = running_line().native_call  # Spark 4: CALL is Spark's own

DUP = "{ns}.dup"
UNIQ = "{ns}.uniq"
FLAT = "{ns}.flat"
LST = "{ns}.lst"
Q_DUP = "SELECT * FROM VALUES (date'2024-01-06', 9, 'gz', 1L) AS t(dt, id, city, amount)"
Q_UNIQ = "SELECT * FROM VALUES (5, 'e', 1) AS t(k, v, s)"
LABEL_RULE = r"Label format error\. regex: \^\[-_A-Za-z0-9:\]\{1,128\}\$, label: .*A label is 1 to 128 letters"
TABLE_RULE = r"A table name starts with a letter and holds only letters, digits, '-' and '_'"
PARTITION_RULE = r"a partition name is 1 to 128 letters, digits, '_' or '-'"


def ddl(name: str, columns: str = "k INT", tail: str = "DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1") -> str:
    return f"CREATE TABLE {name} ({columns}) {tail}"


CASES = [
    # --- binding: arguments of any procedure -------------------------------------------------
    py("unknown-argument", "dup", "load", {"table": DUP, "query": Q_DUP, "colour": "red"}, ProcedureArgumentError,
       r"^Unknown argument: colour\. Usage: doris\.load\(table string"),
    py("missing-table-argument", None, "describe", {}, ProcedureArgumentError, r"^Missing required parameters: \[table\]\. Usage"),
    py("null-table-argument", "dup", "load", {"table": None, "query": Q_DUP}, ProcedureArgumentError, r"^Missing required parameters: \[table\]"),
    sql("mixed-named-and-positional", "dup", f"CALL doris.load('{DUP}', query => \"{Q_DUP}\")", r"Named and positional arguments cannot be mixed\. Usage"),
    sql("too-many-positional", None, f"CALL doris.describe('{DUP}', 'extra')", r"Too many arguments for procedure\. Usage: doris\.describe\(table string\)"),
    # Spark 4 checks named arguments itself, in its own words (its CALL binds them).
    sql("duplicate-named", None, f"CALL doris.describe(table => '{DUP}', table => '{UNIQ}')",
        r"multiple argument assignments to the same parameter name `table`" if NATIVE_CALL else r"Duplicate procedure argument: table",
        AnalysisException if NATIVE_CALL else IllegalArgumentException),
    sql("unknown-procedure", None, "CALL doris.no_such_thing()", r"Procedure doris\.no_such_thing not found\. Known procedures: .*CALL doris\.help\(\)",
        IllegalArgumentException if NATIVE_CALL else AnalysisException),
    py("help-unknown-procedure", None, "help", {"procedure": "no_such_thing"}, UnknownProcedureError, r"Procedure doris\.no_such_thing not found"),
    py("wrong-type-ratio-text", "dup", "load", {"table": DUP, "query": Q_DUP, "max_filter_ratio": "lots"}, ProcedureArgumentError,
       r"^Wrong arg type for max_filter_ratio: cannot cast string to double"),
    py("wrong-type-boolean-text", "dup", "load", {"table": DUP, "query": Q_DUP, "strict_mode": "true"}, ProcedureArgumentError,
       r"Wrong arg type for strict_mode: cannot cast string to boolean: write true without quotes"),
    sql("wrong-type-boolean-number", "dup", f"CALL doris.add_partition(table => '{DUP}', partition => 'p9', values_less_than => '2024-09-01', temporary => 1)",
        r"Wrong arg type for temporary: cannot cast bigint to boolean"),
    py("wrong-type-retain-fraction", "dup", "cleanup", {"table": DUP, "retain_last": 1.5}, ProcedureArgumentError,
       r"Wrong arg type for retain_last: cannot cast double to bigint"),
    sql("wrong-type-properties", "dup", f"CALL doris.set_properties('{DUP}', 'replication_num')",
        r"Wrong arg type for properties: cannot cast string to map<string,string>"),
    sql("wrong-type-partitions-map", "dup", f"CALL doris.load(table => '{DUP}', query => \"{Q_DUP}\", partitions => map('a', 'b'))",
        r"Wrong arg type for partitions: cannot cast map<string,string> to array<string>"),
    py("wrong-type-table-number", None, "describe", {"table": 5}, ProcedureArgumentError, r"Wrong arg type for table: cannot cast bigint to string"),
    py("wrong-type-help-number", None, "help", {"procedure": 5}, ProcedureArgumentError, r"Wrong arg type for procedure: cannot cast bigint to string"),
    py("wrong-type-query-array", "dup", "load", {"table": DUP, "query": ["SELECT 1"]}, ProcedureArgumentError,
       r"Wrong arg type for query: cannot cast array<string> to string"),
    # --- labels: Doris's rule, checked before anything is read --------------------------------
    py("label-traversal", "dup", "load", {"table": DUP, "query": Q_DUP, "label": "../../dup"}, ProcedureArgumentError, LABEL_RULE),
    py("label-absolute-path", "dup", "load", {"table": DUP, "query": Q_DUP, "label": "/tmp/x"}, ProcedureArgumentError, LABEL_RULE),
    py("label-nul", "dup", "load", {"table": DUP, "query": Q_DUP, "label": "a\x00b"}, ProcedureArgumentError, r"label: 'a\\x00b'"),
    py("label-too-long", "dup", "load", {"table": DUP, "query": Q_DUP, "label": "x" * 129}, ProcedureArgumentError, r"\(129 characters\)"),
    py("label-empty", "dup", "load", {"table": DUP, "query": Q_DUP, "label": ""}, ProcedureArgumentError, LABEL_RULE),
    py("label-space", "dup", "load", {"table": DUP, "query": Q_DUP, "label": "my label"}, ProcedureArgumentError, LABEL_RULE),
    py("label-dot", "dup", "load", {"table": DUP, "query": Q_DUP, "label": "v1.2"}, ProcedureArgumentError, LABEL_RULE),
    py("label-quote", "dup", "load", {"table": DUP, "query": Q_DUP, "label": "it's"}, ProcedureArgumentError, r"label: 'it\\'s'"),
    py("label-unicode", "dup", "load", {"table": DUP, "query": Q_DUP, "label": "标签"}, ProcedureArgumentError, LABEL_RULE),
    py("label-backslash", "dup", "load", {"table": DUP, "query": Q_DUP, "label": "..\\x"}, ProcedureArgumentError, LABEL_RULE),
    py("label-number", "dup", "load", {"table": DUP, "query": Q_DUP, "label": 7}, ProcedureArgumentError, r"Wrong arg type for label: cannot cast bigint to string"),
    py("overwrite-label-traversal", "dup", "insert_overwrite", {"table": DUP, "query": Q_DUP, "label": "../x"}, ProcedureArgumentError, LABEL_RULE),
    py("label-used", "dup", "load", {"table": DUP, "query": Q_DUP, "label": "seed"}, LoadError,
       r"^Label \[seed\] has already been used on .*dup \(snapshot \d+\); a label loads once: choose a new one"),
    # --- numeric ranges and dates --------------------------------------------------------------
    py("ratio-above-one", "dup", "load", {"table": DUP, "query": Q_DUP, "max_filter_ratio": 5.0}, ProcedureArgumentError,
       r"^max_filter_ratio must between 0\.0 and 1\.0, got 5\.0: give the largest share of rows that may be filtered"),
    py("ratio-negative", "dup", "load", {"table": DUP, "query": Q_DUP, "max_filter_ratio": -1.0}, ProcedureArgumentError,
       r"^max_filter_ratio must between 0\.0 and 1\.0, got -1\.0"),
    py("ratio-nan", "dup", "load", {"table": DUP, "query": Q_DUP, "max_filter_ratio": float("nan")}, ProcedureArgumentError,
       r"^max_filter_ratio must between 0\.0 and 1\.0, got nan"),
    sql("ratio-just-above-one", "dup", f"CALL doris.load(table => '{DUP}', query => \"{Q_DUP}\", max_filter_ratio => 1.0000001)",
        r"max_filter_ratio must between 0\.0 and 1\.0"),
    py("cleanup-yesterday", "dup", "cleanup", {"table": DUP, "older_than": "yesterday"}, ProcedureArgumentError,
       r"^older_than must be a timestamp such as '2024-05-01 00:00:00' or a date such as '2024-05-01', got 'yesterday'; "
       r"for a time relative to now pass an expression, e\.g\. older_than => current_timestamp\(\) - INTERVAL 1 DAY"),
    py("cleanup-month-13", "dup", "cleanup", {"table": DUP, "older_than": "2024-13-01"}, ProcedureArgumentError, r"older_than must be a timestamp .*got '2024-13-01'"),
    py("cleanup-empty-date", "dup", "cleanup", {"table": DUP, "older_than": ""}, ProcedureArgumentError, r"older_than must be a timestamp"),
    py("cleanup-number-date", "dup", "cleanup", {"table": DUP, "older_than": 20240501}, ProcedureArgumentError, r"Wrong arg type for older_than: cannot cast bigint to timestamp"),
    py("cleanup-retain-zero", "dup", "cleanup", {"table": DUP, "retain_last": 0}, ProcedureArgumentError,
       r"^retain_last must be at least 1, got 0: the current snapshot is always kept"),
    py("cleanup-retain-negative", "dup", "cleanup", {"table": DUP, "retain_last": -1}, ProcedureArgumentError, r"^retain_last must be at least 1, got -1"),
    # --- table names given to procedures -------------------------------------------------------
    py("table-one-part", None, "describe", {"table": "nodots"}, ProcedureArgumentError, r"^Table name 'nodots' must be written db\.tbl .*e\.g\. 'sales\.orders'"),
    py("table-four-parts", None, "describe", {"table": "a.b.c.d"}, ProcedureArgumentError, r"must be written db\.tbl"),
    py("table-unbalanced-quote", None, "describe", {"table": "db.`x"}, ProcedureArgumentError, r"is not a valid name: backquote a part as a whole"),
    py("table-empty", None, "describe", {"table": ""}, ProcedureArgumentError, r"must be written db\.tbl"),
    py("table-nul", None, "describe", {"table": "{ns}.dup\x00"}, ProcedureArgumentError, r"contains a control character"),
    py("table-unknown", None, "describe", {"table": "{ns}.missing"}, TableNotFoundError,
       r"^Table bad_\w+\.missing does not exist in catalog \w+: check the name \(SHOW TABLES IN bad_\w+\) or create it"),
    py("table-unknown-namespace", None, "load", {"table": "no_such_ns.t", "query": Q_DUP}, TableNotFoundError, r"Table no_such_ns\.t does not exist"),
    py("table-traversal", None, "describe", {"table": "{ns}.../dup"}, ProcedureArgumentError, r"must be written db\.tbl"),
    py("table-quoted-traversal", None, "show_partitions", {"table": "{ns}.`../dup`"}, TableNotFoundError, r"Table bad_\w+\.`\.\./dup` does not exist"),
    # --- create_table: names Iceberg, the catalog or Spark SQL cannot serve ----------------------
    py("create-backquote-name", None, "create_table", {"ddl": ddl("{ns}.`a``b`")}, InvalidTableDefinitionError,
       r"^Incorrect table name 'a`b': it contains the character '`'\. " + TABLE_RULE),
    py("create-dot-name", None, "create_table", {"ddl": ddl("{ns}.`a.b`")}, InvalidTableDefinitionError, r"Incorrect table name 'a\.b': it contains the character '\.'"),
    py("create-slash-name", None, "create_table", {"ddl": ddl("{ns}.`../dup`")}, InvalidTableDefinitionError, r"Incorrect table name '\.\./dup'"),
    py("create-absolute-name", None, "create_table", {"ddl": ddl("{ns}.`/tmp/x`")}, InvalidTableDefinitionError, r"Incorrect table name '/tmp/x'"),
    py("create-nul-name", None, "create_table", {"ddl": ddl("{ns}.`a\x00b`")}, InvalidTableDefinitionError,
       r"Incorrect table name 'a\\x00b': it contains the control character \\x00"),
    py("create-space-name", None, "create_table", {"ddl": ddl("{ns}.`a b`")}, InvalidTableDefinitionError, r"it contains a space"),
    py("create-long-name", None, "create_table", {"ddl": ddl("{ns}.t" + "x" * 300)}, InvalidTableDefinitionError,
       r"\(301 characters\): it is 301 characters long, more than 64"),
    py("create-digit-first", None, "create_table", {"ddl": ddl("{ns}.`1abc`")}, InvalidTableDefinitionError, r"it does not start with a letter"),
    py("create-underscore-first", None, "create_table", {"ddl": ddl("{ns}._staging")}, InvalidTableDefinitionError, r"it does not start with a letter"),
    py("create-quote-name", None, "create_table", {"ddl": ddl("{ns}.`it's`")}, InvalidTableDefinitionError, r"Incorrect table name 'it\\'s'"),
    py("create-empty-name", None, "create_table", {"ddl": ddl("{ns}.``")}, DdlSyntaxError, r"Empty quoted identifier"),
    py("create-bad-namespace", None, "create_table", {"ddl": ddl("`bad ns`.t")}, InvalidTableDefinitionError,
       r"^Incorrect database name 'bad ns': it contains a space\. Create tables in a namespace whose name starts with a letter"),
    py("create-backquote-column", None, "create_table", {"ddl": ddl("{ns}.c1", "`k``x` INT", "DUPLICATE KEY(`k``x`) DISTRIBUTED BY HASH(`k``x`) BUCKETS 1")},
       InvalidTableDefinitionError, r"^Incorrect column name 'k`x': it contains a backquote"),
    py("create-nul-column", None, "create_table", {"ddl": ddl("{ns}.c2", "`k\x00` INT", "DUPLICATE KEY(`k\x00`) DISTRIBUTED BY HASH(`k\x00`) BUCKETS 1")},
       InvalidTableDefinitionError, r"Incorrect column name 'k\\x00': it contains the control character"),
    py("create-long-column", None, "create_table", {"ddl": ddl("{ns}.c3", "c" + "x" * 300 + " INT", "DISTRIBUTED BY RANDOM BUCKETS 1")},
       InvalidTableDefinitionError, r"more than 256"),
    py("create-unknown-namespace", None, "create_table", {"ddl": ddl("no_such_ns.t")}, TableStateError,
       r"^Unknown database 'no_such_ns': create it first with CREATE NAMESPACE no_such_ns"),
    py("create-existing", "dup", "create_table", {"ddl": ddl("{ns}.dup")}, TableStateError, r"^Table 'dup' already exists in bad_\w+"),
    py("create-other-catalog", None, "create_table", {"ddl": ddl("other.{ns}.t")}, ProcedureArgumentError, r"^Catalog other is not this session's catalog"),
    py("create-garbage", None, "create_table", {"ddl": "CREATE TABEL x (k INT)"}, DdlSyntaxError, r"\(line 1, column 8\)"),
    py("create-ctas", None, "create_table", {"ddl": "CREATE TABLE {ns}.x AS SELECT 1"}, DdlSyntaxError, r"CREATE TABLE \.\.\. AS SELECT is not supported"),
    py("create-partition-traversal", None, "create_table",
       {"ddl": ddl("{ns}.p1", "d DATE NOT NULL", "DUPLICATE KEY(d) PARTITION BY RANGE(d) (PARTITION `../x` VALUES LESS THAN ('2024-01-01')) DISTRIBUTED BY HASH(d) BUCKETS 1")},
       PartitionError, r"^Incorrect partition name '\.\./x': " + PARTITION_RULE),
    py("create-partition-space", None, "create_table",
       {"ddl": ddl("{ns}.p2", "d DATE NOT NULL", "DUPLICATE KEY(d) PARTITION BY RANGE(d) (PARTITION `p 1` VALUES LESS THAN ('2024-01-01')) DISTRIBUTED BY HASH(d) BUCKETS 1")},
       PartitionError, r"^Incorrect partition name 'p 1'"),
    # --- add_partition / drop_partition ------------------------------------------------------
    py("add-partition-traversal", "dup", "add_partition", {"table": DUP, "partition": "../x", "values_less_than": "2024-09-01"}, PartitionError,
       r"^Incorrect partition name '\.\./x': " + PARTITION_RULE),
    py("add-partition-slash", "dup", "add_partition", {"table": DUP, "partition": "a/b", "values_less_than": "2024-09-01"}, PartitionError, PARTITION_RULE),
    py("add-partition-nul", "dup", "add_partition", {"table": DUP, "partition": "p\x00", "values_less_than": "2024-09-01"}, PartitionError, r"'p\\x00'"),
    py("add-partition-long", "dup", "add_partition", {"table": DUP, "partition": "p" * 129, "values_less_than": "2024-09-01"}, PartitionError, r"\(129 characters\)"),
    py("add-partition-empty", "dup", "add_partition", {"table": DUP, "partition": "", "values_less_than": "2024-09-01"}, PartitionError, PARTITION_RULE),
    py("add-temp-partition-traversal", "dup", "add_partition",
       {"table": DUP, "partition": "../../x", "values_range": ["2024-02-01", "2024-03-01"], "temporary": True}, PartitionError, PARTITION_RULE),
    py("add-partition-duplicate", "dup", "add_partition", {"table": DUP, "partition": "p1", "values_less_than": "2024-09-01"}, PartitionError, r"Duplicate partition name p1"),
    py("add-partition-overlap", "dup", "add_partition", {"table": DUP, "partition": "p9", "values_range": ["2024-01-15", "2024-02-15"]}, PartitionError, r"is intersected with range"),
    py("add-partition-no-values", "dup", "add_partition", {"table": DUP, "partition": "p9"}, PartitionError, r"values_less_than, values_range or values_in"),
    py("add-partition-two-values", "dup", "add_partition",
       {"table": DUP, "partition": "p9", "values_less_than": "2024-09-01", "values_in": ["2024-09-01"]}, PartitionError, r"values_less_than, values_range or values_in"),
    py("add-partition-bad-date", "dup", "add_partition", {"table": DUP, "partition": "p9", "values_less_than": "not-a-date"}, PartitionError, r"not-a-date"),
    py("add-partition-unpartitioned", "flat", "add_partition", {"table": FLAT, "partition": "p9", "values_less_than": "10"}, PartitionError,
       r"^Only support adding partition to range and list partitioned table"),
    py("add-partition-three-bounds", "dup", "add_partition", {"table": DUP, "partition": "p9", "values_range": ["2024-03-01", "2024-04-01", "2024-05-01"]},
       PartitionError, r"^values_range must be two bounds: \[lower, upper\)"),
    py("add-partition-list-on-range", "dup", "add_partition", {"table": DUP, "partition": "p9", "values_in": ["2024-03-01"]}, PartitionError, r"(?i)list|range"),
    py("add-partition-range-on-list", "lst", "add_partition", {"table": LST, "partition": "p9", "values_less_than": "x"}, PartitionError, r"(?i)list|range"),
    py("add-list-overlap", "lst", "add_partition", {"table": LST, "partition": "p9", "values_in": ["bj"]}, PartitionError, r"bj"),
    py("drop-partition-unknown", "dup", "drop_partition", {"table": DUP, "partition": "nope"}, PartitionError, r"nope"),
    py("drop-temp-partition-unknown", "dup", "drop_partition", {"table": DUP, "partition": "nope", "temporary": True}, PartitionError, r"nope"),
    py("drop-partition-traversal", "dup", "drop_partition", {"table": DUP, "partition": "../../x"}, PartitionError, r"\.\./\.\./x"),
    py("drop-partition-unpartitioned", "flat", "drop_partition", {"table": FLAT, "partition": "p1"}, PartitionError, r"not partitioned|partitioned table"),
    # --- load: arguments ---------------------------------------------------------------------
    py("load-no-source", "dup", "load", {"table": DUP}, ProcedureArgumentError, r"^Give exactly one of source, query or path"),
    py("load-two-sources", "dup", "load", {"table": DUP, "query": Q_DUP, "path": "{files}/rows.csv"}, ProcedureArgumentError, r"^Give exactly one of source, query or path"),
    py("load-bad-merge-type", "uniq", "load", {"table": UNIQ, "query": Q_UNIQ, "merge_type": "UPSERT"}, ProcedureArgumentError,
       r"Invalid merge type UPSERT: use APPEND, MERGE, DELETE or NEGATIVE"),
    py("load-merge-without-delete-on", "uniq", "load", {"table": UNIQ, "query": Q_UNIQ, "merge_type": "MERGE"}, LoadError, r"Excepted DELETE ON clause when merge type is MERGE"),
    py("load-delete-on-with-append", "uniq", "load", {"table": UNIQ, "query": Q_UNIQ, "delete_on": "k = 1"}, LoadError, r"not support DELETE ON clause when merge type is not MERGE"),
    py("load-delete-on-duplicate-table", "dup", "load", {"table": DUP, "query": Q_DUP, "merge_type": "DELETE"}, LoadError, r"load by MERGE or DELETE is only supported in unique tables"),
    py("load-sequence-col-without-sequence", "flat", "load", {"table": FLAT, "query": "SELECT 2 AS k, 'y' AS v", "sequence_col": "k"}, LoadError,
       r"There is no sequence column in the table flat"),
    py("load-partitions-and-temp", "dup", "load", {"table": DUP, "query": Q_DUP, "partitions": ["p1"], "temporary_partitions": ["tp1"]}, ProcedureArgumentError,
       r"Give partitions or temporary_partitions, not both"),
    py("load-partitions-unpartitioned", "flat", "load", {"table": FLAT, "query": "SELECT 2 AS k, 'y' AS v", "partitions": ["p1"]}, LoadError,
       r"is not partitioned: remove the partitions argument"),
    py("load-temp-unpartitioned", "flat", "load", {"table": FLAT, "query": "SELECT 2 AS k, 'y' AS v", "temporary_partitions": ["tp1"]}, LoadError,
       r"^Temp partition\[tp1\] does not exist in .*flat; doris.add_temp_partition creates it"),
    py("load-unknown-partition", "dup", "load", {"table": DUP, "query": Q_DUP, "partitions": ["nope"]}, LoadError, r"^Partition\[nope\] does not exist in"),
    py("load-unknown-temp-partition", "dup", "load", {"table": DUP, "query": Q_DUP, "temporary_partitions": ["nope"]}, LoadError, r"^Temp partition\[nope\] does not exist in"),
    py("load-traversal-temp-partition", "dup", "load", {"table": DUP, "query": Q_DUP, "temporary_partitions": ["../../dup"]}, LoadError, r"^Temp partition\[\.\./\.\./dup\] does not exist"),
    py("load-missing-file", "dup", "load", {"table": DUP, "path": "{files}/missing.csv"}, LoadError, r"missing\.csv"),
    py("load-unknown-format", "dup", "load", {"table": DUP, "path": "{files}/rows.csv", "format": "xml"}, LoadError, r"xml"),
    py("load-unknown-extension", "dup", "load", {"table": DUP, "path": "{files}/notes.xml"}, LoadError, r"format"),
    py("load-query-not-select", "dup", "load", {"table": DUP, "query": "DROP TABLE {ns}.dup"}, LoadError, r"^query must be a query \(SELECT, WITH, VALUES, TABLE or FROM \.\.\.\), not a DROP statement"),
    py("load-query-two-statements", "dup", "load", {"table": DUP, "query": Q_DUP + "; SELECT 1"}, LoadError, r"query must be a single statement"),
    py("load-query-unknown-column", "dup", "load", {"table": DUP, "query": "SELECT nope FROM {ns}.dup"}, LoadError, r"^query cannot be run: .*nope"),
    py("load-query-insert", "dup", "load", {"table": DUP, "query": "INSERT INTO {ns}.dup SELECT * FROM {ns}.dup"}, LoadError, r"query must be a query"),
    py("load-source-unknown", "dup", "load", {"table": DUP, "source": "{ns}.nope"}, LoadError, r"source table or view bad_\w+\.nope does not exist"),
    py("load-source-empty", "dup", "load", {"table": DUP, "source": ""}, LoadError, r"source is an empty table name"),
    py("load-columns-syntax", "dup", "load", {"table": DUP, "query": Q_DUP, "columns": "dt, id, = x"}, LoadError, r"columns"),
    py("load-columns-unknown-source", "dup", "load", {"table": DUP, "query": Q_DUP, "columns": "dt, id, city, amount = nope * 2"}, LoadError, r"nope"),
    py("load-where-unknown-column", "dup", "load", {"table": DUP, "query": Q_DUP, "where": "nope > 1"}, LoadError, r"nope"),
    py("load-delete-on-unknown-column", "uniq", "load", {"table": UNIQ, "query": Q_UNIQ, "merge_type": "MERGE", "delete_on": "nope = 1"}, LoadError, r"nope"),
    py("load-overwrite-merge", "uniq", "load", {"table": UNIQ, "query": Q_UNIQ, "overwrite": True, "merge_type": "DELETE"}, LoadError,
       r"^merge_type DELETE cannot be combined with overwrite: the overwrite replaces the partitions' rows"),
    py("load-overwrite-partial", "uniq", "load", {"table": UNIQ, "query": Q_UNIQ, "overwrite": True, "partial_columns": True}, LoadError,
       r"^partial_columns cannot be combined with overwrite: an overwrite replaces whole rows"),
    py("load-sequence-col-hostile", "uniq", "load", {"table": UNIQ, "query": Q_UNIQ, "sequence_col": "s` + 1 + `s"}, LoadError,
       r"^sequence_col 's` \+ 1 \+ `s' is not a column of the load: name a column of the source"),
    # --- load: rows (nothing committed when too many are filtered) -------------------------------
    py("load-null-key", "uniq", "load", {"table": UNIQ, "query": "SELECT CAST(NULL AS INT) AS k, 'n' AS v, 1 AS s"}, LoadError,
       r"^too many filtered rows: 1 of 1 rows were filtered, more than max_filter_ratio 0\.0 \(first rejected row: column k is NOT NULL but the value is NULL\); nothing was committed to .*uniq\. The rejected rows and their reasons are in "),
    py("load-outside-partitions", "dup", "load", {"table": DUP, "query": "SELECT date'2030-01-01' AS dt, 1 AS id, 'x' AS city, 1L AS amount"}, LoadError,
       r"too many filtered rows: 1 of 1"),
    py("load-some-outside-partitions", "dup", "load", {"table": DUP, "path": "{files}/rows.csv", "max_filter_ratio": 0.4}, LoadError, r"too many filtered rows: 1 of 2"),
    py("load-varchar-too-long", "dup", "load", {"table": DUP, "query": "SELECT date'2024-01-07' AS dt, 1 AS id, 'far too long' AS city, 1L AS amount"}, LoadError,
       r"too many filtered rows"),
    py("load-bad-date-strict", "dup", "load", {"table": DUP, "query": "SELECT 'soon' AS dt, 1 AS id, 'x' AS city, 1L AS amount", "strict_mode": True}, LoadError,
       r"too many filtered rows"),
    py("load-malformed-json", "flat", "load", {"table": FLAT, "path": "{files}/bad.json"}, LoadError, r"too many filtered rows|malformed|JSON"),
    py("load-short-csv-row", "dup", "load", {"table": DUP, "path": "{files}/short.csv"}, LoadError, r"too many filtered rows"),
    py("load-null-not-null-column", "dup", "load", {"table": DUP, "query": "SELECT CAST(NULL AS DATE) AS dt, 1 AS id, 'x' AS city, 1L AS amount"}, LoadError,
       r"too many filtered rows"),
    py("load-sequence-value-missing", "uniq", "load", {"table": UNIQ, "query": "SELECT 7 AS k, 'g' AS v"}, LoadError,
       r"^Table uniq has sequence column, need to specify the sequence column: the load must supply column s"),
    py("load-sequence-value-mapped-away", "uniq", "load", {"table": UNIQ, "query": "SELECT 7 AS k, 'g' AS v, 3 AS x", "columns": "k, v, x"}, LoadError,
       r"need to specify the sequence column"),
    py("load-partial-without-key", "uniq", "load", {"table": UNIQ, "query": "SELECT 'g' AS v, 3 AS s", "partial_columns": True}, LoadError,
       r"^Partial update should include all key columns, missing: k; name every key column \(k\)"),
    py("load-into-unknown-list-value", "lst", "load", {"table": LST, "query": "SELECT 'gz' AS city, 1 AS n"}, LoadError, r"too many filtered rows"),
    # --- insert_overwrite ----------------------------------------------------------------------
    py("overwrite-unknown-partition", "dup", "insert_overwrite", {"table": DUP, "query": Q_DUP, "partitions": ["nope"]}, LoadError, r"^Partition\[nope\] does not exist in"),
    py("overwrite-column-count", "dup", "insert_overwrite", {"table": DUP, "query": "SELECT 1"}, LoadError, r"^Column count doesn't match value count"),
    py("overwrite-partitions-unpartitioned", "flat", "insert_overwrite", {"table": FLAT, "query": "SELECT 1, 'x'", "partitions": ["p1"]}, LoadError,
       r"is not partitioned: overwrite it without partitions"),
    py("overwrite-row-outside-named", "dup", "insert_overwrite", {"table": DUP, "query": Q_DUP.replace("2024-01-06", "2024-02-06"), "partitions": ["p1"]}, LoadError,
       r"Insert has filtered data in strict mode"),
    py("overwrite-missing-query", "dup", "insert_overwrite", {"table": DUP}, ProcedureArgumentError, r"Missing required parameters: \[query\]"),
    # --- swap / replace ------------------------------------------------------------------------
    py("swap-unknown-temp", "dup", "swap_temp_partition", {"table": DUP, "partitions": ["p1"], "temp_partitions": ["nope"]}, PartitionError, r"nope"),
    py("swap-unknown-formal", "dup", "swap_temp_partition", {"table": DUP, "partitions": ["nope"], "temp_partitions": ["tp1"]}, PartitionError, r"nope"),
    py("swap-range-mismatch", "dup", "swap_temp_partition", {"table": DUP, "partitions": ["p2"], "temp_partitions": ["tp1"]}, PartitionError, r"(?i)range"),
    py("replace-empty-lists", "dup", "replace_partition", {"table": DUP, "partitions": [], "temp_partitions": []}, PartitionError, r"No partition specified in partition lists"),
    py("replace-duplicate-names", "dup", "replace_partition", {"table": DUP, "partitions": ["p1", "p1"], "temp_partitions": ["tp1"]}, PartitionError,
       r"Duplicated partition name in partition lists: p1"),
    py("swap-unpartitioned", "flat", "swap_temp_partition", {"table": FLAT, "partitions": ["p1"], "temp_partitions": ["tp1"]}, PartitionError, r"partitioned"),
    # --- set_properties / dynamic partitions ----------------------------------------------------
    py("set-properties-empty", "dup", "set_properties", {"table": DUP, "properties": {}}, ProcedureArgumentError, r"properties is empty: give map\('key', 'value', \.\.\.\)"),
    py("set-properties-sequence", "uniq", "set_properties", {"table": UNIQ, "properties": {"function_column.sequence_col": "v"}}, ProcedureArgumentError,
       r"Cannot set function_column\.sequence_col: the sequence column is chosen when the table is created"),
    py("set-properties-mow", "uniq", "set_properties", {"table": UNIQ, "properties": {"enable_unique_key_merge_on_write": "false"}}, ProcedureArgumentError,
       r"Cannot set enable_unique_key_merge_on_write"),
    py("dynamic-bad-unit", "dup", "set_properties",
       {"table": DUP, "properties": {"dynamic_partition.enable": "true", "dynamic_partition.time_unit": "CENTURY", "dynamic_partition.end": "3", "dynamic_partition.prefix": "p"}},
       InvalidTableDefinitionError, r"Unsupported time unit CENTURY\. Expect HOUR/DAY/WEEK/MONTH/YEAR\."),
    py("dynamic-bad-enable", "dup", "set_properties",
       {"table": DUP, "properties": {"dynamic_partition.enable": "maybe", "dynamic_partition.time_unit": "DAY", "dynamic_partition.end": "3", "dynamic_partition.prefix": "p"}},
       InvalidTableDefinitionError,
       r"Invalid dynamic partition enable: maybe\. Expected true or false"),
    py("dynamic-positive-start", "dup", "set_properties",
       {"table": DUP, "properties": {"dynamic_partition.time_unit": "DAY", "dynamic_partition.start": "3", "dynamic_partition.end": "3", "dynamic_partition.prefix": "p"}},
       InvalidTableDefinitionError, r"Dynamic partition start must less than 0"),
    py("dynamic-unpartitioned", "flat", "set_properties", {"table": FLAT, "properties": {"dynamic_partition.enable": "true"}}, PartitionError,
       r"^Table \S+\.flat is not a dynamic partition table\. Use command `HELP ALTER TABLE`"),
    py("dynamic-bad-prefix", "dup", "set_properties",
       {"table": DUP, "properties": {"dynamic_partition.time_unit": "DAY", "dynamic_partition.end": "3", "dynamic_partition.prefix": "../p"}},
       InvalidTableDefinitionError, r"Invalid dynamic partition prefix: \.\./p\."),
    py("run-dynamic-not-enabled", "dup", "run_dynamic_partition", {"table": DUP}, DorisError, r"has no enabled dynamic partitions and no partition\.retention_count: set dynamic_partition\.enable"),
    # --- compact / show / describe ------------------------------------------------------------
    py("compact-unknown-partition", "dup", "compact", {"table": DUP, "partitions": ["nope"]}, PartitionError, r"^Partition\[nope\] does not exist in"),
    py("compact-partitions-unpartitioned", "flat", "compact", {"table": FLAT, "partitions": ["p1"]}, PartitionError, r"partitioned"),
    py("show-partitions-unknown-table", None, "show_partitions", {"table": "{ns}.missing"}, TableNotFoundError, r"does not exist"),
    py("describe-unknown-table", None, "describe", {"table": "{ns}.missing"}, TableNotFoundError, r"does not exist"),
    py("cleanup-unknown-table", None, "cleanup", {"table": "{ns}.missing"}, TableNotFoundError, r"does not exist"),
]


def test_catalogue_is_big_enough_and_ids_unique():
    assert len(CASES) >= 100
    assert len({case.id for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input_is_a_clear_error_and_changes_nothing(spark, lake, case):
    with pytest.raises(Exception) as raised:
        if case.call[0] == "py":
            _, procedure, kwargs = case.call
            getattr(doris, procedure)(spark, **lake.fill(kwargs))
        else:
            spark.sql(lake.fill(case.call[1])).collect()
    error = raised.value
    message = str(error)
    assert isinstance(error, case.error), f"{type(error).__name__}: {message}"
    if case.call[0] == "py":
        assert isinstance(error, DorisError), f"{type(error).__name__}: {message}"
    assert re.search(case.message, message), message
    assert not any(leak in message for leak in LEAKS), message
    assert len(message) < 1000, message
    assert state(spark, lake) == lake.initial_state
    if case.table:
        assert table_rows(spark, lake, case.table) == lake.initial_rows[case.table]


def test_bad_tombstone_retention_property_is_a_clear_error(spark, lake):
    table = f"{lake.ns}.uniq"
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('doris.tombstone-retention-hours' = 'a week')")
    try:
        with pytest.raises(TableStateError, match=r"has doris\.tombstone-retention-hours = 'a week', which is not a number of hours >= 0: set it with ALTER TABLE"):
            doris.compact(spark, table=table)
        assert state(spark, lake) == lake.initial_state
    finally:
        spark.sql(f"ALTER TABLE {table} UNSET TBLPROPERTIES ('doris.tombstone-retention-hours')")

