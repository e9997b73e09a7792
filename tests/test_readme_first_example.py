"""The README's first example lists every procedure with its whole signature (issue 39: Spark's
``show()`` stopped at 20 rows and cut each signature at 20 characters)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from iceberg_doris.procedures.render_python_api import own_procedures

README = Path(__file__).resolve().parents[1] / "README.md"


def first_help_call() -> str:
    """The line of the README's first Python block that runs ``CALL doris.help()``."""
    block = re.search(r"```python\n(.*?)```", README.read_text(), re.S)
    assert block is not None
    [line] = [line for line in block.group(1).splitlines() if "CALL doris.help()" in line]
    return line.split("#", 1)[0].strip()


@pytest.mark.spark
def test_the_first_example_shows_every_procedure_in_full(spark, capsys):
    capsys.readouterr()
    exec(first_help_call(), {"spark": spark})  # noqa: S102 - the README's own line
    shown = capsys.readouterr().out
    for procedure in own_procedures():
        assert procedure.signature() in shown, procedure.name
