"""The exceptions iceberg-doris raises.

Every error a user can cause derives from :class:`DorisError` and says what is wrong and how to
fix it. Argument problems (:class:`ProcedureArgumentError`) are kept apart from state problems
(the table or partition is not in the state the operation needs), as Iceberg's procedures do.
"""

from __future__ import annotations


class DorisError(Exception):
    """Root of every iceberg-doris error."""


class SetupError(DorisError):
    """The runtime is incomplete: Java, a jar or a driver is missing. The message names the fix."""


class ConfigurationError(DorisError):
    """A session or catalog setting is invalid or conflicts with the running session."""


class ProcedureArgumentError(DorisError):
    """A procedure call's arguments do not bind: unknown, missing, duplicated or of the wrong type."""


class UnknownProcedureError(ProcedureArgumentError):
    """The procedure name is not registered."""


class DdlSyntaxError(DorisError):
    """A Doris statement could not be parsed; carries the 1-based line and column of the problem."""

    def __init__(self, message: str, *, line: int, column: int, statement: str | None = None):
        self.line = line
        self.column = column
        self.statement = statement
        super().__init__(f"{message} (line {line}, column {column})" + _pointer(statement, line, column))


class InvalidTableDefinitionError(DorisError):
    """A Doris table definition parses but is not valid (Doris's own message where it has one)."""


class TableNotFoundError(DorisError):
    """The named table does not exist in the catalog."""


class TableStateError(DorisError):
    """The table is not in a state that allows the operation ("Cannot <verb> <object>: <reason>")."""


class DeletionVectorFormatError(DorisError, ValueError):
    """Bytes that are not a valid deletion vector or Puffin file, or row positions a deletion vector
    cannot hold; the message says what is wrong."""


class PartitionError(DorisError):
    """A partition definition or a partition operation is invalid (overlap, unknown name, ...)."""


class LoadError(DorisError):
    """A load was refused or failed; nothing was committed."""


class BatchAlreadyCommittedError(LoadError):
    """A stream's micro-batch was committed to the table before (a replay after a restart);
    nothing was committed again. The streaming sink skips such a batch."""


class LabelAlreadyUsedError(LoadError):
    """The load's label was used before on this table (a label loads once); nothing was committed.

    ``label`` is the label, ``snapshot_id`` the snapshot whose load used it, ``table`` the table."""

    def __init__(self, message: str, *, label: str, snapshot_id: int, table: str):
        self.label = label
        self.snapshot_id = snapshot_id
        self.table = table
        super().__init__(message)


class CommitConflictError(DorisError):
    """A concurrent commit changed what this operation read; nothing was committed. Retry it."""


class CommitLockTimeoutError(CommitConflictError):
    """The table's commit lock stayed taken by another writer longer than the configured wait;
    nothing was committed. Retry it, or wait longer (``spark.doris.commitLock.timeoutSeconds``)."""


class EngineError(DorisError):
    """Spark or Iceberg failed underneath an operation (a missing file, memory, a value Spark could
    not compute, an internal failure). The message gives the cause in words and what to do; the
    operation committed nothing."""


class QueryValueError(EngineError):
    """Spark could not compute a value of the operation's own query, expressions or data: an
    ``assert_true`` or ``raise_error`` that fired, a cast or an arithmetic that fails with
    ``spark.sql.ansi.enabled``, a scalar subquery with more than one row. The message quotes
    Spark's error with the failing value or expression where Spark gives it; nothing was committed.
    A user's error, fixed in the query or the data (never a bug to report)."""


class QueryAnalysisError(EngineError):
    """Spark could not parse or resolve the operation's own query or expressions (SQLSTATE class 42:
    an unknown column, table or function, a syntax error, a type that does not fit). The message
    quotes Spark's error and the failing text where Spark gives it; nothing was committed. Fixed in
    the query or the expressions given to the operation."""


class CommitStateUnknownError(DorisError):
    """The catalog did not confirm a commit: it may or may not have been applied. Never retried
    automatically; the message says how to check (the load's label, the table's snapshots)."""


def _pointer(statement: str | None, line: int, column: int) -> str:
    """Renders the offending line with a caret under the column, as sqlglot does."""
    if not statement:
        return ""
    lines = statement.splitlines()
    if not 1 <= line <= len(lines):
        return ""
    text = lines[line - 1]
    return f"\n  {text}\n  {' ' * max(column - 1, 0)}^"
