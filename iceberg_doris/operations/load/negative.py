"""``merge_type => 'NEGATIVE'``: a load that undoes an earlier load of an aggregate table.

Doris spells it ``NEGATIVE`` in a broker load's data description (``DATA INFILE (...) NEGATIVE
INTO TABLE t``) and ``negative: true`` in a stream load: every loaded row's SUM values are negated,
so loading the same rows again with it subtracts what they added. Doris allows it only on
AGGREGATE KEY tables whose value columns are all SUM (any other aggregate cannot be undone by a
row), with the messages below (fe-core ``BrokerFileGroup.parse`` and the stream-load planner).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceberg_doris.ddl import KeysModel
from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.errors import LoadError
from iceberg_doris.table_model import DorisTableModel

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def check_negative_allowed(model: DorisTableModel) -> None:
    """Doris's rules for a NEGATIVE load, with its messages (the first one is Doris's wording)."""
    if model.keys_model is not KeysModel.AGGREGATE:
        raise LoadError(
            "Load for AGG_KEYS table should not specify NEGATIVE: merge_type NEGATIVE negates the SUM columns of "
            f"an AGGREGATE KEY table, and this table has {model.keys_model.value} keys"
        )
    for column in model.value_columns:
        if (column.aggregation or "").upper() != "SUM":
            raise LoadError(f"Column is not SUM AggregateType. column:{column.name}")


def negated(prepared: "DataFrame", model: DorisTableModel) -> "DataFrame":
    """``prepared`` (the converted rows) with every SUM column's value negated (NULL stays NULL)."""
    from pyspark.sql import functions as F

    for column in model.value_columns:
        name = quote_identifier(column.name)
        prepared = prepared.withColumn(column.name, (-F.col(name)).cast(column.spark_type))
    return prepared
