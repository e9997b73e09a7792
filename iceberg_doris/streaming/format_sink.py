"""``writeStream.format("doris")``: the Python half of the bridge's streaming sink.

The JVM sink (``jvm/.../DorisSink.java``) hands each micro-batch here with the writer's options;
the batch is loaded by the very code ``doris.stream_to`` runs (:meth:`DorisStreamSink.run`: same
labels, same exactly-once guard, same errors), and its counts go back to the JVM, which reports them
in the query's progress (``query.lastProgress["sink"]["metrics"]``)::

    query = (events.writeStream.format("doris")
             .option("table", "crm.users").option("merge_type", "MERGE").option("delete_on", "op = 'D'")
             .option("checkpointLocation", "/checkpoints/users").start())

Spark passes every writer option as text: the options are ``stream_to``'s (plus ``table``), their
text turned into ``stream_to``'s types here (``"true"``/``"false"``, a ratio, comma-separated
partition names), then bound and checked as ``stream_to`` checks them. They are checked when the
query starts; an unknown option is refused with the list of valid ones.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from iceberg_doris.errors import ProcedureArgumentError
from iceberg_doris.operations.requests import StreamBatchResult
from iceberg_doris.procedures.load import per_batch_parameters
from iceberg_doris.procedures.parameter_types import ArrayType, BooleanType, DoubleType, ParamType, RatioType
from iceberg_doris.streaming.sink import DorisStreamSink, stream_to

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

# Options Spark itself reads from the writer's options: not ours to check.
SPARK_OPTIONS = frozenset({"checkpointlocation"})
# Each option's type is doris.load's: its text is read as that type's value.
_TYPES: dict[str, ParamType] = {parameter.name: parameter.type for parameter in per_batch_parameters()}
# Every stream_to option, so an option stream_to gains is an option of the format sink too.
OPTIONS = tuple(inspect.signature(stream_to).parameters)


def sink_from_options(options: Mapping[str, str]) -> DorisStreamSink:
    """The ``stream_to`` sink the writer's ``options`` describe; raises ProcedureArgumentError
    naming a missing, unknown or malformed option."""
    given: dict[str, str] = {}
    for key, value in options.items():
        name = key.lower()
        if name in SPARK_OPTIONS:
            continue
        if name not in OPTIONS:
            raise ProcedureArgumentError(
                f"format(\"doris\") has no option {key!r}: its options are {', '.join(OPTIONS)} "
                "(and Spark's checkpointLocation)"
            )
        if name in given:
            raise ProcedureArgumentError(f"format(\"doris\") was given option {name!r} twice")
        given[name] = value
    table = given.pop("table", None)
    if not table:
        raise ProcedureArgumentError(
            "format(\"doris\") needs the table to write: .option(\"table\", \"db.tbl\")"
        )
    return stream_to(table, **{name: _typed(name, value) for name, value in given.items()})


def run_batch(options: Mapping[str, str], batch: "DataFrame", batch_id: int) -> dict[str, str | None]:
    """Loads micro-batch ``batch_id`` of a ``format("doris")`` sink as ``stream_to`` does; returns
    its progress metrics (see :func:`batch_metrics`)."""
    sink = sink_from_options(options)
    return batch_metrics(sink.run(batch, batch_id, claim=False))


def batch_metrics(result: StreamBatchResult) -> dict[str, str | None]:
    """What a batch did, as the text values of Spark's ``SinkProgress.metrics``.

    A skipped batch (a replay of a batch the table has) loaded nothing: its counts are 0, so the
    counts summed over a query's progress are what the table received."""
    batch = result.batch
    metrics: dict[str, str | None] = {
        "batch_id": str(batch.batch_id), "stream": batch.stream, "skipped": "true" if result.skipped else "false",
    }
    load = result.load
    if load is None:
        return metrics | {"loaded_rows": "0", "filtered_rows": "0", "unselected_rows": "0", "deleted_rows": "0"}
    return metrics | {
        "loaded_rows": str(load.loaded_rows), "filtered_rows": str(load.filtered_rows),
        "unselected_rows": str(load.unselected_rows), "deleted_rows": str(load.deleted_rows),
        "snapshot_id": None if load.snapshot_id is None else str(load.snapshot_id), "label": load.label,
        "error_rows_path": load.error_rows_path,
    }


def _typed(name: str, value: str) -> Any:
    """An option's text as the value ``stream_to`` takes."""
    kind = _TYPES.get(name)
    if isinstance(kind, BooleanType):
        if value.strip().lower() not in ("true", "false"):
            raise ProcedureArgumentError(f"format(\"doris\") option {name} is true or false, got {value!r}")
        return value.strip().lower() == "true"
    if isinstance(kind, DoubleType):
        try:
            return float(value)
        except ValueError:
            between = " between 0.0 and 1.0" if isinstance(kind, RatioType) else ""
            raise ProcedureArgumentError(f"format(\"doris\") option {name} is a number{between}, got {value!r}") from None
    if isinstance(kind, ArrayType):
        return [part.strip() for part in value.split(",")]
    return value
