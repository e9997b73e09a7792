"""Probing a batch's keys into the index entries of a snapshot's data files, and what the hits
give: live positions per file, sequence decisions, the hit rows read by position."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyroaring import BitMap64

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.key_index import jvm, settings, wire
from iceberg_doris.engine.key_index.batch import BatchKeys

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger("iceberg_doris.engine.key_index")


@dataclass(frozen=True)
class IndexHits:
    """Live positions of the batch's keys, per data file that holds some."""

    upserts: dict[str, BitMap64]
    deletes: dict[str, BitMap64]
    answer: wire.LookupAnswer
    java: jvm.LookupHandle  # sequence tables read their live rows and stored sequences from it

    @property
    def probed_files(self) -> int:
        return self.answer.probed_files

    @property
    def built_files(self) -> int:
        """Entries built from their data file for this probe."""
        return self.answer.built_files

    @property
    def read_files(self) -> int:
        """Entries read from their stored files (the rest came from executor caches)."""
        return self.answer.read_files

    @property
    def unindexable(self) -> tuple[str, ...]:
        """Files the index cannot cover (a NULL key)."""
        return self.answer.unindexable

    @property
    def problems(self) -> tuple[str, ...]:
        """Stored entries rejected or not written, one text each."""
        return self.answer.problems

    def describe(self) -> str:
        """The snapshot summary's ``doris.key-index``: how the keys were found."""
        text = f"probed {self.probed_files} files, built {self.built_files}"
        return text + (f", read {self.read_files}" if self.read_files else "")

    def one_live_row_per_key(self) -> bool:
        """Whether no batch key has two live rows among the probed files (true of a table only
        iceberg-doris writes; a plain INSERT can add a second)."""
        return self.answer.one_live_row_per_key

    def _index(self, spark: "SparkSession") -> jvm.KeyIndexJvm:
        return jvm.index_of(spark)

    def live_rows(self, spark: "SparkSession") -> "DataFrame":
        """Sequence tables: the batch keys' live rows (key columns, ``_file``, ``_pos``)."""
        from pyspark.sql import DataFrame

        return DataFrame(self._index(spark).liveRows(self.java), spark)

    def decide_by_sequence(self, spark: "SparkSession") -> "SequenceDecision":
        """Sequence tables, full-row loads: which versions win, decided from the index's own
        sequence values (``Lookup.decideBySequence``), with no Spark job."""
        from pyspark.sql import DataFrame

        index = self._index(spark)
        decision = index.decideBySequence(self.java)
        answer = wire.SequenceAnswer.from_json(str(index.decisionAnswer(decision)))
        losing = index.losingKeys(decision)
        return SequenceDecision(
            {f.location: f.upserts | f.deletes for f in answer.replaced}, answer.deleted_rows, answer.any_delete_wins,
            DataFrame(losing, spark) if losing is not None else None,
        )

    def stored_sequences(self, spark: "SparkSession", column: str) -> "DataFrame":
        """Sequence tables: per batch key, the largest stored sequence value (key columns, ``column``)."""
        from pyspark.sql import DataFrame

        return DataFrame(self._index(spark).storedSequences(self.java, column), spark)

    def read_live_rows(self, spark: "SparkSession", table: JavaObject, columns: list[str]) -> "StoredRows":
        """The batch keys' live rows with the stored values of ``columns`` (key columns first),
        read by position from the hit data files on the executors (``KeyIndexRows``): ``columns``,
        then ``_file`` and ``_pos``. The rows are read now (a failure raises here) and kept until
        :meth:`StoredRows.release`."""
        from pyspark.sql import DataFrame

        index = self._index(spark)
        read = index.readLiveRows(self.java, table, wire.columns_json(columns))
        return StoredRows(DataFrame(index.rowsFrame(read), spark), int(index.rowsCount(read)), read)

    def read_live_rows_or_none(self, spark: "SparkSession", table: JavaObject, columns: list[str]) -> "StoredRows | None":
        """:meth:`read_live_rows`, or None when the read fails in the JVM (a data file that is
        not Parquet, or holds fewer rows than the index points at): the caller scans instead."""
        from py4j.protocol import Py4JJavaError

        from iceberg_doris.engine.iceberg_java import java_message

        try:
            return self.read_live_rows(spark, table, columns)
        except Py4JJavaError as error:
            log.warning("key index: reading the stored rows by position failed (%s); scanning the keys instead", java_message(error))
            return None


