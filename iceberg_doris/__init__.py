"""iceberg-doris: Apache Doris data-model semantics on Apache Iceberg tables, driven from PySpark.

- :func:`session` gives a SparkSession where ``CALL doris.<procedure>(...)`` works.
- :func:`catalog` gives pyiceberg's view of the same catalog.
- :mod:`iceberg_doris.doris` has every procedure as a Python function.
- :mod:`iceberg_doris.errors` has the exceptions.
- :func:`transaction` commits several loads into one table together (Doris ``BEGIN ... COMMIT``).
"""

from typing import TYPE_CHECKING, Any

from iceberg_doris.entry.bridge import install
from iceberg_doris.entry.session import session
from iceberg_doris.errors import DorisError
from iceberg_doris.lake import CatalogSettings, catalog
from iceberg_doris.spark_session.builder import spark_conf

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from iceberg_doris.operations.transaction import LoadTransaction

__version__ = "0.1.0"


def transaction(spark: "SparkSession", table: str, **options: Any) -> "LoadTransaction":
    """A load transaction on ``table``: see :func:`iceberg_doris.operations.transaction.transaction`."""
    from iceberg_doris.operations.transaction import transaction as start

    return start(spark, table, **options)


__all__ = ["CatalogSettings", "DorisError", "catalog", "install", "session", "spark_conf", "transaction", "__version__"]
