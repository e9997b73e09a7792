"""The entries of a load's new data files: built while the load commits, and whether a key repeats among the files."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from iceberg_doris.engine.file_sets import file_location
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.key_index import jvm, wire

log = logging.getLogger("iceberg_doris.engine.key_index")


@dataclass
class PendingEntries:
    """The key-index entries of a load's new files, being built on a JVM thread of their own
    (:func:`start_indexing`) while the load commits."""

    future: jvm.IndexingHandle  # for KeyIndex.awaitIndexing
    index: jvm.KeyIndexJvm
    locations: frozenset[str]
    _finished: bool = False

    def finish(self) -> None:
        """Waits for the entries. Never fails the load: the index is derived data, and a lookup
        builds what is missing; a failure is a warning."""
        from py4j.protocol import Py4JJavaError

        from iceberg_doris.engine.iceberg_java import java_message

        if self._finished:
            return
        self._finished = True
        try:
            answer = wire.IndexingAnswer.from_json(str(self.index.awaitIndexing(self.future)))
        except Py4JJavaError as error:
            log.warning(
                "key index: the entries of the %d new file(s) were not built (%s); a later lookup builds them",
                len(self.locations), java_message(error),
            )
            return
        for problem in answer.problems:
            log.warning("key index: %s", problem)


def start_indexing(
    iceberg: IcebergJava, table: JavaObject, files: list[JavaObject], key_columns: list[str], sequence_column: str | None
) -> PendingEntries | None:
    """Starts building, storing and caching the entries of ``files`` (data files a load has
    written) on a JVM thread, so the load's commit runs meanwhile; None for no files."""
    if not files:
        return None
    index = jvm.index(iceberg)
    future = index.indexNewFilesInBackground(
        iceberg.spark._jsparkSession, table, iceberg.java_list(files), jvm.session_request(iceberg.spark, key_columns, sequence_column)
    )
    return PendingEntries(future, index, frozenset(map(file_location, files)))


def index_new_files(
    iceberg: IcebergJava, table: JavaObject, files: list[JavaObject], key_columns: list[str], sequence_column: str | None
) -> None:
    """Builds, stores and caches the entries of ``files`` (data files a load has just committed)
    and waits for them; see :class:`PendingEntries`."""
    pending = start_indexing(iceberg, table, files, key_columns, sequence_column)
    if pending is not None:
        pending.finish()


def new_files_repeat_keys(
    iceberg: IcebergJava, table: JavaObject, files: list[JavaObject], key_columns: list[str], sequence_column: str | None
) -> str:
    """Indexes ``files`` (a load's new, uncommitted data files) and says whether a key occurs
    more than once among them: ``"distinct"``, ``"repeats"`` or ``"unknown"`` (see
    ``NewFiles.newFilesRepeatKeys``; a failure in the JVM is ``"unknown"``, with a warning)."""
    from py4j.protocol import Py4JJavaError

    from iceberg_doris.engine.iceberg_java import java_message

    try:
        answer = wire.RepeatsAnswer.from_json(str(jvm.index(iceberg).newFilesRepeatKeys(
            iceberg.spark._jsparkSession, table, iceberg.java_list(files), jvm.session_request(iceberg.spark, key_columns, sequence_column)
        )))
    except Py4JJavaError as error:
        log.warning("key index: could not check the new files' keys for repeats (%s)", java_message(error))
        return "unknown"
    for problem in answer.problems:
        log.warning("key index: %s", problem)
    return answer.verdict
