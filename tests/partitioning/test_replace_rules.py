"""REPLACE PARTITION (spec §1.5), replaying TempPartitionTest.java, plus the seed design's swap."""

from __future__ import annotations

import pytest

from iceberg_doris.errors import PartitionError
from iceberg_doris.partitioning import (
    MAX,
    MIN,
    PartitionSet,
    check_replace,
    final_partition_names,
    parse_replace_properties,
    replace_partitions,
    swap_partitions,
)


def key(v: str) -> str:
    return f"types: [INT]; keys: [{v}]; "


def rng(lo: str, hi: str) -> str:
    return f"[{key(lo)}..{key(hi)})"


def ranges(ps: PartitionSet, temporary: bool = False) -> dict[str, tuple]:
    return {p.name: (p.lower.values[0], p.upper.values[0]) for p in ps.partitions(temporary)}


def lists(ps: PartitionSet, temporary: bool = False) -> dict[str, set]:
    return {p.name: {k[0] for k in p.values} for p in ps.partitions(temporary)}


def range_table(*formal: tuple[str, str | tuple[str, str]]) -> PartitionSet:
    ps = PartitionSet.new("RANGE", ["k1"], ["INT"])
    for name, spec in formal:
        if isinstance(spec, tuple):
            ps = ps.add_partition(name, values_range=spec)
        else:
            ps = ps.add_partition(name, values_less_than=spec)
    return ps


@pytest.fixture
def tbl2() -> PartitionSet:
    ps = range_table(("p1", "10"), ("p2", "20"), ("p3", "30"))
    ps = ps.add_partition("tp1", values_less_than="10", temporary=True)
    ps = ps.add_partition("tp2", values_less_than="20", temporary=True)
    return ps.add_partition("tp3", values_range=("20", "30"), temporary=True)


def test_properties():
    assert parse_replace_properties(None) == (True, False)
    assert parse_replace_properties({"strict_range": "false", "use_temp_partition_name": "TRUE"}) == (False, True)
    assert parse_replace_properties({"strict_range": "nonsense"}) == (False, False)  # Boolean.parseBoolean
    with pytest.raises(PartitionError) as info:
        parse_replace_properties({"invalid": "invalid"})
    assert str(info.value) == "Unknown properties: [invalid]"


def test_names_must_exist(tbl2):
    with pytest.raises(PartitionError, match=r"^Partition\[p9\] does not exist$"):
        check_replace(tbl2, ["p1", "p9"], ["tp1"])
    with pytest.raises(PartitionError, match=r"^Temp partition\[tp9\] does not exist$"):
        check_replace(tbl2, ["p1"], ["tp9"])
    with pytest.raises(PartitionError, match=r"^Temp partition\[p1\] does not exist$"):
        check_replace(tbl2, ["p1"], ["p1"])  # the right side must be temp partitions
    with pytest.raises(PartitionError, match="No partition specified in partition lists"):
        check_replace(tbl2, [], ["tp1"])
    with pytest.raises(PartitionError, match="Duplicated partition name"):
        check_replace(tbl2, ["p1", "p1"], ["tp1"])


def test_strict_mismatch_reports_lower_bounds(tbl2):
    with pytest.raises(PartitionError) as info:
        replace_partitions(tbl2, ["p1", "p2"], ["tp2", "tp3"])
    assert str(info.value) == f"2 range lists are not stricly matched. {key('-2147483648')} vs. {key('10')}"


def test_non_strict_conflict_with_remaining_partition(tbl2):
    with pytest.raises(PartitionError) as info:
        replace_partitions(tbl2, ["p1", "p2"], ["tp2", "tp3"], strict_range=False)
    assert str(info.value) == f"Range: {rng('20', '30')} conflicts with existing range"
    assert info.value.conflicting_partition == "p3"


