"""Failures from Spark's JVM (py4j, Iceberg, Spark jobs) turned into our errors, in words.

An operation calls Iceberg's Java API and runs Spark jobs; a failure there reaches Python as a
``Py4JJavaError`` (a Java stack trace) or as one of PySpark's captured exceptions. Users must never
see only that: :func:`translate` walks the Java cause chain, recognises the failures a user can do
something about, and returns a :class:`~iceberg_doris.errors.DorisError` whose message names the
cause and the fix. A value the user's own query or expressions could not compute (Spark's SQLSTATE
classes 21, 22 and 23, and P0 for ``assert_true`` / ``raise_error``) is a
:class:`~iceberg_doris.errors.QueryValueError` quoting Spark's message and the failing expression;
one Spark could not parse or resolve (class 42) is a :class:`~iceberg_doris.errors.QueryAnalysisError`.
Anything else still becomes an :class:`EngineError` naming the innermost Java cause. The full trace
is logged at DEBUG only (logger ``iceberg_doris.spark_session.java_errors``): the raised error is
the one message a user sees.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from iceberg_doris.errors import (
    CommitConflictError,
    DorisError,
    EngineError,
    QueryAnalysisError,
    QueryValueError,
    TableNotFoundError,
)
from iceberg_doris.lake.masking import mask_secrets

log = logging.getLogger(__name__)

NOTHING_COMMITTED = "nothing was committed"
# SQLSTATE classes of errors in the user's own query, expressions or data: 21 cardinality (a scalar
# subquery's rows), 22 data exception (casts, arithmetic, invalid values under ANSI), 23 integrity
# constraint, P0 raised by the query itself (assert_true, raise_error: USER_RAISED_EXCEPTION).
USER_SQL_STATE_CLASSES = ("21", "22", "23", "P0")
USER_RAISED_SQL_STATE_CLASS = "P0"
# 42: syntax error or access rule violation (Spark's AnalysisException and ParseException: an
# unresolved column, table or function, a type mismatch, a parse error).
ANALYSIS_SQL_STATE_CLASS = "42"
# Spark appends the failing expression to such messages, from a line "== SQL ... ==" or "== DataFrame ... ==".
_CONTEXT_START = "== "
_CONTEXT_LINES = 4


@dataclass(frozen=True)
class JavaCause:
    kind: str  # fully qualified Java class
    message: str
    sql_state: str | None = None  # Spark's SQLSTATE, for Spark's own errors (SparkThrowable)

    @property
    def short_kind(self) -> str:
        return self.kind.rsplit(".", 1)[-1]


def java_causes(error: BaseException, *, captured: bool = True) -> list[JavaCause]:
    """The Java exception behind ``error`` and its causes, outermost first (empty if none).
    ``captured``: also that of one of PySpark's captured exceptions (AnalysisException, ...),
    besides a raw ``Py4JJavaError``'s."""
    java = getattr(error, "java_exception", None)
    if java is None and captured:
        java = getattr(error, "_origin", None)  # PySpark's captured exceptions
    causes: list[JavaCause] = []
    seen = 0
    while java is not None and seen < 20:
        try:
            kind = str(java.getClass().getName())
            message = java.getMessage()
            causes.append(JavaCause(kind, "" if message is None else str(message), _sql_state(java)))
            java = java.getCause()
        except Exception:  # noqa: BLE001 - a dead gateway: keep what we have
            break
        seen += 1
    return causes


def _sql_state(java: object) -> str | None:
    """The SQLSTATE of a Spark error (SparkThrowable), None for any other Java exception."""
    from py4j.protocol import Py4JError

    try:
        state = java.getSqlState()  # type: ignore[attr-defined]
    except Py4JError:  # not a SparkThrowable
        return None
    return None if state is None else str(state)


def java_message(error: BaseException) -> str | None:
    """The message of the Java exception a py4j call raised, or None if ``error`` is not one."""
    from py4j.protocol import Py4JJavaError

    if isinstance(error, Py4JJavaError):
        return str(error.java_exception.getMessage())
    return None


