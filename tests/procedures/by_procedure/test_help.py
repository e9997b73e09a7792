"""``CALL doris.help``: every procedure, or one in full."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import ProcedureArgumentError, UnknownProcedureError
from tests.procedures.by_procedure import call, sql_error

pytestmark = pytest.mark.spark

PROCEDURES = [
    "add_partition", "add_temp_partition", "auto_compact", "changes", "check", "cleanup", "compact", "create_table", "delete", "describe", "drop_partition",
    "drop_temp_partition", "enable_feature", "help", "insert_overwrite", "load", "recover_partition", "rename_partition",
    "replace_partition", "replace_table", "run_dynamic_partition", "set_properties", "show_partitions", "swap_temp_partition", "truncate",
]
SIGNATURE = "doris.help(procedure string = NULL)"
# Registered by tests/procedures/sample_procedures.py when the bridge tests ran earlier in the session.
SAMPLES = {"test_count", "test_echo", "test_fail"}


def product_procedures(names: list[str]) -> list[str]:
    return [name for name in names if name not in SAMPLES]


def test_positional_arguments(spark):
    rows = call(spark, "CALL doris.help('describe')")
    assert {r[0] for r in rows} == {"describe"}
    assert rows[0][1] == "doris.describe(table string)"
    assert [(r[2], r[3], r[4], r[5]) for r in rows[1:]] == [("table", "string", True, None)]


def test_named_arguments(spark):
    rows = call(spark, "CALL doris.help(procedure => 'help')")
    assert rows[0][:2] == ("help", SIGNATURE)
    assert [(r[2], r[3], r[4], r[5]) for r in rows[1:]] == [("procedure", "string", False, "NULL")]
    assert product_procedures([r[0] for r in call(spark, "CALL doris.help()")]) == PROCEDURES  # one row each


def test_invalid_state(spark):
    # help reads no table; its one state is the registry: an unknown name.
    with pytest.raises(UnknownProcedureError) as raised:
        doris.help(spark, procedure="nope")
    message = str(raised.value)
    head, known = "Procedure doris.nope not found. Known procedures: ", ". CALL doris.help() lists them with their parameters."
    assert message.startswith(head) and message.endswith(known)
    assert product_procedures(message[len(head):-len(known)].split(", ")) == PROCEDURES


def test_invalid_arguments(spark):
    assert sql_error(spark, "CALL doris.help(1)") == "Wrong arg type for procedure: cannot cast bigint to string"
    assert sql_error(spark, "CALL doris.help(colour => 'x')") == f"Unknown argument: colour. Usage: {SIGNATURE}"
    with pytest.raises(ProcedureArgumentError) as raised:
        doris.help(spark, procedure=["load"])
    assert str(raised.value) == "Wrong arg type for procedure: cannot cast array<string> to string"
    # help has no required parameter, so no "missing" case.
