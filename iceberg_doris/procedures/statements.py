"""Spark's own statements on Doris tables, run as the Doris procedure that does their work.

The session extension (``jvm/.../DorisStatementRule.java``) turns ``INSERT INTO`` /
``df.writeTo(t).append()`` into ``doris.load``, ``INSERT OVERWRITE`` into ``doris.insert_overwrite``,
``DELETE`` / ``UPDATE`` into a load or ``doris.delete``. Here those procedures run with the
settings Doris's ``INSERT`` takes, as session settings with Doris's names (Spark's grammar has no
``WITH LABEL``, and Doris's own are session variables):

- ``spark.doris.enable_insert_strict`` (default ``true``): any filtered row (one that fits no
  partition, a NULL for a NOT NULL column) fails the statement, "Insert has filtered data in strict
  mode", and nothing is committed.
- ``spark.doris.insert_max_filter_ratio`` (default ``1.0``): with strict mode off, the statement
  fails only when more than this share of its rows was filtered, with Doris's message
  "Insert has too many filtered data <filtered>/<total> insert_max_filter_ratio is <ratio>".
- ``spark.doris.enable_unique_key_partial_update`` (default ``false``): an ``INSERT`` into a
  merge-on-write UNIQUE KEY table updates only the columns it lists, the others keeping their
  stored values (new keys take their defaults); a key repeated in the statement keeps its last row.
- ``spark.doris.enable_agg_key_partial_update`` (default ``false``): an ``INSERT`` into an AGGREGATE
  KEY table writes NULL in the columns it does not list (not their defaults), so that
  REPLACE_IF_NOT_NULL, SUM, MAX and MIN columns keep their stored values.
- ``spark.doris.insert_label``: the label of the next ``INSERT`` (Doris's ``INSERT ... WITH LABEL``),
  of that one statement only: it is unset as the statement starts, whatever its outcome. A label
  already used on the table raises ``LabelAlreadyUsedError``.

``INSERT OVERWRITE`` takes the label; it stays strict whatever the settings, as
``doris.insert_overwrite`` is (see docs/loads.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.errors import ConfigurationError, DorisError
from iceberg_doris.operations import MergeRows
from iceberg_doris.operations.names import check_label
from iceberg_doris.operations.requests import LoadOrigin
from iceberg_doris.procedures.binding import bind
from iceberg_doris.procedures.invocation import run_procedure
from iceberg_doris.procedures.load import LoadProcedure, load_request, load_row
from iceberg_doris.procedures.registry import get_procedure
from iceberg_doris.spark_session.job_groups import describe_call
from iceberg_doris.spark_session.procedure_calls import procedure_call

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ENABLE_INSERT_STRICT = "spark.doris.enable_insert_strict"
ENABLE_INSERT_STRICT_DEFAULT = True  # Doris's default
INSERT_MAX_FILTER_RATIO = "spark.doris.insert_max_filter_ratio"
INSERT_MAX_FILTER_RATIO_DEFAULT = 1.0  # Doris's default (it applies with strict mode off)
INSERT_LABEL = "spark.doris.insert_label"
UNIQUE_KEY_PARTIAL_UPDATE = "spark.doris.enable_unique_key_partial_update"
AGG_KEY_PARTIAL_UPDATE = "spark.doris.enable_agg_key_partial_update"

STRICT_MESSAGE = "Insert has filtered data in strict mode"
# Doris's message (AbstractInsertExecutor): filtered/total rows and the ratio as C's %f prints it.
RATIO_MESSAGE = "Insert has too many filtered data {filtered}/{total} insert_max_filter_ratio is {ratio:f}"

INSERT_INTO = "INSERT INTO"
MERGE_INTO = "MERGE INTO"
# The JVM side's token for a MERGE INTO's rows (StatementCalls.MERGE_ROWS), never a load argument.
MERGE_ROWS = "__merge_rows"


@dataclass(frozen=True)
class InsertSettings:
    """What a statement's session asks of Doris's ``INSERT``."""

    strict: bool = ENABLE_INSERT_STRICT_DEFAULT
    max_filter_ratio: float = INSERT_MAX_FILTER_RATIO_DEFAULT
    label: str | None = None
    #: keys models an INSERT updates partially ("UNIQUE", "AGGREGATE"), by the session's settings
    partial_update_models: frozenset[str] = frozenset()

    @classmethod
    def of(cls, settings: Mapping[str, str]) -> "InsertSettings":
        """Reads the session's settings (the keys set; values as Spark keeps them, strings)."""
        strict = ENABLE_INSERT_STRICT_DEFAULT
        if ENABLE_INSERT_STRICT in settings:
            strict = _boolean(ENABLE_INSERT_STRICT, settings[ENABLE_INSERT_STRICT])
        ratio = INSERT_MAX_FILTER_RATIO_DEFAULT
        if INSERT_MAX_FILTER_RATIO in settings:
            ratio = _ratio(INSERT_MAX_FILTER_RATIO, settings[INSERT_MAX_FILTER_RATIO])
        label = settings.get(INSERT_LABEL)
        if label is not None:
            try:
                label = check_label(label.strip())
            except DorisError as bad:
                raise ConfigurationError(f"{INSERT_LABEL}: {bad}") from None
        partial = frozenset(
            model for model, key in (("UNIQUE", UNIQUE_KEY_PARTIAL_UPDATE), ("AGGREGATE", AGG_KEY_PARTIAL_UPDATE))
            if key in settings and _boolean(key, settings[key])
        )
        return cls(strict=strict, max_filter_ratio=ratio, label=label, partial_update_models=partial)

    def origin(self) -> LoadOrigin:
        """The load's origin: Doris's INSERT, with its messages for too many filtered rows."""
        return LoadOrigin(
            operation="load", filtered_message=STRICT_MESSAGE if self.strict else RATIO_MESSAGE, insert_statement=True,
            partial_update_models=self.partial_update_models,
        )


