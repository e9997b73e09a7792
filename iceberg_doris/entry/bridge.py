"""The Python end of ``CALL doris.*``: a py4j callback the JVM procedure catalog calls.

Messages are JSON (see ``jvm/.../ProcedureHandler.java``). Errors come back as data, not as Python
exceptions crossing py4j, so the user sees our message instead of a Python traceback wrapped in a
Java stack trace.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import traceback
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from iceberg_doris.entry.callback_server import start_authenticated_callback_server
from iceberg_doris.errors import ConfigurationError, DorisError
from iceberg_doris.lake.masking import mask_secrets
from iceberg_doris.lake.settings import follow_session
from iceberg_doris.procedures.binding import reject_duplicate_keys
from iceberg_doris.procedures.invocation import run_frame_procedure, run_procedure
from iceberg_doris.procedures.registry import get_procedure
from iceberg_doris.procedures.statements import run_statement
from iceberg_doris.spark_session.catalog_conf import spark_catalog_secrets
from iceberg_doris.spark_session.defaults import apply_session_defaults
from iceberg_doris.spark_session.jvm_lookups import remember_lookups
from iceberg_doris.spark_session.local_file_system import write_local_files_without_chmod
from iceberg_doris.spark_session.py4j_sockets import send_without_delay
from iceberg_doris.spark_session.secrets import supply_secret_settings
from iceberg_doris.spark_session.sizing import size_shuffle_partitions
from iceberg_doris.spark_session.spark_lines import running_line
from iceberg_doris.streaming.format_sink import run_batch as run_stream_batch
from iceberg_doris.streaming.format_sink import sink_from_options

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from iceberg_doris.lake.settings import CatalogSettings

log = logging.getLogger(__name__)
HANDLERS_CLASS = "io.icebergdoris.spark.ProcedureHandlers"
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


class ProcedureHandler:
    """Implements the JVM interface ``io.icebergdoris.spark.ProcedureHandler``."""

    def __init__(self, spark: "SparkSession"):
        self._spark = spark

    def describe(self, procedure: str) -> str:
        try:
            found = get_procedure(procedure)
        except DorisError as unknown:
            return json.dumps({"unknown": str(unknown)})
        return json.dumps({"output": found.output_ddl(), "description": found.summary})

    def call(self, procedure: str, arguments_json: str) -> str:
        try:
            arguments = json.loads(arguments_json, object_pairs_hook=reject_duplicate_keys)
            if get_procedure(procedure).returns_frame:
                # Its columns depend on its arguments: the JVM collects the frame itself, with its types.
                frame = run_frame_procedure(self._spark, procedure, arguments)
                frames = self._spark.sparkContext._jvm.io.icebergdoris.spark.ProcedureFrames
                return json.dumps({"frame": str(frames.put(frame._jdf))})
            rows = run_procedure(self._spark, procedure, arguments)
            return json.dumps({"rows": [[_to_json(value) for value in row] for row in rows]})
        except Exception as error:  # every failure must reach the caller as a message
            return json.dumps({"error": describe_error(procedure, error)})

    def statement(self, statement: str, procedure: str, arguments_json: str, settings_json: str) -> str:
        """A Spark statement on a Doris table, run as ``procedure`` with the session's settings
        (:mod:`iceberg_doris.procedures.statements`)."""
        try:
            arguments = json.loads(arguments_json, object_pairs_hook=reject_duplicate_keys)
            rows = run_statement(self._spark, statement, procedure, arguments, json.loads(settings_json))
            return json.dumps({"rows": [[_to_json(value) for value in row] for row in rows]})
        except Exception as error:  # every failure must reach the caller as a message
            return json.dumps({"error": describe_error(procedure, error)})

    def streamOptions(self, options_json: str) -> str:  # noqa: N802 (the Java interface's name)
        """Checks a ``format("doris")`` sink's options when its query starts (:mod:`iceberg_doris.streaming.format_sink`)."""
        try:
            sink = sink_from_options(json.loads(options_json, object_pairs_hook=reject_duplicate_keys))
            return json.dumps({"table": sink.table})
        except Exception as error:  # every failure must reach the caller as a message
            return json.dumps({"error": describe_error("stream_to", error)})

    def streamBatch(self, options_json: str, jdf: Any, batch_id: int) -> str:  # noqa: N802
        """Loads one micro-batch of a ``format("doris")`` sink; answers its progress metrics."""
        from pyspark.sql.dataframe import DataFrame
        from pyspark.sql.session import SparkSession

        try:
            # The batch's own session (the query's), wrapped as PySpark's foreachBatch wraps it.
            session = SparkSession(self._spark.sparkContext, jdf.sparkSession())
            metrics = run_stream_batch(json.loads(options_json), DataFrame(jdf, session), int(batch_id))
            return json.dumps({"metrics": metrics})
        except Exception as error:  # every failure must reach the caller as a message
            return json.dumps({"error": describe_error("stream_to", error)})

    class Java:
        implements = ["io.icebergdoris.spark.ProcedureHandler"]


