"""A table's formal and temp partitions: Doris's add/drop/route rules and messages.

The temp-partition cases replay doris:fe/fe-core/src/test/java/org/apache/doris/catalog/TempPartitionTest.java.
"""

from __future__ import annotations

import datetime as dt

import pytest

from iceberg_doris.errors import PartitionError
from iceberg_doris.partitioning import MAX, MIN, ListPartition, PartitionColumnType, PartitionSet, RangePartition

T = PartitionColumnType
INT_MIN = "-2147483648"


def rng(lo: str, hi: str) -> str:
    return f"[types: [INT]; keys: [{lo}]; ..types: [INT]; keys: [{hi}]; )"


def bounds(ps: PartitionSet, name: str, temporary: bool = False):
    p = ps.get(name, temporary)
    return p.lower.values[0], p.upper.values[0]


@pytest.fixture
def tbl2() -> PartitionSet:
    """create table db2.tbl2 (k1 int, k2 int) partition by range(k1) (p1 < 10, p2 < 20, p3 < 30)."""
    ps = PartitionSet.new("RANGE", ["k1"], ["INT"])
    for name, upper in (("p1", "10"), ("p2", "20"), ("p3", "30")):
        ps = ps.add_partition(name, values_less_than=upper)
    return ps


def test_less_than_chain(tbl2):
    assert bounds(tbl2, "p1") == (MIN, 10)
    assert bounds(tbl2, "p2") == (10, 20)
    assert bounds(tbl2, "p3") == (20, 30)
    assert tbl2.partition_names == ("p1", "p2", "p3")
    assert tbl2.describe()[0]["range"] == rng(INT_MIN, "10")


def test_temp_partitions_follow_temp_partition_test(tbl2):
    ps = tbl2
    with pytest.raises(PartitionError, match="^Duplicate partition name p1$"):
        ps.add_partition("p1", values_less_than="10", temporary=True)
    ps = ps.add_partition("tp1", values_less_than="10", temporary=True)
    assert bounds(ps, "tp1", True) == (MIN, 10)
    with pytest.raises(PartitionError) as info:
        ps.add_partition("tp2", values_less_than="10", temporary=True)
    assert str(info.value).startswith(f"Range {rng(INT_MIN, '10')} is intersected with range: {rng(INT_MIN, '10')}")
    assert info.value.conflicting_partition == "tp1"
    assert "tp1" in str(info.value)
    with pytest.raises(PartitionError, match="^Duplicate partition name tp1$"):
        ps.add_partition("tp1", values_less_than="20", temporary=True)
    ps = ps.add_partition("tp2", values_less_than="20", temporary=True)
    assert bounds(ps, "tp2", True) == (10, 20)  # lower bound from the previous *temp* partition
    with pytest.raises(PartitionError, match="is intersected with range") as info:
        ps.add_partition("tp3", values_range=("18", "30"), temporary=True)
    assert info.value.conflicting_partition == "tp2"
    ps = ps.add_partition("tp3", values_range=("20", "30"), temporary=True)
    assert ps.temp_partition_names == ("tp1", "tp2", "tp3")
    assert ps.partition_names == ("p1", "p2", "p3")  # formal partitions untouched

    with pytest.raises(PartitionError) as info:
        ps.drop_partition("tp4", temporary=True)
    assert str(info.value).startswith("Error in list of partitions to tp4: the table has no temporary partition tp4")
    assert ps.drop_partition("tp4", temporary=True, if_exists=True) is ps
    after = ps.drop_partition("tp3", temporary=True)
    assert after.temp_partition_names == ("tp1", "tp2")
    assert after.partition_names == ps.partition_names
    # re-adding LESS THAN 30 takes its lower bound from tp2
    after = after.add_partition("tp3", values_less_than="30", temporary=True)
    assert bounds(after, "tp3", True) == (20, 30)
    # dropping a formal partition leaves temp partitions alone
    dropped = after.drop_partition("p1")
    assert dropped.partition_names == ("p2", "p3") and dropped.temp_partition_names == ("tp1", "tp2", "tp3")


