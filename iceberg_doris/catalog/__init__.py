"""Catalog and session wiring (the design card's ``catalog/``).

- :func:`session`: a SparkSession with the Iceberg runtime, our ``CALL doris.*`` bridge and the
  Iceberg catalog as default catalog (the write path).
- :func:`catalog`: pyiceberg's SqlCatalog on the same database (the Spark-free read path).
- :class:`CatalogSettings`: how home, catalog URI and warehouse are resolved.
"""

from iceberg_doris.catalog.pyiceberg_catalog import catalog
from iceberg_doris.catalog.settings import CatalogSettings
from iceberg_doris.catalog.spark_session import session, spark_conf

__all__ = ["CatalogSettings", "catalog", "session", "spark_conf"]
