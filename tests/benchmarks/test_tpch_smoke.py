"""Suite (tpch) at a tiny scale factor: the data tpchgen-cli writes and the files made from it, the
Doris DDL, and one run of every load and refresh function on the shared test session, whose own
checks (both contenders hold the same rows, every load loads every line) must pass. Timings are
not asserted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import suite_tpch, tpch_data
from tests.benchmarks.test_benchmark_smoke import bench, check  # noqa: F401 - bench is a fixture

SF = 0.001


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tpch_data.TpchFiles:
    return tpch_data.ensure(tmp_path_factory.mktemp("tpch-data"), SF, log=lambda message: None)


def _lines(path: str) -> list[str]:
    return Path(path).read_text().splitlines()


def test_every_format_holds_the_same_rows(files):
    tbl = [line.split("|")[:-1] for line in _lines(files.path("lineitem"))]
    assert len(tbl) == files.count("lineitem") > 0 and all(len(fields) == 16 for fields in tbl)
    assert [line[1:-1].split('","') for line in _lines(files.path("lineitem", "csv"))] == tbl
    records = [json.loads(line) for line in _lines(files.path("lineitem", "jsonl"))]
    assert json.loads(Path(files.path("lineitem", "json")).read_text()) == records
    assert [r["l_comment"] for r in records] == [fields[-1] for fields in tbl]
    assert [r["l_orderkey"] for r in records] == [int(fields[0]) for fields in tbl]
    import pyarrow.parquet as pq

    parquet = pq.read_table(files.path("lineitem", "parquet"))
    assert parquet.num_rows == len(tbl) and parquet.column("l_comment").to_pylist() == [fields[-1] for fields in tbl]


def test_refresh_files_follow_tpch(files):
    orders = [line.split("|")[:-1] for line in _lines(files.path("orders"))]
    keys = {fields[0] for fields in orders}
    new = [line.split("|")[0] for line in _lines(files.refresh("rf1_orders"))]
    deleted = [line.split("|")[0] for line in _lines(files.refresh("rf2_orders"))]
    changes = max(1, round(SF * 1500))
    assert len(new) == len(deleted) == changes
    assert not keys & set(new) and set(deleted) <= keys  # new keys are new, deleted keys exist
    updated = [line.split("|") for line in _lines(files.refresh("update_lineitem"))]
    every_100th = {orders[i][0] for i in range(0, len(orders), tpch_data.UPDATE_EVERY)}
    assert {fields[0] for fields in updated} == every_100th
    originals = {(f[0], f[3]): f for f in (line.split("|") for line in _lines(files.path("lineitem")))}
    for fields in updated:
        before = originals[(fields[0], fields[3])]
        assert float(fields[4]) == float(before[4]) + 1 and fields[5:] == before[5:]


def test_ddl_is_dorises_tpch_ddl():
    ddl = suite_tpch.doris_ddl("db.lineitem", "lineitem", "DUPLICATE")
    assert ddl.startswith("CREATE TABLE db.lineitem (\n    l_shipdate DATE NOT NULL,\n    l_orderkey BIGINT NOT NULL,")
    for clause in ("DUPLICATE KEY(`l_shipdate`, `l_orderkey`)", suite_tpch.LINEITEM_PARTITIONS,
                   "DISTRIBUTED BY HASH(`l_orderkey`) BUCKETS 32", '"colocate_with" = "lineitem_orders"'):
        assert clause in ddl
    unique = suite_tpch.doris_ddl("db.lineitem_u", "lineitem", "UNIQUE")
    assert "UNIQUE KEY(`l_orderkey`, `l_linenumber`)" in unique and "PARTITION BY" not in unique
    assert "l_orderkey BIGINT NOT NULL,\n    l_linenumber INT NOT NULL," in unique
    assert "n_comment VARCHAR(152) NULL" in suite_tpch.doris_ddl("db.nation", "nation", "DUPLICATE")


@pytest.mark.spark
def test_tpch_suite_contenders_agree(bench, spark_statements, files):  # noqa: F811
    # Two of the eight DUPLICATE tables (the other six load the same way), to stay within minutes.
    result = suite_tpch.run(bench, SF, files.folder.parent, reps=1, warmup=False, tables=("lineitem", "nation"))
    check(result)
    loads, refresh = result.tables
    assert len(loads.rows) == 2 + 2 + 4  # 2 DUPLICATE tables from .tbl, 2 UNIQUE, lineitem from 4 more formats
    assert [row[:2] for row in loads.rows[:4]] == [["nation", "DUPLICATE"], ["lineitem", "DUPLICATE"], ["lineitem", "UNIQUE"], ["orders", "UNIQUE"]]
    assert {row[2] for row in loads.rows} == set(suite_tpch.FORMAT_NAMES.values())
    assert [row[3] for row in loads.rows if row[0] == "lineitem"] == [f"{files.count('lineitem'):,}"] * 6
    assert [row[0].split(":")[0] for row in refresh.rows] == ["RF1", "RF2", "1% update", "RF1 + RF2 + update"]
    assert len(result.targets) == len(loads.rows) + 1
    assert any("same rows" in c for c in result.checks) and any("refresh step" in c for c in result.checks)
    # The contenders' tables are dropped: nothing is left in the namespace.
    assert spark_statements.sql(f"SHOW TABLES IN {bench.namespace}").count() == 0
