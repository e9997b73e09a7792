"""Our ``spark.doris.*`` settings as the session holds them: read at each use (``SET`` takes effect
at once), a bad value refused with the setting named."""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceberg_doris.errors import ConfigurationError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def whole_number(spark: "SparkSession", key: str, default: int, unit: str) -> int:
    """The setting ``key`` as a whole number of ``unit`` (``default`` when unset)."""
    text = str(spark.conf.get(key, str(default))).strip()
    try:
        return int(text)
    except ValueError:
        raise ConfigurationError(f"{key} must be a whole number of {unit}, not {text!r}") from None
