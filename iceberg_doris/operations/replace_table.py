"""``replace_table``: Doris ``ALTER TABLE t1 REPLACE WITH TABLE t2 [PROPERTIES('swap' = ...)]``.

A Doris table name is an Iceberg catalog entry: replacing ``t1`` with ``t2`` points the name
``t1`` at ``t2``'s table and, with ``swap`` (Doris's default), ``t2`` at ``t1``'s; without it the
table that was ``t1`` leaves the catalog. One catalog transaction (:mod:`iceberg_doris.engine.table_swap`),
no data file is touched, and each table keeps its rows, snapshots, temp partitions, key index and
Doris model under its new name.

As Doris: both tables must exist in the same database; their schemas and models are not compared
(the operation is there to swap in a table loaded on the side, whatever it holds). Doris puts the
dropped table in its recycle bin (``RECOVER TABLE``) unless ``FORCE``; here its files stay where
they are and the result names its metadata file, which Iceberg's ``register_table`` turns back
into a table. Doris's ``FORCE`` (delete them at once) is not offered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceberg_doris.engine.iceberg_java import IcebergJava
from iceberg_doris.engine.table_names import TableName, parse_table_name, render_part
from iceberg_doris.engine.table_swap import refresh_cached_reads, replace_table as swap_tables
from iceberg_doris.errors import ProcedureArgumentError, TableStateError
from iceberg_doris.operations.requests import ReplaceTableRequest, ReplaceTableResult

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def replace_table(spark: "SparkSession", table: str, request: ReplaceTableRequest) -> ReplaceTableResult:
    """Replaces ``table`` with ``request.with_table`` in one catalog transaction (Doris's rules)."""
    iceberg = IcebergJava(spark)
    target = iceberg.name(table)
    source = with_table_name(iceberg, target, request.with_table)
    if target == source:
        # Doris: the table's base index already carries the name it would take.
        raise TableStateError(
            f"New name conflicts with rollup index name: {source.name} "
            f"(a table cannot be replaced with itself: name another table in with_table)"
        )
    iceberg.load_table(target)  # each missing table is named in the project's not-found message
    iceberg.load_table(source)
    swapped = swap_tables(iceberg, target, source, swap=request.swap)
    refresh_cached_reads(iceberg, [target, source] if request.swap else [target])
    return ReplaceTableResult(
        table=target.qualified,
        with_table=source.qualified,
        swap=request.swap,
        table_metadata=swapped.target_metadata,
        with_table_metadata=swapped.source_metadata,
        dropped_metadata=swapped.dropped_metadata,
    )


def with_table_name(iceberg: IcebergJava, target: TableName, text: str) -> TableName:
    """``text`` as Doris reads ``REPLACE WITH TABLE <text>``: a table of ``target``'s database,
    written bare or with that database."""
    try:
        name = iceberg.name(text)
    except ProcedureArgumentError:
        if not isinstance(text, str):
            raise
        name = parse_table_name(f"{render_part(target.namespace)}.{text}", iceberg.catalog_name)
    if name.namespace != target.namespace:
        raise ProcedureArgumentError(
            f"Table {name.qualified} is not in database {render_part(target.namespace)}: REPLACE WITH TABLE swaps two "
            f"tables of one database; load the rows into a table of {render_part(target.namespace)} first"
        )
    return name