@dataclass
class StoredRows:
    """Stored rows read by position, persisted on the executors until :meth:`release`."""

    frame: "DataFrame"
    count: int
    java: jvm.RowsHandle
    _released: bool = False

    def broadcastable(self) -> bool:
        """Whether the rows fit Spark's own broadcast limit (``spark.sql.autoBroadcastJoinThreshold``)
        by the estimate Spark makes from a row count (the schema's default width: a string counts
        20 bytes, so a row's data file location is counted short, as in Spark's own estimates).
        Spark cannot tell by itself, as rows read by position carry no size estimate, so a join
        with them would shuffle both sides."""
        try:
            limit = int(self.frame.sparkSession._jsparkSession.sessionState().conf().autoBroadcastJoinThreshold())
            width = max(1, int(self.frame._jdf.schema().defaultSize()))
        except Exception:  # no limit or width to go by: let Spark plan the join
            return False
        return limit > 0 and self.count * width <= limit

    def release(self) -> None:
        if not self._released:
            self._released = True
            jvm.index_of(self.frame.sparkSession).release(self.java)


def probe(
    iceberg: IcebergJava, table: JavaObject, plan: JavaObject, key_columns: list[str], sequence_column: str | None, keys: BatchKeys,
    *, for_reading: bool = False,
) -> IndexHits:
    """Probes ``keys`` into the index entries of the data files of ``plan`` (a LiveFiles); the
    positions found are live in the planned snapshot (its delete files applied on the executors).
    ``for_reading``: the hits will be read by position (:meth:`IndexHits.read_live_rows`), so the
    probe keeps the batch key each one matched and the read takes the key columns from it."""
    spark = iceberg.spark
    asked = wire.IndexRequest(tuple(key_columns), sequence_column, settings.max_rows(spark), settings.persist(spark), for_reading)
    index = jvm.index(iceberg)
    lookup = index.lookup(spark._jsparkSession, table, plan, keys.java, jvm.request(spark, asked))
    answer = wire.LookupAnswer.from_json(str(index.lookupAnswer(lookup)))
    for problem in answer.problems:
        log.warning("key index: %s", problem)
    return IndexHits({f.location: f.upserts for f in answer.hits}, {f.location: f.deletes for f in answer.hits}, answer, lookup)


def probe_or_none(
    iceberg: IcebergJava, table: JavaObject, plan: JavaObject, key_columns: list[str], sequence_column: str | None, keys: BatchKeys,
    *, for_reading: bool = False,
) -> IndexHits | None:
    """:func:`probe`, or None when the probe fails in the JVM: the index is an accelerator, so the
    caller looks its keys up another way."""
    from py4j.protocol import Py4JJavaError

    from iceberg_doris.engine.iceberg_java import java_message

    try:
        return probe(iceberg, table, plan, key_columns, sequence_column, keys, for_reading=for_reading)
    except Py4JJavaError as error:
        log.warning("key index lookup failed (%s); scanning the keys instead", java_message(error))
        return None


@dataclass(frozen=True)
class SequenceDecision:
    """Which versions of a sequence table's batch win, decided by the index."""

    replaced: dict[str, BitMap64]  # data file -> live positions the winners replace
    deleted_rows: int  # of those, rows winning deletes remove
    any_delete_wins: bool  # a tombstone is written
    losing_keys: "DataFrame | None"  # key columns of the versions that lose; None: every version wins
