"""The shuffle-partition rule (pure: no Spark). The session applies it in
tests/spark_session/test_shuffle_sizing_session.py and tests/packaging/test_local_cluster.py."""

from __future__ import annotations

import pytest

from iceberg_doris.spark_session.shuffle_sizing import (
    decide_shuffle_partitions,
    fixed_partitions,
    is_in_process,
    is_local_cluster,
    master_cores,
    planned_cluster_cores,
    target_partitions,
)


@pytest.mark.parametrize(
    ("master", "cores"),
    [
        ("local", 1),
        ("local[2]", 2),
        ("local[*]", 8),
        ("local[3,4]", 3),  # local[N,F]: F is the retry count, not cores
        ("local[*,2]", 8),
        ("local-cluster[2,1,1024]", 2),
        ("local-cluster[3, 4, 2048]", 12),
        ("spark://host:7077", None),
        ("yarn", None),
        ("k8s://https://api:6443", None),
    ],
)
def test_cores_a_master_name_fixes(master, cores):
    assert master_cores(master, cpu_count=8) == cores


def test_master_kinds():
    assert is_local_cluster("local-cluster[2,1,1024]") and not is_local_cluster("local[2]")
    assert is_in_process("local[*]") and is_in_process("local") and not is_in_process("local-cluster[2,1,1024]")
    assert not is_in_process("spark://h:7077")


def test_planned_cores_static_allocation():
    assert planned_cluster_cores({"spark.executor.instances": "5", "spark.executor.cores": "4"}) == 20
    assert planned_cluster_cores({"spark.cores.max": "12"}) == 12  # standalone's application cap
    assert planned_cluster_cores({"spark.executor.instances": "5"}) is None  # cores per executor unknown
    assert planned_cluster_cores({}) is None


def test_planned_cores_dynamic_allocation_uses_the_maximum():
    conf = {
        "spark.dynamicAllocation.enabled": "true",
        "spark.dynamicAllocation.maxExecutors": "10",
        "spark.executor.instances": "2",
        "spark.executor.cores": "4",
    }
    assert planned_cluster_cores(conf) == 40
    # Spark's "unlimited" (Int.MaxValue) plans nothing: the registered cores decide.
    assert planned_cluster_cores({**conf, "spark.dynamicAllocation.maxExecutors": "2147483647"}) is None
    assert planned_cluster_cores({**conf, "spark.dynamicAllocation.maxExecutors": "bogus"}) is None


def test_target_is_two_per_core_at_least_two():
    assert target_partitions("local", {}, registered_cores=1, cpu_count=8) == 2
    assert target_partitions("local[*]", {}, registered_cores=8, cpu_count=8) == 16
    assert target_partitions("local-cluster[2,1,1024]", {}, registered_cores=0, cpu_count=8) == 4
    # A cluster: the planned cores, or the registered ones when more registered.
    planned = {"spark.executor.instances": "3", "spark.executor.cores": "2"}
    assert target_partitions("yarn", planned, registered_cores=2, cpu_count=8) == 12
    assert target_partitions("yarn", planned, registered_cores=10, cpu_count=8) == 20
    assert target_partitions("spark://h:7077", {}, registered_cores=2, cpu_count=64) == 4


def test_fixed_partitions_only_for_masters_whose_name_says_the_cores():
    assert fixed_partitions("local[2]", cpu_count=8) == 4
    assert fixed_partitions("local-cluster[2,1,1024]", cpu_count=8) == 4
    assert fixed_partitions("spark://h:7077", cpu_count=8) is None


def decide(master="spark://h:7077", conf=None, current=None, chosen=None, registered=2, cpus=8):
    return decide_shuffle_partitions(
        master=master, conf=conf or {}, current=current, chosen=chosen, registered_cores=registered, cpu_count=cpus
    )


def test_unset_value_is_sized():
    assert decide(master="local[2]") == 4
    assert decide(master="spark://h:7077", registered=6) == 12


def test_a_value_set_by_anyone_else_is_left_alone():
    # builder / spark-defaults.conf / --conf / session(conf=...) / SET all make it "set"
    assert decide(master="local[2]", current="200") is None
    assert decide(master="local[2]", current="4") is None  # equal to the rule's, but not ours
    # ours once, then changed by the user (spark.conf.set)
    assert decide(registered=50, current="1", chosen="4") is None


def test_our_value_grows_as_executors_register_and_never_shrinks():
    assert decide(registered=2, current="4", chosen="4") is None
    assert decide(registered=8, current="4", chosen="4") == 16
    assert decide(registered=1, current="16", chosen="16") is None


def test_print_spark_conf_writes_the_value_for_masters_whose_name_fixes_cores(capsys):
    from iceberg_doris.cli import main

    assert main(["--print-spark-conf", "--master", "local[2]"]) == 0
    assert "spark.sql.shuffle.partitions=4" in capsys.readouterr().out.splitlines()
    assert main(["--print-spark-conf", "--master", "spark://h:7077"]) == 0
    assert "spark.sql.shuffle.partitions" not in capsys.readouterr().out  # sized at run time, if ever
