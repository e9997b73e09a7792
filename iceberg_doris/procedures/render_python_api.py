"""Writes ``iceberg_doris/doris.py``: every procedure as a Python function, from the registry.

``python -m iceberg_doris.procedures.render_python_api`` rewrites the file after a procedure, a
parameter, a default or a doc changed; ``--check`` only says whether it is up to date (exit 1 if
not). ``tests/procedures/test_python_api.py`` fails while it is out of date, so the functions can
never drift from the registry. The functions are plain source so that an editor's go-to-definition,
``help()`` and type checkers see their parameters, defaults, types and docs.
"""

from __future__ import annotations

import argparse
import ast
import json
import keyword
import sys
from pathlib import Path
from typing import Any

from iceberg_doris.procedures import all_procedures
from iceberg_doris.procedures.python_api import python_annotation, python_default, python_docstring
from iceberg_doris.procedures.registry import Parameter, Procedure

TARGET = Path(__file__).resolve().parents[1] / "doris.py"
COMMAND = "python -m iceberg_doris.procedures.render_python_api"
LINE = 120

# Python-only functions doris.py re-exports beside the procedures (module, name): one import for users.
EXTRAS = (("iceberg_doris.streaming", "stream_to"),)

HEADER = '''"""Every ``CALL doris.<name>(...)`` procedure as a Python function ``doris.<name>(spark, ...)``.

The functions take the same named arguments as the SQL form (keyword-only) and return the same
rows, as a list of :class:`pyspark.sql.Row` (``changes``, whose columns are the table's, returns a
DataFrame). Errors are raised as :mod:`iceberg_doris.errors`
exceptions. ``help(doris.<name>)`` shows the parameters.

Beside them, Python-only: ``doris.stream_to(table, ...)``, a Structured Streaming sink
(``df.writeStream.foreachBatch(doris.stream_to(...))``) that loads each micro-batch exactly once.

Example:
    >>> from iceberg_doris import doris
    >>> rows = doris.help(spark, procedure="help")               # doctest: +SKIP
    >>> rows[0].procedure                                         # doctest: +SKIP
    'help'

Written by ``{command}`` from the procedure registry
(:mod:`iceberg_doris.procedures.registry`): do not edit by hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceberg_doris import procedures as _procedures
from iceberg_doris.procedures.python_api import call_frame as _frame
from iceberg_doris.procedures.python_api import call_procedure as _call
from iceberg_doris.procedures.python_api import entry_point as _entry_point
from iceberg_doris.procedures.python_api import procedure_function as _procedure
{extras}
if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Callable, Mapping, Sequence
    from decimal import Decimal

    from pyspark.sql import DataFrame, Row, SparkSession
'''

FOOTER = '''

def __getattr__(name: str) -> Callable[..., list[Row]]:
    """Procedures registered after this file was written (plugins, tests) are found too."""
    from iceberg_doris.errors import UnknownProcedureError

    try:
        procedure = _procedures.get_procedure(name)
    except UnknownProcedureError:
        raise AttributeError(f"module {__name__!r} has no procedure {name!r}") from None
    entry = globals()[name] = _entry_point(procedure)
    return entry


def __dir__() -> list[str]:
    return sorted(set(globals()) | {p.name for p in _procedures.all_procedures()})
'''


def own_procedures() -> list[type[Procedure]]:
    """The procedures this package registers (not a plugin's or a test's)."""
    return [p for p in all_procedures() if p.__module__.startswith("iceberg_doris.procedures.")]


def render() -> str:
    """The text ``doris.py`` must have."""
    procedures = own_procedures()
    names = "".join(f'    "{name}",\n' for name in [p.name for p in procedures] + [name for _, name in EXTRAS])
    functions = "".join(render_function(p) for p in procedures)
    extras = "".join(f"from {module} import {name}\n" for module, name in EXTRAS)
    header = HEADER.format(command=COMMAND, extras=extras)
    return f"{header}\n__all__ = [\n{names}]\n{functions}{FOOTER}"


def render_function(procedure: type[Procedure]) -> str:
    name = procedure.name
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"doris.{name} cannot be a Python function name")
    lines = ["", "", "@_procedure", f"def {name}(", "    spark: SparkSession,", "    /,"]
    if procedure.parameters:
        lines.append("    *,")
    for parameter in procedure.parameters:
        lines.append(f"    {render_parameter(parameter)},")
    lines.append(") -> DataFrame:" if procedure.returns_frame else ") -> list[Row]:")
    lines += render_docstring(python_docstring(procedure))
    lines += render_call(procedure)
    return "\n".join(lines) + "\n"


def render_parameter(parameter: Parameter) -> str:
    if not parameter.name.isidentifier() or keyword.iskeyword(parameter.name) or parameter.name == "spark":
        raise ValueError(f"parameter {parameter.name!r} cannot be a Python keyword argument")
    text = f"{parameter.name}: {python_annotation(parameter)}"
    return text if parameter.required else f"{text} = {render_literal(python_default(parameter.default))}"


def render_literal(value: Any) -> str:
    """A default as source, checked to read back as the same value."""
    text = json.dumps(value) if isinstance(value, str) else repr(value)
    if ast.literal_eval(text) != value or type(ast.literal_eval(text)) is not type(value):
        raise ValueError(f"default {value!r} has no literal form")
    return text


def render_docstring(doc: str) -> list[str]:
    escaped = doc.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    first, *rest = escaped.split("\n")
    return [f'    """{first}', *(f"    {line}" if line else "" for line in rest), '    """']


def render_call(procedure: type[Procedure]) -> list[str]:
    pairs = [f'"{p.name}": {p.name}' for p in procedure.parameters]
    call = "_frame" if procedure.returns_frame else "_call"
    one_line = f'    return {call}(spark, "{procedure.name}", {{{", ".join(pairs)}}})'
    if len(one_line) <= LINE:
        return [one_line]
    return [f'    return {call}(spark, "{procedure.name}", {{', *(f"        {pair}," for pair in pairs), "    })"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that doris.py is up to date")
    args = parser.parse_args(argv)
    text = render()
    current = TARGET.read_text() if TARGET.exists() else ""
    if args.check:
        if current != text:
            print(f"{TARGET} is out of date: run {COMMAND}", file=sys.stderr)
            return 1
        return 0
    if current != text:
        TARGET.write_text(text)
        print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
