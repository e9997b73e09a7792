"""``doris.run_dynamic_partition``: one pass of Doris's dynamic-partition scheduler.

For one table, or every table of the catalog with ``dynamic_partition.enable``, it creates the
partitions due from now to ``end`` (and history when asked) and drops whole partitions before
``start`` unless reserved, in the table's ``dynamic_partition.time_zone``. Each table's pass is one
commit; dropped partitions' rows stay reachable by time travel. The CLI runs it on an interval
(``iceberg-doris dynamic-partitions --interval 600``).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.errors import DorisError
from iceberg_doris.partitioning import plan_dynamic_partitions
from iceberg_doris.procedures.parameter_types import STRING
from iceberg_doris.procedures.partition_changes import commit_model_change, stage_partition_delete
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register
from iceberg_doris.procedures.table_access import DorisTable, open_table
from iceberg_doris.table_model import DorisTableModel
from iceberg_doris.table_model.partition_predicates import partition_predicate, union
from iceberg_doris.table_model.table_properties import DORIS_PROPERTY_PREFIX

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)
ENABLE_KEY = DORIS_PROPERTY_PREFIX + "dynamic_partition.enable"


@register
class RunDynamicPartitionProcedure(Procedure):
    name = "run_dynamic_partition"
    summary = "One pass of the dynamic-partition scheduler over one table or every enabled table."
    details = (
        "Returns one row per partition created or dropped (action CREATE / DROP), and ERROR rows for "
        "tables the pass could not change (the other tables still get their pass)."
    )
    parameters = (Parameter("table", STRING, description="db.tbl; NULL for every table with dynamic_partition.enable"),)
    output = (
        OutputColumn("table", "string"),
        OutputColumn("action", "string", "CREATE, DROP or ERROR."),
        OutputColumn("partition_name", "string"),
        OutputColumn("range", "string"),
        OutputColumn("message", "string", "Why a table or partition was skipped."),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        names = [args["table"]] if args["table"] else enabled_tables(IcebergJava(spark))
        rows: list[tuple[Any, ...]] = []
        for name in names:
            try:
                rows += run_pass(open_table(spark, name), dt.datetime.now(dt.timezone.utc))
            except DorisError as error:
                if args["table"]:
                    raise
                log.warning("dynamic partition pass on %s failed: %s", name, error)
                rows.append((name, "ERROR", None, None, str(error)))
        return rows


def run_pass(handle: DorisTable, now: dt.datetime) -> list[tuple[Any, ...]]:
    config = handle.model.dynamic_partition()
    if config is None or not config.enable:
        raise DorisError(
            f"Table {handle.name.qualified} has no enabled dynamic partitions: set "
            "dynamic_partition.enable and the other dynamic_partition.* properties first"
        )

    def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, list[tuple[Any, ...]]]:
        partitions = fresh.require_partitions()
        plan = plan_dynamic_partitions(config, partitions, now)
        dropped = [partitions.get(n) for n in plan.drop]
        if dropped:
            predicate = union([partition_predicate(partitions, p) for p in dropped if p is not None])
            stage_partition_delete(fresh, transaction, predicate, operation="drop expired partitions", partitions=",".join(plan.drop))
        updated = partitions
        for name in plan.drop:
            updated = updated.drop_partition(name, if_exists=True)
        updated = updated.add_all(plan.create)
        table = fresh.name.qualified
        rows = [(table, "DROP", p.name, p.range_text(), None) for p in dropped if p is not None]
        rows += [(table, "CREATE", p.name, p.range_text(), None) for p in plan.create]
        rows += [(table, "ERROR", None, None, message) for message in plan.errors]
        return fresh.model.with_partitions(updated), rows

    return commit_model_change(handle, change, operation="run dynamic partitions on")


def enabled_tables(iceberg: IcebergJava) -> list[str]:
    """Every table of the catalog whose properties enable dynamic partitions."""
    catalog = iceberg.catalog()
    found = []
    for namespace in catalog.listNamespaces():
        for identifier in catalog.listTables(namespace):
            levels = list(identifier.namespace().levels())
            # Rendered so that open_table parses it back to the same parts, whatever they hold.
            name = TableName(str(levels[0]), str(identifier.name())).qualified if len(levels) == 1 else str(identifier)
            try:
                properties = catalog.loadTable(identifier).properties()
            except Exception:  # noqa: BLE001 - a broken table must not stop the scheduler
                log.warning("cannot load %s for the dynamic partition scheduler", name)
                continue
            if str(properties.get(ENABLE_KEY) or "").lower() == "true":
                found.append(name)
    return found
