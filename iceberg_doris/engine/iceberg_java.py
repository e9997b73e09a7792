"""Iceberg's Java API in Spark's JVM, reached through py4j."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from py4j.protocol import Py4JJavaError

from iceberg_doris.engine.table_names import TableName, parse_table_name
from iceberg_doris.errors import TableNotFoundError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

JavaObject = Any


class IcebergJava:
    """Handles to the Iceberg classes we use, bound to one SparkSession's JVM."""

    def __init__(self, spark: "SparkSession"):
        self.spark = spark
        self.jvm = spark.sparkContext._jvm
        iceberg = self.jvm.org.apache.iceberg
        self.expressions = iceberg.expressions.Expressions
        self.partition_spec = iceberg.PartitionSpec
        self.sort_order = iceberg.SortOrder
        self.table_identifier = iceberg.catalog.TableIdentifier
        self.namespace = iceberg.catalog.Namespace
        self.schema_class = iceberg.Schema
        self.spark_schema_util = iceberg.spark.SparkSchemaUtil
        self.spark3_util = iceberg.spark.Spark3Util
        # Our JVM helpers (jvm/src/main/java/io/icebergdoris/iceberg): loops over Iceberg objects
        # run there, because each py4j round trip costs ~0.1 ms and each Python iteration over a
        # Java collection ends in an exception that costs ~10 ms.
        self.helpers = self.jvm.io.icebergdoris.iceberg

    @property
    def catalog_name(self) -> str:
        # The session's own setting: currentCatalog() reads thread-local state, which a JVM thread
        # serving another Python thread does not have.
        return str(self.spark.conf.get("spark.sql.defaultCatalog", "spark_catalog"))

    def catalog(self) -> JavaObject:
        """The session's default Iceberg catalog (org.apache.iceberg.catalog.Catalog)."""
        return self.spark3_util.loadIcebergCatalog(self.spark._jsparkSession, self.catalog_name)

    def name(self, text: str) -> TableName:
        return parse_table_name(text, self.catalog_name)

    def identifier(self, name: TableName) -> JavaObject:
        # Built from the parts: TableIdentifier.parse would split a name holding a dot again.
        return self.table_identifier.of(self.namespace.of(self._string_array([name.namespace])), name.name)

    def load_table(self, name: TableName) -> JavaObject:
        """The Iceberg table, freshly loaded; TableNotFoundError if it does not exist."""
        try:
            return self.catalog().loadTable(self.identifier(name))
        except Py4JJavaError as error:
            if java_class(error) == "org.apache.iceberg.exceptions.NoSuchTableException":
                raise TableNotFoundError(
                    f"Table {name.qualified} does not exist in catalog {self.catalog_name}: "
                    f"check the name (SHOW TABLES IN {name.namespace}) or create it with CALL doris.create_table(...)"
                ) from None
            raise

    def table_exists(self, name: TableName) -> bool:
        return bool(self.catalog().tableExists(self.identifier(name)))

    def namespace_exists(self, namespace: str) -> bool:
        catalog = self.catalog()
        return bool(catalog.namespaceExists(self.namespace.of(self._string_array([namespace]))))

    def _string_array(self, items: list[str]) -> JavaObject:
        array = self.spark.sparkContext._gateway.new_array(self.jvm.java.lang.String, len(items))
        for i, item in enumerate(items):
            array[i] = item
        return array

    def java_list(self, items: list[Any]) -> JavaObject:
        result = self.jvm.java.util.ArrayList()
        for item in items:
            result.add(item)
        return result

    def java_set(self, items: list[Any]) -> JavaObject:
        result = self.jvm.java.util.HashSet()
        for item in items:
            result.add(item)
        return result

    def java_map(self, items: dict[str, str]) -> JavaObject:
        result = self.jvm.java.util.HashMap()
        for key, value in items.items():
            result.put(key, value)
        return result


def java_items(collection: JavaObject) -> list[JavaObject]:
    """The elements of a java.util.List as a Python list, by index: iterating it from Python
    would end in a NoSuchElementException that py4j and PySpark take ~10 ms to convert."""
    return [collection.get(i) for i in range(int(collection.size()))]


def join_locations(locations: Iterable[str]) -> str:
    """Locations as the JVM helpers take them: joined by their separator (see :func:`split_locations`)."""
    return "\n".join(locations)


def split_locations(joined: str) -> list[str]:
    """Locations joined by the JVM helpers' separator (a newline, which file URIs cannot hold)."""
    return joined.split("\n") if joined else []


def file_format(content_file: JavaObject) -> str:
    """An Iceberg data or delete file's format, as Iceberg names it: ``PARQUET``, ``AVRO``, ``ORC``, ``PUFFIN``."""
    return str(content_file.format().name())


def java_class(error: Py4JJavaError) -> str:
    return str(error.java_exception.getClass().getName())


def java_message(error: Py4JJavaError) -> str:
    message = error.java_exception.getMessage()
    return str(message) if message is not None else java_class(error)
