"""``doris.insert_overwrite``: Doris ``INSERT OVERWRITE TABLE t [PARTITION (...) | PARTITION (*)] query``.

One overwrite snapshot on main: the whole table, the named partitions, or (``array('*')``) the
partitions the query's rows land in are replaced by the query's rows; data files are removed, not
rewritten, and time travel to the snapshot before reads the old rows. As Doris's strict INSERT, a row
that cannot be converted or fits none of the target partitions fails the statement and nothing
changes. ``auto_create => true`` is Doris's ``enable_auto_create_when_overwrite``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris.errors import LoadError
from iceberg_doris.procedures.load import LoadProcedure, LoadRequest, execute_load
from iceberg_doris.procedures.parameter_types import BOOLEAN, LABEL, STRING, STRING_ARRAY
from iceberg_doris.procedures.registry import Arguments, Parameter, Procedure, register
from iceberg_doris.procedures.table_access import open_table

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

STRICT_INSERT_MESSAGE = "Insert has filtered data in strict mode"


def positional_frame(spark: "SparkSession", handle: Any, query: str) -> Any:
    """INSERT maps the query's columns to the table's by position, whatever their names."""
    from iceberg_doris.loading import read_source

    frame = read_source(spark, query=query)
    names = [c.name for c in handle.model.columns]
    if len(frame.columns) != len(names):
        raise LoadError(
            f"Column count doesn't match value count: the query gives {len(frame.columns)} columns, "
            f"{handle.name.qualified} has {len(names)} ({', '.join(names)})"
        )
    return frame.toDF(*names)


@register
class InsertOverwriteProcedure(Procedure):
    name = "insert_overwrite"
    summary = "Doris INSERT OVERWRITE: replaces the table, named partitions or array('*') touched ones, in one snapshot."
    details = (
        "partitions => NULL overwrites the whole table (partitions that get no rows become empty, not dropped); "
        "array('p1', 'p2') only those (every row must fall in them); array('*') the partitions the rows touch "
        "(zero rows change nothing). Any filtered row fails the statement: 'Insert has filtered data in strict "
        "mode'. auto_create => true lets auto-partition tables create partitions (Doris's "
        "enable_auto_create_when_overwrite)."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("query", STRING, required=True, description="A SELECT producing the new rows (table column order)."),
        Parameter("partitions", STRING_ARRAY, description="NULL: whole table; names; or array('*')."),
        Parameter("auto_create", BOOLEAN, default=False, description="Auto-partition tables may create partitions."),
        Parameter("label", LABEL, description="Exactly-once label: letters, digits, '-', '_', ':' (default: generated)."),
    )
    output = LoadProcedure.output

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        handle = open_table(spark, args["table"])
        partitions = args["partitions"]
        if partitions is not None and handle.model.partitions is None:
            raise LoadError(f"Table {handle.name.qualified} is not partitioned: overwrite it without partitions")
        if partitions is None:
            mode, named = "all", None
        elif partitions == ["*"]:
            mode, named = "touched", None
        else:
            mode, named = "named", partitions
            for name in partitions:
                if handle.model.partitions is not None and handle.model.partitions.get(name) is None:
                    raise LoadError(f"Partition[{name}] does not exist in {handle.name.qualified}")
        request = LoadRequest(
            source=positional_frame(spark, handle, args["query"]),
            partitions=named,
            label=args["label"],
            max_filter_ratio=0.0,
            strict_mode=True,
            overwrite=mode,
            auto_create=args["auto_create"],
            operation="insert_overwrite",
            filtered_message=STRICT_INSERT_MESSAGE,
        )
        return [execute_load(spark, handle, request)]
