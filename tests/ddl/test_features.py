"""The rule over the DDL grammar: every clause, column attribute and property ``create_table``
parses is implemented as Doris has it or refused by name; nothing is accepted and ignored.

The clauses and attributes come from the parser's own tables (``ddl.parser.CLAUSES``,
``ddl.parser.COLUMN_ATTRIBUTES``), so one added there without a decision in ``ddl.features`` and a
statement here fails these tests. The statements are Doris's own where it has one (paths in
apache/doris's regression-test/suites cited beside them).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from iceberg_doris.ddl import parse_create_table
from iceberg_doris.ddl.features import (
    CLAUSE_FEATURES,
    COLUMN_FEATURES,
    PARTITION_PROPERTIES,
    PROPERTY_FEATURES,
    PROPERTY_PREFIX_FEATURES,
    Support,
    check_properties,
    property_feature,
)
from iceberg_doris.ddl.parser import CLAUSES, COLUMN_ATTRIBUTES, parse_statement
from iceberg_doris.errors import DdlSyntaxError, InvalidTableDefinitionError
from iceberg_doris.table_model import model_from_definition

DOCS = Path(__file__).resolve().parents[2] / "docs" / "doris-features.md"

UNIQUE = "CREATE TABLE t (k INT NOT NULL, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
RANGE = (
    "CREATE TABLE t (k DATE NOT NULL, v INT) DUPLICATE KEY(k) PARTITION BY RANGE(k) "
    '(PARTITION p1 VALUES LESS THAN ("2024-01-01")) DISTRIBUTED BY HASH(k) BUCKETS 1'
)

# One statement per clause of ddl.parser.CLAUSES that uses it.
CLAUSE_STATEMENTS = {
    "EXTERNAL": "CREATE EXTERNAL TABLE t (k INT)",
    "TEMPORARY": "CREATE TEMPORARY TABLE t (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    "IF NOT EXISTS": "CREATE TABLE IF NOT EXISTS t (k INT)",
    "LIKE": "CREATE TABLE t LIKE other",
    "AS SELECT": "CREATE TABLE t AS SELECT 1",
    "catalog.db.tbl": "CREATE TABLE internal.db.t (k INT)",
    "INDEX": "CREATE TABLE t (k INT, s VARCHAR(10), INDEX i (s) USING INVERTED)",
    "ENGINE": "CREATE TABLE t (k INT) ENGINE = OLAP",
    "DUPLICATE KEY": "CREATE TABLE t (k INT, v INT) DUPLICATE KEY(k)",
    "UNIQUE KEY": UNIQUE,
    "AGGREGATE KEY": "CREATE TABLE t (k INT, v INT SUM) AGGREGATE KEY(k)",
    "CLUSTER BY": "CREATE TABLE t (k INT, v INT) UNIQUE KEY(k) CLUSTER BY (v) DISTRIBUTED BY HASH(k) BUCKETS 1",
    "COMMENT": "CREATE TABLE t (k INT) COMMENT 'a table'",
    "PARTITION BY RANGE": RANGE,
    "PARTITION BY LIST": (
        "CREATE TABLE t (k INT NOT NULL) PARTITION BY LIST(k) (PARTITION p1 VALUES IN (1)) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1"
    ),
    "AUTO PARTITION": (
        "CREATE TABLE t (k DATE NOT NULL) AUTO PARTITION BY RANGE (date_trunc(k, 'day')) () "
        "DISTRIBUTED BY HASH(k) BUCKETS 1"
    ),
    "FROM TO INTERVAL": (
        "CREATE TABLE t (k DATE NOT NULL) PARTITION BY RANGE(k) "
        '(FROM ("2024-01-01") TO ("2024-01-04") INTERVAL 1 DAY) DISTRIBUTED BY HASH(k) BUCKETS 1'
    ),
    "DISTRIBUTED BY HASH": "CREATE TABLE t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 2",
    "DISTRIBUTED BY RANDOM": "CREATE TABLE t (k INT) DUPLICATE KEY(k) DISTRIBUTED BY RANDOM BUCKETS 2",
    "ROLLUP": "CREATE TABLE t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 ROLLUP (r (v, k))",
    "PROPERTIES": 'CREATE TABLE t (k INT) PROPERTIES ("replication_num" = "1")',
}

# One statement per attribute of ddl.parser.COLUMN_ATTRIBUTES that uses it, on column c.
ATTRIBUTE_STATEMENTS = {
    "KEY": "CREATE TABLE t (c INT KEY, v INT) DUPLICATE KEY(c)",
    "aggregate type": "CREATE TABLE t (k INT, c INT MAX) AGGREGATE KEY(k)",
    "generated expression": "CREATE TABLE t (k INT, c INT AS (k + 1)) DUPLICATE KEY(k)",
    "NULL/NOT NULL": "CREATE TABLE t (k INT, c INT NOT NULL) DUPLICATE KEY(k)",
    # regression-test/suites/data_model_p0/unique/test_unique_table_auto_inc.groovy
    "AUTO_INCREMENT": (
        'CREATE TABLE t (`c` BIGINT NOT NULL AUTO_INCREMENT COMMENT "ID", `name` varchar(65533) NOT NULL, '
        "`value` int(11) NOT NULL) ENGINE=OLAP UNIQUE KEY(`c`) DISTRIBUTED BY HASH(`c`) BUCKETS 1 "
        'PROPERTIES ("replication_allocation" = "tag.location.default: 1", "in_memory" = "false", '
        '"storage_format" = "V2", "enable_unique_key_merge_on_write" = "true")'
    ),
    "DEFAULT": "CREATE TABLE t (k INT, c INT DEFAULT '3') DUPLICATE KEY(k)",
    # regression-test/suites/unique_with_mow_c_p0/partial_update/test_update_on_current_timestamp.groovy
    "ON UPDATE CURRENT_TIMESTAMP": (
        "CREATE TABLE t (`id` int(11) NOT NULL, `score` int(11) NOT NULL, "
        "`c` datetime default current_timestamp on update current_timestamp) "
        'UNIQUE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1 '
        'PROPERTIES("replication_num" = "1", "enable_unique_key_merge_on_write" = "true")'
    ),
    "COMMENT": "CREATE TABLE t (k INT, c INT COMMENT 'a column') DUPLICATE KEY(k)",
}

# A statement each implemented property is valid in ({value} is replaced).
PROPERTY_STATEMENTS = {
    "enable_unique_key_merge_on_write": (UNIQUE + ' PROPERTIES ("enable_unique_key_merge_on_write" = "false")'),
    "function_column.sequence_col": (
        "CREATE TABLE t (k INT NOT NULL, s INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        'PROPERTIES ("function_column.sequence_col" = "s")'
    ),
    "function_column.sequence_type": UNIQUE + ' PROPERTIES ("function_column.sequence_type" = "int")',
    "enable_duplicate_without_keys_by_default": (
        'CREATE TABLE t (k INT) PROPERTIES ("enable_duplicate_without_keys_by_default" = "true")'
    ),
    "replace_version_column": (
        "CREATE TABLE t (k INT NOT NULL, ver INT REPLACE, v INT REPLACE) AGGREGATE KEY(k) "
        'DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replace_version_column" = "ver")'
    ),
    "use_simple_auto_partition_name": (
        "CREATE TABLE t (k DATE NOT NULL) AUTO PARTITION BY RANGE (date_trunc(k, 'day')) () "
        'DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("use_simple_auto_partition_name" = "true")'
    ),
    "disable_auto_compaction": 'CREATE TABLE t (k INT) PROPERTIES ("disable_auto_compaction" = "true")',
    "catalog_trash_expire_second": 'CREATE TABLE t (k INT) PROPERTIES ("catalog_trash_expire_second" = "60")',
    "format-version": 'CREATE TABLE t (k INT) PROPERTIES ("format-version" = "2")',
    # regression-test/suites/unique_with_mow_p0/flexible/test_flexible_partial_update_property.groovy
    "enable_unique_key_skip_bitmap_column": UNIQUE + ' PROPERTIES ("enable_unique_key_skip_bitmap_column" = "true")',
    # regression-test/suites/partition_p0/auto_partition/test_auto_new_recycle.groovy
    "partition.retention_count": (
        "CREATE TABLE t (k0 datetime(6) not null) AUTO PARTITION BY RANGE (date_trunc(k0, 'day')) () "
        'DISTRIBUTED BY HASH(`k0`) BUCKETS 1 PROPERTIES ("partition.retention_count" = "3")'
    ),
}


def _refusal(sql: str) -> str:
    with pytest.raises((InvalidTableDefinitionError, DdlSyntaxError)) as raised:
        parse_create_table(sql)
    return str(raised.value)


def test_every_clause_and_attribute_of_the_parser_has_a_decision_and_a_statement():
    assert set(CLAUSE_FEATURES) == set(CLAUSES)
    assert set(CLAUSE_STATEMENTS) == set(CLAUSES)
    assert set(COLUMN_FEATURES) == set(COLUMN_ATTRIBUTES)
    assert set(ATTRIBUTE_STATEMENTS) == set(COLUMN_ATTRIBUTES)


@pytest.mark.parametrize("clause", CLAUSES)
def test_each_clause_is_implemented_or_refused_by_name(clause):
    sql = CLAUSE_STATEMENTS[clause]
    feature = CLAUSE_FEATURES[clause]
    if feature.support is Support.REFUSED:
        message = _refusal(sql)
        assert clause.split()[0].upper() in message.upper()
        assert "not support" in message
    else:
        assert clause in parse_statement(sql).clauses
        parse_create_table(sql)


@pytest.mark.parametrize("attribute", COLUMN_ATTRIBUTES)
def test_each_column_attribute_is_implemented_or_refused_by_name(attribute):
    sql = ATTRIBUTE_STATEMENTS[attribute]
    assert ("c", attribute) in parse_statement(sql).column_attributes
    if COLUMN_FEATURES[attribute].support is Support.REFUSED:
        message = _refusal(sql)
        assert message.startswith(f"{attribute} (column c) is not supported by iceberg-doris: ")
    else:
        parse_create_table(sql)


@pytest.mark.parametrize("name", sorted(PROPERTY_FEATURES))
def test_each_property_is_implemented_kept_or_refused_by_name(name):
    feature = PROPERTY_FEATURES[name]
    if feature.support is Support.REFUSED:
        message = _refusal(UNIQUE + f' PROPERTIES ("{name}" = "3")')
        assert message.startswith(f'Property "{name}" is not supported by iceberg-doris: ')
        return
    if feature.support is Support.STORAGE_ONLY:
        sql = f'CREATE TABLE t (k INT) PROPERTIES ("{name}" = "1")'
    else:
        sql = PROPERTY_STATEMENTS[name]
    model = model_from_definition(parse_create_table(sql))
    assert name in model.properties  # kept, and shown by describe


def test_dynamic_partition_properties_are_the_only_prefix_and_are_validated():
    assert set(PROPERTY_PREFIX_FEATURES) == {"dynamic_partition."}
    assert property_feature("Dynamic_Partition.enable") is PROPERTY_PREFIX_FEATURES["dynamic_partition."]
    with pytest.raises(InvalidTableDefinitionError, match="^Invalid dynamic partition properties: dynamic_partition.foo"):
        model_from_definition(parse_create_table(RANGE + ' PROPERTIES ("dynamic_partition.foo" = "1")'))


def test_an_unknown_property_is_refused_with_doris_message():
    # Doris: InternalCatalog.createOlapTable, "Unknown properties: " + the map left after analysis.
    message = _refusal('CREATE TABLE t (k INT) PROPERTIES ("replication_num" = "1", "no_such_thing" = "x")')
    assert message.startswith("Unknown properties: {no_such_thing=x}")
    with pytest.raises(InvalidTableDefinitionError, match=r"^Unknown properties: \{a=b\}"):
        check_properties({"a": "b"})


def test_partition_properties_are_storage_settings_only():
    ok = (
        "CREATE TABLE t (k DATE NOT NULL) PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN "
        '("2022-01-01") ("storage_policy" = "policy_1", "replication_num" = "1")) DISTRIBUTED BY HASH(k) BUCKETS 1'
    )
    parse_create_table(ok)
    message = _refusal(ok.replace('"storage_policy"', '"dynamic_partition.enable"'))
    assert message.startswith("Unknown properties: {dynamic_partition.enable=policy_1} (partition p1)")
    batch = (
        "CREATE TABLE t (k DATE NOT NULL) PARTITION BY RANGE(k) "
        '(FROM ("2024-01-01") TO ("2024-01-04") INTERVAL 1 DAY ("bogus" = "1")) DISTRIBUTED BY HASH(k) BUCKETS 1'
    )
    assert _refusal(batch).startswith("Unknown properties: {bogus=1} (partition FROM ... TO ... INTERVAL)")
    assert "replication_num" in PARTITION_PROPERTIES


def _model_refusal(sql: str) -> str:
    with pytest.raises(InvalidTableDefinitionError) as raised:
        model_from_definition(parse_create_table(sql))
    return str(raised.value)


AUTO_RECYCLE = "CREATE TABLE auto_recycle (k0 datetime(6) not null) {partition} DISTRIBUTED BY HASH(`k0`) BUCKETS 1 "


def test_partition_retention_count_is_kept_on_an_auto_range_table():
    # regression-test/suites/partition_p0/auto_partition/test_auto_partition_retention_restart.groovy and
    # test_auto_new_recycle.groovy: without AUTO too ("partition by range (date_trunc(k0, 'day')) ()").
    sql = AUTO_RECYCLE.format(partition="PARTITION BY RANGE (date_trunc(k0, 'day')) ()")
    model = model_from_definition(parse_create_table(sql + 'properties("partition.retention_count" = "3")'))
    assert model.retention_count() == 3


def test_partition_retention_count_is_validated_with_doris_messages():
    # regression-test/suites/partition_p0/auto_partition/test_auto_new_recycle.groovy
    auto_range = AUTO_RECYCLE.format(partition="AUTO PARTITION BY RANGE (date_trunc(k0, 'day')) ()")
    dynamic = (
        'properties("dynamic_partition.enable" = "true", "dynamic_partition.time_unit" = "DAY", '
        '"dynamic_partition.start" = "-1", "dynamic_partition.end" = "2", "dynamic_partition.prefix" = "p", '
        '"dynamic_partition.create_history_partition" = "true", "replication_num" = "1", '
        '"partition.retention_count" = "3")'
    )
    assert _model_refusal(auto_range + dynamic) == (
        "Please remove dynamic_partition properties when partition.retention_count enabled"
    )
    auto_list = AUTO_RECYCLE.format(partition="AUTO PARTITION BY LIST (k0) ()")
    retention = 'properties("replication_num" = "1", "partition.retention_count" = "3")'
    assert _model_refusal(auto_list + retention) == "Only AUTO RANGE PARTITION table could set partition.retention_count"
    assert _model_refusal(RANGE + ' PROPERTIES ("partition.retention_count" = "3")') == (
        "Only AUTO RANGE PARTITION table could set partition.retention_count"
    )
    for value in ("0", "-2", "three"):
        message = _model_refusal(auto_range + f'properties("partition.retention_count" = "{value}")')
        assert message.startswith("partition.retention_count should be > 0"), message


def test_a_column_marked_key_must_be_a_key_column():
    message = _refusal("CREATE TABLE t (k INT, v INT KEY) DUPLICATE KEY(k)")
    assert message == "Column v is marked KEY but is not a key column of the table (keys: k): add it to the KEY clause or remove KEY"
    assert parse_create_table("CREATE TABLE t (k INT KEY, v INT) DUPLICATE KEY(k)").key_columns == ("k",)


def test_cluster_keys_are_ascending_with_nulls_first_only():
    # regression-test/suites/unique_with_mow_c_p0/test_create_table.groovy ("order keys only asc and nulls first")
    table = (
        'CREATE TABLE t (`c_custkey` int(11) NOT NULL COMMENT "", `c_name` varchar(26) NOT NULL COMMENT "") '
        "UNIQUE KEY (`c_custkey`) ORDER BY ({}) DISTRIBUTED BY HASH(`c_custkey`) BUCKETS 1 "
        'PROPERTIES ("replication_num" = "1", "enable_unique_key_merge_on_write" = "true")'
    )
    assert _refusal(table.format("`c_custkey` desc")) == "Order keys only support ASC in OLAP table"
    assert _refusal(table.format("`c_custkey` asc NULLS LAST")) == "Order keys only support NULLS FIRST in OLAP table"
    assert _refusal(table.format("`c_name` NULLS LAST").replace("ORDER BY", "CLUSTER BY")) == (
        "Cluster keys only support NULLS FIRST in OLAP table"
    )
    assert parse_create_table(table.format("`c_name` ASC NULLS FIRST")).cluster_by == ("c_name",)


@pytest.mark.parametrize(
    "partition",
    ["", "PARTITION BY LIST(k) () "],
    ids=["unpartitioned", "list"],
)
def test_dynamic_partition_properties_need_a_range_partition(partition):
    # fe/fe-core/src/test/java/org/apache/doris/catalog/CreateTableTest.java ("tbl19": LIST with dynamic
    # properties) and DynamicPartitionTableTest (no PARTITION BY): Doris's InternalCatalog message.
    sql = (
        f"CREATE TABLE t (k DATE NOT NULL) {partition}DISTRIBUTED BY HASH(k) PROPERTIES ("
        '"dynamic_partition.enable" = "true", "dynamic_partition.time_unit" = "MONTH", '
        '"dynamic_partition.end" = "2", "dynamic_partition.prefix" = "p")'
    )
    with pytest.raises(InvalidTableDefinitionError) as raised:
        model_from_definition(parse_create_table(sql))
    assert str(raised.value) == "Only support dynamic partition properties on range partition table"


def _docs_rows() -> dict[str, dict[str, str]]:
    """Section heading -> first cell (without backquotes) -> second cell, for the docs' tables."""
    sections: dict[str, dict[str, str]] = {}
    rows: dict[str, str] = {}
    for line in DOCS.read_text().splitlines():
        if line.startswith("## "):
            rows = sections.setdefault(line[3:].strip(), {})
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells[1]
    return sections


