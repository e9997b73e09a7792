"""What Spark itself prints at start-up, told apart from what iceberg-doris prints."""

from __future__ import annotations

# Spark 4's launcher enables the JDK's vector incubator module, and the JVM announces it; Ivy
# reports how it resolved spark.jars.packages (every line of its report starts with one of these).
_SPARK_START_UP = (
    "WARNING: Using incubator modules: jdk.incubator.vector",
    ":: ",
    "\t",
    "Ivy Default Cache set to: ",
    "The jars for the packages stored in: ",
)


def without_spark_start_up(stderr: str) -> str:
    """``stderr`` without the JVM's and Ivy's start-up report, which every Spark with
    ``spark.jars.packages`` prints; what remains is ours (and any real JVM warning)."""
    kept = [
        line for line in stderr.splitlines()
        if not line.startswith(_SPARK_START_UP) and not line.endswith(" added as a dependency")
    ]
    return "\n".join(kept)
