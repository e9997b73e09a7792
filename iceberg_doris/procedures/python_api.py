"""What the Python functions of :mod:`iceberg_doris.doris` share: the call and the docstring.

Each function of ``doris.py`` (written by :mod:`iceberg_doris.procedures.render_python_api` from
the registry) hands its arguments to :func:`call_procedure`, which sends them down the path a
``CALL doris.*`` takes (the same binding, defaults and checks) and returns the rows as
:class:`pyspark.sql.Row` objects. A procedure registered after ``doris.py`` was written (a plugin,
a test) gets a function built at run time by :func:`entry_point`, with the same signature and doc.
"""

from __future__ import annotations

import datetime as dt
import functools
import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from iceberg_doris.procedures.invocation import run_frame_procedure, run_procedure
from iceberg_doris.procedures.parameter_types import python_argument
from iceberg_doris.procedures.registry import Procedure, get_procedure, render_default

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, Row, SparkSession

P = ParamSpec("P")
R = TypeVar("R")


def call_procedure(spark: "SparkSession", name: str, arguments: Mapping[str, Any]) -> list["Row"]:
    """Runs ``doris.<name>`` with named ``arguments`` (None = not given, as NULL is in SQL)."""
    from pyspark.sql import Row

    procedure = get_procedure(name)
    raw = {key: _passthrough(value) for key, value in arguments.items()}
    rows = run_procedure(spark, procedure.name, raw)
    names = [column.name for column in procedure.output]
    return [Row(**dict(zip(names, map(_as_spark_collects, row)))) for row in rows]


def call_frame(spark: "SparkSession", name: str, arguments: Mapping[str, Any]) -> "DataFrame":
    """Runs ``doris.<name>``, a procedure whose result is a DataFrame, with named ``arguments``."""
    return run_frame_procedure(spark, name, {key: _passthrough(value) for key, value in arguments.items()})


def procedure_function(function: Callable[P, R]) -> Callable[P, R]:
    """Decorates each function of ``doris.py``: a call its signature refuses (an unknown argument,
    a required one missing) goes to the binder anyway, so it fails as the same ``CALL`` does, with
    :class:`~iceberg_doris.errors.ProcedureArgumentError` naming the argument and the usage (not a
    bare TypeError). ``help()``, ``inspect.signature`` and editors see the function's own signature."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            signature.bind(*args, **kwargs)
        except TypeError:
            if len(args) != 1:  # positional arguments after spark: a plain Python mistake
                raise
            if get_procedure(function.__name__).returns_frame:
                return call_frame(args[0], function.__name__, kwargs)
            return call_procedure(args[0], function.__name__, kwargs)
        return function(*args, **kwargs)

    return checked  # type: ignore[return-value]


def python_docstring(procedure: type[Procedure]) -> str:
    """The docstring of ``doris.<name>``: summary, details, the SQL form, arguments, output."""
    lines = [procedure.summary, ""]
    if procedure.details:
        lines += [procedure.details, ""]
    lines.append(f"SQL: CALL {procedure.signature()}")
    if procedure.parameters:
        lines += ["", "Args:"]
        for parameter in procedure.parameters:
            need = "required" if parameter.required else f"default {render_default(parameter.default)}"
            lines.append(f"    {parameter.name} ({parameter.type.name}, {need}): {parameter.description}")
    if procedure.returns_frame:
        lines += ["", "Returns a DataFrame: the table's columns, then " + ", ".join(f"{c.name} ({c.type})" for c in procedure.output)]
    else:
        lines += ["", "Returns rows with: " + ", ".join(f"{c.name} ({c.type})" for c in procedure.output)]
    return "\n".join(lines)


def python_default(default: Any) -> Any:
    """A parameter's default as a Python caller writes it (a mode's name, not its enum member)."""
    value = getattr(default, "value", default)
    return list(value) if isinstance(value, tuple) else value


def python_annotation(parameter: Any) -> str:
    """A parameter's annotation as source text; ``| None`` where None (NULL) is its default."""
    members = [member for member in parameter.type.python_types if member != "None"]
    if "None" in parameter.type.python_types or (not parameter.required and parameter.default is None):
        members.append("None")
    return " | ".join(members)


def entry_point(procedure: type[Procedure]) -> Callable[..., list["Row"]]:
    """A function for a procedure ``doris.py`` does not have (registered after it was written)."""

    def call(spark: "SparkSession", **arguments: Any) -> Any:
        if procedure.returns_frame:
            return call_frame(spark, procedure.name, arguments)
        return call_procedure(spark, procedure.name, arguments)

    parameters = [inspect.Parameter("spark", inspect.Parameter.POSITIONAL_ONLY, annotation="SparkSession")]
    for parameter in procedure.parameters:
        default = inspect.Parameter.empty if parameter.required else python_default(parameter.default)
        parameters.append(
            inspect.Parameter(parameter.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=python_annotation(parameter))
        )
    call.__signature__ = inspect.Signature(parameters, return_annotation="DataFrame" if procedure.returns_frame else "list[Row]")  # type: ignore[attr-defined]
    call.__name__ = call.__qualname__ = procedure.name
    call.__module__ = "iceberg_doris.doris"
    call.__doc__ = python_docstring(procedure)
    return call


def _as_spark_collects(value: Any) -> Any:
    """Timestamps as PySpark's collect() gives them: naive, in local time (naive input means UTC)."""
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
        return aware.astimezone().replace(tzinfo=None)
    return value


def _passthrough(value: Any) -> Any:
    # DataFrames (e.g. doris.load's source) go through as they are; everything else is normalised
    # to the JSON shapes a SQL call produces, so both forms bind identically.
    from pyspark.sql import DataFrame

    return value if isinstance(value, DataFrame) else python_argument(value)