def _first_line(text: str, limit: int = 300) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _missing_file(cause: JavaCause, what: str) -> DorisError:
    return EngineError(
        f"{what} failed: a file the table references is missing ({_first_line(cause.message)}); {NOTHING_COMMITTED}. "
        "Its files were deleted outside Iceberg (by hand, or by a cleanup of another tool); restore the file, or roll "
        "the table back to a snapshot whose files exist (CALL <catalog>.system.rollback_to_snapshot)"
    )


def _out_of_memory(cause: JavaCause, what: str) -> DorisError:
    # The driver's heap is fixed when its JVM starts, so the fix names the settings read at start.
    return EngineError(
        f"{what} failed: Spark ran out of memory ({cause.short_kind}: {_first_line(cause.message)}); {NOTHING_COMMITTED}. "
        "Give Spark more memory: start a new Python process with iceberg_doris.session(conf={'spark.driver.memory': "
        "'8g'}) or SPARK_DRIVER_MEMORY=8g in its environment (the driver's heap is fixed when its JVM starts), or "
        "spark.executor.memory on a cluster; or load in smaller batches"
    )


# How the storage says no to a write: Java names the errno in parentheses after the path
# (FileOutputStream), NIO and Hadoop have classes of their own.
_REFUSED_WRITE_CLASSES = ("AccessDeniedException", "AccessControlException", "ReadOnlyFileSystemException")
_REFUSED_WRITE_TEXTS = ("(Permission denied)", "(Read-only file system)", "(Operation not permitted)", "Mkdirs failed")
_FULL_STORAGE_TEXTS = ("No space left on device", "Disk quota exceeded")


def _refused_write(cause: JavaCause) -> bool:
    return cause.short_kind in _REFUSED_WRITE_CLASSES or any(text in cause.message for text in _REFUSED_WRITE_TEXTS)


def _storage_refused(cause: JavaCause, what: str) -> DorisError:
    # Never the missing-file advice: a rollback would throw away good commits for a write failure.
    return EngineError(
        f"{what} failed: the storage refused to write ({cause.short_kind}: {_first_line(cause.message)}: permission "
        f"denied or a read-only file system); {NOTHING_COMMITTED} and the table is unchanged. Let the user running "
        "Spark write to the table's folder (its permissions, or mount it read-write), then run it again"
    )


def _storage_full(cause: JavaCause, what: str) -> DorisError:
    return EngineError(
        f"{what} failed: the storage is full ({cause.short_kind}: {_first_line(cause.message)}); {NOTHING_COMMITTED} "
        "and the table is unchanged. Free space on the table's storage (CALL doris.cleanup removes the files old "
        "snapshots keep), then run it again"
    )


ARITHMETIC_OVERFLOW = "[ARITHMETIC_OVERFLOW]"


def _query_value(cause: JavaCause, what: str) -> DorisError:
    if (cause.sql_state or "").startswith(USER_RAISED_SQL_STATE_CLASS):
        return QueryValueError(
            f"{what} failed: the query raised an error ({_first_line(cause.message)}); {NOTHING_COMMITTED}. "
            "An assert_true or raise_error in the query or its expressions fired: fix the data or the condition"
            + _context(cause)
        )
    if cause.message.startswith(ARITHMETIC_OVERFLOW):
        # Loads make their source's integer arithmetic fail on overflow (LoadSources.asDorisReads).
        return QueryValueError(
            f"{what} failed: integer arithmetic in the load's source overflowed ({_first_line(cause.message)}); "
            f"{NOTHING_COMMITTED}. Doris computes it in the next wider type (BIGINT + BIGINT is LARGEINT) and filters "
            "a result outside the column's range; iceberg-doris fails the load rather than store a wrapped value. "
            "Compute it in a wider type: cast an operand to DECIMAL(38, 0), e.g. CAST(a AS DECIMAL(38, 0)) + b"
            + _context(cause)
        )
    return QueryValueError(
        f"{what} failed: Spark could not compute a value ({_first_line(cause.message)}); {NOTHING_COMMITTED}. "
        "Fix the expression or the data (e.g. try_divide, try_cast), or turn off spark.sql.ansi.enabled"
        + _context(cause)
    )


