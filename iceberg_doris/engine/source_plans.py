"""What a load's source reads, from its analysed plan: whether it reads the table it loads into.

A load whose rows are computed from the table it writes (``UPDATE t SET n = n + 1``, ``DELETE FROM
t WHERE v > 0`` on a unique-key table, ``INSERT INTO t SELECT ... FROM t``) is a read-modify-write:
it must not commit over a change it did not read, which the load then holds the table's lock for
(see ``operations/load``). Views are expanded in the analysed plan and subqueries are walked too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceberg_doris.engine.table_names import TableName

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from iceberg_doris.engine.iceberg_java import JavaObject

V2_RELATIONS = ("DataSourceV2Relation", "DataSourceV2ScanRelation")


def reads_table(frame: "DataFrame", catalog_name: str, name: TableName) -> bool:
    """Whether computing ``frame`` reads table ``name`` of catalog ``catalog_name``."""
    wanted = (catalog_name.lower(), name.namespace.lower(), name.name.lower())
    pending = [frame._jdf.queryExecution().analyzed()]
    while pending:
        plan = pending.pop()
        if plan.getClass().getSimpleName() in V2_RELATIONS and _names(plan) == wanted:
            return True
        pending.extend(_items(plan.children()))
        pending.extend(_items(plan.subqueries()))
    return False


def _names(relation: "JavaObject") -> tuple[str, str, str] | None:
    if relation.getClass().getSimpleName() == "DataSourceV2ScanRelation":
        relation = relation.relation()
    catalog, identifier = relation.catalog(), relation.identifier()
    if not catalog.isDefined() or not identifier.isDefined():
        return None
    namespace = ".".join(str(part) for part in identifier.get().namespace())
    return (str(catalog.get().name()).lower(), namespace.lower(), str(identifier.get().name()).lower())


def _items(sequence: "JavaObject") -> list["JavaObject"]:
    return [sequence.apply(i) for i in range(int(sequence.size()))]
