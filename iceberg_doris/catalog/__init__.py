"""The catalog: where tables live, and pyiceberg's Spark-free view of them (the public catalog API).

- :class:`CatalogSettings`: how home, catalog URI and warehouse are resolved (both the Spark
  session and :func:`catalog` use them).
- :func:`catalog`: pyiceberg's SqlCatalog on the same database (the Spark-free read path).

The Spark session on the same catalog (:func:`iceberg_doris.session`) and everything that builds
and patches it are in :mod:`iceberg_doris.spark_session`.
"""

from iceberg_doris.catalog.pyiceberg_catalog import catalog
from iceberg_doris.catalog.settings import CatalogSettings

__all__ = ["CatalogSettings", "catalog"]