def run_statement(
    spark: "SparkSession", statement: str, procedure: str, raw_arguments: Mapping[str, Any], settings: Mapping[str, str],
) -> list[tuple[Any, ...]]:
    """Runs ``doris.<procedure>`` for ``statement`` ("INSERT INTO", "INSERT OVERWRITE", "UPDATE",
    "DELETE FROM", ...) with the session's ``settings``; returns its rows."""
    if statement == MERGE_INTO and procedure == LoadProcedure.name:
        return _merge_into(spark, raw_arguments)
    if not statement.startswith("INSERT"):
        return run_procedure(spark, procedure, raw_arguments)
    insert = InsertSettings.of(settings)
    arguments = dict(raw_arguments)
    if insert.label is not None:
        arguments["label"] = insert.label
    if statement != INSERT_INTO or procedure != LoadProcedure.name:
        return run_procedure(spark, procedure, arguments)
    arguments["max_filter_ratio"] = 0.0 if insert.strict else insert.max_filter_ratio
    bound = bind(get_procedure(procedure), arguments)
    request = dataclasses.replace(load_request(bound), origin=insert.origin())
    what = f"doris.{procedure}"
    with procedure_call(spark, what, describe_call(what, bound)):
        return [load_row(operations.load(spark, bound["table"], request))]


def _merge_into(spark: "SparkSession", raw_arguments: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """``MERGE INTO``: its rows as one load, joined to the stored rows of its keys when the JVM
    side says its ``ON`` allows it (the token of ``MergeRows``)."""
    arguments = dict(raw_arguments)
    token = arguments.pop(MERGE_ROWS, None)
    bound = bind(get_procedure(LoadProcedure.name), arguments)
    rows = MergeRows(spark, str(token)) if token is not None else None
    what = f"doris.{LoadProcedure.name}"
    with procedure_call(spark, what, describe_call(what, bound)):
        return [load_row(operations.merge_into(spark, bound["table"], load_request(bound), rows))]


def _boolean(key: str, value: str) -> bool:
    text = value.strip().lower()
    if text in ("true", "1", "on"):
        return True
    if text in ("false", "0", "off"):
        return False
    raise ConfigurationError(f"{key} must be true or false, got {value!r}")


def _ratio(key: str, value: str) -> float:
    try:
        ratio = float(value)
    except ValueError:
        ratio = float("nan")
    if not 0.0 <= ratio <= 1.0:  # NaN fails too
        raise ConfigurationError(
            f"{key} must be between 0.0 and 1.0, got {value!r}: the largest share of an INSERT's rows that may be "
            "filtered, e.g. 0.1 for 10%"
        )
    return ratio