def test_temp_partition_test_range_sequence(tbl2):
    res = replace_partitions(tbl2, ["p1", "p2"], ["tp1", "tp2"], strict_range=False, use_temp_partition_name=True)
    ps = res.partition_set
    assert set(ps.partition_names) == {"p3", "tp1", "tp2"}
    assert ps.temp_partition_names == ("tp3",)
    assert res.renames == {"tp1": "tp1", "tp2": "tp2"}
    assert res.replaced == ("p1", "p2") and res.swapped_to_temp == {}
    assert ranges(ps)["tp2"] == (10, 20)

    ps = ps.drop_partition("p3")
    ps = ps.add_partition("p31", values_less_than="25").add_partition("p32", values_less_than="35")
    assert ranges(ps)["p31"] == (20, 25) and ranges(ps)["p32"] == (25, 35)
    with pytest.raises(PartitionError, match="not stricly matched"):
        replace_partitions(ps, ["p31"], ["tp3"])
    with pytest.raises(PartitionError, match="not stricly matched"):
        replace_partitions(ps, ["p31", "p32"], ["tp3"])
    res = replace_partitions(ps, ["p31", "p32"], ["tp3"], strict_range=False)
    ps = res.partition_set
    assert set(ps.partition_names) == {"tp1", "tp2", "tp3"}  # lists differ in length: temp name kept
    assert ps.temp_partition_names == ()
    assert ranges(ps)["tp3"] == (20, 30)
    assert ps.route(32) is None  # [30, 35) was covered only by p32 and is gone

    ps = ps.add_partition("p1", values_less_than="10", temporary=True)
    ps = ps.add_partition("p2", values_less_than="20", temporary=True)
    ps = ps.add_partition("p3", values_less_than="30", temporary=True)
    res = replace_partitions(ps, ["tp1", "tp2"], ["p1", "p2"])
    assert res.renames == {"p1": "tp1", "p2": "tp2"}  # pairwise by position
    ps = res.partition_set
    assert set(ps.partition_names) == {"tp1", "tp2", "tp3"} and ps.temp_partition_names == ("p3",)

    ps = replace_partitions(ps, ["tp3"], ["p3"], use_temp_partition_name=True).partition_set
    assert set(ps.partition_names) == {"tp1", "tp2", "p3"} and ps.temp_partition_names == ()


def test_strict_range_check_sequence():
    ps = range_table(("p1", "10"), ("p2", "20"), ("p3", "30"))
    ps = ps.add_partition("tp1", values_range=("10", "15"), temporary=True)
    ps = ps.add_partition("tp2", values_range=("15", "25"), temporary=True)
    ps = ps.add_partition("tp3", values_range=("25", "30"), temporary=True)
    ps = replace_partitions(ps, ["p2", "p3"], ["tp1", "tp2", "tp3"]).partition_set
    assert ranges(ps) == {"p1": (MIN, 10), "tp1": (10, 15), "tp2": (15, 25), "tp3": (25, 30)}

    bad = ps.add_partition("tp4", values_range=("10", "31"), temporary=True)
    with pytest.raises(PartitionError) as info:
        replace_partitions(bad, ["tp1", "tp2", "tp3"], ["tp4"])
    assert str(info.value) == (
        "2 range lists are not stricly matched. "
        f"[{rng('10', '15')}, {rng('15', '25')}, {rng('25', '30')}] vs. [{rng('10', '31')}]"
    )
    ps = ps.add_partition("tp4", values_range=("10", "30"), temporary=True)
    ps = replace_partitions(ps, ["tp1", "tp2", "tp3"], ["tp4"]).partition_set
    assert ranges(ps) == {"p1": (MIN, 10), "tp4": (10, 30)}

    ps = ps.add_partition("tp5", values_range=("50", "60"), temporary=True)
    with pytest.raises(PartitionError, match="not stricly matched"):
        replace_partitions(ps, ["tp4"], ["tp5"])
    with pytest.raises(PartitionError, match="not stricly matched"):
        replace_partitions(ps, ["tp4"], ["tp5"], strict_range=True, use_temp_partition_name=True)
    ps = replace_partitions(ps, ["tp4"], ["tp5"], strict_range=False, use_temp_partition_name=True).partition_set
    assert ranges(ps) == {"p1": (MIN, 10), "tp5": (50, 60)}


@pytest.mark.parametrize(
    ("formal", "temp", "ok"),
    [
        ([("0", "10"), ("10", "20")], [("0", "20")], True),
        ([("0", "10"), ("15", "20")], [("0", "10"), ("15", "18"), ("18", "20")], True),
        ([("0", "10"), ("15", "20")], [("0", "10"), ("15", "20")], True),
        ([("0", "10"), ("15", "20")], [("0", "20")], False),
        ([("0", "20")], [("0", "10"), ("12", "20")], False),
    ],
)
def test_strict_union_examples(formal, temp, ok):
    ps = PartitionSet.new("RANGE", ["k"], ["INT"])
    for i, (lo, hi) in enumerate(formal):
        ps = ps.add_partition(f"p{i}", values_range=(lo, hi))
    for i, (lo, hi) in enumerate(temp):
        ps = ps.add_partition(f"tp{i}", values_range=(lo, hi), temporary=True)
    names = [f"p{i}" for i in range(len(formal))]
    temp_names = [f"tp{i}" for i in range(len(temp))]
    if ok:
        res = replace_partitions(ps, names, temp_names)
        assert sorted(ranges(res.partition_set).values()) == sorted((int(a), int(b)) for a, b in temp)
    else:
        with pytest.raises(PartitionError, match="2 range lists are not stricly matched"):
            replace_partitions(ps, names, temp_names)


