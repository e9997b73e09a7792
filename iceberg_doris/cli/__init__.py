"""The ``iceberg-doris`` command (:mod:`.command`), also ``python -m iceberg_doris.cli``.

:mod:`.output` writes result rows as CSV or JSON, :mod:`.prompt` is the interactive prompt and
:mod:`.sql_script` splits a script into statements.
"""

from iceberg_doris.cli.command import main, render_table

__all__ = ["main", "render_table"]
