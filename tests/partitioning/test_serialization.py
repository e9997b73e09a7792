"""The JSON form of a PartitionSet (stored in an Iceberg table property)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from iceberg_doris.errors import PartitionError
from iceberg_doris.partitioning import MAX, MIN, PartitionColumnType, PartitionSet, from_json, to_json
from iceberg_doris.partitioning.partition_set import PartitionColumn


def test_compact_versioned_document():
    ps = PartitionSet.new("RANGE", ["k1"], ["DATE"])
    ps = ps.add_partition("p1", values_less_than="2020-02-01")
    ps = ps.add_partition("tp1", values_range=("2020-02-01", "MAXVALUE"), temporary=True)
    text = to_json(ps)
    assert text == (
        '{"v":1,"kind":"RANGE","cols":[["k1","DATEV2",false]],'
        '"formal":[["p1",["0000-01-01"],["2020-02-01"]]],'
        '"temp":[["tp1",["2020-02-01"],["MAXVALUE"]]]}'
    )
    assert from_json(text) == ps


def test_range_round_trip():
    ps = PartitionSet.new("RANGE", ["k1", "k2"], ["DATETIME", "LARGEINT"], nullable=[False, True])
    ps = ps.add_partition("p1", values_less_than=["2020-01-01 10:00:00.123456", "5"])
    ps = ps.add_partition("p2", values_less_than=["2021-01-01"])
    ps = ps.add_partition("p3", values_range=(["2021-01-01", str(2**127 - 1)], ["2021-01-02"]))
    ps = ps.add_partition("pmax", values_less_than="MAXVALUE")
    ps = ps.add_partition("t1", values_less_than=["2020-06-01"], temporary=True)
    back = from_json(to_json(ps))
    assert back == ps
    assert back.get("p1").lower.values == (MIN, MIN)
    assert back.get("p1").upper.values == (dt.datetime(2020, 1, 1, 10, 0, 0, 123456), 5)
    assert back.get("pmax").upper.values == (MAX, MAX)
    assert back.nullable == (False, True)
    assert back.route((dt.datetime(2021, 1, 1), 2**127 - 1)) == "p3"
    assert '"2020-01-01T10:00:00.123456"' in to_json(ps)


def test_list_round_trip():
    ps = PartitionSet.new("LIST", ["id", "city", "d", "flag"], ["INT", "VARCHAR(10)", "DATE", "BOOLEAN"], nullable=True)
    ps = ps.add_partition("p1", values_in=[("1", "Beijing", "2020-01-01", "true"), ("1", None, "2020-01-02", "false")])
    ps = ps.add_partition("p2", values_in=[("2", "您好 😊", None, None)])
    ps = ps.add_partition("p3", values_in=[("3", "MAXVALUE", "2020-01-01", "1")])
    ps = ps.add_partition("tp", values_in=[("2", "", "2020-01-01", "0")], temporary=True)
    text = to_json(ps)
    back = from_json(text)
    assert back == ps
    assert back.get("p2").values == ((2, "您好 😊", None, None),)
    assert back.route((1, None, dt.date(2020, 1, 2), False)) == "p1"
    assert "您好" in text  # kept readable


def test_datetime_list_values():
    ps = PartitionSet.new("LIST", ["ts"], ["DATETIME"])
    ps = ps.add_partition("p", values_in=["2020-01-01 10:00:00", "2020-01-01 10:00:00.5"])
    back = from_json(to_json(ps))
    assert back.get("p").values == ((dt.datetime(2020, 1, 1, 10),), (dt.datetime(2020, 1, 1, 10, 0, 0, 500000),))


def test_legacy_types_and_empty_sets_round_trip():
    ps = PartitionSet("RANGE", (PartitionColumn("k", PartitionColumnType.DATE),))
    assert from_json(to_json(ps)) == ps
    assert from_json(to_json(ps)).column_types == (PartitionColumnType.DATE,)


def test_rejects_other_versions_and_garbage():
    doc = json.loads(to_json(PartitionSet.new("RANGE", ["k"], ["INT"])))
    doc["v"] = 2
    with pytest.raises(PartitionError, match="Unsupported partition metadata version 2"):
        from_json(json.dumps(doc))
    with pytest.raises(PartitionError, match="Invalid partition metadata"):
        from_json("not json")
    with pytest.raises(PartitionError, match="missing version"):
        from_json("{}")
    with pytest.raises(PartitionError, match="Invalid partition metadata"):
        from_json('{"v":1,"kind":"RANGE","cols":[["k","NOPE",false]],"formal":[],"temp":[]}')


def test_rejects_inconsistent_documents():
    overlapping = (
        '{"v":1,"kind":"RANGE","cols":[["k","INT",false]],'
        '"formal":[["a",["0"],["10"]],["b",["5"],["20"]]],"temp":[]}'
    )
    with pytest.raises(PartitionError, match="is intersected with range"):
        from_json(overlapping)
    duplicate = (
        '{"v":1,"kind":"LIST","cols":[["k","INT",false]],'
        '"formal":[["a",[["1"]]]],"temp":[["a",[["2"]]]]}'
    )
    with pytest.raises(PartitionError, match="Duplicate partition name a"):
        from_json(duplicate)
    conflicting = (
        '{"v":1,"kind":"LIST","cols":[["k","INT",false]],'
        '"formal":[["a",[["1"]]],["b",[["1"]]]],"temp":[]}'
    )
    with pytest.raises(PartitionError, match="is conflict with current partitionKeys"):
        from_json(conflicting)
    # temp partitions may overlap formal ones
    fine = '{"v":1,"kind":"RANGE","cols":[["k","INT",false]],"formal":[["a",["0"],["10"]]],"temp":[["t",["5"],["20"]]]}'
    assert from_json(fine).temp_partition_names == ("t",)