def test_temp_less_than_ignores_formal_partitions(tbl2):
    ps = tbl2.add_partition("tp1", values_less_than="25", temporary=True)
    assert bounds(ps, "tp1", True) == (MIN, 25)


def test_temp_partition_may_lie_outside_every_formal_range():
    # select_partition.groovy: formal < 5 and < 10, temp [15, 20)
    ps = PartitionSet.new("RANGE", ["id"], ["INT"])
    ps = ps.add_partition("p1", values_less_than="5").add_partition("p2", values_less_than="10")
    ps = ps.add_partition("tp1", values_range=("15", "20"), temporary=True)
    assert ps.route(17) is None
    assert ps.route(17, temp_partitions=["tp1"]) == "tp1"
    assert ps.route(7, temp_partitions=["tp1"]) is None


def test_formal_name_must_differ_from_temp_names(tbl2):
    ps = tbl2.add_partition("tp9", values_range=("100", "200"), temporary=True)
    with pytest.raises(PartitionError, match="^Duplicate partition name tp9$"):
        ps.add_partition("tp9", values_less_than="40")


def test_errors_for_overlapping_and_non_increasing_less_than(tbl2):
    with pytest.raises(PartitionError) as info:
        tbl2.add_partition("p4", values_less_than="30")
    assert str(info.value).startswith(f"Range {rng('20', '30')} is intersected with range: {rng('20', '30')}")
    assert info.value.conflicting_partition == "p3"
    with pytest.raises(PartitionError) as info:
        tbl2.drop_partition("p2").add_partition("p4", values_less_than="25")
    assert str(info.value).startswith(f"Range {rng('10', '25')} is intersected with range: {rng('20', '30')}")


def test_less_than_fills_a_gap(tbl2):
    ps = tbl2.drop_partition("p2")
    ps = ps.add_partition("p2b", values_less_than="15")
    assert bounds(ps, "p2b") == (10, 15)
    ps = ps.add_partition("p2c", values_less_than="20")
    assert bounds(ps, "p2c") == (15, 20)


def test_upper_value_must_not_be_min():
    ps = PartitionSet.new("RANGE", ["k"], ["DATETIME"])
    with pytest.raises(PartitionError) as info:
        ps.add_partition("p", values_less_than="0000-01-01 00:00:00")
    assert str(info.value) == "Partition's upper value should not be MIN VALUE: ('0000-01-01 00:00:00')"
    ints = PartitionSet.new("RANGE", ["k"], ["TINYINT"])
    with pytest.raises(PartitionError, match=r"should not be MIN VALUE: \('-128'\)"):
        ints.add_partition("p", values_less_than="-128")


def test_literal_errors_on_add():
    ps = PartitionSet.new("RANGE", ["k"], ["TINYINT"])
    with pytest.raises(PartitionError, match=r"^Number out of range\[3000\]. type: tinyint$"):
        ps.add_partition("p", values_less_than="3000")
    with pytest.raises(PartitionError, match="^Invalid number format: -50.1$"):
        ps.add_partition("p", values_less_than="-50.1")
    dts = PartitionSet.new("RANGE", ["k"], ["DATETIME"])
    with pytest.raises(PartitionError, match=r"^date/datetime literal \[10000-01-01 00:00:00\] is invalid$"):
        dts.add_partition("p", values_less_than="10000-01-01 00:00:00")


def test_maxvalue_partition(tbl2):
    ps = tbl2.add_partition("pmax", values_less_than="MAXVALUE")
    assert bounds(ps, "pmax") == (30, MAX)
    assert ps.route(2**31 - 1) == "pmax"
    with pytest.raises(PartitionError, match="is intersected with range"):
        ps.add_partition("p5", values_less_than="40")
    assert ps.get("pmax").range_text() == rng("30", "MAXVALUE")


