"""Binding call arguments to a procedure's parameters, with Iceberg's binding messages.

Raw arguments are a mapping: named arguments by name, positional ones under ``"#<index>"`` (the
shape the JVM parser sends). The rules and messages follow Iceberg's ``ResolveProcedures``, with
the procedure's signature added so the message also says how to fix the call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from iceberg_doris.errors import ProcedureArgumentError
from iceberg_doris.procedures.registry import Procedure

POSITIONAL_PREFIX = "#"


def bind(procedure: type[Procedure], raw: Mapping[str, Any]) -> dict[str, Any]:
    """Returns every parameter's value (defaults filled in), or raises ProcedureArgumentError."""
    positional = {k: v for k, v in raw.items() if k.startswith(POSITIONAL_PREFIX)}
    named = {k: v for k, v in raw.items() if not k.startswith(POSITIONAL_PREFIX)}
    usage = f"Usage: {procedure.signature()}"
    if positional and named:
        raise ProcedureArgumentError(f"Named and positional arguments cannot be mixed. {usage}")
    parameters = {p.name: p for p in procedure.parameters}
    given: dict[str, Any] = {}
    if positional:
        values = [positional[key] for key in sorted(positional, key=lambda k: int(k[1:]))]
        if len(values) > len(procedure.parameters):
            raise ProcedureArgumentError(f"Too many arguments for procedure. {usage}")
        given = {p.name: v for p, v in zip(procedure.parameters, values)}
    for key, value in named.items():
        name = key.lower()
        if name not in parameters:
            raise ProcedureArgumentError(f"Unknown argument: {key}. {usage}")
        if name in given:
            raise ProcedureArgumentError(f"Duplicate procedure argument: {key}. {usage}")
        given[name] = value
    missing = [p.name for p in procedure.parameters if p.required and given.get(p.name) is None]
    if missing:
        raise ProcedureArgumentError(f"Missing required parameters: [{','.join(missing)}]. {usage}")
    bound: dict[str, Any] = {}
    for parameter in procedure.parameters:
        value = given.get(parameter.name)
        bound[parameter.name] = parameter.default if value is None else parameter.type.coerce(value, parameter.name)
    return bound


def reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads`` hook: a named argument given twice must fail, not silently keep the last."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ProcedureArgumentError(f"Duplicate procedure argument: {key}")
        result[key] = value
    return result
