"""Which user-supplied names are accepted, and how a refused one is shown back (pure Python).

:mod:`.rules` holds Doris's rules for labels, table, database and column names, and
:func:`~iceberg_doris.names.rules.shown`, which quotes a name for a message. It sits at the bottom
of the package (it imports only :mod:`iceberg_doris.errors`), so every layer can use it.
"""