def test_multi_column_range():
    ps = PartitionSet.new("RANGE", ["k1", "k2"], ["DATE", "INT"])
    ps = ps.add_partition("p1", values_less_than=["2020-01-01", "100"])
    assert ps.get("p1").upper.values == (dt.date(2020, 1, 1), 100)
    # LESS THAN ("2020-01-01") is (2020-01-01, MIN): below p1's upper bound, so its range starts at
    # MIN and overlaps p1
    with pytest.raises(PartitionError) as info:
        ps.add_partition("p2", values_less_than=["2020-01-01"])
    assert str(info.value).startswith(
        "Range [types: [DATEV2, INT]; keys: [0000-01-01, -2147483648]; ..types: [DATEV2, INT]; "
        "keys: [2020-01-01, -2147483648]; ) is intersected with range: [types: [DATEV2, INT]; "
        "keys: [0000-01-01, -2147483648]; ..types: [DATEV2, INT]; keys: [2020-01-01, 100]; )"
    )
    ps = ps.add_partition("p2", values_less_than=["2020-02-01"])
    assert ps.get("p2").lower.values == (dt.date(2020, 1, 1), 100)
    assert ps.get("p2").upper.values == (dt.date(2020, 2, 1), MIN)
    assert ps.route((dt.date(2020, 1, 1), 99)) == "p1"
    assert ps.route((dt.date(2020, 1, 1), 100)) == "p2"
    assert ps.route((dt.date(2020, 1, 31), -5)) == "p2"
    assert ps.route((dt.date(2020, 2, 1), -(2**31))) is None


def test_multi_column_range_overlap_and_route():
    ps = PartitionSet.new("RANGE", ["k1", "k2"], ["INT", "INT"])
    ps = ps.add_partition("p1", values_less_than=["10", "5"])
    ps = ps.add_partition("p2", values_less_than=["10", MAX])
    ps = ps.add_partition("p3", values_range=(["10", MAX], ["20"]))
    assert ps.route((10, 4)) == "p1"
    assert ps.route((10, 5)) == "p2"
    assert ps.route((9, 1000)) == "p1"
    assert ps.route((15, 0)) == "p3"
    assert ps.route((20, 0)) is None
    with pytest.raises(PartitionError, match="is intersected with range"):
        ps.add_partition("p4", values_range=(["10", "7"], ["11"]))


def test_route_null_goes_to_the_partition_starting_at_min():
    ps = PartitionSet.new("RANGE", ["k0"], ["INT"], nullable=True)
    ps = ps.add_partition("p10", values_less_than="10").add_partition("p100", values_less_than="100")
    ps = ps.add_partition("pMAX", values_less_than=MAX)
    assert ps.route(None) == "p10"
    assert ps.route(-(2**31)) == "p10"
    assert ps.route(99) == "p100" and ps.route(100) == "pMAX"
    ps2 = PartitionSet.new("RANGE", ["k0"], ["INT"], nullable=True).add_partition("p200", values_range=("100", "200"))
    assert ps2.route(None) is None
    assert ps2.route(150) == "p200" and ps2.route(200) is None and ps2.route(99) is None


def test_router_for_named_partitions(tbl2):
    route = tbl2.router(partitions=["p2"])
    assert route(15) == "p2" and route(5) is None
    with pytest.raises(PartitionError, match=r"^Partition\[p9\] does not exist$"):
        tbl2.router(partitions=["p9"])
    with pytest.raises(PartitionError, match=r"^Temp partition\[tp9\] does not exist$"):
        tbl2.route(1, temp_partitions=["tp9"])


def test_route_converts_row_values():
    ps = PartitionSet.new("RANGE", ["d"], ["DATE"]).add_partition("p2020", values_range=("2020-01-01", "2021-01-01"))
    assert ps.route(dt.date(2020, 6, 1)) == "p2020"
    assert ps.route(dt.datetime(2020, 12, 31, 23, 59)) == "p2020"
    assert ps.route("2021-01-01") is None


@pytest.fixture
def tbl4() -> PartitionSet:
    """create table db4.tbl4 (k1 int not null, k2 int) partition by list(k1) (...)."""
    ps = PartitionSet.new("LIST", ["k1"], ["INT"], nullable=False)
    ps = ps.add_partition("p1", values_in=["1", "2", "3"])
    ps = ps.add_partition("p2", values_in=["4", "5", "6"])
    return ps.add_partition("p3", values_in=["7", "8", "9"])


