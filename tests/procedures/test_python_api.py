"""``iceberg_doris/doris.py`` is plain source, and it matches the procedure registry (pure: no Spark).

The file is written by ``python -m iceberg_doris.procedures.render_python_api``; these tests fail
whenever a procedure, a parameter, a default, a type or a doc changed without rewriting it.
"""

from __future__ import annotations

import ast
import inspect
import pydoc
from pathlib import Path

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import ProcedureArgumentError
from iceberg_doris.procedures.parameter_types import BIGINT, STRING
from iceberg_doris.procedures.python_api import entry_point, python_annotation, python_default, python_docstring
from iceberg_doris.procedures.registry import OutputColumn, Parameter, Procedure
from iceberg_doris.procedures.render_python_api import COMMAND, EXTRAS, main, own_procedures, render

SOURCE = Path(doris.__file__)
PROCEDURES = own_procedures()


def test_the_file_is_what_the_registry_renders():
    assert SOURCE.read_text() == render(), f"iceberg_doris/doris.py is out of date: run {COMMAND}"
    assert main(["--check"]) == 0


def test_the_functions_are_written_in_the_source():
    tree = ast.parse(SOURCE.read_text())
    written = [node.name for node in tree.body if isinstance(node, ast.FunctionDef) and not node.name.startswith("__")]
    assert written == [p.name for p in PROCEDURES]
    assert doris.__all__ == written + [name for _, name in EXTRAS]
    assert len(PROCEDURES) >= 20  # the registry was read, not an empty one


def test_the_python_only_functions_are_re_exported():
    from iceberg_doris.streaming import stream_to

    assert ("iceberg_doris.streaming", "stream_to") in EXTRAS
    assert doris.stream_to is stream_to
    assert "stream_to" in dir(doris)


@pytest.mark.parametrize("procedure", PROCEDURES, ids=lambda p: p.name)
def test_each_function_has_the_procedure_s_parameters_defaults_types_and_doc(procedure):
    function = doris.__dict__[procedure.name]  # in the module itself, not made by __getattr__
    assert inspect.getsourcefile(inspect.unwrap(function)) == str(SOURCE)
    assert function.__module__ == "iceberg_doris.doris" and function.__name__ == procedure.name
    signature = inspect.signature(function)
    spark, *parameters = signature.parameters.values()
    assert (spark.name, spark.kind) == ("spark", inspect.Parameter.POSITIONAL_ONLY)
    assert [p.name for p in parameters] == [p.name for p in procedure.parameters]
    for written, declared in zip(parameters, procedure.parameters):
        assert written.kind is inspect.Parameter.KEYWORD_ONLY
        if declared.required:
            assert written.default is inspect.Parameter.empty, declared.name
        else:
            assert written.default == python_default(declared.default), declared.name
        assert written.annotation == python_annotation(declared), declared.name
    assert signature.return_annotation == ("DataFrame" if procedure.returns_frame else "list[Row]")
    assert inspect.getdoc(function) == python_docstring(procedure)


def test_defaults_are_the_registry_s_in_python_terms():
    load = inspect.signature(doris.load).parameters
    assert load["merge_type"].default == "APPEND"  # MergeType.APPEND, as a caller writes it
    assert load["max_filter_ratio"].default == 0.0
    assert load["source"].annotation == "str | DataFrame | None"
    assert inspect.signature(doris.cleanup).parameters["retain_last"].default == 1


def test_help_shows_the_parameters_and_the_doc():
    text = pydoc.render_doc(doris.load, renderer=pydoc.plaintext)
    assert "load(spark: 'SparkSession', /, *, table: 'str', source: 'str | DataFrame | None' = None," in text
    assert "merge_type: 'str' = 'APPEND'" in text
    assert "Loads rows from a table/view, a query or files into a table" in text
    assert "SQL: CALL doris.load(table string, source string = NULL" in text
    assert "max_filter_ratio (double, default 0.0): Tolerated share of filtered rows, 0 to 1." in text


def test_arguments_the_signature_refuses_are_refused_by_the_binder_as_in_sql():
    # No Spark needed: the binder refuses before the procedure runs.
    with pytest.raises(ProcedureArgumentError, match=r"^Unknown argument: colour\. Usage: doris\.describe\(table string\)"):
        doris.describe(None, table="db.t", colour="red")
    with pytest.raises(ProcedureArgumentError, match=r"^Missing required parameters: \[table\]\. Usage"):
        doris.describe(None)
    with pytest.raises(TypeError):
        doris.describe(None, "db.t")  # positional: a Python mistake, as for any function


def test_a_procedure_registered_later_gets_a_function_at_run_time():
    class Late(Procedure):
        name = "late_example"
        summary = "An example."
        parameters = (Parameter("table", STRING, required=True), Parameter("count", BIGINT, default=3))
        output = (OutputColumn("n", "bigint"),)

        def run(self, spark, args):  # pragma: no cover - never run
            return []

    function = entry_point(Late)
    assert str(inspect.signature(function)) == "(spark: 'SparkSession', /, *, table: 'str', count: 'int' = 3) -> 'list[Row]'"
    assert inspect.getdoc(function) == python_docstring(Late)
    with pytest.raises(AttributeError, match="has no procedure 'no_such_procedure'"):
        doris.no_such_procedure  # noqa: B018
