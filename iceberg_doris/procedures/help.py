"""``doris.help``: every procedure with its parameters, types, defaults and description."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris.procedures.parameter_types import STRING
from iceberg_doris.procedures.registry import (
    Arguments,
    OutputColumn,
    Parameter,
    Procedure,
    all_procedures,
    get_procedure,
    register,
    render_default,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class HelpProcedure(Procedure):
    name = "help"
    summary = "Lists every doris.* procedure, or describes one in full with its parameters."
    details = (
        "Without arguments: one row per procedure with its signature and a one-line summary.\n"
        "With procedure => '<name>': a first row describing the procedure and what it returns, "
        "then one row per parameter (type, required, default, description)."
    )
    parameters = (
        Parameter("procedure", STRING, description="Name of one procedure to describe in full."),
    )
    output = (
        OutputColumn("procedure", "string", "Procedure name, called as doris.<procedure>."),
        OutputColumn("signature", "string", "Parameters in order, with types and defaults."),
        OutputColumn("parameter", "string", "Parameter name (NULL on a procedure's own row)."),
        OutputColumn("type", "string", "Parameter type."),
        OutputColumn("required", "boolean", "Whether the parameter must be given."),
        OutputColumn("default", "string", "Value used when an optional parameter is omitted."),
        OutputColumn("description", "string", "What the procedure or parameter does."),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        if args["procedure"] is None:
            return [_procedure_row(p, p.summary) for p in all_procedures()]
        procedure = get_procedure(args["procedure"])
        full = procedure.summary
        if procedure.details:
            full += "\n" + procedure.details
        full += "\nReturns: " + ", ".join(f"{c.name} {c.type}" for c in procedure.output)
        rows = [_procedure_row(procedure, full)]
        for parameter in procedure.parameters:
            default = None if parameter.required else render_default(parameter.default)
            rows.append(
                (
                    procedure.name,
                    procedure.signature(),
                    parameter.name,
                    parameter.type.name,
                    parameter.required,
                    default,
                    parameter.description,
                )
            )
        return rows


def _procedure_row(procedure: type[Procedure], description: str) -> tuple[Any, ...]:
    return (procedure.name, procedure.signature(), None, None, None, None, description)