def test_list_temp_partitions_follow_temp_partition_test(tbl4):
    ps = tbl4
    with pytest.raises(PartitionError, match="^Duplicate partition name p1$"):
        ps.add_partition("p1", values_in=["1", "2", "3"], temporary=True)
    ps = ps.add_partition("tp1", values_in=["1", "2", "3"], temporary=True)  # may overlap formal p1
    with pytest.raises(PartitionError) as info:
        ps.add_partition("tp2", values_in=["1", "2", "3"], temporary=True)
    assert str(info.value).startswith(
        "The partition key[(\"1\")] in partition item[('1','2','3')] is conflict with current "
        "partitionKeys[((\"1\"),(\"2\"),(\"3\"))]"
    )
    assert info.value.conflicting_partition == "tp1"
    ps = ps.add_partition("tp2", values_in=["4", "5", "6"], temporary=True)
    with pytest.raises(PartitionError, match=r"The partition key\[\(\"6\"\)\]"):
        ps.add_partition("tp3", values_in=["6", "7", "8", "9"], temporary=True)
    ps = ps.add_partition("tp3", values_in=["7", "8", "9"], temporary=True)
    assert ps.temp_partition_names == ("tp1", "tp2", "tp3")
    assert ps.route(5) == "p2" and ps.route(5, temp_partitions=["tp2"]) == "tp2"
    assert ps.route(10) is None


def test_list_formal_conflict_and_null(tbl4):
    with pytest.raises(PartitionError, match="is conflict with current partitionKeys") as info:
        tbl4.add_partition("p4", values_in=["10", "9"])
    assert info.value.conflicting_partition == "p3"
    with pytest.raises(PartitionError, match="Can't have null partition is for NOT NULL partition column"):
        tbl4.add_partition("p4", values_in=[None])
    nullable = PartitionSet.new("LIST", ["k0"], ["VARCHAR"], nullable=True).add_partition("pX", values_in=[None])
    assert nullable.route(None) == "pX" and nullable.route("x") is None


def test_multi_column_list():
    ps = PartitionSet.new("LIST", ["id", "city"], ["INT", "VARCHAR"])
    ps = ps.add_partition("p1_city", values_in=[("1", "Beijing"), ("1", "Shanghai")])
    ps = ps.add_partition("p2_city", values_in=[("2", "Beijing"), ("2", "Shanghai")])
    assert ps.route((1, "Shanghai")) == "p1_city"
    assert ps.route((2, "Beijing")) == "p2_city"
    assert ps.route((3, "Beijing")) is None
    with pytest.raises(PartitionError) as info:
        ps.add_partition("p3", values_in=[("3", "x"), ("2", "Shanghai")])
    assert str(info.value).startswith(
        "The partition key[(\"2\", \"Shanghai\")] in partition item[(('3', 'x'),('2', 'Shanghai'))] is conflict with "
        "current partitionKeys[((\"2\", \"Beijing\"),(\"2\", \"Shanghai\"))]"
    )


def test_values_kind_must_match_table_kind(tbl2, tbl4):
    with pytest.raises(PartitionError, match="Range partition expected"):
        tbl2.add_partition("x", values_in=["1"])
    with pytest.raises(PartitionError, match="List partition expected"):
        tbl4.add_partition("x", values_less_than="1")
    with pytest.raises(PartitionError, match="exactly one"):
        tbl2.add_partition("x")
    with pytest.raises(PartitionError, match="exactly one"):
        tbl2.add_partition("x", values_less_than="1", values_range=("0", "1"))


def test_range_column_types_are_checked():
    with pytest.raises(PartitionError) as info:
        PartitionSet.new("RANGE", ["city"], ["VARCHAR(20)"])
    assert str(info.value) == "Column[city] type[VARCHAR] cannot be a range partition key."
    assert PartitionSet.new("LIST", ["city"], ["VARCHAR(20)"]).column_types == (T.VARCHAR,)
    with pytest.raises(PartitionError, match="Only support adding partition to range and list partitioned table"):
        PartitionSet.new("HASH", ["k"], ["INT"])