@pytest.fixture
def tbl4() -> PartitionSet:
    ps = PartitionSet.new("LIST", ["k1"], ["INT"])
    ps = ps.add_partition("p1", values_in=["1", "2", "3"])
    ps = ps.add_partition("p2", values_in=["4", "5", "6"])
    ps = ps.add_partition("p3", values_in=["7", "8", "9"])
    ps = ps.add_partition("tp1", values_in=["1", "2", "3"], temporary=True)
    ps = ps.add_partition("tp2", values_in=["4", "5", "6"], temporary=True)
    return ps.add_partition("tp3", values_in=["7", "8", "9"], temporary=True)


def test_list_sequence(tbl4):
    with pytest.raises(PartitionError) as info:
        replace_partitions(tbl4, ["p1", "p2"], ["tp2", "tp3"])
    assert str(info.value).startswith("2 partition key lists are not matched. [partitionKeys: [types: [INT]; keys: [1]; ")
    res = replace_partitions(tbl4, ["p1", "p2"], ["tp1", "tp2"], use_temp_partition_name=True)
    ps = res.partition_set
    assert set(ps.partition_names) == {"p3", "tp1", "tp2"} and ps.temp_partition_names == ("tp3",)

    ps = ps.drop_partition("p3").add_partition("p31", values_in=["7", "8"]).add_partition("p32", values_in=["9"])
    with pytest.raises(PartitionError, match="2 partition key lists are not matched"):
        replace_partitions(ps, ["p31"], ["tp3"])
    ps = replace_partitions(ps, ["p31", "p32"], ["tp3"]).partition_set
    assert lists(ps) == {"tp1": {1, 2, 3}, "tp2": {4, 5, 6}, "tp3": {7, 8, 9}}

    ps = ps.add_partition("p2", values_in=["4", "5"], temporary=True)
    ps = ps.add_partition("p31", values_in=["7", "8"], temporary=True)
    ps = ps.add_partition("p32", values_in=["9"], temporary=True)
    with pytest.raises(PartitionError) as info:
        replace_partitions(ps, ["tp2"], ["p2"], strict_range=True)
    assert str(info.value) == (
        "2 partition key lists are not matched. "
        "[partitionKeys: [types: [INT]; keys: [4]; types: [INT]; keys: [5]; types: [INT]; keys: [6]; ]; ] vs. "
        "[partitionKeys: [types: [INT]; keys: [4]; types: [INT]; keys: [5]; ]; ]"
    )
    ps = replace_partitions(ps, ["tp2"], ["p2"], strict_range=False, use_temp_partition_name=True).partition_set
    assert lists(ps)["p2"] == {4, 5} and ps.route(6) is None
    ps = replace_partitions(ps, ["tp3"], ["p31", "p32"], strict_range=True, use_temp_partition_name=True).partition_set
    assert lists(ps) == {"tp1": {1, 2, 3}, "p2": {4, 5}, "p31": {7, 8}, "p32": {9}}

    ps = ps.add_partition("p4", values_in=["1", "2", "3", "4"], temporary=True)
    with pytest.raises(PartitionError) as info:
        replace_partitions(ps, ["tp1"], ["p4"], strict_range=False)
    assert str(info.value) == (
        "The partition key[(\"4\")] is overlap with current "
        "partitionKeys: [types: [INT]; keys: [4]; types: [INT]; keys: [5]; ]; "
    )
    assert info.value.conflicting_partition == "p2"


def test_list_strict_compares_key_sets_not_order():
    ps = PartitionSet.new("LIST", ["k"], ["VARCHAR"])
    ps = ps.add_partition("p1", values_in=["b", "a"]).add_partition("p2", values_in=["c"])
    ps = ps.add_partition("tp", values_in=["c", "a", "b"], temporary=True)
    res = replace_partitions(ps, ["p1", "p2"], ["tp"])
    assert res.partition_set.route("a") == "tp"


