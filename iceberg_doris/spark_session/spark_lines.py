"""The Spark lines iceberg-doris runs on, and what each needs.

Iceberg ships one Spark runtime per Spark line (``iceberg-spark-runtime-<line>_<scala>``); each
line here names the newest Iceberg release built for it, and our bridge jar is built once per
line too (``jvm/pom.xml``, one Maven profile each). The running PySpark picks the line.

``CALL`` is parsed differently on each: Spark 4 has ``CALL`` and a procedure catalog API of its
own, so there our ``doris`` catalog is a plain Spark ``ProcedureCatalog``; Spark 3.5 has neither,
so there our parser extension wraps Iceberg's and builds Iceberg's ``CALL`` plan.
"""

from __future__ import annotations

from dataclasses import dataclass

from iceberg_doris.errors import SetupError

ICEBERG_EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
DORIS_EXTENSIONS = "io.icebergdoris.spark.DorisSparkSessionExtensions"
BRIDGE_VERSION = "0.1.0"  # jvm/pom.xml's version


@dataclass(frozen=True)
class SparkLine:
    """One supported ``major.minor`` of Spark."""

    line: str
    scala: str
    iceberg: str
    native_call: bool  # Spark's own CALL and ProcedureCatalog (Spark 4)
    # How Iceberg's rewrite writer (our staged writes: files written, not committed) is reached:
    # Iceberg 1.12's Spark 4.1 module writes to a table registered in its SparkTableCache under the
    # file-set id; the other lines name the table with the rewritten-file-scan-task-set-id option.
    staged_writes_by_table_cache: bool
    # Reading one snapshot: Iceberg's Spark 3.5 module takes the snapshot-id read option and reads
    # it under the current schema; Spark 4's refuses it for VERSION AS OF, under the snapshot's.
    snapshot_id_read_option: bool

    @property
    def iceberg_package(self) -> str:
        """The Iceberg Spark runtime's Maven coordinate."""
        return f"org.apache.iceberg:iceberg-spark-runtime-{self.line}_{self.scala}:{self.iceberg}"

    @property
    def maven_profile(self) -> str:
        return f"spark-{self.line}"

    @property
    def bridge_name(self) -> str:
        """The file name Maven gives this line's bridge jar."""
        return f"iceberg-doris-bridge-spark{self.line}_{self.scala}-{BRIDGE_VERSION}.jar"

    @property
    def sql_extensions(self) -> tuple[str, ...]:
        """``spark.sql.extensions``: Iceberg's (its DDL: branches, write order, ...), then ours: on
        every line it runs Spark's own write statements on Doris tables as the Doris operation
        (``INSERT INTO`` is ``doris.load``, ...); on Spark 3.5 it also parses ``CALL doris.*``."""
        return (ICEBERG_EXTENSIONS, DORIS_EXTENSIONS)

    @property
    def session_parser(self) -> str:
        """The class of the SQL parser a session with our extensions has: on Spark 4 a proxy over
        Iceberg's, known by the class answering its calls (``UpdateFromParser``), on 3.5 ours."""
        if self.native_call:
            return "io.icebergdoris.spark.UpdateFromParser$Forwarding"
        return "io.icebergdoris.spark.DorisCallParser"


SUPPORTED = (
    SparkLine("4.1", "2.13", "1.12.0", native_call=True, staged_writes_by_table_cache=True, snapshot_id_read_option=False),
    SparkLine("4.0", "2.13", "1.11.0", native_call=True, staged_writes_by_table_cache=False, snapshot_id_read_option=False),
    SparkLine("3.5", "2.12", "1.12.0", native_call=False, staged_writes_by_table_cache=False, snapshot_id_read_option=True),
)
DEFAULT = SUPPORTED[0]

# The catalog drivers, from Maven Central like the Iceberg runtime (they bundle their native parts).
SQLITE_JDBC_PACKAGE = "org.xerial:sqlite-jdbc:3.51.1.0"
POSTGRES_JDBC_PACKAGE = "org.postgresql:postgresql:42.7.8"


def line_of(spark_version: str) -> SparkLine:
    """The supported line of a Spark version (``4.1.4`` -> 4.1), or a SetupError naming the fix."""
    major_minor = ".".join(spark_version.split(".")[:2])
    for line in SUPPORTED:
        if line.line == major_minor:
            return line
    supported = ", ".join(line.line for line in SUPPORTED)
    raise SetupError(
        f"PySpark {spark_version} is not a Spark line iceberg-doris supports ({supported}): Apache Iceberg "
        f"publishes no runtime for it yet. Install a supported one, e.g. pip install 'pyspark>={DEFAULT.line},<"
        f"{_next_minor(DEFAULT.line)}'."
    )


def running_line() -> SparkLine:
    """The line of the PySpark this process imports."""
    import pyspark

    return line_of(pyspark.__version__)


def _next_minor(line: str) -> str:
    major, minor = line.split(".")
    return f"{major}.{int(minor) + 1}"
