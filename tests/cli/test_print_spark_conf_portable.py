"""``--print-spark-conf`` without ``--master`` writes a file for any machine: this machine's
driver memory and shuffle partitions only with ``--size-for-this-machine`` (issue 39)."""

from __future__ import annotations

import pytest

from iceberg_doris.cli import main
from iceberg_doris.spark_session.builder import DRIVER_MEMORY_ENV, MASTER_ENV

MACHINE_SIZED = ("spark.driver.memory=", "spark.sql.shuffle.partitions=")


@pytest.fixture
def machine(monkeypatch, tmp_path):
    """No environment choosing the master or the driver memory: only this machine's size would."""
    monkeypatch.delenv(DRIVER_MEMORY_ENV, raising=False)
    monkeypatch.delenv(MASTER_ENV, raising=False)
    monkeypatch.setenv("ICEBERG_DORIS_HOME", str(tmp_path / "home"))


def printed(capsys, *arguments: str) -> list[str]:
    assert main(["--print-spark-conf", *arguments]) == 0
    return capsys.readouterr().out.splitlines()


def test_without_master_no_machine_sized_setting_is_written(machine, capsys):
    lines = printed(capsys)
    assert [line for line in lines if line.startswith(MACHINE_SIZED)] == []
    assert any(line.startswith("spark.sql.extensions=") for line in lines)


def test_asked_for_they_are_written(machine, capsys):
    lines = printed(capsys, "--size-for-this-machine")
    written = sorted(line.split("=", 1)[0] for line in lines if line.startswith(MACHINE_SIZED))
    assert written == ["spark.driver.memory", "spark.sql.shuffle.partitions"]


def test_a_named_local_master_keeps_them_and_conf_wins(machine, capsys):
    assert "spark.sql.shuffle.partitions=4" in printed(capsys, "--master", "local[2]")
    assert "spark.driver.memory=3g" in printed(capsys, "--conf", "spark.driver.memory=3g")
