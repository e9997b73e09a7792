"""Secret Spark settings reach the driver after it starts, never on a process command line.

PySpark starts the driver JVM with every launch setting as ``--conf key=value`` on spark-submit's
command line, which every local user can read (``ps``). Catalog settings (``spark.sql.catalog.*``)
are read from the session's SQL conf when the catalog is first loaded, so secret ones (the JDBC
password, object-store keys, tokens) are left out of the launch and set afterwards: each value is
written to an owner-only file in an owner-only folder, which the JVM reads and deletes
(``jvm/.../SessionSecrets.java``). The value never crosses py4j as command text either, which py4j
logs at DEBUG level. ``SET`` shows such keys redacted (Spark's ``spark.redaction.regex``).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping
from typing import TYPE_CHECKING

from iceberg_doris.lake.masking import remember_secret

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CATALOG_PREFIX = "spark.sql.catalog."
# Spark's default spark.redaction.regex, plus the credential names Iceberg's catalogs use.
_SECRET_NAME = re.compile(r"secret|password|token|access[.\-_]?key|credential", re.IGNORECASE)


def is_secret_setting(key: str) -> bool:
    """A catalog setting whose value is a secret (and that a running session can still take)."""
    return key.startswith(CATALOG_PREFIX) and _SECRET_NAME.search(key.removeprefix(CATALOG_PREFIX)) is not None


def split_secret_settings(conf: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(settings safe to launch with, secret settings to supply once the driver runs)."""
    public = {k: v for k, v in conf.items() if not is_secret_setting(k)}
    secret = {k: v for k, v in conf.items() if is_secret_setting(k)}
    return public, secret


def supply_secret_settings(spark: "SparkSession", secrets: Mapping[str, str]) -> None:
    """Sets each secret in the running session's SQL conf (``spark.conf.get`` reads it back).

    Call it before the catalog is first used: a catalog reads its settings once, when loaded. A
    session made later with ``spark.newSession()`` starts from the launch settings, without them.
    """
    if not secrets:
        return
    receiver = spark._jvm.io.icebergdoris.spark.SessionSecrets
    with tempfile.TemporaryDirectory(prefix="iceberg-doris-secret-") as folder:  # mode 0700
        for index, (key, value) in enumerate(secrets.items()):
            remember_secret(value)
            path = os.path.join(folder, f"value-{index}")
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as out:
                out.write(value.encode("utf-8"))
            receiver.setFromFile(spark._jsparkSession, key, path)  # reads and deletes the file


def read_secret_setting(spark: "SparkSession", key: str) -> str | None:
    """The value of the secret setting ``key`` in the running session (None if unset), passed back
    through an owner-only file as it was handed over: ``spark.conf.get`` would return it as a py4j
    answer, which py4j logs at DEBUG level. Masked in every message from now on."""
    sender = spark._jvm.io.icebergdoris.spark.SessionSecrets
    with tempfile.TemporaryDirectory(prefix="iceberg-doris-secret-") as folder:  # mode 0700
        path = os.path.join(folder, "value")
        if not sender.writeToFile(spark._jsparkSession, key, path):
            return None
        with open(path, "rb") as source:
            value = source.read().decode("utf-8")
    remember_secret(value)
    return value