def _context(cause: JavaCause) -> str:
    """The failing expression Spark appends to its message ("== SQL (line 1, position 8) ==", the
    text and a caret line), on lines of its own; empty when Spark gives none."""
    lines = cause.message.splitlines()
    for number, line in enumerate(lines):
        if number > 0 and line.startswith(_CONTEXT_START) and line.rstrip().endswith("=="):
            block = [text.rstrip() for text in lines[number : number + _CONTEXT_LINES] if text.strip()]
            return "\n" + "\n".join(block)
    return ""


def _query_analysis(cause: JavaCause, what: str) -> DorisError:
    # Our own generated SQL fails the same way when it has a bug, so the message says what to check
    # first (the user's texts) and what to do when they are right.
    return QueryAnalysisError(
        f"{what} failed: Spark could not analyse a query or an expression ({_first_line(cause.message)}); "
        f"{NOTHING_COMMITTED}. Check the names and expressions given to it (query, where, columns, delete_on, "
        "sequence_col, partitions); if they are right, report it with the DEBUG log of iceberg_doris.spark_session.java_errors"
        + _context(cause)
    )


def _is_analysis_error(cause: JavaCause) -> bool:
    return cause.sql_state is not None and cause.sql_state.startswith(ANALYSIS_SQL_STATE_CLASS)


def _is_user_value_error(cause: JavaCause) -> bool:
    return cause.sql_state is not None and cause.sql_state.startswith(USER_SQL_STATE_CLASSES)


def _conflict(cause: JavaCause, what: str) -> DorisError:
    return CommitConflictError(
        f"{what} failed: another writer changed what it read ({_first_line(cause.message)}); {NOTHING_COMMITTED}. "
        "Run it again"
    )


def _replaced_table(cause: JavaCause, what: str) -> DorisError:
    # Iceberg's refresh found another table (another UUID) under the name: doris.replace_table, or
    # a drop and create, landed while the operation ran.
    return CommitConflictError(
        f"{what} failed: the table was replaced by another table of the same name while it ran "
        f"(doris.replace_table, or a drop and create: {_first_line(cause.message)}); {NOTHING_COMMITTED}. "
        "Run it again: it then works on the table the name holds now"
    )


def _no_table(cause: JavaCause, what: str) -> DorisError:
    return TableNotFoundError(
        f"{what} failed: {_first_line(cause.message)} (dropped or renamed while it ran?); {NOTHING_COMMITTED}. "
        "Check the name with SHOW TABLES"
    )


# A JDBC catalog whose database is down or restarting: the driver's words for a lost or refused
# connection (PostgreSQL's among them), under an SQL exception class.
_SQL_CLASSES = ("PSQLException", "SQLException", "UncheckedSQLException", "SQLNonTransientConnectionException",
                "SQLTransientConnectionException", "SQLRecoverableException")
_LOST_CONNECTION_TEXTS = (
    "Connection refused", "refused. Check that the hostname and port", "terminating connection",
    "I/O error occurred while sending to the backend", "This connection has been closed", "Connection reset",
    "the database system is shutting down", "the database system is starting up", "Connection attempt timed out",
    "UnknownHostException", "No route to host",
)


def _catalog_unreachable(cause: JavaCause) -> bool:
    return cause.short_kind in ("SQLNonTransientConnectionException", "SQLTransientConnectionException") or (
        cause.short_kind in _SQL_CLASSES and any(text in cause.message for text in _LOST_CONNECTION_TEXTS)
    )


