"""Doris merge-on-write for unique keys (and the same merge for aggregate keys) on Iceberg.

- :mod:`.plan`: what a batch changes, decided as Spark DataFrames (one version per key, sequence
  columns, aggregates, partial updates, tombstones);
- :mod:`.lookup`: finding the live rows the batch replaces (primary-key index or scan);
- :mod:`.past_compactions`: a lookup carried past compactions committed after it (rowid conversion);
- :mod:`.commit`: :class:`KeyedLoad`, one keyed load's steps from its early write to its commit,
  and :class:`KeyedWrite`, the rows and delete bitmaps of one ref staged as a RowDelta.

The load (:mod:`iceberg_doris.operations.load`) owns the commit and calls down into these.
"""
