"""Procedures: how one is declared, and the registry every entry point reads.

One procedure is one class in its own module: declared parameters (required first), declared
output columns, and a short ``run`` that does the work. ``CALL doris.<name>``, the Python function
``iceberg_doris.doris.<name>`` and ``doris.help`` all come from this registry.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from iceberg_doris.ddl.sql_text import string_literal
from iceberg_doris.errors import UnknownProcedureError
from iceberg_doris.procedures.parameter_types import ParamType

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

Arguments = Mapping[str, Any]


@dataclass(frozen=True)
class Parameter:
    """A procedure parameter. Optional parameters take ``default`` when omitted or NULL."""

    name: str
    type: ParamType
    required: bool = False
    default: Any = None
    description: str = ""


@dataclass(frozen=True)
class OutputColumn:
    """A result column; ``type`` is a Spark SQL type (string, bigint, boolean, timestamp, ...)."""

    name: str
    type: str
    description: str = ""


class Procedure(ABC):
    """Base of every ``doris.*`` procedure."""

    name: ClassVar[str]
    summary: ClassVar[str]
    details: ClassVar[str] = ""
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    output: ClassVar[tuple[OutputColumn, ...]]

    # True: the procedure's result is a DataFrame whose columns depend on its arguments (``output``
    # lists only the columns it adds); its Python function returns the DataFrame and ``CALL``
    # returns its rows (Spark 4).
    returns_frame: ClassVar[bool] = False

    @abstractmethod
    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        """Does the work on bound arguments; returns rows matching ``output``."""

    def frame(self, spark: "SparkSession", args: Arguments) -> "DataFrame":
        """The result of a ``returns_frame`` procedure, as a DataFrame."""
        raise NotImplementedError(f"doris.{self.name} returns rows, not a DataFrame")

    @classmethod
    def output_ddl(cls) -> str:
        return ", ".join(f"`{column.name}` {column.type}" for column in cls.output)

    @classmethod
    def signature(cls) -> str:
        return f"doris.{cls.name}({', '.join(_render_parameter(p) for p in cls.parameters)})"


P = TypeVar("P", bound=type[Procedure])
_registry: dict[str, type[Procedure]] = {}


def register(procedure: P) -> P:
    """Class decorator that makes a procedure callable everywhere."""
    required_seen_after_optional = False
    optional_seen = False
    for parameter in procedure.parameters:
        if parameter.required and optional_seen:
            required_seen_after_optional = True
        optional_seen = optional_seen or not parameter.required
    if required_seen_after_optional:
        raise TypeError(f"doris.{procedure.name}: required parameters must come before optional ones")
    _registry[procedure.name] = procedure
    return procedure


def get_procedure(name: str) -> type[Procedure]:
    """The procedure registered as ``name`` (case-insensitive)."""
    procedure = _registry.get(name.lower())
    if procedure is None:
        raise UnknownProcedureError(
            f"Procedure doris.{name} not found. Known procedures: {', '.join(sorted(_registry))}. "
            "CALL doris.help() lists them with their parameters."
        )
    return procedure


def all_procedures() -> list[type[Procedure]]:
    return [_registry[name] for name in sorted(_registry)]


def render_default(value: Any) -> str:
    """A default as SQL would write it."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Enum):
        return render_default(value.value)
    if isinstance(value, str):
        return string_literal(value)
    if isinstance(value, (list, tuple)):
        return "array(" + ", ".join(render_default(v) for v in value) + ")"
    return str(value)


def _render_parameter(parameter: Parameter) -> str:
    text = f"{parameter.name} {parameter.type.name}"
    return text if parameter.required else f"{text} = {render_default(parameter.default)}"