def _unreachable_catalog(cause: JavaCause, what: str) -> DorisError:
    return EngineError(
        f"{what} failed: the catalog database is unreachable ({cause.short_kind}: {_first_line(cause.message)}); "
        f"{NOTHING_COMMITTED}. Check that the catalog's database server is running and reachable at the catalog URI "
        "the session was started with, then run it again"
    )


# The object store's answers (AWS SDK v2 under Iceberg's S3FileIO and Hadoop's s3a): no connection
# to the endpoint, or a key pair it does not accept. s3a turns a 403 into java.nio's
# AccessDeniedException, which must not read as a local folder's permissions.
_S3_CLASS_PREFIXES = ("software.amazon.awssdk.", "org.apache.hadoop.fs.s3a.")
_S3_CREDENTIAL_TEXTS = (
    "InvalidAccessKeyId", "SignatureDoesNotMatch", "Access Key Id you provided does not exist",
    "request signature we calculated does not match", "Status Code: 403", "ExpiredToken",
    "Unable to load credentials", "No AWS Credentials provided",
)
_S3_UNREACHABLE_TEXTS = ("Unable to execute HTTP request", "Connection refused", "UnknownHostException", "connect timed out")


def _s3_cause(cause: JavaCause) -> bool:
    return cause.kind.startswith(_S3_CLASS_PREFIXES) or (
        cause.short_kind == "AccessDeniedException" and "s3a://" in cause.message
    )


def _s3_refused_credentials(cause: JavaCause) -> bool:
    return _s3_cause(cause) and any(text in cause.message for text in _S3_CREDENTIAL_TEXTS)


def _s3_unreachable(cause: JavaCause) -> bool:
    return _s3_cause(cause) and any(text in cause.message for text in _S3_UNREACHABLE_TEXTS)


def _object_store(endpoint: str | None = None) -> str:
    """The S3 endpoint in words (``endpoint``, else the running session's), never a credential."""
    from iceberg_doris.lake.settings import session_settings

    settings = session_settings()
    if endpoint is None and settings is not None and settings.s3 is not None:
        endpoint = settings.s3.describe()
    return f"the object store at {endpoint}" if endpoint else "the object store"


def object_store_error(error: BaseException, what: str, endpoint: str | None = None) -> DorisError | None:
    """Our error when ``error`` is the object store refusing the credentials or not answering (at
    ``endpoint``, default the session's), else None."""
    for cause in reversed(java_causes(error)):
        if _s3_refused_credentials(cause):
            return _refused_credentials(cause, what, endpoint)
        if _s3_unreachable(cause):
            return _unreachable_object_store(cause, what, endpoint)
    return None


def _refused_credentials(cause: JavaCause, what: str, endpoint: str | None = None) -> DorisError:
    return EngineError(
        f"{what} failed: {_object_store(endpoint)} refused the credentials ({cause.short_kind}: "
        f"{_first_line(mask_secrets(cause.message))}); {NOTHING_COMMITTED}. Give the key pair it accepts the standard "
        "way (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE and the shared credentials file) in the "
        "environment the Spark driver starts in, then start a new session"
    )


def _unreachable_object_store(cause: JavaCause, what: str, endpoint: str | None = None) -> DorisError:
    return EngineError(
        f"{what} failed: {_object_store(endpoint)} is unreachable ({cause.short_kind}: {_first_line(mask_secrets(cause.message))}); "
        f"{NOTHING_COMMITTED}. Check that it is running and that AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL) names it, "
        "then run it again"
    )


