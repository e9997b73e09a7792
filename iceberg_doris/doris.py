"""Every ``CALL doris.<name>(...)`` procedure as a Python function ``doris.<name>(spark, ...)``.

The functions take the same named arguments as the SQL form (keyword-only) and return the same
rows, as a list of :class:`pyspark.sql.Row`. Errors are raised as :mod:`iceberg_doris.errors`
exceptions. ``help(doris.<name>)`` shows the parameters.

Example:
    >>> from iceberg_doris import doris
    >>> rows = doris.help(spark, procedure="help")               # doctest: +SKIP
    >>> rows[0].procedure                                         # doctest: +SKIP
    'help'
"""

from __future__ import annotations

import datetime as dt
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from iceberg_doris import procedures as _procedures
from iceberg_doris.procedures.parameter_types import python_argument
from iceberg_doris.procedures.registry import Procedure, render_default

if TYPE_CHECKING:
    from pyspark.sql import Row, SparkSession


def _entry_point(procedure: type[Procedure]) -> Callable[..., list["Row"]]:
    def call(spark: "SparkSession", **arguments: Any) -> list["Row"]:
        from pyspark.sql import Row

        raw = {name: _passthrough(value) for name, value in arguments.items()}
        rows = _procedures.run_procedure(spark, procedure.name, raw)
        names = [column.name for column in procedure.output]
        return [Row(**dict(zip(names, map(_as_spark_collects, row)))) for row in rows]

    parameters = [inspect.Parameter("spark", inspect.Parameter.POSITIONAL_ONLY)]
    for parameter in procedure.parameters:
        default = inspect.Parameter.empty if parameter.required else parameter.default
        parameters.append(inspect.Parameter(parameter.name, inspect.Parameter.KEYWORD_ONLY, default=default))
    call.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    call.__name__ = call.__qualname__ = procedure.name
    call.__module__ = __name__
    call.__doc__ = _docstring(procedure)
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


def _docstring(procedure: type[Procedure]) -> str:
    lines = [procedure.summary, ""]
    if procedure.details:
        lines += [procedure.details, ""]
    lines.append(f"SQL: CALL {procedure.signature()}")
    if procedure.parameters:
        lines += ["", "Args:"]
        for parameter in procedure.parameters:
            need = "required" if parameter.required else f"default {render_default(parameter.default)}"
            lines.append(f"    {parameter.name} ({parameter.type.name}, {need}): {parameter.description}")
    lines += ["", "Returns rows with: " + ", ".join(f"{c.name} ({c.type})" for c in procedure.output)]
    return "\n".join(lines)


def __getattr__(name: str) -> Callable[..., list["Row"]]:
    """Procedures registered after this module was imported (plugins, tests) are found too."""
    from iceberg_doris.errors import UnknownProcedureError

    try:
        procedure = _procedures.get_procedure(name)
    except UnknownProcedureError:
        raise AttributeError(f"module {__name__!r} has no procedure {name!r}") from None
    entry = globals()[name] = _entry_point(procedure)
    return entry


def __dir__() -> list[str]:
    return sorted(set(globals()) | {p.name for p in _procedures.all_procedures()})


__all__: list[str] = []
for _procedure in _procedures.all_procedures():
    globals()[_procedure.name] = _entry_point(_procedure)
    __all__.append(_procedure.name)
