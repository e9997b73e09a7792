"""Benchmarks of iceberg-doris against plain Iceberg (Spark MERGE INTO, pyiceberg).

``python -m benchmarks.run --scale 200000`` runs every suite on one Spark session and writes
``benchmarks/RESULTS.md``; see ``benchmarks/README.md``. Each suite is a function taking an
existing Spark session, a namespace and a scale, so the tests can run them at a tiny scale on the
test session:

- :mod:`benchmarks.suite_upsert` (a): doris.load vs MERGE INTO (merge-on-read, copy-on-write) vs
  pyiceberg ``Table.upsert``;
- :mod:`benchmarks.suite_cdc` (b): a CDC stream of MERGE loads, latency over time, scan vs compacted;
- :mod:`benchmarks.suite_partition_ops` (c): swap / replace / insert_overwrite commit latency on a
  small and a 100x larger table;
- :mod:`benchmarks.suite_auto_partition` (d): auto-partition ingest vs pre-created partitions.
"""