def test_the_docs_table_lists_every_clause_attribute_and_property_with_its_decision():
    sections = _docs_rows()
    tables = {
        "Clauses": list(CLAUSE_FEATURES.values()),
        "Column attributes": list(COLUMN_FEATURES.values()),
        "Properties": list(PROPERTY_FEATURES.values()) + list(PROPERTY_PREFIX_FEATURES.values()),
    }
    wanted = {"as Doris": Support.AS_DORIS, "storage only": Support.STORAGE_ONLY, "refused": Support.REFUSED}
    for section, features in tables.items():
        rows = sections[section]
        for feature in features:
            name = feature.name + ("*" if feature.name.endswith(".") else "")
            assert name in rows, f"docs/doris-features.md, {section}: no row for {name}"
            decision = re.sub(r"[*_]", "", rows[name]).strip()
            assert wanted.get(decision) is feature.support, (
                f"{section}, {name}: the docs say {decision!r}, the code {feature.support.value!r}"
            )
        assert set(rows) == {f.name + ("*" if f.name.endswith(".") else "") for f in features}, section



def test_keys_declared_null_are_nullable_and_keys_without_nullability_are_not_null():
    # Doris keeps one NULL key in a key column declared NULL (data_model_p0/unique/test_unique_table.groovy,
    # `k1` int NULL); a key column written without NULL / NOT NULL, nullable in Doris
    # (ColumnNullableType.DEFAULT), stays NOT NULL here, an Iceberg identifier field, as
    # docs/doris-features.md, README and docs/merge-on-write.md say.
    unique = model_from_definition(parse_create_table(
        "CREATE TABLE t (k INT NULL, j INT, v INT NULL) UNIQUE KEY(k, j) DISTRIBUTED BY HASH(k) BUCKETS 1"
    ))
    assert [unique.column(c).nullable for c in ("k", "j", "v")] == [True, False, True]
    assert unique.null_safe_keys
    aggregate = model_from_definition(parse_create_table(
        "CREATE TABLE t (k INT, v INT SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
    ))
    assert not aggregate.column("k").nullable and not aggregate.null_safe_keys
    duplicate = model_from_definition(parse_create_table("CREATE TABLE t (k INT NULL, v INT) DUPLICATE KEY(k)"))
    assert duplicate.column("k").nullable