class CallerSessionHandler:
    """Implements ``io.icebergdoris.spark.SessionProcedureHandler``: the handler of the Python side
    a driver JVM without one starts (:mod:`iceberg_doris.entry.jvm_side`).

    That one process serves every session of the driver (the Thrift server has one per connection),
    so each call names its caller's JVM session (``CallerSessions``) and runs in it: its ``SET``
    values, temp views and current database, as a PySpark driver's calls run in their session.
    """

    def __init__(self, spark: "SparkSession"):
        self._spark = spark

    def _in_session(self, session_id: int) -> ProcedureHandler:
        from pyspark.sql import SparkSession

        sessions = self._spark.sparkContext._jvm.io.icebergdoris.spark.CallerSessions
        jsession = sessions.session(session_id)
        return ProcedureHandler(SparkSession(self._spark.sparkContext, jsession))

    def describe(self, procedure: str) -> str:
        return ProcedureHandler(self._spark).describe(procedure)

    def call(self, session_id: int, procedure: str, arguments_json: str) -> str:
        return self._answer(session_id, procedure, lambda handler: handler.call(procedure, arguments_json))

    def statement(self, session_id: int, statement: str, procedure: str, arguments_json: str, settings_json: str) -> str:
        return self._answer(
            session_id, procedure, lambda handler: handler.statement(statement, procedure, arguments_json, settings_json)
        )

    def streamOptions(self, session_id: int, options_json: str) -> str:  # noqa: N802 (the Java interface's name)
        return self._answer(session_id, "stream_to", lambda handler: handler.streamOptions(options_json))

    def _answer(self, session_id: int, procedure: str, run: Callable[[ProcedureHandler], str]) -> str:
        try:
            handler = self._in_session(session_id)
        except Exception as error:  # every failure must reach the caller as a message
            return json.dumps({"error": describe_error(procedure, error)})
        return run(handler)

    def streamBatch(self, options_json: str, jdf: Any, batch_id: int) -> str:  # noqa: N802
        return ProcedureHandler(self._spark).streamBatch(options_json, jdf, batch_id)

    class Java:
        implements = ["io.icebergdoris.spark.SessionProcedureHandler"]


def describe_error(procedure: str, error: Exception) -> dict[str, str]:
    """Our errors carry their own message; anything else is named as an internal failure.

    Every message is masked (:func:`mask_secrets`): a foreign error may quote a URI or password.
    """
    if isinstance(error, DorisError):
        return {"type": type(error).__name__, "message": mask_secrets(str(error))}
    from pyspark.errors.exceptions.captured import CapturedException

    if isinstance(error, CapturedException):
        return {"type": type(error).__name__, "message": mask_secrets(f"doris.{procedure} failed in Spark: {error}")}
    log.error("doris.%s failed\n%s", procedure, mask_secrets(traceback.format_exc()))
    return {
        "type": type(error).__name__,
        "message": mask_secrets(f"doris.{procedure} failed unexpectedly: {type(error).__name__}: {error}"),
    }


