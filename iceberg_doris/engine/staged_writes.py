"""Writing data files with Spark without publishing them (Iceberg write-audit-publish).

Spark writes a DataFrame into a table as an unpublished ("staged") snapshot tagged with a WAP id:
no branch points to it, so no reader sees it. The caller then publishes the staged data files
in its own single commit, together with delete files and Doris metadata. A staged snapshot that
never gets published is garbage for ``expire_snapshots`` / ``remove_orphan_files``.
"""

from __future__ import annotations

import threading
import uuid
from typing import TYPE_CHECKING

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.errors import LoadError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

WAP_ID_CONF = "spark.wap.id"
WAP_ENABLED = "write.wap.enabled"
# spark.wap.id is a session setting; writes that stage files take turns setting it.
_wap_lock = threading.Lock()


def stage_data_files(iceberg: IcebergJava, name: TableName, frame: "DataFrame") -> list[JavaObject]:
    """Writes ``frame`` (columns in table order) as staged data files; returns their DataFiles."""
    table = iceberg.load_table(name)
    if str(table.properties().get(WAP_ENABLED) or "false").lower() != "true":
        raise LoadError(
            f"Table {name.qualified} does not allow staged writes: set {WAP_ENABLED}=true "
            f"(ALTER TABLE {name.qualified} SET TBLPROPERTIES ('{WAP_ENABLED}'='true')); tables made by "
            "doris.create_table have it"
        )
    wap_id = f"doris-{uuid.uuid4().hex}"
    spark = frame.sparkSession
    with _wap_lock:
        previous = spark.conf.get(WAP_ID_CONF, None)
        spark.conf.set(WAP_ID_CONF, wap_id)
        try:
            frame.writeTo(name.sql).append()
        finally:
            if previous is None:
                spark.conf.unset(WAP_ID_CONF)
            else:
                spark.conf.set(WAP_ID_CONF, previous)
    table = iceberg.load_table(name)
    for snapshot in table.snapshots():
        if snapshot.summary().get("wap.id") == wap_id:
            return list(snapshot.addedDataFiles(table.io()))
    return []  # Spark commits no snapshot for an empty write
