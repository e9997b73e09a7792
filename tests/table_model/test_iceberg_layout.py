"""The Doris-partition -> Iceberg-spec rule (pure)."""

from __future__ import annotations

import pytest

from iceberg_doris.ddl import parse_create_table
from iceberg_doris.table_model import choose_layout, data_path_properties, model_from_definition


def layout(ddl: str) -> list[str]:
    return [f.text for f in choose_layout(model_from_definition(parse_create_table(ddl)))]


@pytest.mark.parametrize(
    ("partition_clause", "expected"),
    [
        ('PARTITION BY RANGE(d) (PARTITION p1 VALUES LESS THAN ("2024-01-01"), PARTITION p2 VALUES LESS THAN ("2025-01-01"))', ["year(d)"]),
        ('PARTITION BY RANGE(d) (PARTITION p1 VALUES LESS THAN ("2024-02-01"), PARTITION p2 VALUES LESS THAN ("2024-03-01"))', ["month(d)"]),
        ('PARTITION BY RANGE(d) (PARTITION p1 VALUES [("2024-02-01"), ("2024-02-15")))', ["day(d)"]),
        ('PARTITION BY RANGE(ts) (PARTITION p1 VALUES LESS THAN ("2024-02-01 06:00:00"))', ["hour(ts)"]),
        ('PARTITION BY RANGE(ts) (PARTITION p1 VALUES LESS THAN ("2024-02-01 06:30:00"))', ["ts"]),
        ('PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN ("100"), PARTITION p2 VALUES LESS THAN ("250"))', ["truncate(50, k)"]),
        ('PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN ("20240102"), PARTITION p2 VALUES LESS THAN ("20240103"))', ["k"]),
        ('PARTITION BY LIST(city) (PARTITION p1 VALUES IN ("a", "b"))', ["city"]),
        ("AUTO PARTITION BY RANGE (date_trunc(ts, 'week')) ()", ["day(ts)"]),
        ("AUTO PARTITION BY RANGE (date_trunc(ts, 'quarter')) ()", ["month(ts)"]),
        ("AUTO PARTITION BY RANGE (date_trunc(ts, 'minute')) ()", ["ts"]),
        ('PARTITION BY RANGE(d, k) (PARTITION p1 VALUES LESS THAN ("2024-01-01", "5"))', ["d", "k"]),
        ('PARTITION BY RANGE(d, k) (PARTITION p1 VALUES LESS THAN ("2024-01-01"))', ["year(d)"]),
    ],
)
def test_partition_fields_follow_doris_partitions(partition_clause, expected):
    ddl = (
        "CREATE TABLE db.t (k INT NOT NULL, d DATE NOT NULL, ts DATETIME NOT NULL, city VARCHAR(10) NOT NULL, v INT) "
        f"DUPLICATE KEY(k, d, ts, city) {partition_clause} DISTRIBUTED BY HASH(k) BUCKETS AUTO"
    )
    assert layout(ddl) == expected


def test_hash_buckets_become_a_bucket_field():
    ddl = "CREATE TABLE db.t (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 8"
    assert layout(ddl) == ["bucket(8, k)"]


def test_dynamic_time_unit_bounds_the_transform():
    ddl = (
        "CREATE TABLE db.t (d DATE NOT NULL, v INT) DUPLICATE KEY(d) PARTITION BY RANGE(d) () "
        "DISTRIBUTED BY HASH(d) BUCKETS AUTO PROPERTIES ('dynamic_partition.enable'='true', "
        "'dynamic_partition.time_unit'='DAY', 'dynamic_partition.start'='-3', 'dynamic_partition.end'='3', "
        "'dynamic_partition.prefix'='p')"
    )
    assert layout(ddl) == ["day(d)"]


@pytest.mark.parametrize(
    ("partition_clause", "value_free"),
    [
        ('PARTITION BY LIST(city) (PARTITION p1 VALUES IN ("a", "b"))', True),
        ("AUTO PARTITION BY LIST(city) ()", True),
        ('PARTITION BY LIST(k) (PARTITION p1 VALUES IN ("1"))', False),
        ('PARTITION BY RANGE(d) (PARTITION p1 VALUES LESS THAN ("2024-01-01"))', False),
        ("", False),
    ],
)
def test_string_identity_fields_keep_values_out_of_file_paths(partition_clause, value_free):
    ddl = (
        "CREATE TABLE db.t (k INT NOT NULL, d DATE NOT NULL, city VARCHAR(10) NOT NULL, v INT) "
        f"DUPLICATE KEY(k, d, city) {partition_clause} DISTRIBUTED BY HASH(city) BUCKETS 4"
    )
    model = model_from_definition(parse_create_table(ddl))
    expected = {"write.object-storage.enabled": "true", "write.object-storage.partitioned-paths": "false"}
    assert data_path_properties(model, choose_layout(model)) == (expected if value_free else {})
