"""A Spark properties file for JVM-only clients: ``spark-sql``, the Thrift server, ``spark-submit``.

They read it at launch (``--properties-file``), so the jars reach the JVM's classpath and the
catalog is the default catalog. It never holds a secret: the catalog password stays out of it.
"""

from __future__ import annotations

from collections.abc import Mapping

from iceberg_doris.lake.settings import CatalogSettings

# The interpreter CALL doris.* starts in a driver without a Python side (jvm/.../PythonSide.java).
PYTHON_SETTING = "spark.doris.python"


def render_properties(conf: Mapping[str, str], settings: CatalogSettings) -> str:
    """``key=value`` lines in java.util.Properties syntax, with a header saying what is left out."""
    header = [
        "# Spark settings for iceberg-doris, made by: iceberg-doris --print-spark-conf",
        f"# Catalog {settings.name!r}: {settings.display_uri}",
        "# Use: spark-sql --properties-file FILE   (also spark-submit, start-thriftserver.sh)",
        f"# CALL doris.* there starts a Python side of the driver with {PYTHON_SETTING} (an interpreter",
        "# that has iceberg-doris and pyspark), on a loopback py4j gateway with a random secret.",
    ]
    if settings.kind == "postgresql":
        header += [
            "# No password is in this file. The PostgreSQL JDBC driver reads it from ~/.pgpass",
            "# (or the file $PGPASSFILE names; mode 0600), line: host:port:database:user:password.",
            "# Do not add it with --conf on a command line: every local user can read that in ps.",
        ]
    lines = [f"{_escape(key, is_key=True)}={_escape(value)}" for key, value in sorted(conf.items())]
    return "\n".join(header + lines) + "\n"


def _escape(text: str, *, is_key: bool = False) -> str:
    """java.util.Properties escapes: backslash always; in keys also the separators and spaces."""
    escaped = text.replace("\\", "\\\\").replace("\n", "\\n")
    if is_key:
        for char in (" ", "=", ":"):
            escaped = escaped.replace(char, "\\" + char)
    return escaped
