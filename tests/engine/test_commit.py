"""``engine.commit.commit_atomically``, the one way every operation commits: one catalog swap or
nothing, the build run again on the table as it is when another writer got there first, and words
instead of Java when it cannot commit. On real Iceberg tables, changing their properties (a commit
without data files), so each case takes a second."""

from __future__ import annotations

import pytest

from iceberg_doris.engine import commit as commits
from iceberg_doris.engine.commit import commit_atomically
from iceberg_doris.errors import CommitConflictError
from tests.engine import load

pytestmark = pytest.mark.spark


@pytest.fixture
def table(spark, namespace):
    name = f"{namespace}.props"
    spark.sql(f"CREATE TABLE {name} (id BIGINT) USING iceberg")
    spark.sql(f"INSERT INTO {name} VALUES (1)")
    return name


def properties(spark, table: str) -> dict[str, str]:
    return {row.key: row.value for row in spark.sql(f"SHOW TBLPROPERTIES {table}").collect()}


def snapshot_ids(spark, table: str) -> list[int]:
    return [row.snapshot_id for row in spark.sql(f"SELECT snapshot_id FROM {table}.snapshots").collect()]


def test_a_build_s_changes_commit_once_and_its_result_comes_back(spark, table):
    iceberg, _ = load(spark, table)
    builds = []

    def build(java_table, transaction):
        builds.append(1)
        transaction.updateProperties().set("doris.test", "one").commit()
        return "built"

    committed = commit_atomically(iceberg, iceberg.name(table), build, operation="test")
    assert (committed.result, len(builds)) == ("built", 1)
    assert properties(spark, table)["doris.test"] == "one"
    assert committed.snapshot_ids == {}  # a property change moves no branch
    assert committed.snapshot_id() == snapshot_ids(spark, table)[-1]


def test_a_build_that_changes_nothing_commits_nothing(spark, table):
    iceberg, java_table = load(spark, table)
    before = str(java_table.operations().current().metadataFileLocation())
    committed = commit_atomically(iceberg, iceberg.name(table), lambda t, tx: 7, operation="test")
    assert committed.result == 7
    _, again = load(spark, table)
    assert str(again.operations().current().metadataFileLocation()) == before


def test_a_build_that_fails_leaves_the_table_as_it_was(spark, table):
    iceberg, _ = load(spark, table)

    def build(java_table, transaction):
        transaction.updateProperties().set("doris.test", "half").commit()  # staged, never committed
        raise ValueError("the operation's own check failed")

    with pytest.raises(ValueError, match="own check failed"):
        commit_atomically(iceberg, iceberg.name(table), build, operation="test")
    assert "doris.test" not in properties(spark, table)


def test_a_writer_that_commits_first_makes_the_build_run_again_on_its_table(spark, table):
    iceberg, _ = load(spark, table)
    seen = []

    def build(java_table, transaction):
        seen.append(transaction.table().properties().get("outside"))
        if len(seen) == 1:  # another writer commits between this attempt's read and its commit
            spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('outside' = 'yes')")
        transaction.updateProperties().set("doris.test", "ours").commit()

    commit_atomically(iceberg, iceberg.name(table), build, operation="test")
    assert seen == [None, "yes"]  # the second attempt built on the table the other writer left
    assert {k: properties(spark, table)[k] for k in ("outside", "doris.test")} == {"outside": "yes", "doris.test": "ours"}


def test_a_writer_that_always_commits_first_ends_in_a_conflict_in_words(spark, table, monkeypatch):
    monkeypatch.setattr(commits, "ATTEMPTS", 3)
    monkeypatch.setattr(commits, "backoff_seconds", lambda attempt: 0.0)
    iceberg, _ = load(spark, table)
    attempts = []

    def build(java_table, transaction):
        attempts.append(1)
        spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('outside' = '{len(attempts)}')")
        transaction.updateProperties().set("doris.test", "never").commit()

    with pytest.raises(CommitConflictError) as refused:
        commit_atomically(iceberg, iceberg.name(table), build, operation="compact")
    assert len(attempts) == 3
    assert str(refused.value) == (
        f"Cannot compact {table}: other writers changed the table 3 times while it committed; "
        "nothing was committed. Run it again."
    )
    assert "doris.test" not in properties(spark, table)