_RECOGNISED: list[tuple[Callable[[JavaCause], bool], Callable[[JavaCause, str], DorisError]]] = [
    # before the missing file: a refused create is a FileNotFoundException too ("... (Permission denied)")
    (_catalog_unreachable, _unreachable_catalog),
    (_s3_refused_credentials, _refused_credentials),
    (_s3_unreachable, _unreachable_object_store),
    (_refused_write, _storage_refused),
    (lambda c: any(text in c.message for text in _FULL_STORAGE_TEXTS), _storage_full),
    (lambda c: c.kind in ("java.io.FileNotFoundException", "org.apache.iceberg.exceptions.NotFoundException", "java.nio.file.NoSuchFileException"), _missing_file),
    (lambda c: "FileNotFoundException" in c.message and "does not exist" in c.message, _missing_file),
    (lambda c: c.kind == "java.lang.OutOfMemoryError" or "Java heap space" in c.message, _out_of_memory),
    (lambda c: c.kind in ("java.lang.ArithmeticException", "org.apache.spark.SparkArithmeticException"), _query_value),
    (_is_user_value_error, _query_value),
    (_is_analysis_error, _query_analysis),
    (lambda c: c.kind in ("org.apache.iceberg.exceptions.ValidationException", "org.apache.iceberg.exceptions.CommitFailedException"), _conflict),
    (lambda c: c.short_kind == "IllegalStateException" and c.message.startswith("Table UUID does not match"), _replaced_table),
    (lambda c: c.kind in ("org.apache.iceberg.exceptions.NoSuchTableException", "org.apache.spark.sql.catalyst.analysis.NoSuchTableException"), _no_table),
]


def translate(error: BaseException, what: str) -> DorisError | None:
    """Our error for a failure from Spark's JVM during ``what`` ("doris.load into db.t"), or None
    if ``error`` did not come from the JVM (a Python bug stays a Python exception)."""
    from py4j.protocol import Py4JError
    from pyspark.errors.exceptions.captured import CapturedException

    if isinstance(error, DorisError):
        return error
    if not isinstance(error, (Py4JError, CapturedException)):
        return None
    log.debug("%s failed in Spark/Iceberg", what, exc_info=error)  # the full trace, for DEBUG only
    causes = java_causes(error)
    for cause in reversed(causes):  # the innermost recognised cause is the real one
        for matches, build in _RECOGNISED:
            if matches(cause):
                return build(cause, what)
    if causes:
        root = causes[-1]
        detail = f"{root.short_kind}: {_first_line(root.message) or '(no message)'}"
    else:
        detail = f"{type(error).__name__}: {_first_line(str(error))}"
    return EngineError(
        f"{what} failed inside Spark/Iceberg ({detail}); {NOTHING_COMMITTED}. This is not a known user error: run it "
        "again, and if it fails the same way report it with the stack trace iceberg_doris.spark_session.java_errors "
        "logs at DEBUG (logging.getLogger('iceberg_doris').setLevel(logging.DEBUG))"
    )


def error_class(exc: BaseException) -> str | None:
    """Spark's error class (condition) of one of PySpark's exceptions, e.g. ``PATH_NOT_FOUND``."""
    # PySpark 4 names it the condition and deprecates getErrorClass (a warning); 3.5 has only that.
    getter = getattr(exc, "getCondition", None) or getattr(exc, "getErrorClass", None)
    try:
        return getter() if getter is not None else None
    except Exception:  # noqa: BLE001
        return None


_ERROR_CLASS_PREFIX = re.compile(r"^\[[A-Z0-9_.]+\]\s*")
_POSITION_SUFFIX = re.compile(r";?\s*line \d+ pos \d+\s*;?$")


def spark_error_message(exc: BaseException) -> str:
    """The useful part of a Spark/py4j error: no JVM stack trace, no plan, no error-class tag.

    For a raw Java exception it is the innermost message (e.g. ``... is not a Parquet file``).
    Callers can use it to translate errors raised when a load's frame is finally executed.
    """
    # A raw Py4JJavaError's innermost message; a captured exception's own text says it better.
    messages = [cause.message for cause in java_causes(exc, captured=False) if cause.message]
    message = messages[-1] if messages else None
    if message is None:
        message = getattr(exc, "desc", None) or str(exc)
    message = message.split("\n== SQL")[0].split(";\n")[0]
    message = " ".join(line.strip() for line in message.splitlines() if line.strip())
    message = _ERROR_CLASS_PREFIX.sub("", message)
    message = _POSITION_SUFFIX.sub("", message).strip()
    return message or type(exc).__name__
