"""What a session on an ``s3://`` warehouse adds: Iceberg's S3FileIO for the tables, Hadoop's
``s3a`` for Spark's own reads of source files, and the jars of both from Maven Central.

- Tables: ``iceberg-aws-bundle`` of the line's Iceberg release (the AWS SDK v2, unrelocated), with
  the catalog's ``io-impl`` set to ``S3FileIO`` and its endpoint, path-style and region properties
  (:class:`iceberg_doris.lake.object_storage.S3Location`).
- Source files (``spark.read.csv("s3a://...")``, ``doris.load`` of a path): ``hadoop-aws`` of the
  Hadoop inside the installed PySpark. Its Maven dependency on the whole AWS SDK
  (``software.amazon.awssdk:bundle``, about 600 MB) is excluded: the bundle above has the same SDK
  classes, but for the two modules ``s3a`` needs beyond it (the transfer manager and the Apache
  HTTP client), which come at the bundle's SDK version. Their transitive HTTP stacks (Netty 4.1,
  HttpClient 5) are excluded too: Spark ships its own, and ``s3a`` uses neither.
- Credentials: none in any setting. Both take the AWS SDK's default chain (environment, profile,
  shared credentials file, instance role), which the driver JVM and its executors read where they
  run. ``s3://`` paths read by Spark itself go through ``s3a`` too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from iceberg_doris.errors import SetupError
from iceberg_doris.lake.object_storage import S3Location
from iceberg_doris.spark_session.spark_lines import SparkLine

# The AWS SDK v2 inside each Iceberg release's iceberg-aws-bundle (its VersionInfo class). For a
# release not listed, hadoop-aws brings the SDK bundle it was built with (large, but consistent).
AWS_SDK_OF_ICEBERG = {"1.12.0": "2.54.17"}
# What hadoop-aws and the two SDK modules would bring that the session has already.
S3A_EXCLUDES = (
    "software.amazon.awssdk:bundle",
    "software.amazon.awssdk:netty-nio-client",
    "software.amazon.awssdk:apache5-client",
    "org.slf4j:slf4j-api",
    "commons-logging:commons-logging",
    "commons-codec:commons-codec",
    "org.apache.httpcomponents:httpclient",
    "org.apache.httpcomponents:httpcore",
)
DEFAULT_CREDENTIALS = "software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider"


@dataclass(frozen=True)
class S3Jars:
    """The Maven packages an ``s3://`` session adds, and the dependencies of theirs it leaves out."""

    packages: tuple[str, ...]
    excludes: tuple[str, ...]


def s3_jars(line: SparkLine, hadoop: str | None = None) -> S3Jars:
    """The jars of S3FileIO and ``s3a`` on ``line`` with the installed PySpark's Hadoop."""
    hadoop = hadoop or pyspark_hadoop_version()
    packages = (f"org.apache.iceberg:iceberg-aws-bundle:{line.iceberg}", f"org.apache.hadoop:hadoop-aws:{hadoop}")
    sdk = AWS_SDK_OF_ICEBERG.get(line.iceberg)
    if sdk is None or not _uses_sdk_v2(hadoop):
        return S3Jars(packages, ())
    modules = (f"software.amazon.awssdk:s3-transfer-manager:{sdk}", f"software.amazon.awssdk:apache-client:{sdk}")
    return S3Jars(packages + modules, S3A_EXCLUDES)


def _uses_sdk_v2(hadoop: str) -> bool:
    """Hadoop 3.4 moved s3a to the AWS SDK v2; 3.3 (PySpark 3.5's) is on v1."""
    major, minor = (int(part) for part in hadoop.split(".")[:2])
    return (major, minor) >= (3, 4)


def pyspark_hadoop_version() -> str:
    """The Hadoop release inside the installed PySpark (its ``hadoop-client-api`` jar)."""
    import pyspark

    jars = sorted((Path(pyspark.__file__).parent / "jars").glob("hadoop-client-api-*.jar"))
    if not jars:
        raise SetupError(
            "Cannot tell which Hadoop the installed PySpark has (no hadoop-client-api jar in pyspark/jars), "
            "so not which hadoop-aws reads s3a:// files: add org.apache.hadoop:hadoop-aws:<its version> "
            "to spark.jars.packages yourself."
        )
    return jars[-1].name.removeprefix("hadoop-client-api-").removesuffix(".jar")


S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO"


def s3_file_io_properties(location: S3Location) -> dict[str, str]:
    """The catalog properties of Iceberg's S3FileIO for ``location``."""
    properties = {"io-impl": S3_FILE_IO}
    if location.endpoint is not None:
        properties["s3.endpoint"] = location.endpoint
        properties["s3.path-style-access"] = str(location.path_style).lower()
    if location.region is not None:
        properties["client.region"] = location.region
    return properties


def s3_spark_conf(catalog: str, location: S3Location, hadoop_version: str | None = None) -> dict[str, str]:
    """The catalog's S3FileIO properties and Hadoop's ``s3a`` settings, without credentials."""
    conf = {f"spark.sql.catalog.{catalog}.{key}": value for key, value in s3_file_io_properties(location).items()}
    hadoop: dict[str, str] = {}
    if _uses_sdk_v2(hadoop_version or pyspark_hadoop_version()):
        # s3a's own default chain starts with settings we never write; the SDK's reads the
        # environment, the profile and the shared credentials file.
        hadoop["fs.s3a.aws.credentials.provider"] = DEFAULT_CREDENTIALS
    hadoop |= {
        "fs.s3a.path.style.access": str(location.path_style).lower(),
        # Iceberg writes table paths as s3://: Spark's own reads of them (and of s3:// sources) go
        # through s3a as well.
        "fs.s3.impl": "org.apache.hadoop.fs.s3a.S3AFileSystem",
    }
    if location.endpoint is not None:
        hadoop["fs.s3a.endpoint"] = location.endpoint
        hadoop["fs.s3a.connection.ssl.enabled"] = str(location.endpoint.lower().startswith("https")).lower()
    if location.region is not None:
        hadoop["fs.s3a.endpoint.region"] = location.region
    conf.update({f"spark.hadoop.{key}": value for key, value in hadoop.items()})
    return conf