def install(spark: "SparkSession", settings: "CatalogSettings | None" = None) -> None:
    """Connects ``CALL doris.*`` in this Spark driver to the Python procedures.

    :func:`iceberg_doris.session` calls it; call it yourself on a PySpark session you built with
    :func:`iceberg_doris.spark_conf`, passing the same ``settings``: their catalog password is left
    out of ``spark_conf`` (launch settings land on a command line) and reaches the driver here,
    so call it before the session first uses the catalog. :func:`iceberg_doris.catalog` without
    arguments then opens the catalog of these ``settings``.

    The py4j callback server the JVM calls the procedures through then listens on 127.0.0.1 only
    and refuses every connection without the gateway's secret.

    ``spark.sql.shuffle.partitions`` is sized for the session's cores unless it is set already
    (:mod:`iceberg_doris.spark_session.shuffle_sizing`), and Spark's cache is not compressed unless
    ``spark.sql.inMemoryColumnarStorage.compressed`` is set (:mod:`iceberg_doris.spark_session.defaults`).
    The driver's py4j view remembers what each Java name resolves to
    (:mod:`iceberg_doris.spark_session.jvm_lookups`): a lookup searches every jar, about 0.1 s per load. Its
    py4j connections send each answer at once (:mod:`iceberg_doris.spark_session.py4j_sockets`): with Nagle's
    algorithm, py4j's default, an answer over 8 KiB waited 40 ms. In local mode, files are written
    without a ``chmod`` process each (:mod:`iceberg_doris.spark_session.local_file_system`).
    """
    _install(spark, settings, lambda handlers: handlers.register(ProcedureHandler(spark)))


def install_for_driver_jvm(spark: "SparkSession") -> None:
    """As :func:`install`, for the Python side a driver JVM without one started
    (:mod:`iceberg_doris.entry.jvm_side`): each call runs in its caller's session."""
    _install(spark, None, lambda handlers: handlers.registerStarted(CallerSessionHandler(spark)))


def _install(spark: "SparkSession", settings: "CatalogSettings | None", register: Callable[[Any], None]) -> None:
    require_doris_extensions(spark)
    if settings is not None:
        supply_secret_settings(spark, spark_catalog_secrets(settings))
        follow_session(settings)  # iceberg_doris.catalog() now opens this session's catalog
    start_authenticated_callback_server(spark.sparkContext._gateway)
    send_without_delay(spark.sparkContext._gateway)
    handlers = spark.sparkContext._jvm.io.icebergdoris.spark.ProcedureHandlers
    register(handlers)
    size_shuffle_partitions(spark)
    apply_session_defaults(spark)
    write_local_files_without_chmod(spark)
    remember_lookups(spark.sparkContext._jvm)


def _parser_class(spark: "SparkSession") -> str:
    """The class of the session's SQL parser; for a proxy (Spark 4's), the class answering its calls."""
    parser = spark._jsparkSession.sessionState().sqlParser()
    proxies = spark.sparkContext._jvm.java.lang.reflect.Proxy
    if proxies.isProxyClass(parser.getClass()):
        return proxies.getInvocationHandler(parser).getClass().getName()
    return parser.getClass().getName()


def require_doris_extensions(spark: "SparkSession") -> None:
    """Refuses a session whose SQL parser is not ours: its JVM did not have our jars when it was
    created (or it was built without :func:`iceberg_doris.spark_conf`), so ``CALL doris.*`` and
    the procedures cannot work on it, and Spark cannot add SQL extensions to a running session."""
    if _parser_class(spark) != running_line().session_parser:
        raise ConfigurationError(
            "This Spark session was created without the iceberg-doris SQL extensions (a notebook's or "
            "pyspark shell's own session, or one built without iceberg_doris.spark_conf()), and a running "
            "session cannot take them. Stop it and create one with them: spark.stop(); "
            "spark = iceberg_doris.session(), or spark.stop(); settings = iceberg_doris.CatalogSettings.resolve(); "
            "spark = SparkSession.builder.config(map=iceberg_doris.spark_conf(settings)).getOrCreate(); "
            "iceberg_doris.install(spark, settings)."
        )


def _to_json(value: Any) -> Any:
    """Dates travel as epoch days and timestamps as epoch microseconds (what Spark stores)."""
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
        delta = aware - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if isinstance(value, dt.date):
        return (value - dt.date(1970, 1, 1)).days
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _to_json(v) for k, v in value.items()}
    return value
