"""Reading a secret setting (the catalog password) back from the running session.

``spark.conf.get`` would return it as a py4j answer, which py4j logs at DEBUG level; the value
comes back through an owner-only file instead (``jvm/.../SessionSecrets.java``), the way
:mod:`iceberg_doris.catalog.session_secrets` hands it over.
"""

from __future__ import annotations

import os
import tempfile
from typing import TYPE_CHECKING

from iceberg_doris.masking import remember_secret

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def read_secret_setting(spark: "SparkSession", key: str) -> str | None:
    """The value of ``key`` in the session's SQL conf, None if unset; masked in every message from now on."""
    sender = spark._jvm.io.icebergdoris.spark.SessionSecrets
    with tempfile.TemporaryDirectory(prefix="iceberg-doris-secret-") as folder:  # mode 0700
        path = os.path.join(folder, "value")
        if not sender.writeToFile(spark._jsparkSession, key, path):
            return None
        with open(path, "rb") as source:
            value = source.read().decode("utf-8")
    remember_secret(value)
    return value