def test_operations_return_new_sets(tbl2):
    before = tbl2
    after = tbl2.add_partition("p4", values_less_than="40")
    assert before.partition_names == ("p1", "p2", "p3")
    assert after.partition_names == ("p1", "p2", "p3", "p4")
    with pytest.raises(Exception):
        before.formal = ()  # type: ignore[misc]


def test_if_not_exists(tbl2):
    assert tbl2.add_partition("p1", values_less_than="10", if_not_exists=True) is tbl2


def test_add_batch_and_conflicts():
    ps = PartitionSet.new("RANGE", ["d"], ["DATE"]).add_batch("2023-01-03", "2023-01-06", 1, "DAY")
    assert ps.partition_names == ("p_20230103", "p_20230104", "p_20230105")
    assert ps.route(dt.date(2023, 1, 4)) == "p_20230104"
    with pytest.raises(PartitionError, match="^Duplicate partition name p_20230105$"):
        ps.add_batch("2023-01-05", "2023-01-07", 1, "DAY")
    with pytest.raises(PartitionError, match="is intersected with range") as info:
        ps.add_batch("2023-01-05", "2023-01-07", 1, "DAY", prefix="q_")
    assert info.value.conflicting_partition == "p_20230105"
    ints = PartitionSet.new("RANGE", ["age"], ["INT"]).add_batch("1", "100", 10)
    assert len(ints) == 10 and ints.route(95) == "p_91_100"


def test_add_prebuilt_partitions(tbl2):
    ps = tbl2.add(RangePartition.of("p4", "30", "40", ["INT"]))
    assert ps.route(35) == "p4"
    with pytest.raises(PartitionError, match="is intersected"):
        ps.add(RangePartition.of("p5", "35", "45", ["INT"]))
    lst = PartitionSet.new("LIST", ["c"], ["VARCHAR"]).add(ListPartition.of("pa", ["a"], ["VARCHAR"]))
    with pytest.raises(PartitionError, match="Can't have null partition"):
        lst.add(ListPartition("pn", ((None,),), ("VARCHAR",)))


def test_rename(tbl2):
    ps = tbl2.add_partition("tp1", values_less_than="10", temporary=True)
    renamed = ps.rename_partition("p3", "tp3")
    assert renamed.partition_names == ("p1", "p2", "tp3")
    assert bounds(renamed, "tp3") == (20, 30)
    with pytest.raises(PartitionError, match=r"Partition name\[tp1\] is already used"):
        ps.rename_partition("p3", "tp1")
    with pytest.raises(PartitionError, match=r"Partition\[p9\] does not exist"):
        ps.rename_partition("p9", "x")


def test_partition_names_are_checked():
    ps = PartitionSet.new("RANGE", ["k"], ["INT"])
    with pytest.raises(PartitionError, match="Incorrect partition name 'bad name'"):
        ps.add_partition("bad name", values_less_than="1")


def test_sorted_partitions_and_describe():
    ps = PartitionSet.new("RANGE", ["k"], ["INT"])
    ps = ps.add_partition("b", values_range=("10", "20")).add_partition("a", values_less_than="5")
    assert ps.partition_names == ("b", "a")  # creation order
    assert [p.name for p in ps.sorted_partitions()] == ["a", "b"]
    rows = ps.describe()
    assert rows == [
        {"partition_name": "a", "partition_key": "k", "range": rng(INT_MIN, "5"), "is_temp": False},
        {"partition_name": "b", "partition_key": "k", "range": rng("10", "20"), "is_temp": False},
    ]
    lst = PartitionSet.new("LIST", ["k"], ["INT"]).add_partition("x", values_in=["7"]).add_partition("y", values_in=["3", "9"])
    assert [p.name for p in lst.sorted_partitions()] == ["y", "x"]
    assert lst.describe()[0]["range"] == "[types: [INT]; keys: [3]; , types: [INT]; keys: [9]; ]"


