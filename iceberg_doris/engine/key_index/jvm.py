"""The one handle on the index in Spark's JVM: ``io.icebergdoris.keyindex.KeyIndex``. Every call
into the index goes through :func:`index` (and requests through :func:`request`), typed by
:class:`KeyIndexJvm`: the methods Python calls, their arguments and answers. Plain data crosses as
JSON read into :mod:`.wire`'s dataclasses; the index's own objects are opaque handles passed back.
A test holds this face to ``KeyIndex.java``'s public methods and to every call made through it."""

from __future__ import annotations

from typing import TYPE_CHECKING, NewType, Protocol, cast

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.key_index import settings, wire

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# The index's own objects, opaque to Python: each goes back to the method that reads it.
RequestHandle = NewType("RequestHandle", object)  # IndexRequest
BatchKeysHandle = NewType("BatchKeysHandle", object)  # BatchKeys: a batch's keys, collected
LookupHandle = NewType("LookupHandle", object)  # Lookup: the hits of one probe
DecisionHandle = NewType("DecisionHandle", object)  # SequenceDecision: which versions win
RowsHandle = NewType("RowsHandle", object)  # KeyIndexRows.Read: hit rows read by position
IndexingHandle = NewType("IndexingHandle", object)  # Future<List<String>>: new files being indexed
JsonText = str  # an answer of wire.py's, as JSON (py4j hands Java strings over as str)


class KeyIndexJvm(Protocol):
    """``io.icebergdoris.keyindex.KeyIndex``, as Python calls it (``JavaObject``: a py4j handle on
    a Spark or Iceberg object: a Dataset, a Table, a LiveFiles plan, a SparkSession)."""

    def request(self, json: str) -> RequestHandle: ...
    def collectBatchKeys(self, batch: JavaObject, table: JavaObject, request: RequestHandle) -> BatchKeysHandle: ...
    def describeBatch(self, keys: BatchKeysHandle, values_up_to: int) -> JsonText: ...  # wire.BatchSummary
    def lookup(
        self, spark: JavaObject, table: JavaObject, plan: JavaObject, batch: BatchKeysHandle, request: RequestHandle,
    ) -> LookupHandle: ...
    def lookupAnswer(self, lookup: LookupHandle) -> JsonText: ...  # wire.LookupAnswer
    def liveRows(self, lookup: LookupHandle) -> JavaObject: ...  # a Dataset<Row>
    def storedSequences(self, lookup: LookupHandle, column: str) -> JavaObject: ...  # a Dataset<Row>
    def decideBySequence(self, lookup: LookupHandle) -> DecisionHandle: ...
    def decisionAnswer(self, decision: DecisionHandle) -> JsonText: ...  # wire.SequenceAnswer
    def losingKeys(self, decision: DecisionHandle) -> JavaObject | None: ...  # a Dataset<Row>
    def readLiveRows(self, lookup: LookupHandle, table: JavaObject, columns_json: str) -> RowsHandle: ...
    def rowsFrame(self, rows: RowsHandle) -> JavaObject: ...  # a Dataset<Row>
    def rowsCount(self, rows: RowsHandle) -> int: ...
    def release(self, rows: RowsHandle) -> None: ...
    def indexNewFilesInBackground(
        self, spark: JavaObject, table: JavaObject, data_files: JavaObject, request: RequestHandle,
    ) -> IndexingHandle: ...
    def awaitIndexing(self, indexing: IndexingHandle) -> JsonText: ...  # wire.IndexingAnswer
    def newFilesRepeatKeys(
        self, spark: JavaObject, table: JavaObject, data_files: JavaObject, request: RequestHandle,
    ) -> JsonText: ...  # wire.RepeatsAnswer
    def cachedRows(self) -> int: ...
    def cachedBytes(self) -> int: ...
    def clear(self) -> None: ...
    def removeOrphanEntries(self, table: JavaObject, referenced: JavaObject) -> int: ...
    def filesWithKeysFromProbe(self) -> int: ...
    def filesReadFromPages(self) -> int: ...


def index(iceberg: IcebergJava) -> KeyIndexJvm:
    """The JVM's ``io.icebergdoris.keyindex.KeyIndex``."""
    return index_of(iceberg.spark)


def index_of(spark: "SparkSession") -> KeyIndexJvm:
    return cast(KeyIndexJvm, spark.sparkContext._jvm.io.icebergdoris.keyindex.KeyIndex)


def request(spark: "SparkSession", asked: wire.IndexRequest) -> RequestHandle:
    """``asked`` as the JVM's ``IndexRequest`` (parsed there, strictly)."""
    return index_of(spark).request(asked.to_json())


def session_request(spark: "SparkSession", key_columns: list[str], sequence_column: str | None) -> RequestHandle:
    """The request for ``key_columns`` (and ``sequence_column``) with the session's index settings
    (``spark.doris.key_index.*``: the cache budget, whether entries are stored)."""
    asked = wire.IndexRequest(tuple(key_columns), sequence_column, settings.max_rows(spark), settings.persist(spark))
    return request(spark, asked)
