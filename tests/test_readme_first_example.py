"""The README's first example lists every procedure with its whole signature (issue 39: Spark's
``show()`` stopped at 20 rows and cut each signature at 20 characters)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from iceberg_doris.procedures.render_python_api import own_procedures

README = Path(__file__).resolve().parents[1] / "README.md"


def first_example() -> str:
    """The README's first Python block, but the line that starts a session (the test's runs)."""
    block = re.search(r"```python\n(.*?)```", README.read_text(), re.S)
    assert block is not None and "CALL doris.help()" in block.group(1)
    return "\n".join(line for line in block.group(1).splitlines() if not line.startswith("spark = "))


@pytest.mark.spark
def test_the_first_example_shows_every_procedure_in_full(spark, capsys):
    capsys.readouterr()
    exec(first_example(), {"spark": spark})  # noqa: S102 - the README's own lines
    shown = capsys.readouterr().out.splitlines()
    for procedure in own_procedures():
        assert procedure.signature() in shown, procedure.name