def test_final_partition_names():
    assert final_partition_names(["p1", "p2"], ["tp1", "tp2"], False) == {"tp1": "p1", "tp2": "p2"}
    assert final_partition_names(["p1", "p2"], ["tp1", "tp2"], True) == {"tp1": "tp1", "tp2": "tp2"}
    assert final_partition_names(["p1", "p2", "p3"], ["tp1"], False) == {"tp1": "tp1"}


def test_rows_follow_the_replacement(tbl2):
    ps = replace_partitions(tbl2, ["p1", "p2"], ["tp1", "tp2"]).partition_set
    assert ps.route(15) == "p2" and ps.route(25) == "p3"
    assert ps.temp_partition_names == ("tp3",)


def test_swap_pairwise_trades_contents_and_keeps_names(tbl2):
    ps = tbl2.add_partition("tp0", values_range=("100", "200"), temporary=True)
    res = swap_partitions(ps, ["p1", "p2"], ["tp1", "tp2"])
    out = res.partition_set
    assert res.renames == {"tp1": "p1", "tp2": "p2"}
    assert res.swapped_to_temp == {"p1": "tp1", "p2": "tp2"}
    assert set(out.partition_names) == {"p1", "p2", "p3"}
    assert set(out.temp_partition_names) == {"tp0", "tp1", "tp2", "tp3"}
    assert ranges(out, True)["tp1"] == (MIN, 10) and ranges(out, True)["tp2"] == (10, 20)
    assert ranges(out)["p2"] == (10, 20)


def test_swap_with_temp_names_keeps_old_names_as_temp(tbl2):
    res = swap_partitions(tbl2, ["p1", "p2"], ["tp1", "tp2"], use_temp_partition_name=True)
    out = res.partition_set
    assert set(out.partition_names) == {"tp1", "tp2", "p3"}
    assert set(out.temp_partition_names) == {"tp3", "p1", "p2"}
    assert res.swapped_to_temp == {"p1": "p1", "p2": "p2"}
    # the swapped-out partitions can be dropped afterwards
    out = out.drop_partition("p1", temporary=True).drop_partition("p2", temporary=True)
    assert out.temp_partition_names == ("tp3",)


def test_swap_unequal_lengths():
    ps = range_table(("p1", "10"), ("p2", "20"))
    ps = ps.add_partition("tp", values_less_than="20", temporary=True)
    res = swap_partitions(ps, ["p1", "p2"], ["tp"])
    assert res.partition_set.partition_names == ("tp",)
    assert set(res.partition_set.temp_partition_names) == {"p1", "p2"}


def test_swap_refuses_overlapping_temp_partitions():
    ps = range_table(("p1", "10"), ("p2", "20"))
    ps = ps.add_partition("tq", values_less_than="5", temporary=True)
    ps = ps.add_partition("tz", values_range=("5", "8"), temporary=True)
    with pytest.raises(PartitionError) as info:
        swap_partitions(ps, ["p1"], ["tq"], strict_range=False)
    assert "replaced partition p1 would become a temp partition that overlaps temp partition tz" in str(info.value)
    # a plain replace has no such problem
    out = replace_partitions(ps, ["p1"], ["tq"], strict_range=False).partition_set
    assert out.route(3) == "p1" and out.route(6) is None


def test_swap_lists():
    ps = PartitionSet.new("LIST", ["k"], ["VARCHAR"])
    ps = ps.add_partition("p_cn", values_in=["Beijing", "Shanghai"])
    ps = ps.add_partition("tp_cn", values_in=["Beijing", "Shanghai"], temporary=True)
    res = swap_partitions(ps, ["p_cn"], ["tp_cn"])
    assert res.partition_set.partition_names == ("p_cn",)
    assert res.partition_set.temp_partition_names == ("tp_cn",)
    assert res.partition_set.route("Beijing", temp_partitions=["tp_cn"]) == "tp_cn"


def test_replace_keeps_maxvalue_bounds():
    ps = range_table(("p1", "10"), ("pmax", "MAXVALUE"))
    ps = ps.add_partition("t", values_range=("10", "MAXVALUE"), temporary=True)
    out = replace_partitions(ps, ["pmax"], ["t"]).partition_set
    assert ranges(out)["pmax"] == (10, MAX)