def test_the_docs_table_lists_every_feature_enable_feature_takes():
    # Doris's EnableFeatureOp.Features (fe/fe-core/.../nereids/trees/plans/commands/info/EnableFeatureOp.java).
    from iceberg_doris.operations.enable_feature import FEATURES

    rows = _docs_rows()["ALTER TABLE ... ENABLE FEATURE"]
    assert {name: re.sub(r"[*_]", "", decision).strip() for name, decision in rows.items()} == {
        "SEQUENCE_LOAD": "as Doris", "BATCH_DELETE": "as Doris", "UPDATE_FLEXIBLE_COLUMNS": "as Doris",
    }
    assert set(rows) == set(FEATURES)


def test_the_skip_bitmap_property_is_true_or_false_on_merge_on_write_unique_tables():
    # regression-test/suites/unique_with_mow_p0/flexible/test_flexible_partial_update_restricts.groovy
    # (restricts3: "false" is left out of SHOW CREATE TABLE)
    off = model_from_definition(parse_create_table(UNIQUE + ' PROPERTIES ("enable_unique_key_skip_bitmap_column" = "false")'))
    assert "enable_unique_key_skip_bitmap_column" not in off.properties and not off.skip_bitmap
    on = model_from_definition(parse_create_table(UNIQUE + ' PROPERTIES ("enable_unique_key_skip_bitmap_column" = "TRUE")'))
    assert on.properties["enable_unique_key_skip_bitmap_column"] == "true" and on.skip_bitmap
    with pytest.raises(InvalidTableDefinitionError, match="must be `true` or `false`"):
        model_from_definition(parse_create_table(UNIQUE + ' PROPERTIES ("enable_unique_key_skip_bitmap_column" = "yes")'))
    mor = ' PROPERTIES ("enable_unique_key_merge_on_write" = "false", "enable_unique_key_skip_bitmap_column" = "true")'
    with pytest.raises(InvalidTableDefinitionError, match="needs a merge-on-write UNIQUE KEY table"):
        model_from_definition(parse_create_table(UNIQUE + mor))