def test_check_invariants_finds_overlaps():
    p1 = RangePartition.of("a", "0", "10", ["INT"])
    p2 = RangePartition.of("b", "5", "15", ["INT"])
    ps = PartitionSet("RANGE", [("k", "INT", False)], (p1, p2))
    with pytest.raises(PartitionError, match="is intersected with range"):
        ps.check_invariants()
    dup = PartitionSet("RANGE", [("k", "INT", False)], (p1,), (p1,))
    with pytest.raises(PartitionError, match="Duplicate partition name a"):
        dup.check_invariants()


def test_route_with_aware_datetimes_and_odd_row_shapes():
    ps = PartitionSet.new("RANGE", ["ts"], ["DATETIME"]).add_partition("p", values_range=("2020-01-01", "2020-01-02"))
    aware = dt.datetime(2020, 1, 1, 12, tzinfo=dt.timezone.utc)
    assert ps.route(aware) == "p"  # the zone is dropped, as for a Spark TIMESTAMP_NTZ value
    assert ps.route([dt.datetime(2020, 1, 1, 5)]) == "p"
    assert ps.route((dt.date(2020, 1, 1),)) == "p"
    ints = PartitionSet.new("RANGE", ["k"], ["INT"]).add_partition("p", values_less_than="10")
    assert ints.route(True) == "p"  # a bool is coerced to 1
    assert ints.route("5") == "p"
    with pytest.raises(PartitionError):
        ints.route((1, 2))


def test_add_all_checks_like_add():
    ps = PartitionSet.new("RANGE", ["k"], ["INT"]).add_partition("p0", values_range=("0", "10"))
    parts = [RangePartition.of(f"p{i}", str(i * 10), str(i * 10 + 10), ["INT"]) for i in (3, 1, 2)]
    out = ps.add_all(parts)
    assert out.partition_names == ("p0", "p3", "p1", "p2")
    assert out.route(25) == "p2"
    with pytest.raises(PartitionError, match="is intersected with range") as info:
        ps.add_all([RangePartition.of("a", "20", "30", ["INT"]), RangePartition.of("b", "25", "35", ["INT"])])
    assert info.value.conflicting_partition == "a"
    with pytest.raises(PartitionError, match="^Duplicate partition name a$"):
        ps.add_all([RangePartition.of("a", "20", "30", ["INT"]), RangePartition.of("a", "40", "50", ["INT"])])
    assert ps.add_all([]) is ps
    lst = PartitionSet.new("LIST", ["c"], ["VARCHAR"]).add_partition("pa", values_in=["a"])
    out = lst.add_all([ListPartition.of("pb", ["b"], ["VARCHAR"]), ListPartition.of("pc", ["c"], ["VARCHAR"])])
    assert out.route("c") == "pc"
    with pytest.raises(PartitionError) as info:
        lst.add_all([ListPartition.of("pb", ["b"], ["VARCHAR"]), ListPartition.of("pc", ["c", "b"], ["VARCHAR"])])
    assert str(info.value).startswith(
        "The partition key[(\"b\")] in partition item[('c','b')] is conflict with current partitionKeys[(\"b\")]"
    )
    with pytest.raises(PartitionError, match="Can't have null partition"):
        lst.add_all([ListPartition("pn", ((None,),), ("VARCHAR",)), ListPartition.of("pz", ["z"], ["VARCHAR"])])


def test_partition_names_are_case_insensitive():
    ps = PartitionSet.new("RANGE", ["k"], ["INT"]).add_partition("p1", values_less_than="10")
    assert ps.get("P1") is ps.get("p1") and ps.stored_name("P1") == "p1"
    with pytest.raises(PartitionError, match=r"^Duplicate partition name P1$"):
        ps.add_partition("P1", values_range=("10", "20"))
    assert ps.drop_partition("P1").partition_names == ()
    assert ps.rename_partition("P1", "q1").partition_names == ("q1",)
