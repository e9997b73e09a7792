"""LIST partitions: value checks with Doris's messages, and Doris's list texts."""

from __future__ import annotations

import datetime as dt

import pytest

from iceberg_doris.errors import PartitionError
from iceberg_doris.partitioning import MAX, ListPartition, PartitionColumnType, make_list_values

T = PartitionColumnType


def test_single_and_multi_column_values():
    assert make_list_values(["1", "2", "3"], [T.INT]) == ((1,), (2,), (3,))
    assert make_list_values("Beijing", [T.VARCHAR]) == (("Beijing",),)
    keys = make_list_values([("1", "beijing"), ("1", "shanghai")], [T.INT, T.VARCHAR])
    assert keys == ((1, "beijing"), (1, "shanghai"))
    assert make_list_values(["2020-01-01"], [T.DATEV2]) == ((dt.date(2020, 1, 1),),)


def test_null_needs_a_nullable_column():
    assert make_list_values([None], [T.VARCHAR], [True]) == ((None,),)
    with pytest.raises(PartitionError) as info:
        make_list_values([None], [T.VARCHAR], [False])
    assert str(info.value) == "Can't have null partition is for NOT NULL partition column in partition expr's index 0"
    with pytest.raises(PartitionError, match="partition expr's index 1$"):
        make_list_values([("1", None)], [T.INT, T.VARCHAR], [True, False])


def test_maxvalue_is_refused():
    with pytest.raises(PartitionError) as info:
        make_list_values(["1", "MAXVALUE"], [T.INT])
    assert str(info.value).startswith("MAXVALUE is not allowed in LIST partition")
    with pytest.raises(PartitionError, match="MAXVALUE is not allowed in LIST partition"):
        make_list_values([MAX], [T.VARCHAR])
    # a quoted 'MAXVALUE' in a string column is just a value
    assert make_list_values(["MAXVALUE"], [T.VARCHAR]) == (("MAXVALUE",),)


def test_duplicates_and_arity():
    with pytest.raises(PartitionError) as info:
        make_list_values(["1", "1"], [T.INT])
    assert str(info.value) == "The partition key[('1','1')] has duplicate item [(\"1\")]."
    with pytest.raises(PartitionError, match=r"partition key desc list size\[1\] is not equal to partition column size\[2\]"):
        make_list_values([("1",)], [T.INT, T.VARCHAR])


def test_literal_errors_propagate():
    with pytest.raises(PartitionError, match=r"Number out of range\[3000\]. type: tinyint"):
        make_list_values(["3000"], [T.TINYINT])


def test_item_texts():
    p = ListPartition.of("p2", ["4", "5", "6"], [T.INT])
    assert p.item_sql() == '(("4"),("5"),("6"))'
    assert ListPartition.of("p", ["4"], [T.INT]).item_sql() == '("4")'
    assert p.item_string() == (
        "partitionKeys: [types: [INT]; keys: [4]; types: [INT]; keys: [5]; types: [INT]; keys: [6]; ]; "
    )
    assert p.range_text() == "[types: [INT]; keys: [4]; , types: [INT]; keys: [5]; , types: [INT]; keys: [6]; ]"
    m = ListPartition.of("m", [("1", "beijing")], [T.INT, T.VARCHAR])
    assert m.item_sql() == '("1", "beijing")'
    assert m.values_sql() == '(("1", "beijing"))'
    assert p.values_sql() == '("4","5","6")'


def test_contains_and_overlap():
    p = ListPartition.of("p", ["a", None], [T.VARCHAR], nullable=True)
    assert p.contains("a") and p.contains(None) and not p.contains("A")
    q = ListPartition.of("q", ["b", "a"], [T.VARCHAR])
    assert p.overlap(q) == ("a",)
    assert ListPartition.of("r", ["z"], [T.VARCHAR]).overlap(q) is None
    d = ListPartition.of("d", ["2020-01-01 00:00:00"], [T.DATETIMEV2])
    assert d.contains(dt.date(2020, 1, 1))  # coerced to the column type


def test_plain_construction_normalizes_values():
    p = ListPartition("p", ((1,), 2), (T.INT,))
    assert p.values == ((1,), (2,))
    with pytest.raises(PartitionError):
        ListPartition("p", ((1, 2),), (T.INT,))
